package javasrc

import sitter "github.com/smacker/go-tree-sitter"

// Walking a tree-sitter tree through Node.Child(i) or NamedChild(i) costs
// O(i) per call (tree-sitter finds child i by stepping from the first), so
// a loop over a node's children is quadratic in their number: a binary
// file parses into a few ERROR nodes with hundreds of thousands of
// children. These walks use a TreeCursor, which steps to the next sibling
// in constant time.

// walkTree visits root's subtree in preorder. visit returns whether to
// descend into the node's children.
func walkTree(root *sitter.Node, visit func(n *sitter.Node) bool) {
	if root == nil {
		return
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	for {
		if visit(c.CurrentNode()) && c.GoToFirstChild() {
			continue
		}
		// The cursor never leaves root's subtree: at root there is no
		// next sibling, and GoToParent stops there.
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return
			}
		}
	}
}
