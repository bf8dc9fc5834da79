package javasrc

import (
	"math"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"

	"github.com/perfls/perfls/analysis/textpos"
)

// Tree-sitter helpers. Everything here runs while the tree is open, inside
// one Parse call, on one goroutine.

var (
	langOnce    sync.Once
	javaLang    *sitter.Language
	symbolNames []string // node type name by symbol, to avoid a C string per lookup
)

func language() *sitter.Language {
	langOnce.Do(func() {
		javaLang = java.GetLanguage()
		n := int(javaLang.SymbolCount())
		symbolNames = make([]string, n)
		for i := 0; i < n; i++ {
			symbolNames[i] = javaLang.SymbolName(sitter.Symbol(i))
		}
	})
	return javaLang
}

// kindOf is kind for a flattened node.
func kindOf(n *fnode) string {
	s := int(n.sym)
	if s == math.MaxUint16 {
		return "ERROR"
	}
	if s < len(symbolNames) {
		return symbolNames[s]
	}
	return ""
}

// kind returns the node's type name ("ERROR" for error nodes).
func kind(n *sitter.Node) string {
	s := int(n.Symbol())
	if s == math.MaxUint16 {
		return "ERROR"
	}
	if s < len(symbolNames) {
		return symbolNames[s]
	}
	return n.Type()
}

func isComment(k string) bool { return k == "line_comment" || k == "block_comment" }

func (b *builder) span(n *fnode) textpos.Span {
	return textpos.Span{Start: b.om.orig(int(n.StartByte())), End: b.om.orig(int(n.EndByte()))}
}

// child is a child node with its field name.
type child struct {
	n     *fnode
	kind  string
	field string
}

// children lists the node's children, comments excluded.
func children(n *fnode) []child {
	kids := n.allKids()
	out := make([]child, 0, len(kids))
	for _, ch := range kids {
		k := kindOf(ch)
		if isComment(k) {
			continue
		}
		out = append(out, child{n: ch, kind: k, field: fieldName(ch.field)})
	}
	return out
}

// namedChildren lists the named children, comments excluded. It ranges
// over the children once: NamedChild(i) steps from the first child, and
// calling it for each i is quadratic in a wide node (an ERROR node of a
// binary file has hundreds of thousands).
func namedChildren(n *fnode) []*fnode {
	kids := n.allKids()
	out := make([]*fnode, 0, len(kids))
	for _, ch := range kids {
		if !ch.IsNamed() || isComment(kindOf(ch)) {
			continue
		}
		out = append(out, ch)
	}
	return out
}

func (b *builder) text(n *fnode) string {
	s, e := int(n.StartByte()), int(n.EndByte())
	if s < 0 || e > len(b.src) || s > e {
		return ""
	}
	return b.src[s:e]
}

// typeText returns a type (or name) as written, whitespace and comments
// normalised.
func (b *builder) typeText(n *fnode) string { return normalizeType(b.text(n)) }

// erasure returns the erasure of a type node; tv resolves type variables.
func (b *builder) erasure(n *fnode, tv func(string) (string, bool)) string {
	return eraseType(normalizeType(b.text(n)), tv)
}

// countDims counts the "[]" pairs of a dimensions node.
func (b *builder) countDims(n *fnode) int {
	return strings.Count(stripAnnotations(normalizeType(b.text(n))), "[")
}

// simpleName returns the last identifier of a (possibly scoped) name.
func (b *builder) simpleName(n *fnode) string {
	t := normalizeType(b.text(n))
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// dottedName returns a (possibly scoped) identifier without whitespace or
// comments: "java . util /* x */ . List" gives "java.util.List".
func (b *builder) dottedName(n *fnode) string { return normalizeType(b.text(n)) }
