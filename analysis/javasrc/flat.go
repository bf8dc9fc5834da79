package javasrc

import (
	"math"
	"sync"
)

// fnode is one node of a flattened tree, with the methods of the
// binding's Node that the extraction uses.
type fnode struct {
	t          *ftree
	parent     *fnode
	kids       []*fnode // every child, comments included
	start, end uint32
	raw        int32 // 1 + index in t.raw while the children are not copied
	sym, field uint16
	flags      uint8
}

const (
	flagNamed    = 1
	flagMissing  = 2
	flagHasError = 4
)

// expand copies a skipped node's children.
func (n *fnode) expand() {
	if n.raw == 0 {
		return
	}
	// Builders on two goroutines (builder.methods) share the tree.
	n.t.mu.Lock()
	defer n.t.mu.Unlock()
	if n.raw == 0 {
		return
	}
	if n.t.sealed {
		// The tree-sitter tree is gone.
		n.raw = 0
		if n.t.err == nil {
			n.t.err = errSealed
		}
		return
	}
	if err := n.t.copyInto(n, n.t.raw[n.raw-1]); err != nil {
		n.raw, n.kids = 0, nil
		if n.t.err == nil {
			n.t.err = err
		}
	}
}

func (n *fnode) ChildCount() uint32 {
	n.expand()
	return uint32(len(n.kids))
}

func (n *fnode) Child(i int) *fnode {
	n.expand()
	if i < 0 || i >= len(n.kids) {
		return nil
	}
	return n.kids[i]
}

func (n *fnode) NamedChildCount() uint32 {
	n.expand()
	c := 0
	for _, k := range n.kids {
		if k.flags&flagNamed != 0 {
			c++
		}
	}
	return uint32(c)
}

// NamedChild steps from the first child: O(i). Loops range over allKids.
func (n *fnode) NamedChild(i int) *fnode {
	n.expand()
	for _, k := range n.kids {
		if k.flags&flagNamed != 0 {
			if i == 0 {
				return k
			}
			i--
		}
	}
	return nil
}

// FieldNameForChild returns the field name of child i, "" when none.
func (n *fnode) FieldNameForChild(i int) string {
	if c := n.Child(i); c != nil {
		return fieldName(c.field)
	}
	return ""
}

// ChildByFieldName returns the first child with the field name.
func (n *fnode) ChildByFieldName(name string) *fnode {
	id := fieldID(name)
	if id == 0 {
		return nil
	}
	n.expand()
	for _, k := range n.kids {
		if k.field == id {
			return k
		}
	}
	return nil
}

func (n *fnode) StartByte() uint32 { return n.start }
func (n *fnode) EndByte() uint32   { return n.end }
func (n *fnode) IsNamed() bool     { return n.flags&flagNamed != 0 }
func (n *fnode) IsMissing() bool   { return n.flags&flagMissing != 0 }
func (n *fnode) HasError() bool    { return n.flags&flagHasError != 0 }
func (n *fnode) IsError() bool     { return n.sym == math.MaxUint16 }
func (n *fnode) Symbol() uint16    { return n.sym }
func (n *fnode) Parent() *fnode    { return n.parent }

// Field names by id, and ids by name, of the Java grammar.
var (
	fieldsOnce sync.Once
	fieldNames []string
	fieldIDs   map[string]uint16
	bodySyms   []uint16
)

func initFields() {
	fieldsOnce.Do(func() {
		lang := language()
		fieldIDs = map[string]uint16{}
		fieldNames = []string{""}
		for i := 1; ; i++ {
			name := lang.FieldName(i)
			if name == "" {
				break
			}
			fieldNames = append(fieldNames, name)
			fieldIDs[name] = uint16(i)
		}
		for i, name := range symbolNames {
			if name == "block" || name == "constructor_body" {
				bodySyms = append(bodySyms, uint16(i))
			}
		}
	})
}

func fieldName(id uint16) string {
	initFields()
	if int(id) < len(fieldNames) {
		return fieldNames[id]
	}
	return ""
}

func fieldID(name string) uint16 {
	initFields()
	return fieldIDs[name]
}

// bodySymbols are the symbols of blocks, whose contents are copied on
// demand.
func bodySymbols() []uint16 {
	initFields()
	return bodySyms
}

// allKids returns every child, copying a skipped node's children first.
func (n *fnode) allKids() []*fnode {
	n.expand()
	return n.kids
}
