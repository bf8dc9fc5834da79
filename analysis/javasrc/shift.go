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
	switch kind(n) {
	case "class_body", "interface_body", "enum_body", "annotation_type_body",
		"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
		return true
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if c := n.NamedChild(i); c != nil && declaresType(c) {
			return true
		}
	}
	return false
}

// shifted copies f for the new text, moving every offset at or after
// oldEnd by delta. Offsets before the edit stay; the model holds none
// inside it.
func (f *File) shifted(src string, mapper *textpos.Mapper, oldEnd, delta int) *File {
	s := &shifter{at: oldEnd, delta: delta, types: map[*Type]*Type{}, values: map[*StringValue]*StringValue{}}
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
		for i, m := range f.Methods {
			out.Methods[i] = s.method(m)
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
	values    map[*StringValue]*StringValue
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
	if ps == nil {
		return nil
	}
	out := make([]Param, len(ps))
	for i, p := range ps {
		p.Span, p.NameSpan = s.span(p.Span), s.span(p.NameSpan)
		out[i] = p
	}
	return out
}

func (s *shifter) value(v *StringValue) *StringValue {
	if v == nil {
		return nil
	}
	if c, ok := s.values[v]; ok {
		return c
	}
	c := *v
	s.values[v] = &c
	c.Span = s.span(v.Span)
	c.empty = s.off(v.empty)
	if v.orig != nil {
		c.orig = make([]byteOrigin, len(v.orig))
		for i, o := range v.orig {
			o.srcStart, o.srcEnd = int32(s.off(int(o.srcStart))), int32(s.off(int(o.srcEnd)))
			o.siteStart, o.siteEnd = int32(s.off(int(o.siteStart))), int32(s.off(int(o.siteEnd)))
			c.orig[i] = o
		}
	}
	return &c
}

func (s *shifter) valueList(vs []*StringValue) []*StringValue {
	if vs == nil {
		return nil
	}
	out := make([]*StringValue, len(vs))
	for i, v := range vs {
		out[i] = s.value(v)
	}
	return out
}

func (s *shifter) method(m *Method) *Method {
	c := *m
	c.Type = s.typ(m.Type)
	c.Params = s.params(m.Params)
	c.Span, c.NameSpan = s.span(m.Span), s.span(m.NameSpan)
	if m.SPL != nil {
		c.SPL = make([]*SPLAnnotation, len(m.SPL))
		for i, a := range m.SPL {
			c.SPL[i] = &SPLAnnotation{Span: s.span(a.Span), Formulas: s.valueList(a.Formulas),
				MethodAliases: s.valueList(a.MethodAliases), GeneratorAliases: s.valueList(a.GeneratorAliases)}
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
	return &c
}
