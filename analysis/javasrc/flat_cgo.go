package javasrc

// A tree-sitter tree copied into Go memory in one call. The go-tree-sitter
// binding makes one cgo call per node access (child, field name, symbol,
// offsets), and the extraction touches tens of thousands of nodes: copying
// the nodes it needs with a tree cursor in C costs a fraction of that.
// Method bodies (blocks) are copied only when asked for (fnode.expand):
// they hold most of a file's nodes and, unless they contain a type
// declaration or a syntax error, nothing the model needs.

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

// Layouts of tree-sitter's TSNode and TSTreeCursor (api.h, ABI 14), whose
// functions the go-tree-sitter package links in.
typedef struct { uint32_t context[4]; const void *id; const void *tree; } pf_node;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } pf_cursor;

extern pf_cursor ts_tree_cursor_new(pf_node);
extern void ts_tree_cursor_delete(pf_cursor *);
extern bool ts_tree_cursor_goto_first_child(pf_cursor *);
extern bool ts_tree_cursor_goto_next_sibling(pf_cursor *);
extern bool ts_tree_cursor_goto_parent(pf_cursor *);
extern pf_node ts_tree_cursor_current_node(const pf_cursor *);
extern uint16_t ts_tree_cursor_current_field_id(const pf_cursor *);
extern uint16_t ts_node_symbol(pf_node);
extern uint32_t ts_node_start_byte(pf_node);
extern uint32_t ts_node_end_byte(pf_node);
extern bool ts_node_is_named(pf_node);
extern bool ts_node_is_missing(pf_node);
extern bool ts_node_has_error(pf_node);
extern uint32_t ts_node_child_count(pf_node);

enum { PF_NAMED = 1, PF_MISSING = 2, PF_HAS_ERROR = 4, PF_SKIPPED = 8 };

typedef struct {
	uint32_t start, end;
	int32_t parent;
	uint16_t sym, field;
	uint8_t flags;
} pf_item;

typedef struct {
	pf_item *items;
	int n, cap;
	pf_node *skipped; // the node of each item with PF_SKIPPED, in order
	int ns, scap;
	int32_t *stack;
	int sn, stcap;
	int oom;
} pf_out;

static void *pf_grow(void *p, int *cap, int need, size_t size, int *oom) {
	if (need <= *cap) return p;
	int c = *cap ? *cap : 1024;
	while (c < need) c *= 2;
	void *q = realloc(p, (size_t)c * size);
	if (!q) { *oom = 1; return p; }
	*cap = c;
	return q;
}

static int pf_emit(pf_out *o, pf_cursor *c, int32_t parent, const uint16_t *skip, int nskip) {
	o->items = pf_grow(o->items, &o->cap, o->n + 1, sizeof(pf_item), &o->oom);
	o->stack = pf_grow(o->stack, &o->stcap, o->sn + 1, sizeof(int32_t), &o->oom);
	if (o->oom) return 0;
	pf_node nd = ts_tree_cursor_current_node(c);
	pf_item *it = &o->items[o->n];
	it->start = ts_node_start_byte(nd);
	it->end = ts_node_end_byte(nd);
	it->parent = parent;
	it->sym = ts_node_symbol(nd);
	it->field = parent < 0 ? 0 : ts_tree_cursor_current_field_id(c);
	it->flags = (ts_node_is_named(nd) ? PF_NAMED : 0) | (ts_node_is_missing(nd) ? PF_MISSING : 0) |
		(ts_node_has_error(nd) ? PF_HAS_ERROR : 0);
	if (!(it->flags & PF_HAS_ERROR)) {
		for (int i = 0; i < nskip; i++) {
			if (it->sym == skip[i] && ts_node_child_count(nd) > 0) {
				o->skipped = pf_grow(o->skipped, &o->scap, o->ns + 1, sizeof(pf_node), &o->oom);
				if (o->oom) return 0;
				o->skipped[o->ns++] = nd;
				it->flags |= PF_SKIPPED;
				break;
			}
		}
	}
	o->stack[o->sn++] = o->n++;
	return 1;
}

// pf_flatten appends root's subtree in preorder to o; the children of a
// node whose symbol is in skip (and that has no error) are left out. It
// returns 0 when out of memory.
static int pf_flatten(pf_out *o, pf_node root, const uint16_t *skip, int nskip) {
	pf_cursor c = ts_tree_cursor_new(root);
	o->sn = 0;
	if (!pf_emit(o, &c, -1, 0, 0)) goto fail; // the root itself is never skipped
	for (;;) {
		int32_t cur = o->stack[o->sn - 1];
		if (!(o->items[cur].flags & PF_SKIPPED) && ts_tree_cursor_goto_first_child(&c)) {
			if (!pf_emit(o, &c, cur, skip, nskip)) goto fail;
			continue;
		}
		for (;;) {
			o->sn--;
			if (o->sn == 0) {
				ts_tree_cursor_delete(&c);
				return 1;
			}
			if (ts_tree_cursor_goto_next_sibling(&c)) {
				if (!pf_emit(o, &c, o->stack[o->sn - 1], skip, nskip)) goto fail;
				break;
			}
			ts_tree_cursor_goto_parent(&c);
		}
	}
fail:
	ts_tree_cursor_delete(&c);
	return 0;
}

static pf_out *pf_new(void) { return calloc(1, sizeof(pf_out)); }

static void pf_free(pf_out *o) {
	if (!o) return;
	free(o->items);
	free(o->skipped);
	free(o->stack);
	free(o);
}
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// ftree is the state shared by the nodes of one flattened tree.
type ftree struct {
	mu   sync.Mutex  // held while a skipped node is copied
	skip []uint16    // symbols whose children are copied on demand
	raw  []C.pf_node // the tree-sitter node of each skipped node
	err  error       // the first failure to copy a skipped body
	// sealed is set when the tree-sitter tree may be freed: skipped
	// bodies can no longer be copied.
	sealed bool
}

// rawNode returns the tree-sitter TSNode inside a binding's Node: the
// binding's Node starts with it (checked by TestFlatMatchesBinding).
func rawNode(n *sitter.Node) C.pf_node {
	return *(*C.pf_node)(unsafe.Pointer(n))
}

var (
	errFlatMemory = errors.New("javasrc: out of memory copying the syntax tree")
	errSealed     = errors.New("javasrc: internal error: syntax tree read after it was released")
)

// flatten copies n's subtree, method bodies left out when skip is set. The
// tree n belongs to must stay open while the result is used: skipped
// bodies are copied from it on demand.
func flatten(n *sitter.Node, skip bool) (*fnode, error) {
	t := &ftree{}
	if skip {
		t.skip = bodySymbols()
	}
	root := &fnode{}
	if err := t.copyInto(root, rawNode(n)); err != nil {
		return nil, err
	}
	return root, nil
}

// copyInto copies the subtree of raw, whose root is (or becomes) at.
func (t *ftree) copyInto(at *fnode, raw C.pf_node) error {
	o := C.pf_new()
	if o == nil {
		return errFlatMemory
	}
	defer C.pf_free(o)
	var sp *C.uint16_t
	if len(t.skip) > 0 {
		sp = (*C.uint16_t)(unsafe.Pointer(&t.skip[0]))
	}
	if C.pf_flatten(o, raw, sp, C.int(len(t.skip))) == 0 {
		return errFlatMemory
	}
	items := unsafe.Slice(o.items, int(o.n))
	skipped := unsafe.Slice(o.skipped, int(o.ns))
	nodes := make([]fnode, len(items))
	counts := make([]int32, len(items))
	for i := 1; i < len(items); i++ {
		counts[items[i].parent]++
	}
	kids := make([]*fnode, len(items))
	off := int32(0)
	ns := 0
	for i := range items {
		it := &items[i]
		n := &nodes[i]
		if i == 0 {
			n = at
		}
		n.t = t
		n.start, n.end = uint32(it.start), uint32(it.end)
		n.sym, n.flags = uint16(it.sym), uint8(it.flags)
		if i > 0 {
			n.field = uint16(it.field)
			p := &nodes[it.parent]
			if it.parent == 0 {
				p = at
			}
			n.parent = p
			p.kids = append(p.kids, n) // within the preallocated range
		}
		if it.flags&C.PF_SKIPPED != 0 {
			t.raw = append(t.raw, skipped[ns])
			n.raw = int32(len(t.raw))
			ns++
		} else {
			n.raw = 0
			n.kids = kids[off : off : off+counts[i]]
			off += counts[i]
		}
	}
	return nil
}
