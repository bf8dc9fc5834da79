package javasrc

import (
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/perfls/perfls/analysis/textpos"
)

// Re-extraction after an edit inside one method body. Such an edit cannot
// change any declaration, annotation or constant the model holds, as long
// as no class body is involved: the new model is the old one with every
// offset after the edit moved by the edit's length change.

// bodyEdit reports whether the edit e (already applied to produce tree)
// lies strictly inside the body of a method or constructor that declares
// no class, and neither old nor new text of the edit could open or close
// one (no braces, quotes or comment markers).
func bodyEdit(old, src []byte, e sitter.EditInput, tree *sitter.Tree) bool {
	for _, s := range [][]byte{old[e.StartIndex:e.OldEndIndex], src[e.StartIndex:e.NewEndIndex]} {
		for _, c := range s {
			switch c {
			case '{', '}', '"', '\'', '/', '*', '@', '\\':
				return false
			}
		}
	}
	root := tree.RootNode()
	if root.HasError() {
		return false
	}
	n := root.NamedDescendantForPointRange(e.StartPoint, e.NewEndPoint)
	for ; n != nil; n = n.Parent() {
		if kind(n) != "block" {
			continue
		}
		p := n.Parent()
		if p == nil {
			return false
		}
		switch kind(p) {
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
		default:
			continue // a nested block: keep climbing to the body
		}
		if !(n.StartByte() < e.StartIndex && e.NewEndIndex < n.EndByte()) {
			return false
		}
		return !declaresType(n)
	}
	return false
}

// declaresType reports whether n holds a class, interface, enum, record or
// anonymous class body.
func declaresType(n *sitter.Node) bool {
	found := false
	walkTree(n, func(c *sitter.Node) bool {
		if found {
			return false
		}
		switch kind(c) {
		case "class_body", "interface_body", "enum_body", "annotation_type_body",
			"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
			found = true
			return false
		}
		return c.IsNamed()
	})
	return found
}

// shifted copies f for the new text, moving every offset at or after
// oldEnd by delta. Offsets before the edit stay; the model holds none
// inside it.
func (f *File) shifted(src string, mapper *textpos.Mapper, oldEnd, delta int) *File {
	return f.shiftWith(newShifter(oldEnd, delta), src, mapper)
}

func newShifter(at, delta int) *shifter {
	return &shifter{at: at, delta: delta, types: map[*Type]*Type{}}
}

// shiftWith is shifted with a given shifter, whose type map then tells the
// copy of each type.
func (f *File) shiftWith(s *shifter, src string, mapper *textpos.Mapper) *File {
	out := &File{Path: f.Path, Src: src, Mapper: mapper, Package: f.Package}
	// Slices keep their nil-ness, so the copy equals a fresh extraction.
	if f.Imports != nil {
		out.Imports = make([]Import, len(f.Imports))
		for i, imp := range f.Imports {
			imp.Span = s.span(imp.Span)
			out.Imports[i] = imp
		}
	}
	if f.Types != nil {
		out.Types = make([]*Type, len(f.Types))
		for i, t := range f.Types {
			out.Types[i] = s.typ(t)
		}
	}
	if f.Methods != nil {
		out.Methods = make([]*Method, len(f.Methods))
		slab := make([]Method, len(f.Methods))
		for i, m := range f.Methods {
			out.Methods[i] = s.method(m, &slab[i])
		}
	}
	if f.SyntaxErrors != nil {
		out.SyntaxErrors = make([]textpos.Span, len(f.SyntaxErrors))
		for i, sp := range f.SyntaxErrors {
			out.SyntaxErrors[i] = s.span(sp)
		}
	}
	if f.SyntaxMessages != nil {
		out.SyntaxMessages = append([]string{}, f.SyntaxMessages...)
	}
	if f.Problems != nil {
		out.Problems = make([]Problem, len(f.Problems))
		for i, p := range f.Problems {
			out.Problems[i] = Problem{Span: s.span(p.Span), Message: p.Message}
		}
	}
	return out
}

type shifter struct {
	at, delta int
	types     map[*Type]*Type
	vals      []StringValue // allocated in blocks
	origs     []byteOrigin
}

func (s *shifter) off(x int) int {
	if x >= s.at {
		return x + s.delta
	}
	return x
}

func (s *shifter) span(sp textpos.Span) textpos.Span {
	return textpos.Span{Start: s.off(sp.Start), End: s.off(sp.End)}
}

func (s *shifter) typ(t *Type) *Type {
	if t == nil {
		return nil
	}
	if c, ok := s.types[t]; ok {
		return c
	}
	c := *t
	s.types[t] = &c
	c.Outer = s.typ(t.Outer)
	c.Span, c.NameSpan = s.span(t.Span), s.span(t.NameSpan)
	c.RecordComponents = s.params(t.RecordComponents)
	if t.Constants != nil {
		c.Constants = make(map[string]*StringValue, len(t.Constants))
		for k, v := range t.Constants {
			c.Constants[k] = s.value(v)
		}
	}
	return &c
}

func (s *shifter) params(ps []Param) []Param {
	same := true
	for _, p := range ps {
		same = same && p.Span.End < s.at && p.NameSpan.End < s.at && p.Span.Start < s.at && p.NameSpan.Start < s.at
	}
	if same {
		return ps
	}
	out := make([]Param, len(ps))
	for i, p := range ps {
		p.Span, p.NameSpan = s.span(p.Span), s.span(p.NameSpan)
		out[i] = p
	}
	return out
}

// value copies a StringValue whose offsets move; one that lies wholly
// before the edit is shared (models are immutable). Values are never
// shared within a model, so each is copied once.
func (s *shifter) value(v *StringValue) *StringValue {
	if v == nil || !s.moves(v) {
		return v
	}
	if len(s.vals) == 0 {
		s.vals = make([]StringValue, 64)
	}
	c := &s.vals[0]
	s.vals = s.vals[1:]
	*c = *v
	c.Span = s.span(v.Span)
	c.empty = s.off(v.empty)
	c.orig = s.origins(v.orig)
	return c
}

// moves reports whether any offset of v is at or after the edit.
func (s *shifter) moves(v *StringValue) bool {
	if v.Span.Start >= s.at || v.Span.End >= s.at || v.empty >= s.at {
		return true
	}
	at := int32(s.at)
	for _, o := range v.orig {
		if o.srcStart >= at || o.srcEnd >= at || o.siteStart >= at || o.siteEnd >= at {
			return true
		}
	}
	return false
}

// origins copies a byte origin map with its offsets moved.
func (s *shifter) origins(orig []byteOrigin) []byteOrigin {
	if orig == nil {
		return nil
	}
	n := len(orig)
	if len(s.origs) < n {
		s.origs = make([]byteOrigin, max(n, 4096))
	}
	out := s.origs[:n:n]
	s.origs = s.origs[n:]
	at, d := int32(s.at), int32(s.delta)
	for i, o := range orig {
		if o.srcStart >= at {
			o.srcStart += d
		}
		if o.srcEnd >= at {
			o.srcEnd += d
		}
		if o.siteStart >= at {
			o.siteStart += d
		}
		if o.siteEnd >= at {
			o.siteEnd += d
		}
		out[i] = o
	}
	return out
}

func (s *shifter) valueList(vs []*StringValue) []*StringValue {
	same := true
	for _, v := range vs {
		same = same && (v == nil || !s.moves(v))
	}
	if same {
		return vs
	}
	out := make([]*StringValue, len(vs))
	for i, v := range vs {
		out[i] = s.value(v)
	}
	return out
}

func (s *shifter) method(m *Method, c *Method) *Method {
	*c = *m
	c.Type = s.typ(m.Type)
	c.Params = s.params(m.Params)
	c.Span, c.NameSpan = s.span(m.Span), s.span(m.NameSpan)
	if m.SPL != nil {
		c.SPL = nil
		for i, a := range m.SPL {
			ca := &SPLAnnotation{Span: s.span(a.Span), Formulas: s.valueList(a.Formulas),
				MethodAliases: s.valueList(a.MethodAliases), GeneratorAliases: s.valueList(a.GeneratorAliases),
				Interpretation: s.value(a.Interpretation)}
			if c.SPL == nil && !sameAnnotation(ca, a) {
				c.SPL = append(make([]*SPLAnnotation, 0, len(m.SPL)), m.SPL[:i]...)
			}
			if c.SPL != nil {
				c.SPL = append(c.SPL, ca)
			}
		}
		if c.SPL == nil {
			c.SPL = m.SPL // nothing moved: shared
		}
	}
	c.Workloads, c.SeeAlso = s.valueList(m.Workloads), s.valueList(m.SeeAlso)
	if g := m.Generator; g != nil {
		cg := &GeneratorDoc{Span: s.span(g.Span), Description: s.value(g.Description), Name: s.value(g.Name)}
		if g.Params != nil {
			cg.Params = make([]ParamDoc, len(g.Params))
			for i, p := range g.Params {
				p.Span, p.Label = s.span(p.Span), s.value(p.Label)
				cg.Params[i] = p
			}
		}
		c.Generator = cg
	}
	return c
}

// sameAnnotation reports whether a shifted copy holds the very values of
// the original.
func sameAnnotation(c, a *SPLAnnotation) bool {
	same := func(x, y []*StringValue) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return c.Span == a.Span && c.Interpretation == a.Interpretation && same(c.Formulas, a.Formulas) &&
		same(c.MethodAliases, a.MethodAliases) && same(c.GeneratorAliases, a.GeneratorAliases)
}
