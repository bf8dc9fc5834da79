package javasrc

import (
	"context"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/perfls/perfls/analysis/textpos"
)

// Local reparsing. Incrementally reparsing a large class after a
// one-character edit still costs tree-sitter several milliseconds (a
// 5,000-line class: 7 ms), most of it walking the class body's thousands
// of members. When the edit lies inside one method of a clean document,
// that method alone is parsed, with the parser's included ranges set to
// its type's header, the method and the closing brace: Java's syntax
// inside a member does not depend on its neighbours, and a member that
// parses cleanly, ends on '}' or ';' and begins after a token boundary
// tokenises the same in the whole file. The small tree feeds the same fast
// paths as a whole reparse (bodyEdit, memberEdit), which check its shape
// as they check a whole tree's.
//
// The Doc's own tree is then left edited but not reparsed: tree-sitter
// allows several edits before a parse, so the next whole reparse (an
// edit the fast paths cannot take) starts from it as usual.

// updateLocally returns the model of src when the edit e (already applied
// to d.tree) falls inside one method and the local parse allows a fast
// path; ok is false otherwise.
func (d *Doc) updateLocally(src []byte, text string, mapper *textpos.Mapper, e sitter.EditInput) (f *File, st *docState, ok bool) {
	prev := d.file
	if d.tree == nil || !d.clean || prev == nil || len(prev.SyntaxErrors) != 0 {
		return nil, nil, false
	}
	tree := d.localTree(prev, src, text, e)
	if tree == nil {
		return nil, nil, false
	}
	defer tree.Close()
	if bodyEdit(d.src, src, e, tree) {
		s := newShifter(int(e.OldEndIndex), int(e.NewEndIndex)-int(e.OldEndIndex))
		d.moved++
		return prev.shiftWith(s, text, mapper), s.state(d.state), true
	}
	if f, st := memberEdit(prev, d.state, d.src, src, text, mapper, e, tree); f != nil {
		d.member++
		return f, st, true
	}
	return nil, nil, false
}

// localTree parses the method of prev that holds the edit e, in src, with
// its type's header and closing brace around it; nil when the edit is not
// inside one method of a class, interface or record body, or the parse
// has an error.
func (d *Doc) localTree(prev *File, src []byte, text string, e sitter.EditInput) *sitter.Tree {
	start, oldEnd := int(e.StartIndex), int(e.OldEndIndex)
	delta := int(e.NewEndIndex) - oldEnd
	i := sort.Search(len(prev.Methods), func(i int) bool { return prev.Methods[i].Span.Start >= start }) - 1
	if i < 0 {
		return nil
	}
	m := prev.Methods[i]
	if !(m.Span.Start < start && oldEnd < m.Span.End) {
		return nil
	}
	from, to := m.Span.Start, m.Span.End+delta
	// The edited tree still has the method's node, moved and resized by
	// the edit; its container and type give the header.
	n := nodeAt(d.tree.RootNode(), from, to)
	if n == nil || !methodDeclKinds[kind(n)] {
		return nil
	}
	body := n.Parent()
	if body == nil || (kind(body) != "class_body" && kind(body) != "interface_body") {
		return nil
	}
	decl := body.Parent()
	if decl == nil {
		return nil
	}
	switch kind(decl) {
	case "class_declaration", "interface_declaration", "record_declaration":
	default:
		return nil // e.g. an anonymous class: no header of its own
	}
	open, end := int(body.StartByte()), int(body.EndByte())
	if !(int(decl.StartByte()) <= open && open < from && to < end && end <= len(src)) || src[open] != '{' || src[end-1] != '}' {
		return nil
	}
	span := func(a, b int) sitter.Range {
		return sitter.Range{StartByte: uint32(a), EndByte: uint32(b), StartPoint: pointOf(text, a), EndPoint: pointOf(text, b)}
	}
	if d.local == nil {
		d.local = newParser()
	}
	d.local.SetIncludedRanges([]sitter.Range{span(int(decl.StartByte()), open+1), span(from, to), span(end-1, end)})
	t, err := d.local.ParseCtx(context.Background(), nil, src)
	if err != nil || t == nil {
		d.local.Reset()
		return nil
	}
	if t.RootNode().HasError() {
		t.Close()
		return nil
	}
	return t
}

// nodeAt returns the outermost node below root that spans exactly the
// bytes [from, to), or nil. It goes by bytes: after Tree.Edit, the points
// of nodes that hold the edit are not to be trusted (seen: an end column
// short by the inserted length), their bytes are.
func nodeAt(root *sitter.Node, from, to int) *sitter.Node {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	for {
		if c.GoToFirstChildForByte(uint32(from)) < 0 {
			return nil
		}
		n := c.CurrentNode()
		switch {
		case int(n.StartByte()) > from || int(n.EndByte()) < to:
			return nil
		case int(n.StartByte()) == from && int(n.EndByte()) == to:
			return n
		}
	}
}
