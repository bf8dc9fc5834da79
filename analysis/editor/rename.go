package editor

import (
	"fmt"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
)

// Workspace is what rename and references search: the files (open
// documents over the files on disk) and an index of them.
type Workspace struct {
	Files []*javasrc.File
	Index *workspace.Index
}

// File returns the file with the path, or nil.
func (w Workspace) File(path string) *javasrc.File {
	for _, f := range w.Files {
		if f.Path == path {
			return f
		}
	}
	return nil
}

// Location is a range in a document.
type Location struct {
	Path  string
	Range textpos.Range
	Span  textpos.Span // bytes, in the document
}

// TextEdit replaces a range of a document. Declaration marks the edit of
// the method's own name in its Java declaration, which a Java language
// server renames too (with its Java call sites, which perfls does not).
type TextEdit struct {
	Location
	NewText     string
	Declaration bool
}

// Target is the method a position names: under the cursor in Java code
// (the method's name) or in a formula (its name, SELF, an alias of it).
type Target struct {
	Method *javasrc.Method
	// Name is the name as written under the cursor, where it is the method's
	// own name: what a rename replaces. Empty for SELF or an alias.
	Name Location
	// Generator: the position names it as a workload (inside "[…]", in
	// @Workload, or a Java method shaped as a generator).
	Generator bool
}

// TargetAt finds the workspace method named at byte offset of the file
// with path: its declared name, or a reference in an annotation string.
// The error says why there is none.
func (w Workspace) TargetAt(path string, offset int) (Target, error) {
	f := w.File(path)
	if f == nil {
		return Target{}, fmt.Errorf("%s is not in the workspace index", path)
	}
	for _, m := range f.Methods {
		if m.NameSpan.Start <= offset && offset <= m.NameSpan.End && !m.IsConstructor {
			return Target{Method: m, Name: location(f, m.NameSpan), Generator: workspace.IsGenerator(m)}, nil
		}
	}
	var found *Target
	var err error
	eachString(f, func(m *javasrc.Method, ann *javasrc.SPLAnnotation, v *javasrc.StringValue, what int) bool {
		if offset < v.Span.Start || offset > v.Span.End {
			return true
		}
		i, ok := textOffset(v, offset)
		if !ok {
			return true
		}
		for _, e := range entities(what, v.Text) {
			if i < e.span.Start || i > e.span.End {
				continue
			}
			t, ok := w.resolve(f, m, ann, e)
			if !ok {
				err = fmt.Errorf("%s is not a method declared in the workspace: only those can be renamed", v.Text[e.span.Start:e.span.End])
				return false
			}
			found = &Target{Method: t, Generator: e.gen != nil || e.either}
			if e.name.End > e.name.Start && v.Text[e.name.Start:e.name.End] == t.Name {
				found.Name = location(f, v.DocSpan(textpos.Span{Start: e.name.Start, End: e.name.End}))
			}
			return false
		}
		return true
	})
	switch {
	case found != nil:
		return *found, nil
	case err != nil:
		return Target{}, err
	}
	return Target{}, fmt.Errorf("no method or generator name here")
}

// PrepareRename is textDocument/prepareRename: the range of the name under
// the cursor and the name, or why it cannot be renamed there.
func (w Workspace) PrepareRename(path string, offset int) (Location, string, error) {
	t, err := w.TargetAt(path, offset)
	if err != nil {
		return Location{}, "", err
	}
	if t.Name.Path == "" {
		return Location{}, "", fmt.Errorf("this names %s without spelling its name (SELF or an alias): rename at the method's name", t.Method.Name)
	}
	return t.Name, t.Method.Name, nil
}

// Rename is textDocument/rename: the edits that rename the method at the
// position to newName in every annotation string of the workspace that
// names it by its name, and at its declaration (marked Declaration).
// SELF and aliases stay as they are: they do not spell the name. Edits
// are sorted by path and position.
func (w Workspace) Rename(path string, offset int, newName string) ([]TextEdit, error) {
	if !isJavaIdentifier(newName) {
		return nil, fmt.Errorf("%q is not a Java method name", newName)
	}
	t, err := w.TargetAt(path, offset)
	if err != nil {
		return nil, err
	}
	if t.Name.Path == "" {
		return nil, fmt.Errorf("this names %s without spelling its name (SELF or an alias): rename at the method's name", t.Method.Name)
	}
	var edits []TextEdit
	if f := w.declFile(t.Method); f != nil {
		edits = append(edits, TextEdit{Location: location(f, t.Method.NameSpan), NewText: newName, Declaration: true})
	}
	for _, r := range w.references(t.Method, true) {
		edits = append(edits, TextEdit{Location: r, NewText: newName})
	}
	sortLocations(edits, func(e TextEdit) Location { return e.Location })
	return edits, nil
}

// References is textDocument/references for a method or generator: every
// annotation string that names it (by name, SELF or an alias), and its
// declaration when includeDecl.
func (w Workspace) References(path string, offset int, includeDecl bool) ([]Location, error) {
	t, err := w.TargetAt(path, offset)
	if err != nil {
		return nil, err
	}
	var out []Location
	if f := w.declFile(t.Method); includeDecl && f != nil {
		out = append(out, location(f, t.Method.NameSpan))
	}
	out = append(out, w.references(t.Method, false)...)
	sortLocations(out, func(l Location) Location { return l })
	return out, nil
}

func (w Workspace) declFile(m *javasrc.Method) *javasrc.File {
	for _, f := range w.Files {
		for _, x := range f.Methods {
			if x == m {
				return f
			}
		}
	}
	return nil
}

// references finds the references to m in every annotation string; byName
// keeps only those spelling m's name (what a rename edits), at the name.
func (w Workspace) references(m *javasrc.Method, byName bool) []Location {
	var out []Location
	for _, f := range w.Files {
		eachString(f, func(host *javasrc.Method, ann *javasrc.SPLAnnotation, v *javasrc.StringValue, what int) bool {
			for _, e := range entities(what, v.Text) {
				spelled := e.name.End > e.name.Start && v.Text[e.name.Start:e.name.End] == m.Name
				if byName && !spelled {
					continue // cheap test first: most references name another method
				}
				if t, ok := w.resolve(f, host, ann, e); !ok || !sameMethod(t, m) {
					continue
				}
				sp := e.span
				if spelled {
					sp = e.name
				}
				out = append(out, location(f, v.DocSpan(textpos.Span{Start: sp.Start, End: sp.End})))
			}
			return true
		})
	}
	return out
}

// sameMethod compares declarations across indexes (an overlay index holds
// other *Method values for the same source).
func sameMethod(a, b *javasrc.Method) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && a.Type != nil && b.Type != nil &&
		a.Type.BinaryName == b.Type.BinaryName && a.Signature() == b.Signature()
}

// entity is a method or generator named in an annotation string: span is
// the whole reference, name the method's name in it (empty for SELF).
type entity struct {
	method *spl.MethodRef
	gen    *spl.GeneratorRef
	// either: a thesis alias's entity, a method or a generator by use.
	either     bool
	span, name spl.Span
}

// String kinds of eachString.
const (
	strFormula = iota
	strMethodAlias
	strGeneratorAlias
	strWorkload
)

// eachString calls f with every annotation string of file that holds SPL,
// until f returns false.
func eachString(file *javasrc.File, f func(m *javasrc.Method, ann *javasrc.SPLAnnotation, v *javasrc.StringValue, what int) bool) {
	for _, m := range file.Methods {
		for _, ann := range m.SPL {
			for _, l := range []struct {
				vs   []*javasrc.StringValue
				what int
			}{{ann.Formulas, strFormula}, {ann.MethodAliases, strMethodAlias}, {ann.GeneratorAliases, strGeneratorAlias}} {
				for _, v := range l.vs {
					if !f(m, ann, v, l.what) {
						return
					}
				}
			}
		}
		for _, v := range m.Workloads {
			if !f(m, nil, v, strWorkload) {
				return
			}
		}
	}
}

// entities lists the references of one annotation string with the span of
// the name each spells (from the highlighter: the method or generator
// token inside the reference).
func entities(what int, text string) []entity {
	var out []entity
	addM := func(r *spl.MethodRef, either bool) {
		if r != nil {
			out = append(out, entity{method: r, either: either, span: r.Span})
		}
	}
	addG := func(r *spl.GeneratorRef) {
		if r != nil {
			out = append(out, entity{gen: r, span: r.Span})
		}
	}
	alias := func(a *spl.Alias) {
		if a == nil {
			return
		}
		addM(a.Method, a.Kind == spl.AliasEither)
		if a.Kind == spl.AliasGenerator {
			addG(a.Generator)
		}
		addG(a.BoundGenerator)
		addG(a.BoundFactory)
	}
	switch what {
	case strFormula:
		u, _ := spl.Parse(text)
		for _, a := range u.Aliases {
			alias(a)
		}
		for _, fm := range u.Formulas {
			for _, t := range spl.Terms(fm.Body) {
				addM(t.Method, false)
				addG(t.Generator)
				addG(t.Factory)
			}
		}
	case strMethodAlias:
		a, _ := spl.ParseMethodAlias(text)
		alias(a)
	case strGeneratorAlias:
		a, _ := spl.ParseGeneratorAlias(text)
		alias(a)
	case strWorkload:
		g, _ := spl.ParseGenerator(text)
		addG(g)
	}
	hs := highlightsOf(what, text)
	for i := range out {
		e := &out[i]
		for _, h := range hs {
			if h.Span.Start >= e.span.Start && h.Span.End <= e.span.End && !h.Declaration &&
				(h.Kind == spl.HlMethod || h.Kind == spl.HlGenerator) {
				e.name = h.Span
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].span.Start < out[j].span.Start })
	return out
}

// resolve finds the workspace method an entity of an annotation string on
// host names; false when it names none (outside the workspace, unknown).
func (w Workspace) resolve(f *javasrc.File, host *javasrc.Method, ann *javasrc.SPLAnnotation, e entity) (*javasrc.Method, bool) {
	ctx := &workspace.Formula{Path: f.Path, File: f, Method: host}
	ctx.Aliases, ctx.GeneratorAliases = annotationAliases(ann)
	var t workspace.Target
	var err error
	switch {
	case e.gen != nil:
		t, err = w.Index.ResolveGenerator(ctx, e.gen)
	case e.either:
		if t, err = w.Index.ResolveMethod(ctx, e.method); err != nil || t.Decl == nil {
			t, err = w.Index.ResolveGenerator(ctx, e.method.AsGenerator())
		}
	default:
		t, err = w.Index.ResolveMethod(ctx, e.method)
	}
	if err != nil || t.Decl == nil {
		return nil, false
	}
	return t.Decl, true
}

// annotationAliases are the aliases every string of ann sees: its
// methods={…} and generators={…} elements and the thesis aliases of its
// formula strings (workspace.JavaFormulas gathers them the same way).
func annotationAliases(ann *javasrc.SPLAnnotation) (methods, generators []*spl.Alias) {
	if ann == nil {
		return nil, nil
	}
	for _, v := range ann.MethodAliases {
		if a, _ := spl.ParseMethodAlias(v.Text); a != nil {
			methods = append(methods, a)
		}
	}
	for _, v := range ann.GeneratorAliases {
		if a, _ := spl.ParseGeneratorAlias(v.Text); a != nil {
			generators = append(generators, a)
		}
	}
	for _, v := range ann.Formulas {
		u, _ := spl.Parse(v.Text)
		methods = append(methods, u.Aliases...)
		generators = append(generators, u.Aliases...)
	}
	return methods, generators
}

// textOffset maps a document offset inside v's expression to the byte of
// v.Text written there.
func textOffset(v *javasrc.StringValue, offset int) (int, bool) {
	for i := 0; i < len(v.Text); i++ {
		sp := v.DocSpan(textpos.Span{Start: i, End: i + 1})
		if sp.Start <= offset && offset < sp.End {
			return i, true
		}
	}
	// just after the last byte: the cursor at a name's end
	if n := len(v.Text); n > 0 && v.DocOffset(n) == offset {
		return n, true
	}
	return 0, false
}

func location(f *javasrc.File, sp textpos.Span) Location {
	return Location{Path: f.Path, Range: f.Mapper.Range(sp), Span: sp}
}

func sortLocations[T any](xs []T, loc func(T) Location) {
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := loc(xs[i]), loc(xs[j])
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Span.Start < b.Span.Start
	})
}

// isJavaIdentifier tells a valid Java method name that formulas can
// spell: an identifier that is not a Java keyword or literal, nor a word
// SPL reserves.
func isJavaIdentifier(s string) bool {
	if s == "" || javaKeywords[s] {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r == '$' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)
		if !ok {
			return false
		}
	}
	return utf8.ValidString(s)
}

var javaKeywords = map[string]bool{}

func init() {
	for _, k := range []string{"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const",
		"continue", "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
		"implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private", "protected",
		"public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this", "throw", "throws",
		"transient", "try", "void", "volatile", "while", "true", "false", "null", "_",
		"SELF", "THIS", "and", "or", "implies", "for"} {
		javaKeywords[k] = true
	}
}
