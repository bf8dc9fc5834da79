package javasrc

import (
	"context"
	"math/rand"
	"os"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// The cursor walks must find what the index-based recursion they replace
// found.

func errorCostByIndex(n *sitter.Node) int {
	if n == nil || !n.HasError() {
		return 0
	}
	if n.IsMissing() {
		return 1
	}
	if n.IsError() {
		return int(n.EndByte()-n.StartByte()) + 1
	}
	cost := 0
	for i := 0; i < int(n.ChildCount()); i++ {
		cost += errorCostByIndex(n.Child(i))
	}
	return cost
}

func declaresTypeByIndex(n *sitter.Node) bool {
	switch kind(n) {
	case "class_body", "interface_body", "enum_body", "annotation_type_body",
		"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
		return true
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if c := n.NamedChild(i); c != nil && declaresTypeByIndex(c) {
			return true
		}
	}
	return false
}

func TestCursorWalksMatchIndexWalks(t *testing.T) {
	srcs := []string{
		"class A { void m() { int x = 1; } }",
		"class A { void m() { new Runnable() { public void run() {} }; } void n( { }",
		"class A { @SPL(\"for n in {1,2} SELF(n) <= b(n)\" void m() { record R(int x) {} }",
		"package p; class { ) } ]] enum E { X { } }",
		"",
	}
	for _, name := range []string{"Names.java", "Strings.java"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			srcs = append(srcs, string(b))
		}
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 5; i++ {
		b := make([]byte, 2000)
		r.Read(b)
		srcs = append(srcs, string(b))
	}
	p := newParser()
	defer p.Close()
	for i, src := range srcs {
		tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		root := tree.RootNode()
		if got, want := errorCost(root), errorCostByIndex(root); got != want {
			t.Errorf("source %d: errorCost %d, want %d", i, got, want)
		}
		var check func(n *sitter.Node)
		check = func(n *sitter.Node) {
			if got, want := declaresType(n), declaresTypeByIndex(n); got != want {
				t.Errorf("source %d: declaresType(%s at %d) = %v, want %v", i, kind(n), n.StartByte(), got, want)
			}
			for j := 0; j < int(n.NamedChildCount()) && j < 50; j++ {
				check(n.NamedChild(j))
			}
		}
		check(root)
		tree.Close()
	}
}

// BenchmarkNamedChildrenWide lists the children of one node with many:
// linear in their number (it was quadratic).
func BenchmarkNamedChildrenWide(b *testing.B) {
	n := &fnode{}
	for i := 0; i < 100000; i++ {
		n.kids = append(n.kids, &fnode{parent: n, flags: flagNamed})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := len(namedChildren(n)); got != len(n.kids) {
			b.Fatal(got)
		}
	}
}
