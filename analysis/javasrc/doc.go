package javasrc

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/perfls/perfls/analysis/textpos"
)

// Doc is an open document whose tree-sitter tree is kept between versions,
// so that a new version is parsed incrementally from the old tree. The
// tree never leaves the Doc and is only touched under its lock (trees are
// not safe even for concurrent reads); the Files Update returns are the
// usual immutable models. A Doc is safe for concurrent use; Close it when
// the document is closed.
type Doc struct {
	path string

	mu     sync.Mutex
	parser *sitter.Parser
	local  *sitter.Parser // parses one method alone (local.go)
	src    []byte         // the text tree was parsed from
	tree   *sitter.Tree   // nil before the first Update and after a failure
	// pending, when set, delivers the tree of src (nil on failure): a
	// large document's first version is modelled as Parse models it
	// (split.go, lazy.go), and its whole tree, needed for the next edit,
	// is parsed meanwhile on another goroutine.
	pending chan *sitter.Tree
	file    *File     // the model of src
	clean   bool      // tree has no syntax error
	state   *docState // what memberEdit needs about file
	moved   int       // updates that moved the old model instead of extracting (for tests)
	member  int       // updates that re-extracted one method (for tests)
	locals  int       // updates that parsed one method alone (for tests)
	closed  bool
}

// NewDoc returns an empty document for path.
func NewDoc(path string) *Doc { return &Doc{path: path} }

// Update parses a new version of the document and returns its model. The
// edit from the previous version is taken to be one replacement: the text
// between their common prefix and common suffix.
func (d *Doc) Update(src []byte) (f *File, err error) {
	src = append([]byte(nil), src...) // the caller may reuse its buffer
	text := string(src)
	base := &File{Path: d.path, Src: text, Mapper: textpos.NewMapper(text)}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			d.drop()
			f = base
			err = fmt.Errorf("javasrc: internal error analysing %s: %v\n%s", d.path, r, debug.Stack())
		}
	}()
	if d.closed {
		return base, fmt.Errorf("javasrc: %s: document closed", d.path)
	}
	if why := Examine(int64(len(src)), src); why != nil {
		// Not parsed: the next version, if text, is parsed from scratch.
		d.drop()
		base.Skipped = why
		return base, nil
	}
	if d.parser == nil {
		d.parser = newParser()
	}
	d.awaitPending()
	if d.tree == nil {
		if plan, ok := planSplit(src); ok {
			f, st, ok, err := parseSplit(context.Background(), base, src, plan, true)
			if err == nil && ok {
				d.drop()
				d.src, d.file, d.state = src, f, st
				d.pending = parseLater(src)
				return f, nil
			}
		}
	}
	var old *sitter.Tree
	var edit sitter.EditInput
	if d.tree != nil {
		edit = editBetween(d.src, src)
		d.tree.Edit(edit)
		old = d.tree
	}
	if old != nil {
		if f, st, ok := d.updateLocally(src, text, base.Mapper, edit); ok {
			d.locals++
			d.src, d.file, d.state = src, f, st
			return f, nil
		}
	}
	return d.reparse(base, src, old, edit)
}

// awaitPending takes the tree being parsed on another goroutine, if any.
func (d *Doc) awaitPending() {
	if d.pending == nil {
		return
	}
	d.tree = <-d.pending
	d.pending = nil
	if d.tree == nil {
		d.src, d.file, d.state = nil, nil, nil
	} else {
		d.clean = !d.tree.RootNode().HasError()
	}
}

// parse parses s with d's parser, reusing old (edited) when not nil.
func (d *Doc) parse(s []byte, old *sitter.Tree) (*sitter.Tree, error) {
	t, err := d.parser.ParseCtx(context.Background(), old, s)
	if err == nil && t == nil {
		err = fmt.Errorf("javasrc: tree-sitter returned no tree for %s", d.path)
	}
	if err != nil {
		d.parser.Reset()
		return nil, err
	}
	return t, nil
}

// reparse parses src, incrementally from old (nil: from scratch) after
// edit, and models it: by moving or partly re-extracting the previous model
// where the edit allows, else by extracting the whole file into base.
func (d *Doc) reparse(base *File, src []byte, old *sitter.Tree, edit sitter.EditInput) (*File, error) {
	text := base.Src
	prevSrc, prevFile, prevState := d.src, d.file, d.state
	tree, err := d.parse(src, old)
	// A large file with errors is modelled as Parse models it, method
	// bodies left out (lazy.go), whenever that parse has none (the usual
	// case while typing in a body); the tree, errors and all, serves the
	// next edit.
	if err == nil && tree.RootNode().HasError() {
		if f, st, ok := lazyModel(base, src); ok {
			d.drop()
			d.tree, d.src, d.clean = tree, src, false
			d.file, d.state = f, st
			return f, nil
		}
	}
	if err == nil && old != nil && tree.RootNode().HasError() {
		// Error recovery may differ when old subtrees are reused; a broken
		// text is parsed afresh so its model is exactly Parse's.
		tree.Close()
		tree, err = d.parse(src, nil)
	}
	d.drop()
	if err != nil {
		return base, err
	}
	d.tree, d.src = tree, src
	// The fast paths below rely on both trees being free of errors. That
	// is the trees', not the models': a large file's model may list none
	// while its tree has some (lazy.go).
	prevClean := d.clean
	d.clean = !tree.RootNode().HasError()
	fast := old != nil && prevFile != nil && prevClean && d.clean
	if fast && bodyEdit(prevSrc, src, edit, tree) {
		// Only one method body changed: the declarations stay, moved.
		s := newShifter(int(edit.OldEndIndex), int(edit.NewEndIndex)-int(edit.OldEndIndex))
		d.file = prevFile.shiftWith(s, text, base.Mapper)
		d.state = s.state(prevState)
		d.moved++
		return d.file, nil
	}
	if fast {
		if f, st := memberEdit(prevFile, prevState, prevSrc, src, text, base.Mapper, edit, tree); f != nil {
			// One method changed (e.g. inside an annotation): it alone
			// is extracted again.
			d.file, d.state = f, st
			d.member++
			return d.file, nil
		}
	}
	f, st, err := extract(base, tree, func(s string) (*sitter.Tree, error) { return d.parse([]byte(s), nil) }, true, false)
	d.state = st
	if err != nil {
		d.drop()
		return base, err
	}
	d.file = f
	return d.file, nil
}

// drop forgets the tree; the next Update parses from scratch.
func (d *Doc) drop() {
	if d.pending != nil {
		go func(pending chan *sitter.Tree) {
			if t := <-pending; t != nil {
				t.Close()
			}
		}(d.pending)
		d.pending = nil
	}
	if d.tree != nil {
		d.tree.Close()
		d.tree = nil
	}
	d.src, d.file, d.state = nil, nil, nil
}

// parseLater parses src on a new goroutine and delivers its tree (nil on
// failure) on the channel it returns.
func parseLater(src []byte) chan *sitter.Tree {
	out := make(chan *sitter.Tree, 1)
	go func() {
		var t *sitter.Tree
		defer func() {
			recover() // t stays nil: the next Update parses from scratch
			out <- t
		}()
		p := getParser()
		tree, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			p.Reset()
		}
		putParser(p)
		t = tree
	}()
	return out
}

// Close releases the tree and the parser. Update fails afterwards.
func (d *Doc) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drop()
	for _, p := range []**sitter.Parser{&d.parser, &d.local} {
		if *p != nil {
			(*p).Close()
			*p = nil
		}
	}
	d.closed = true
}

// editBetween describes the change from old to new as one replacement of
// the text between their common prefix and common suffix. Points are
// (row, byte column), as tree-sitter wants them.
func editBetween(old, new []byte) sitter.EditInput {
	p := commonPrefix(old, new)
	s := commonSuffix(old[p:], new[p:])
	oldEnd, newEnd := len(old)-s, len(new)-s
	start := pointAt(old, 0, sitter.Point{}, p)
	return sitter.EditInput{
		StartIndex:  uint32(p),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  start,
		OldEndPoint: pointAt(old, p, start, oldEnd),
		NewEndPoint: pointAt(new, p, start, newEnd),
	}
}

// commonPrefix returns the length of the longest common prefix of a and b,
// comparing blocks first (an edit usually leaves most of a file alone).
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	p := 0
	for blk := 4096; blk >= 8; blk /= 8 {
		for p+blk <= n && bytes.Equal(a[p:p+blk], b[p:p+blk]) {
			p += blk
		}
	}
	for p < n && a[p] == b[p] {
		p++
	}
	return p
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	s := 0
	for blk := 4096; blk >= 8; blk /= 8 {
		for s+blk <= n && bytes.Equal(a[len(a)-s-blk:len(a)-s], b[len(b)-s-blk:len(b)-s]) {
			s += blk
		}
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}

// pointAt returns the point of offset to, counting from offset from at
// point at.
func pointAt(src []byte, from int, at sitter.Point, to int) sitter.Point {
	seg := src[from:to]
	if nl := bytes.Count(seg, []byte{'\n'}); nl > 0 {
		at.Row += uint32(nl)
		at.Column = uint32(len(seg) - 1 - bytes.LastIndexByte(seg, '\n'))
	} else {
		at.Column += uint32(len(seg))
	}
	return at
}
