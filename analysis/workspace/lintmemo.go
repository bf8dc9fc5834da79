package workspace

import (
	"slices"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
)

// Linting again only what an edit can have changed. An editor lints every
// formula of a document at each keystroke, though typing inside one
// formula (or inside a method body) changes no other formula and no
// declaration: a 5,000-line file with 1,200 formulas takes 3 ms a
// keystroke to lint whole. A formula's diagnostics depend on its
// annotation's text, its method's declaration and file (SELF, imports),
// and the declarations of the workspace; when the caller knows the rest
// of the workspace and the options unchanged, and SameDeclarations holds
// for the document's old and new model, a formula whose annotation reads
// the same is not checked again: its old diagnostics are moved to where
// the annotation now is.

// LintMemo is one document's diagnostics per formula, from LintReusing.
// It is immutable.
type LintMemo struct {
	byKey   map[lintKey][]Diagnostic // spans relative to the annotation
	checked int                      // formulas checked anew (for tests)
}

// LintReusing is Lint, taking the diagnostics of formulas unchanged since
// prev (the memo of the document's previous version) from it instead of
// checking them again. The caller passes prev only when nothing but the
// document changed since, and SameDeclarations holds for its old and new
// models; nil checks every formula. It returns the memo for the next
// version.
func (ix *Index) LintReusing(formulas []*Formula, opt LintOptions, prev *LintMemo) ([]Diagnostic, *LintMemo) {
	next := &LintMemo{byKey: make(map[lintKey][]Diagnostic, len(formulas))}
	var diags []Diagnostic
	lookups := map[lookupKey]*lookupResult{}
	methodIndex := map[*javasrc.Method]int{}
	for _, f := range formulas {
		if f == nil || f.Broken || f.Parsed == nil || f.Parsed.Body == nil {
			continue
		}
		key, at, ok := lintMemoKey(f, methodIndex)
		if ok && prev != nil {
			if old, found := prev.byKey[key]; found {
				next.byKey[key] = old
				for _, d := range old {
					d.Span = textpos.Span{Start: d.Span.Start + at, End: d.Span.End + at}
					d.Range = f.mapper.Range(d.Span)
					diags = append(diags, d)
				}
				continue
			}
		}
		c := &checker{ix: ix, opt: opt, f: f, lookups: lookups}
		c.formula()
		next.checked++
		diags = append(diags, c.diags...)
		if ok {
			rel := make([]Diagnostic, len(c.diags))
			for i, d := range c.diags {
				d.Span = textpos.Span{Start: d.Span.Start - at, End: d.Span.End - at}
				rel[i] = d
			}
			next.byKey[key] = rel
		}
	}
	sortDiagnostics(diags)
	return diags, next
}

// lintKey names a Java formula by what its diagnostics depend on within
// its document: its method (by position among the file's methods, which
// SameDeclarations keeps), its annotation's position among the method's,
// the raw text of the annotation (formula, aliases, interpretation and
// escapes alike; a substring of the document, not a copy) and where in it
// the formula starts.
type lintKey struct {
	method, annotation, offset int
	text                       string
}

// lintMemoKey returns f's key and its annotation's offset in the document.
// ok is false for formulas outside an @SPL annotation (.spl files), which
// are always checked.
func lintMemoKey(f *Formula, methodIndex map[*javasrc.Method]int) (key lintKey, at int, ok bool) {
	if f.File == nil || f.Method == nil || f.Value == nil {
		return lintKey{}, 0, false
	}
	if len(methodIndex) == 0 {
		for i, m := range f.File.Methods {
			methodIndex[m] = i
		}
	}
	i, found := methodIndex[f.Method]
	if !found {
		return lintKey{}, 0, false
	}
	for k, a := range f.Method.SPL {
		if a.Span.Start <= f.Value.Span.Start && f.Value.Span.End <= a.Span.End && a.Span.End <= len(f.File.Src) {
			return lintKey{method: i, annotation: k, offset: f.Value.Span.Start - a.Span.Start, text: f.File.Src[a.Span.Start:a.Span.End]}, a.Span.Start, true
		}
	}
	return lintKey{}, 0, false
}

// SameDeclarations reports whether two models of a file declare the same
// package, imports, types and methods (names, kinds, supertypes, String
// constants, parameters, return types and modifiers), positions aside:
// what the workspace index gives the linter.
func SameDeclarations(a, b *javasrc.File) bool {
	if a == nil || b == nil || a.Package != b.Package || len(a.Imports) != len(b.Imports) ||
		len(a.Types) != len(b.Types) || len(a.Methods) != len(b.Methods) || (a.Skipped == nil) != (b.Skipped == nil) {
		return false
	}
	for i, x := range a.Imports {
		y := b.Imports[i]
		if x.Path != y.Path || x.Static != y.Static || x.Wildcard != y.Wildcard {
			return false
		}
	}
	typeIndex := func(f *javasrc.File) map[*javasrc.Type]int {
		m := make(map[*javasrc.Type]int, len(f.Types))
		for i, t := range f.Types {
			m[t] = i
		}
		return m
	}
	ta, tb := typeIndex(a), typeIndex(b)
	sameType := func(x, y *javasrc.Type) bool {
		if x == nil || y == nil {
			return x == y
		}
		i, okx := ta[x]
		j, oky := tb[y]
		return okx && oky && i == j
	}
	for i, x := range a.Types {
		y := b.Types[i]
		if x.Name != y.Name || x.QualifiedName != y.QualifiedName || x.BinaryName != y.BinaryName || x.Kind != y.Kind ||
			!sameType(x.Outer, y.Outer) || x.Local != y.Local || x.Anonymous != y.Anonymous || x.Super != y.Super ||
			!sameParamDecls(x.RecordComponents, y.RecordComponents) || !slices.Equal(x.Supers, y.Supers) || !sameConstants(x.Constants, y.Constants) {
			return false
		}
	}
	for i, x := range a.Methods {
		y := b.Methods[i]
		if !sameType(x.Type, y.Type) || x.Name != y.Name || x.IsConstructor != y.IsConstructor || x.IsCompact != y.IsCompact ||
			x.Static != y.Static || x.Abstract != y.Abstract || x.ReturnType != y.ReturnType || !sameParamDecls(x.Params, y.Params) {
			return false
		}
	}
	return true
}

func sameParamDecls(a, b []javasrc.Param) bool {
	if len(a) != len(b) {
		return false
	}
	for i, x := range a {
		y := b[i]
		if x.Name != y.Name || x.Type != y.Type || x.Erased != y.Erased || x.Varargs != y.Varargs {
			return false
		}
	}
	return true
}

func sameConstants(a, b map[string]*javasrc.StringValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok {
			return false
		}
		if x == nil || y == nil {
			if x != y {
				return false
			}
			continue
		}
		if x.Text != y.Text {
			return false
		}
	}
	return true
}
