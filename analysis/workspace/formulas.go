// Package workspace connects the Java source model with the SPL language: it
// finds the formulas of a file, reports their diagnostics at document
// positions, indexes the workspace's types and methods, resolves formula
// references to methods, and plans the measurements a check needs.
// It is pure logic: callers read files and run JVMs.
package workspace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
)

// Severity follows LSP's DiagnosticSeverity names.
type Severity string

const (
	Error       Severity = "error"
	Warning     Severity = "warning"
	Information Severity = "information"
	Hint        Severity = "hint"
)

// Diagnostic is a problem at a document range.
type Diagnostic struct {
	Path     string        `json:"file"`
	Range    textpos.Range `json:"range"`
	Span     textpos.Span  `json:"-"` // byte span in the document
	Severity Severity      `json:"severity"`
	Code     string        `json:"code"`
	Message  string        `json:"message"`
}

// Formula is one formula string of a source file and what it parsed to.
type Formula struct {
	Path   string
	File   *javasrc.File        // nil for a standalone .spl file
	Method *javasrc.Method      // the annotated method; nil in .spl files
	Value  *javasrc.StringValue // the formula's string; nil in .spl files
	Parsed *spl.Formula
	// Aliases visible to this formula: those declared next to it (thesis
	// `name := entity` in the same string or .spl file) and the original
	// tool's methods={…} / generators={…} elements of the same annotation.
	Aliases          []*spl.Alias
	GeneratorAliases []*spl.Alias

	// Interpretation is the annotation's interpretation= element: how this
	// formula is decided ("" = the project's or the automatic choice).
	Interpretation string

	// Broken is set when the formula's text has errors: its AST is partial,
	// so it is reported but never measured.
	Broken bool

	mapper *textpos.Mapper // positions in the formula's document
}

// Line is the 1-based document line where the formula starts.
func (f *Formula) Line() int {
	start := f.Parsed.Span.Start
	if f.Value != nil {
		start = f.Value.Span.Start
	}
	return f.mapper.Position(start).Line + 1
}

// Text is the formula as written: the annotation's string, or its text in
// a .spl file.
func (f *Formula) Text() string {
	if f.Value != nil {
		return f.Value.Text
	}
	if t := f.mapper.Text(); f.Parsed.Span.End <= len(t) {
		return strings.TrimSpace(t[f.Parsed.Span.Start:f.Parsed.Span.End])
	}
	return ""
}

// JavaFormulas extracts and parses every @SPL formula of a Java file.
// Diagnostics are sorted by position.
func JavaFormulas(f *javasrc.File) ([]*Formula, []Diagnostic) {
	x := &extraction{f: f}
	if sk := f.Skipped; sk != nil {
		// A binary file is not Java (javac rejects it too); a file over
		// the size limit may be, and only its formulas go unread.
		sev, code := Warning, "file-too-large"
		if sk.Binary {
			sev, code = Error, "binary-file"
		}
		x.diags = append(x.diags, Diagnostic{
			Path: f.Path, Range: f.Mapper.Range(sk.Span), Span: sk.Span,
			Severity: sev, Code: code, Message: sk.Message,
		})
	}
	for _, m := range f.Methods {
		for _, ann := range m.SPL {
			x.annotation(m, ann)
		}
	}
	for _, p := range f.Problems {
		x.diags = append(x.diags, Diagnostic{
			Path: f.Path, Range: f.Mapper.Range(p.Span), Span: p.Span,
			Severity: Warning, Code: "not-a-constant", Message: p.Message,
		})
	}
	sortDiagnostics(x.diags)
	return x.formulas, x.diags
}

// extraction collects the formulas of a Java file and their diagnostics.
type extraction struct {
	f        *javasrc.File
	formulas []*Formula
	diags    []Diagnostic
}

// report positions ds in the document and tells whether any is an error.
func (x *extraction) report(v *javasrc.StringValue, ds []spl.Diagnostic) (broken bool) {
	at := &Formula{Path: x.f.Path, Value: v, mapper: x.f.Mapper}
	for _, d := range ds {
		x.diags = append(x.diags, at.diagnostic(d.Span, severityOf(d.Severity), d.Code, d.Message))
		broken = broken || d.Severity == spl.Error
	}
	return broken
}

// annotation extracts the formulas of one @SPL annotation of m.
func (x *extraction) annotation(m *javasrc.Method, ann *javasrc.SPLAnnotation) {
	var methodAliases, genAliases []*spl.Alias
	for _, v := range ann.MethodAliases {
		a, ds := parseMethodAlias(v.Text)
		x.report(v, ds)
		if a != nil {
			methodAliases = append(methodAliases, a)
		}
	}
	for _, v := range ann.GeneratorAliases {
		a, ds := parseGeneratorAlias(v.Text)
		x.report(v, ds)
		if a != nil {
			genAliases = append(genAliases, a)
		}
	}
	// Aliases declared in any element of the annotation are visible to all
	// of its formulas: @SPL({"w := gen", "SELF[w](1) <= …"}). Each element
	// is parsed and linted on its own, so an alias used only by a sibling
	// element is not reported as unused.
	type parsed struct {
		v     *javasrc.StringValue
		unit  *spl.Unit
		diags []spl.Diagnostic
	}
	var units []parsed
	used := map[string]bool{}
	for _, v := range ann.Formulas {
		unit, ds := parseAndLint(v.Text)
		if unit == nil {
			x.report(v, ds)
			continue
		}
		units = append(units, parsed{v, unit, ds})
		methodAliases = append(methodAliases, unit.Aliases...)
		genAliases = append(genAliases, unit.Aliases...)
		for _, p := range unit.Formulas {
			for _, t := range spl.Terms(p.Body) {
				used[t.Method.Name] = true
				if t.Generator != nil {
					used[t.Generator.Name] = true
				}
			}
		}
	}
	interp := x.interpretation(ann.Interpretation)
	for _, u := range units {
		var ds []spl.Diagnostic
		for _, d := range u.diags {
			if d.Code != spl.CodeUnusedAlias || !used[aliasAt(u.unit, d.Span)] {
				ds = append(ds, d)
			}
		}
		broken := x.report(u.v, ds)
		for _, p := range u.unit.Formulas {
			x.formulas = append(x.formulas, &Formula{
				Path: x.f.Path, File: x.f, Method: m, Value: u.v, Parsed: p, mapper: x.f.Mapper, Broken: broken,
				Aliases: methodAliases, GeneratorAliases: genAliases, Interpretation: interp,
			})
		}
	}
}

// interpretation is an annotation's interpretation= element, "" when
// absent or unknown (which is reported).
func (x *extraction) interpretation(v *javasrc.StringValue) string {
	if v == nil {
		return ""
	}
	switch v.Text {
	case "quick", "parametric", "nonparametric", "rank":
		return v.Text
	}
	x.diags = append(x.diags, Diagnostic{
		Path: x.f.Path, Range: x.f.Mapper.Range(v.Span), Span: v.Span, Severity: Error, Code: "unknown-interpretation",
		Message: fmt.Sprintf("unknown interpretation %q: use quick, parametric, nonparametric or rank", v.Text),
	})
	return ""
}

// SPLFile parses a standalone .spl file: alias lines and formulas.
func SPLFile(path, text string) ([]*Formula, []Diagnostic) {
	at := &Formula{Path: path, mapper: textpos.NewMapper(text)}
	unit, ds := spl.ParseAndLint(text)
	var diags []Diagnostic
	for _, d := range ds {
		diags = append(diags, at.diagnostic(d.Span, severityOf(d.Severity), d.Code, d.Message))
	}
	var formulas []*Formula
	if unit != nil {
		for _, p := range unit.Formulas {
			// A file's errors cannot be told apart per formula cheaply;
			// only formulas whose own span holds an error are broken.
			broken := false
			for _, d := range ds {
				broken = broken || (d.Severity == spl.Error && d.Span.Start >= p.Span.Start && d.Span.Start <= p.Span.End)
			}
			formulas = append(formulas, &Formula{Path: path, Parsed: p, Aliases: unit.Aliases, GeneratorAliases: unit.Aliases, Broken: broken, mapper: at.mapper})
		}
	}
	sortDiagnostics(diags)
	return formulas, diags
}

// aliasAt names the alias of u declared at span, or "".
func aliasAt(u *spl.Unit, span spl.Span) string {
	for _, a := range u.Aliases {
		if a.NameSpan == span || a.Span == span {
			return a.Name
		}
	}
	return ""
}

func severityOf(s spl.Severity) Severity {
	switch s {
	case spl.Warning:
		return Warning
	case spl.Information:
		return Information
	case spl.Hint:
		return Hint
	default:
		return Error
	}
}

func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return ds[i].Span.Start < ds[j].Span.Start
	})
}

// String renders a diagnostic as `file:line:col: severity: message` with a
// 1-based line and UTF-16 column, the form compilers and editors parse.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Severity, d.Message)
}
