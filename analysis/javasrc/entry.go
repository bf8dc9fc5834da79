package javasrc

import (
	"context"
	"errors"
	"fmt"

	sitter "github.com/smacker/go-tree-sitter"
)

// EntryPoint is where a statement inserted into a method's or
// constructor's body runs first on every call: just after the body's '{',
// or, in a constructor that begins with an explicit this(…) or super(…)
// call, just after that call (nothing may precede it).
type EntryPoint struct {
	// Decl is the start of the declaration, as Method.Span.Start gives it
	// (annotations and modifiers included).
	Decl int
	// Offset is the byte offset to insert at.
	Offset int
}

// EntryPoints parses src whole (no method body left out, unlike Parse) and
// returns the entry point of every method, constructor and compact
// constructor that has a body, in source order, local and anonymous
// classes' included; lambdas are not methods here. importAt is where an
// import declaration may be inserted without moving a line: just after the
// package declaration, or at the start of a file without one. A file with
// syntax errors gives an error: its bodies cannot be trusted.
func EntryPoints(ctx context.Context, src []byte) (eps []EntryPoint, importAt int, err error) {
	tree, err := parseFull(ctx, src)
	if err != nil {
		return nil, 0, err
	}
	defer tree.Close()
	root := tree.RootNode()
	for i := 0; i < int(root.ChildCount()); i++ {
		if c := root.Child(i); c.Type() == "package_declaration" {
			importAt = int(c.EndByte())
		}
	}
	walkTree(root, func(n *sitter.Node) bool {
		switch n.Type() {
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
		default:
			return true
		}
		body := n.ChildByFieldName("body")
		if body == nil || body.ChildCount() == 0 || body.Child(0).Type() != "{" {
			return true // abstract or native
		}
		at := int(body.Child(0).EndByte())
		for i := 1; i < int(body.ChildCount()); i++ {
			c := body.Child(i)
			if c.Type() == "line_comment" || c.Type() == "block_comment" {
				continue
			}
			if c.Type() == "explicit_constructor_invocation" {
				at = int(c.EndByte())
			}
			break
		}
		eps = append(eps, EntryPoint{Decl: int(n.StartByte()), Offset: at})
		return true
	})
	return eps, importAt, nil
}

// LoopBody is where a statement inserted into a loop's body runs on every
// pass: after the body's '{', or, for a body that is a single statement,
// between a '{' inserted at Offset and a '}' inserted at Close.
type LoopBody struct {
	// Decl is the start of the innermost method or constructor declaration
	// around the loop, as EntryPoint.Decl (a loop in a lambda belongs to
	// the method around the lambda).
	Decl int
	// Offset is the byte offset to insert at; Close, for a body that is not
	// a block, where its closing '}' goes (-1 for a block).
	Offset, Close int
}

// LoopBodies parses src whole and returns the body of every for, enhanced
// for, while and do loop inside a method or constructor, in source order.
// Loops outside every method (initialiser blocks, field initialisers) are
// left out. A file with syntax errors gives an error.
func LoopBodies(ctx context.Context, src []byte) ([]LoopBody, error) {
	tree, err := parseFull(ctx, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	root := tree.RootNode()
	var out []LoopBody
	walkTree(root, func(n *sitter.Node) bool {
		switch n.Type() {
		case "for_statement", "enhanced_for_statement", "while_statement", "do_statement":
		default:
			return true
		}
		body := n.ChildByFieldName("body")
		if body == nil {
			return true
		}
		decl := -1
		for a := n.Parent(); a != nil; a = a.Parent() {
			if t := a.Type(); t == "method_declaration" || t == "constructor_declaration" || t == "compact_constructor_declaration" {
				decl = int(a.StartByte())
				break
			}
		}
		if decl < 0 {
			return true
		}
		if body.Type() == "block" {
			out = append(out, LoopBody{Decl: decl, Offset: int(body.Child(0).EndByte()), Close: -1})
		} else {
			out = append(out, LoopBody{Decl: decl, Offset: int(body.StartByte()), Close: int(body.EndByte())})
		}
		return true
	})
	return out, nil
}

// parseFull parses src whole (no body left out); a file with syntax
// errors gives an error. The caller closes the tree.
func parseFull(ctx context.Context, src []byte) (*sitter.Tree, error) {
	p := newParser()
	defer p.Close()
	tree, err := p.ParseCtx(ctx, nil, src)
	if err == nil && tree == nil {
		err = errors.New("tree-sitter returned no tree")
	}
	if err != nil {
		return nil, fmt.Errorf("javasrc: %w", err)
	}
	if tree.RootNode().HasError() {
		tree.Close()
		return nil, errors.New("javasrc: the file has syntax errors")
	}
	return tree, nil
}
