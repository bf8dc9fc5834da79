package javasrc

import (
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/perfls/perfls/analysis/textpos"
)

// Re-extraction of one method after an edit inside it (typically inside
// one of its annotations, where formulas are typed). The rest of the model
// is the old one moved by the edit's length change; only the edited method
// is read again from the new tree. This is exact when:
//   - neither version has syntax errors (no repair pass, no recovery
//     differences);
//   - the edit lies strictly inside one method, in the old model and in the
//     new tree, and neither version of that method declares a type (so no
//     other type or method lives inside it, and no javac numbering moves);
//   - the method refers to no constant but String ones, in either version:
//     String constants are all evaluated before any method, so their
//     values and problems do not depend on the methods; other constants
//     are evaluated on first use, so their problems depend on which method
//     used them first.

// docState is what a Doc keeps from the last extraction for this.
type docState struct {
	consts []savedConst
	// numRef[i] tells whether File.Methods[i] referred to a constant that
	// is not a String.
	numRef []bool
}

// savedConst is a pconst after extraction, without its tree node.
type savedConst struct {
	owner          *Type
	name, declType string
	state          int
	val            cval
}

// memberEdit returns the model of the new text when the edit e, already
// applied to produce tree, can be handled by re-extracting one method of
// prev; otherwise nil.
func memberEdit(prev *File, st *docState, prevSrc, src []byte, text string, mapper *textpos.Mapper, e sitter.EditInput, tree *sitter.Tree) (*File, *docState) {
	if st == nil || len(prev.SyntaxErrors) != 0 || len(st.numRef) != len(prev.Methods) {
		return nil, nil
	}
	start, oldEnd, newEnd := int(e.StartIndex), int(e.OldEndIndex), int(e.NewEndIndex)
	delta := newEnd - oldEnd
	i := sort.Search(len(prev.Methods), func(i int) bool { return prev.Methods[i].Span.Start >= start }) - 1
	if i < 0 {
		return nil, nil
	}
	m := prev.Methods[i]
	if !(m.Span.Start < start && oldEnd < m.Span.End) || m.Type == nil || st.numRef[i] {
		return nil, nil
	}
	if i+1 < len(prev.Methods) && prev.Methods[i+1].Span.Start < m.Span.End {
		return nil, nil // a method inside this one
	}
	for _, t := range prev.Types {
		if t.Span.Start >= m.Span.Start && t.Span.Start < m.Span.End {
			return nil, nil
		}
	}
	if mayDeclareType(string(prevSrc[m.Span.Start:m.Span.End])) || mayDeclareType(text[m.Span.Start:m.Span.End+delta]) {
		return nil, nil
	}
	root := tree.RootNode()
	if root.HasError() {
		return nil, nil
	}
	n := root.NamedDescendantForPointRange(pointOf(text, m.Span.Start), pointOf(text, m.Span.End+delta))
	if n == nil || !methodDeclKinds[kind(n)] || int(n.StartByte()) != m.Span.Start || int(n.EndByte()) != m.Span.End+delta {
		return nil, nil
	}
	if p := n.Parent(); p == nil || !memberContainers[kind(p)] {
		return nil, nil
	}

	s := newShifter(oldEnd, delta)
	f := prev.shiftWith(s, text, mapper)
	nst := s.state(st)
	owner := f.Methods[i].Type
	// The method's own problems are produced again.
	var keep []Problem
	for _, p := range f.Problems {
		if p.Span.Start < m.Span.Start || p.Span.Start >= m.Span.End+delta {
			keep = append(keep, p)
		}
	}
	f.Problems = keep

	b := &builder{src: text, f: f, fast: true, pend: map[*Type]map[string]*pconst{}}
	for _, c := range nst.consts {
		if b.pend[c.owner] == nil {
			b.pend[c.owner] = map[string]*pconst{}
		}
		pc := &pconst{name: c.name, declType: c.declType, owner: c.owner, state: c.state, val: c.val}
		if c.declType != "String" {
			pc.state = 3 // never evaluated here: a reference aborts
		}
		b.pend[c.owner][c.name] = pc
	}
	fn, err := flatten(n, true)
	if err != nil {
		return nil, nil
	}
	nm := b.method(fn, owner)
	if b.abort || nm == nil {
		return nil, nil
	}
	f.Methods[i] = nm
	nst.numRef[i] = false
	sort.SliceStable(f.Problems, func(i, j int) bool { return f.Problems[i].Span.Start < f.Problems[j].Span.Start })
	return f, nst
}

// pointOf returns tree-sitter's point (row, byte column) of offset off.
func pointOf(text string, off int) sitter.Point {
	row := strings.Count(text[:off], "\n")
	col := off - (strings.LastIndexByte(text[:off], '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}

// memberContainers are the node kinds whose children are members.
var memberContainers = map[string]bool{
	"class_body": true, "interface_body": true, "enum_body_declarations": true, "annotation_type_body": true,
}

// state moves a docState like the model it belongs to.
func (s *shifter) state(st *docState) *docState {
	if st == nil {
		return nil
	}
	out := &docState{numRef: append([]bool(nil), st.numRef...), consts: make([]savedConst, len(st.consts))}
	for i, c := range st.consts {
		c.owner = s.typ(c.owner)
		c.val.s = s.buf(c.val.s)
		out.consts[i] = c
	}
	return out
}

func (s *shifter) buf(b *strBuf) *strBuf {
	if b == nil {
		return nil
	}
	c := *b
	c.empty = s.off(b.empty)
	c.orig = s.origins(b.orig)
	return &c
}
