package workspace

// References inside formula text for the editor: what is under the cursor
// (a method, a generator, an alias), what it resolves to, and what may be
// typed at a position (completion).

import (
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
)

// RefKind tells what a reference in a formula names.
type RefKind int

const (
	RefMethod    RefKind = iota // a measured method: SELF, pkg.Class#m, a method of the annotated class
	RefGenerator                // a workload generator inside "[…]"
	RefVariable                 // a quantified variable
)

// Ref is one reference in a formula's text.
type Ref struct {
	Kind      RefKind
	Span      spl.Span // in the formula's text
	Text      string   // as written
	Method    *spl.MethodRef
	Generator *spl.GeneratorRef
	// Alias is the alias the reference names, when it is one.
	Alias *spl.Alias
}

// RefAt returns the reference of f's formula that covers byte i of its
// text, or nil.
func RefAt(f *Formula, text string, i int) *Ref {
	if f == nil || f.Parsed == nil {
		return nil
	}
	in := func(s spl.Span) bool { return s.Start <= i && i <= s.End && s.End > s.Start }
	slice := func(s spl.Span) string {
		if s.Start < 0 || s.End > len(text) || s.Start > s.End {
			return ""
		}
		return text[s.Start:s.End]
	}
	for _, t := range spl.Terms(f.Parsed.Body) {
		if t == nil {
			continue
		}
		if t.Method != nil && in(t.Method.Span) {
			r := &Ref{Kind: RefMethod, Span: t.Method.Span, Text: slice(t.Method.Span), Method: t.Method}
			if t.Method.Class == "" && t.Method.Name != "" && !t.Method.Self {
				r.Alias = findAlias(f.Aliases, t.Method.Name)
			}
			return r
		}
		for _, g := range []*spl.GeneratorRef{t.Generator, t.Factory} {
			if g != nil && in(g.Span) {
				r := &Ref{Kind: RefGenerator, Span: g.Span, Text: slice(g.Span), Generator: g}
				if g.Class == "" {
					r.Alias = findAlias(f.GeneratorAliases, g.Name)
				}
				return r
			}
		}
		for _, a := range t.Args {
			if a.Var != "" && in(a.Span) {
				return &Ref{Kind: RefVariable, Span: a.Span, Text: a.Var}
			}
		}
	}
	for _, q := range f.Parsed.Quantifiers {
		for _, v := range q.Vars {
			if in(v.Span) {
				return &Ref{Kind: RefVariable, Span: v.Span, Text: v.Name}
			}
		}
	}
	return nil
}

// Resolve resolves a method or generator reference of f.
func (ix *Index) Resolve(f *Formula, r *Ref) (Target, error) {
	if r.Kind == RefGenerator {
		return ix.ResolveGenerator(f, r.Generator)
	}
	return ix.ResolveMethod(f, r.Method)
}

// FileOf returns the file that declares t, or nil.
func (ix *Index) FileOf(t *javasrc.Type) *javasrc.File {
	if t == nil {
		return nil
	}
	return ix.fileOf(t)
}

// MethodsOf returns every method of t in source order.
func (ix *Index) MethodsOf(t *javasrc.Type) []*javasrc.Method {
	if t == nil {
		return nil
	}
	return ix.methodsOf(t)
}

// ResolveClassName resolves a class as written in a formula of f to a
// workspace type, or nil.
func (ix *Index) ResolveClassName(f *Formula, name string) *javasrc.Type {
	return ix.Type(ix.resolveClass(f, name))
}

// ResolveClassIn resolves a class as written in file inside type scope (both
// may be nil) to a workspace type, or nil.
func (ix *Index) ResolveClassIn(file *javasrc.File, scope *javasrc.Type, name string) *javasrc.Type {
	return ix.Type(ix.resolveClassIn(file, scope, name))
}

// TypesWithPrefix returns the qualified names of workspace types starting
// with prefix, sorted, at most limit (0: no limit).
func (ix *Index) TypesWithPrefix(prefix string, limit int) []string {
	seen := map[string]bool{}
	var out []string
	for cur := ix; cur != nil; cur = cur.base {
		for name, t := range cur.types {
			if name != t.QualifiedName || t.Local || t.Anonymous || seen[name] || !strings.HasPrefix(name, prefix) {
				continue
			}
			if cur != ix && ix.Type(name) != t {
				continue // replaced by an open document
			}
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// IsGenerator tells whether m can be a workload generator: a method
// returning an Iterable (of Object[]), or a workload loop taking an
// SPLController.
func IsGenerator(m *javasrc.Method) bool {
	if m.IsConstructor {
		return false
	}
	rt := m.ReturnType
	if i := strings.Index(rt, "<"); i >= 0 {
		rt = rt[:i]
	}
	if rt == "Iterable" || strings.HasSuffix(rt, ".Iterable") || m.Generator != nil {
		return true
	}
	for _, p := range m.Params {
		if simpleType(p.Erased) == "SPLController" {
			return true
		}
	}
	return false
}
