package javasrc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/perfls/perfls/analysis/textpos"
)

// The flattened tree holds, node for node, what the binding's API says:
// symbol, offsets, flags, field names and children, also when method
// bodies are copied on demand.
func TestFlatMatchesBinding(t *testing.T) {
	srcs := map[string]string{
		"Names.java":   readTestdata(t, "Names.java"),
		"Strings.java": readTestdata(t, "Strings.java"),
		"gen":          genJava(300),
		"annotations":  annotationsSrc,
		"member":       memberSrc,
		"broken":       "class Broken {\n  @SPL(\n  void half() { new Object() {};\n  void more() { int x = ; }\n  /* c */ int y = 1 +;\n",
	}
	p := newParser()
	defer p.Close()
	for name, src := range srcs {
		tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, skip := range []bool{false, true} {
			root, err := flatten(tree.RootNode(), skip)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameNode(tree.RootNode(), root, ""); err != nil {
				t.Errorf("%s (skip %v): %v", name, skip, err)
			}
		}
		tree.Close()
	}
}

func sameNode(n *sitter.Node, f *fnode, path string) error {
	path += "/" + kind(n)
	switch {
	case uint16(n.Symbol()) != f.Symbol() || kind(n) != kindOf(f):
		return fmt.Errorf("%s: symbol %d vs %d", path, n.Symbol(), f.Symbol())
	case n.StartByte() != f.StartByte() || n.EndByte() != f.EndByte():
		return fmt.Errorf("%s: span [%d,%d) vs [%d,%d)", path, n.StartByte(), n.EndByte(), f.StartByte(), f.EndByte())
	case n.IsNamed() != f.IsNamed() || n.IsMissing() != f.IsMissing() || n.HasError() != f.HasError() || n.IsError() != f.IsError():
		return fmt.Errorf("%s: flags differ", path)
	case n.ChildCount() != f.ChildCount() || n.NamedChildCount() != f.NamedChildCount():
		return fmt.Errorf("%s: %d/%d children vs %d/%d", path, n.ChildCount(), n.NamedChildCount(), f.ChildCount(), f.NamedChildCount())
	}
	for i := 0; i < int(n.ChildCount()); i++ {
		if c := n.Child(i); !isComment(kind(c)) && n.FieldNameForChild(i) != f.FieldNameForChild(i) {
			return fmt.Errorf("%s: child %d (%s) field %q vs %q", path, i, kind(c), n.FieldNameForChild(i), f.FieldNameForChild(i))
		}
		if f.Child(i).Parent() != f {
			return fmt.Errorf("%s: child %d has another parent", path, i)
		}
		if err := sameNode(n.Child(i), f.Child(i), path); err != nil {
			return err
		}
	}
	for _, field := range []string{"name", "body", "type", "value", "parameters", "arguments", "left", "right", "operator", "key", "object", "field", "declarator", "dimensions", "type_parameters"} {
		a, b := n.ChildByFieldName(field), f.ChildByFieldName(field)
		if (a == nil) != (b == nil) || a != nil && (a.StartByte() != b.StartByte() || a.EndByte() != b.EndByte() || uint16(a.Symbol()) != b.Symbol()) {
			return fmt.Errorf("%s: child by field %q differs", path, field)
		}
	}
	if strings.Count(path, "/") > 3000 {
		return fmt.Errorf("too deep")
	}
	return nil
}

// Extraction reads the tree-sitter tree only while collecting
// declarations: closing it early never makes Parse extract twice.
func TestExtractDoesNotReadReleasedTree(t *testing.T) {
	srcs := []string{readTestdata(t, "Names.java"), readTestdata(t, "Strings.java"), genJava(300), annotationsSrc, memberSrc,
		"class Broken {\n  @SPL(\n  void half() { new Object() {};\n  void more() { int x = ; }\n  /* c */ int y = 1 +;\n",
		"enum E { A { void f() { new Runnable() { public void run() {} }; } }, B; static final String S = \"x\" + (1 + 2); }"}
	for i, src := range srcs {
		p := newParser()
		parse := func(s string) (*sitter.Tree, error) { return p.ParseCtx(context.Background(), nil, []byte(s)) }
		tree, err := parse(src)
		if err != nil {
			t.Fatal(err)
		}
		base := &File{Path: "A.java", Src: src, Mapper: textpos.NewMapper(src)}
		if _, _, err := extract(base, tree, parse, false, true); err != nil {
			t.Errorf("source %d: %v", i, err)
		}
		p.Close()
	}
}
