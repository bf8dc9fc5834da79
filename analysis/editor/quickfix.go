package editor

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
)

// Fix is a code action of kind "quickfix": its edits repair a diagnostic.
// Preferred marks the only candidate of a fix with several (an editor may
// apply it at once).
type Fix struct {
	Title     string
	Edits     []TextEdit
	Preferred bool
}

// Diagnostic codes the editor package finds itself (lint does not report
// them yet): a term without a workload, an @SPL without its import, a
// revision the repository has no ref for.
const (
	CodeNoWorkload      = "no-workload"
	CodeMissingImport   = "missing-import"
	CodeUnknownRevision = "unknown-revision"
)

// splString is an annotation string holding SPL and where it is.
type splString struct {
	file *javasrc.File
	host *javasrc.Method
	ann  *javasrc.SPLAnnotation
	v    *javasrc.StringValue
	what int
}

// stringAt finds the annotation string of file whose expression holds the
// document span sp, and sp's bytes in its text.
func stringAt(f *javasrc.File, sp textpos.Span) (splString, spl.Span, bool) {
	var s splString
	var ts spl.Span
	ok := false
	eachString(f, func(m *javasrc.Method, ann *javasrc.SPLAnnotation, v *javasrc.StringValue, what int) bool {
		if sp.Start < v.Span.Start || sp.End > v.Span.End {
			return true
		}
		a, okA := textOffset(v, sp.Start)
		if !okA {
			return true
		}
		b := a
		if sp.End > sp.Start {
			if e, okB := textOffset(v, sp.End-1); okB {
				b = e + 1
			}
		}
		s, ts, ok = splString{f, m, ann, v, what}, spl.Span{Start: a, End: b}, true
		return false
	})
	return s, ts, ok
}

// edit replaces the text span ts of s's string with text.
func (s splString) edit(ts spl.Span, text string) TextEdit {
	return TextEdit{Location: location(s.file, s.v.DocSpan(textpos.Span{Start: ts.Start, End: ts.End})), NewText: javaEscape(text)}
}

// javaEscape writes text as it must appear inside a Java string literal.
func javaEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// context is the formula context resolution needs for s.
func (s splString) context() *workspace.Formula {
	f := &workspace.Formula{Path: s.file.Path, File: s.file, Method: s.host, Value: s.v}
	f.Aliases, f.GeneratorAliases = annotationAliases(s.ann)
	return f
}

// QuickFixes returns the repairs of a diagnostic of a Java file of the
// workspace, one Fix per candidate; none when it has no obvious one
// (docs/editor-quickfixes.md lists which have). ext resolves classes
// outside the workspace, as lint was given it (nil: none).
func (w Workspace) QuickFixes(d workspace.Diagnostic, ext workspace.External) []Fix {
	f := w.File(d.Path)
	if f == nil {
		return nil
	}
	if d.Code == "unknown-interpretation" {
		return interpretationFix(f, d)
	}
	s, ts, ok := stringAt(f, d.Span)
	if !ok {
		return nil
	}
	switch d.Code {
	case workspace.CodeUnknownMethod, workspace.CodeUnknownAlias, workspace.CodeUnknownClass:
		return w.nameFixes(s, ts, d.Code, ext)
	case workspace.CodeWorkloadLoop:
		return workloadLoopFix(s, ts)
	case spl.CodeMetricMismatch:
		return metricFixes(s, ts)
	case spl.CodeUnknownOperator:
		if to := quotedAfter(d.Message, "write "); to != "" {
			return []Fix{{Title: "Write " + to, Edits: []TextEdit{s.edit(ts, to)}, Preferred: true}}
		}
	case spl.CodeUnclosed:
		if closer := quotedAfter(d.Message, "expected "); closer != "" {
			at := spl.Span{Start: ts.Start, End: ts.Start}
			return []Fix{{Title: "Insert " + closer, Edits: []TextEdit{s.edit(at, closer)}, Preferred: true}}
		}
	case spl.CodeUndeclaredVariable:
		return variableFixes(s, ts)
	case spl.CodeDuplicateValue:
		return duplicateValueFix(s, ts)
	case workspace.CodeGeneratorShape:
		return w.staticFix(s, ts)
	case workspace.CodeNoOverload:
		return w.overloadFix(s, ts)
	}
	return nil
}

// overloadFix rewrites the parameter types of a method reference that
// matches no overload when the method has one declaration only, of the
// written arity: its parameter types are then what was meant.
func (w Workspace) overloadFix(s splString, ts spl.Span) []Fix {
	e, ok := entityAt(s, ts)
	if !ok || e.method == nil || e.method.Params == nil {
		return nil
	}
	loose := *e.method
	loose.Params = nil
	m, ok := w.resolve(s.file, s.host, s.ann, entity{method: &loose, span: e.span, name: e.name})
	if !ok || len(m.Params) != len(e.method.Params) {
		return nil
	}
	text := s.v.Text
	open := strings.Index(text[e.span.Start:min(e.span.End, len(text))], m.Name+"(")
	if open < 0 {
		return nil
	}
	open += e.span.Start + len(m.Name) + 1
	end := strings.IndexByte(text[open:], ')')
	if end < 0 {
		return nil
	}
	params := strings.Join(erased(m), ",")
	return []Fix{{Title: "Change to " + m.Name + "(" + params + ")", Edits: []TextEdit{s.edit(spl.Span{Start: open, End: open + end}, params)}, Preferred: true}}
}

func erased(m *javasrc.Method) []string {
	out := make([]string, len(m.Params))
	for i, p := range m.Params {
		out[i] = p.Erased
	}
	return out
}

// staticFix makes a generator that is not static static: "static " before
// its return type in its declaration (in whichever file declares it). A
// generator of another shape (returning a primitive) has no such repair.
func (w Workspace) staticFix(s splString, ts spl.Span) []Fix {
	e, ok := entityAt(s, ts)
	if !ok {
		return nil
	}
	m, ok := w.resolve(s.file, s.host, s.ann, e)
	if !ok || m.Static || m.ReturnType == "" {
		return nil
	}
	f := w.declFile(m)
	if f == nil || m.NameSpan.Start > len(f.Src) || m.Span.Start > m.NameSpan.Start {
		return nil
	}
	i := strings.LastIndex(f.Src[m.Span.Start:m.NameSpan.Start], m.ReturnType)
	if i < 0 {
		return nil
	}
	at := m.Span.Start + i
	edit := TextEdit{Location: location(f, textpos.Span{Start: at, End: at}), NewText: "static "}
	return []Fix{{Title: "Make " + m.Name + " static", Edits: []TextEdit{edit}, Preferred: true}}
}

// duplicateValueFix removes a repeated value of a quantifier's set with the
// separator before it: the diagnostic marks the later occurrence, so one
// value and its comma always precede it.
func duplicateValueFix(s splString, ts spl.Span) []Fix {
	text := s.v.Text
	if ts.End > len(text) || ts.Start >= ts.End {
		return nil
	}
	start := ts.Start
	for start > 0 && (text[start-1] == ' ' || text[start-1] == '\t') {
		start--
	}
	if start == 0 || text[start-1] != ',' {
		return nil
	}
	return []Fix{{Title: "Remove the repeated " + text[ts.Start:ts.End], Edits: []TextEdit{s.edit(spl.Span{Start: start - 1, End: ts.End}, "")}, Preferred: true}}
}

// quotedAfter returns the first Go-quoted string after marker in msg.
func quotedAfter(msg, marker string) string {
	i := strings.Index(msg, marker+`"`)
	if i < 0 {
		return ""
	}
	q, err := strconv.QuotedPrefix(msg[i+len(marker):])
	if err != nil {
		return ""
	}
	s, _ := strconv.Unquote(q)
	return s
}

// fixes makes one Fix per replacement of the text span ts, preferring the
// only one.
func fixes(s splString, ts spl.Span, title string, repl []string) []Fix {
	var out []Fix
	for _, r := range repl {
		out = append(out, Fix{Title: fmt.Sprintf(title, r), Edits: []TextEdit{s.edit(ts, r)}, Preferred: len(repl) == 1})
	}
	return out
}

// entityAt is the reference of s's string whose span holds ts.
func entityAt(s splString, ts spl.Span) (entity, bool) {
	for _, e := range entities(s.what, s.v.Text) {
		if e.span.Start <= ts.Start && ts.End <= e.span.End {
			return e, true
		}
	}
	return entity{}, false
}

// nameFixes offers the names close to a misspelt method, generator, alias
// or class.
func (w Workspace) nameFixes(s splString, ts spl.Span, code string, ext workspace.External) []Fix {
	e, ok := entityAt(s, ts)
	if !ok {
		return nil
	}
	text := s.v.Text
	ctx := s.context()
	var class, member string
	bare := false
	switch {
	case e.gen != nil:
		class, member, bare = e.gen.Class, e.gen.Method, e.gen.Class == ""
		if bare {
			member = e.gen.Name
		}
	case e.method != nil && !e.method.Self:
		class, member, bare = e.method.Class, e.method.Method, e.method.Class == ""
		if bare {
			member = e.method.Name
		}
	default:
		return nil
	}
	if e.name.End <= e.name.Start || text[e.name.Start:e.name.End] != member {
		return nil // the reference goes through an alias declared elsewhere
	}
	switch {
	case code == workspace.CodeUnknownClass && !bare:
		return w.classFixes(s, e, class)
	case code == workspace.CodeUnknownMethod && !bare:
		cls := w.Index.ClassOf(ctx, class, ext)
		return fixes(s, e.name, "Change to %s", w.Index.SimilarMethods(cls, member, ext))
	case code == workspace.CodeUnknownAlias && bare:
		generator := e.gen != nil
		var names []string
		aliases := ctx.Aliases
		if generator {
			aliases = ctx.GeneratorAliases
		}
		for _, a := range aliases {
			names = append(names, a.Name)
		}
		if s.host != nil {
			for t := s.host.Type; t != nil; t = t.Outer {
				for _, m := range w.Index.MethodsOf(t) {
					if !m.IsConstructor && workspace.IsGenerator(m) == generator {
						names = append(names, m.Name)
					}
				}
			}
		}
		return fixes(s, e.name, "Change to %s", workspace.Similar(member, names))
	}
	return nil
}

// classFixes offers workspace classes for a class name that resolves to
// none: the same simple name in another package (written qualified), or a
// close name.
func (w Workspace) classFixes(s splString, e entity, written string) []Fix {
	hs := highlightsOf(s.what, s.v.Text)
	// the class as written: the namespace and class tokens of the entity
	cs := spl.Span{Start: -1}
	for _, h := range hs {
		if h.Span.Start >= e.span.Start && h.Span.End <= e.span.End && (h.Kind == spl.HlNamespace || h.Kind == spl.HlClass) {
			if cs.Start < 0 {
				cs.Start = h.Span.Start
			}
			cs.End = h.Span.End
		}
	}
	if cs.Start < 0 || s.v.Text[cs.Start:cs.End] != written {
		return nil // a project prefix or a class spelt across escapes
	}
	simple := written[strings.LastIndexByte(written, '.')+1:]
	var same, close []string
	bySimple := map[string][]string{}
	var simples []string
	for _, q := range w.Index.TypesWithPrefix("", 0) {
		sn := q[strings.LastIndexByte(q, '.')+1:]
		if sn == simple {
			same = append(same, q)
		}
		if len(bySimple[sn]) == 0 {
			simples = append(simples, sn)
		}
		bySimple[sn] = append(bySimple[sn], q)
	}
	if len(same) == 0 {
		for _, sn := range workspace.Similar(simple, simples) {
			close = append(close, bySimple[sn]...)
		}
		same = close
	}
	// Written as briefly as the file can resolve it: "Searcher" beside
	// it, "pkg.Searcher" elsewhere.
	var scope *javasrc.Type
	if s.host != nil {
		scope = s.host.Type
	}
	for i, q := range same {
		if short := q[strings.LastIndexByte(q, '.')+1:]; w.Index.ResolveClassIn(s.file, scope, short) == w.Index.Type(q) {
			same[i] = short
		}
	}
	sort.Strings(same)
	return fixes(s, cs, "Change to %s", same)
}

// workloadLoopFix removes "[gen]" after a workload loop: it runs its own
// workload.
func workloadLoopFix(s splString, ts spl.Span) []Fix {
	text := s.v.Text
	lb := strings.LastIndexByte(text[:ts.Start], '[')
	rb := strings.IndexByte(text[ts.End:], ']')
	if lb < 0 || rb < 0 || strings.TrimSpace(text[lb+1:ts.Start]) != "" {
		return nil
	}
	return []Fix{{Title: "Remove " + text[lb:ts.End+rb+1], Edits: []TextEdit{s.edit(spl.Span{Start: lb, End: ts.End + rb + 1}, "")}, Preferred: true}}
}

// metricFixes offers to compare the same metric on both sides: either
// side's. A side without a metric is wall time; its side can only be
// changed by naming the metric on the other side.
func metricFixes(s splString, ts spl.Span) []Fix {
	u, _ := spl.Parse(s.v.Text)
	for _, fm := range u.Formulas {
		for _, c := range spl.Comparisons(fm.Body) {
			if c.OpSpan != ts {
				continue
			}
			name := func(m string) string {
				if m == "" {
					return "wall"
				}
				return m
			}
			var out []Fix
			for _, p := range []struct{ from, to *spl.Term }{{c.Left, c.Right}, {c.Right, c.Left}} {
				if p.to.MetricSpan.End > p.to.MetricSpan.Start {
					m := name(p.from.Metric)
					out = append(out, Fix{Title: fmt.Sprintf("Compare %s on both sides", m), Edits: []TextEdit{s.edit(p.to.MetricSpan, m)}})
				}
			}
			return out
		}
	}
	return nil
}

// variableFixes offers the formula's declared variables close to an
// undeclared one.
func variableFixes(s splString, ts spl.Span) []Fix {
	u, _ := spl.Parse(s.v.Text)
	name := s.v.Text[ts.Start:ts.End]
	for _, fm := range u.Formulas {
		if fm.Span.Start > ts.Start || ts.End > fm.Span.End {
			continue
		}
		var vars []string
		for _, q := range fm.Quantifiers {
			for _, v := range q.Vars {
				vars = append(vars, v.Name)
			}
		}
		return fixes(s, ts, "Change to %s", workspace.Similar(name, vars))
	}
	return nil
}

// interpretationFix offers the interpretation close to an unknown one.
func interpretationFix(f *javasrc.File, d workspace.Diagnostic) []Fix {
	written := f.Src[d.Span.Start:d.Span.End]
	v, err := strconv.Unquote(written)
	if err != nil {
		return nil // not a plain literal: a constant or a concatenation
	}
	var out []Fix
	names := workspace.Similar(v, []string{"quick", "parametric", "nonparametric", "rank"})
	for _, n := range names {
		out = append(out, Fix{Title: "Change to " + n, Edits: []TextEdit{{Location: location(f, d.Span), NewText: strconv.Quote(n)}}, Preferred: len(names) == 1})
	}
	return out
}

// MissingWorkloads finds the terms of f's formulas that measure a method
// of the workspace without a workload ("SELF(n)"), which a check cannot
// measure, each with a fix per generator of the annotated class (and its
// enclosing classes) whose parameters take the term's arguments.
func (w Workspace) MissingWorkloads(f *javasrc.File) []Problem {
	formulas, _ := workspace.JavaFormulas(f)
	return w.MissingWorkloadsOf(f, formulas)
}

// MissingWorkloadsOf is MissingWorkloads over f's formulas as extracted
// already (an open document's): the editor asks on every change.
func (w Workspace) MissingWorkloadsOf(f *javasrc.File, formulas []*workspace.Formula) []Problem {
	var out []Problem
	for _, fm := range formulas {
		if fm.Broken || fm.Method == nil || fm.Value == nil {
			continue
		}
		s := splString{file: f, host: fm.Method, v: fm.Value, what: strFormula}
		for _, ann := range fm.Method.SPL {
			for _, v := range ann.Formulas {
				if v == fm.Value {
					s.ann = ann
				}
			}
		}
		for _, t := range spl.Terms(fm.Parsed.Body) {
			if t.Generator != nil || t.Method == nil {
				continue
			}
			if t.Method.Class == "" && !t.Method.Self {
				if a := workspace.FindAlias(fm.Aliases, t.Method.Name); a != nil && a.BoundGenerator != nil {
					continue
				}
			}
			target, err := w.Index.ResolveMethod(fm, t.Method)
			if err != nil || target.Decl == nil || workspace.IsWorkloadLoop(target.Decl) {
				continue
			}
			sp := t.Method.Span
			d := workspace.Diagnostic{Path: f.Path, Severity: workspace.Warning, Code: CodeNoWorkload,
				Message: fmt.Sprintf("%s has no workload to be measured on: write a generator in brackets, e.g. %s[gen](…)", fm.Value.Text[sp.Start:sp.End], fm.Value.Text[sp.Start:sp.End])}
			loc := location(f, fm.Value.DocSpan(textpos.Span{Start: sp.Start, End: sp.End}))
			d.Range, d.Span = loc.Range, loc.Span
			p := Problem{Diagnostic: d}
			gens := w.fittingGenerators(fm, t)
			for _, g := range gens {
				p.Fixes = append(p.Fixes, Fix{Title: "Measure on " + g, Edits: []TextEdit{s.edit(spl.Span{Start: sp.End, End: sp.End}, "["+g+"]")}, Preferred: len(gens) == 1})
			}
			out = append(out, p)
		}
	}
	return out
}

// Problem is a diagnostic the editor package finds, with its fixes.
type Problem struct {
	Diagnostic workspace.Diagnostic
	Fixes      []Fix
}

// fittingGenerators names, as the formula can write them, the generators
// of the annotated class and its enclosing classes (static: lint refuses
// the others) whose parameters take
// the term's arguments.
func (w Workspace) fittingGenerators(fm *workspace.Formula, t *spl.Term) []string {
	var out []string
	for cls := fm.Method.Type; cls != nil; cls = cls.Outer {
		for _, g := range w.Index.MethodsOf(cls) {
			if g.IsConstructor || !g.Static || !workspace.IsGenerator(g) || workspace.IsWorkloadLoop(g) || len(g.Params) != len(t.Args) {
				continue
			}
			fit := true
			for i, a := range t.Args {
				if k, ok := workspace.ArgKind(fm.Parsed, a); ok && !workspace.ArgFits(k, g.Params[i].Erased) {
					fit = false
				}
			}
			name := g.Name
			if cls != fm.Method.Type {
				name = cls.QualifiedName + "#" + g.Name
			}
			if fit && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

var packageDecl = regexp.MustCompile(`(?m)^[ \t]*package[ \t]+[\w.]+[ \t]*;[^\n]*`)

// MissingImport finds an @SPL written by its simple name in a file that
// does not import it (javac rejects the file; the Java language server's
// own fix may be absent where perfls is the only server), with the fix
// that adds the import after the others.
func MissingImport(f *javasrc.File) *Problem {
	if f.Package == "dev.perfls" {
		return nil
	}
	for _, imp := range f.Imports {
		if !imp.Static && (imp.Path == "dev.perfls.SPL" || imp.Wildcard && imp.Path == "dev.perfls") {
			return nil
		}
	}
	var at textpos.Span
	found := false
	for _, m := range f.Methods {
		for _, ann := range m.SPL {
			a := ann.Span
			if a.End <= len(f.Src) && strings.HasPrefix(f.Src[a.Start:a.End], "@SPL") {
				at, found = textpos.Span{Start: a.Start, End: a.Start + len("@SPL")}, true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		return nil
	}
	// After the last import, else after the package declaration, else at
	// the top.
	ins, text := 0, "import dev.perfls.SPL;\n\n"
	if n := len(f.Imports); n > 0 {
		ins, text = f.Imports[n-1].Span.End, "\nimport dev.perfls.SPL;"
	} else if loc := packageDecl.FindStringIndex(f.Src); loc != nil {
		ins, text = loc[1], "\n\nimport dev.perfls.SPL;"
	}
	d := workspace.Diagnostic{Path: f.Path, Range: f.Mapper.Range(at), Span: at, Severity: workspace.Error, Code: CodeMissingImport,
		Message: "@SPL is not imported: add import dev.perfls.SPL; (perfls-annotations on the classpath)"}
	edit := TextEdit{Location: location(f, textpos.Span{Start: ins, End: ins}), NewText: text}
	return &Problem{Diagnostic: d, Fixes: []Fix{{Title: "Import dev.perfls.SPL", Edits: []TextEdit{edit}, Preferred: true}}}
}
