package javasrc

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// A large file is parsed as two halves on two cores. Tree-sitter parses
// one text on one thread, and its parse is most of a cold extraction; but
// it can parse a chosen set of byte ranges of a document (included ranges)
// with every node keeping its document position. The split falls between
// two members of a top-level type's body, or between two top-level types:
//
//	first:  [0, mid) + the body's closing brace
//	second: [0, the body's opening brace] + [mid, end)
//
// Each half is then a valid compilation unit on its own, so when neither
// tree has an error their union is the tree of the whole file: the first
// gives every node ending before mid, the second every node starting at or
// after it, and the nodes spanning mid (the compilation unit, the type
// declaration, its body) are in both and are joined. Where to split is
// found by a lexical scan (braces, parentheses, comments, literals); a
// wrong guess leaves an error in a half and the file is parsed whole.

// splitMinBytes is the size from which a file is split and its method
// bodies left out (lazy.go): below it a parse takes a few milliseconds.
var splitMinBytes = 48 << 10

// splitPlan is how a large file is parsed: in one or two parts (each a
// list of included ranges), the second from mid on, with holes left out.
type splitPlan struct {
	mid   int // first byte of the second part
	parts [][]sitter.Range
	holes []hole
}

// planSplit chooses how src is parsed, or reports that it should be
// parsed whole (small, or neither a cut nor a hole found).
func planSplit(src []byte) (splitPlan, bool) {
	if len(src) < splitMinBytes || len(src) >= 1<<31 {
		return splitPlan{}, false
	}
	holes := lazyHoles(src)
	var c cut
	ok := false
	if runtime.GOMAXPROCS(0) >= 2 {
		c, ok = chooseCut(src, holes)
	}
	if !ok && len(holes) == 0 {
		return splitPlan{}, false
	}
	pts := newPointer(src)
	p := splitPlan{parts: [][]sitter.Range{{pts.rng(0, len(src))}}}
	if ok {
		p = planFor(pts, len(src), c)
	}
	p.holes = holes
	for i := range p.parts {
		p.parts[i] = withoutHoles(p.parts[i], holes, pts)
	}
	return p, true
}

// chooseCut finds the cut that best balances the bytes each half parses
// (the second also parses [0, open], neither the holes).
func chooseCut(src []byte, holes []hole) (cut, bool) {
	cuts, ok := scanCuts(src)
	if !ok || len(cuts) == 0 {
		return cut{}, false
	}
	// parsed(x) is the number of bytes before x outside the holes.
	cum := make([]int, len(holes)+1)
	for i, h := range holes {
		cum[i+1] = cum[i] + h.to - h.from
	}
	parsed := func(x int) int {
		k := sort.Search(len(holes), func(i int) bool { return holes[i].to > x })
		hidden := cum[k]
		if k < len(holes) && holes[k].from < x {
			hidden += x - holes[k].from
		}
		return x - hidden
	}
	total := parsed(len(src))
	sizes := func(c cut) (int, int) {
		return parsed(c.at), parsed(c.open+1) + total - parsed(c.at)
	}
	best, bestCost := -1, total
	for i, c := range cuts {
		first, second := sizes(c)
		cost := first - second
		if cost < 0 {
			cost = -cost
		}
		if cost < bestCost {
			best, bestCost = i, cost
		}
	}
	first, second := sizes(cuts[best])
	if first < total/4 || second < total/4 || first > 3*total/4 || second > 3*total/4 {
		return cut{}, false
	}
	return cuts[best], true
}

// planFor is the plan of cut c of a text of size bytes, without holes.
func planFor(pts pointer, size int, c cut) splitPlan {
	p := splitPlan{mid: c.at}
	if c.open < 0 { // between top-level types
		p.parts = [][]sitter.Range{{pts.rng(0, c.at)}, {pts.rng(c.at, size)}}
	} else {
		p.parts = [][]sitter.Range{
			{pts.rng(0, c.at), pts.rng(c.close, c.close+1)},
			{pts.rng(0, c.open+1), pts.rng(c.at, size)},
		}
	}
	return p
}

// cut is a place between two members of a top-level type's body (open and
// close are its braces), or between two top-level types (open = close = -1).
type cut struct {
	at          int
	open, close int
}

// scanCuts lists the places where src may be cut. It fails on text it
// cannot follow (unbalanced braces, an unterminated literal or comment).
func scanCuts(src []byte) ([]cut, bool) {
	cs := &cutScan{src: src}
	for i := 0; i < len(src); {
		next, ok := cs.scan(i)
		if !ok {
			return nil, false
		}
		i = next
	}
	if len(cs.braces) != 0 || cs.parens != 0 {
		return nil, false
	}
	// A cut right after a body's last member has nothing after it to
	// parse; cuts whose body never closed cannot be used (not reached:
	// the braces balance).
	out := cs.cuts[:0]
	for _, c := range cs.cuts {
		if c.open >= 0 && c.close <= c.at {
			continue
		}
		out = append(out, c)
	}
	return out, true
}

// cutScan is scanCuts's state as it scans the source.
type cutScan struct {
	src       []byte
	cuts      []cut
	braces    []int // offsets of the open braces
	parens    int
	bodyStart int // index in cuts of the current body's first cut
	// An enum's members follow its constants' ';', which a second half
	// would lack: its body is not cut.
	enum, inEnum bool
}

// scan reads the source at i and returns where to go on; ok is false on
// text it cannot follow.
func (cs *cutScan) scan(i int) (next int, ok bool) {
	src := cs.src
	switch c := src[i]; c {
	case 'c', 'e', 'i', 'r':
		if len(cs.braces) == 0 && (i == 0 || !isWordByte(src[i-1])) {
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			switch string(src[i:j]) {
			case "enum":
				cs.enum = true
			case "class", "interface", "record":
				cs.enum = false
			}
			return j, true
		}
	case '/', '"', '\'':
		end, skipped, ok := skipTrivia(src, i)
		if !ok {
			return 0, false
		}
		if skipped {
			return end, true
		}
	case '(', '[':
		cs.parens++
	case ')', ']':
		if cs.parens--; cs.parens < 0 {
			return 0, false
		}
	case '{':
		if len(cs.braces) == 0 {
			cs.bodyStart = len(cs.cuts)
			cs.inEnum = cs.enum
		}
		cs.braces = append(cs.braces, i)
	case '}':
		return i + 1, cs.closeBrace(i)
	case ';':
		if len(cs.braces) == 1 && cs.parens == 0 && !cs.inEnum {
			cs.cuts = append(cs.cuts, cut{at: i + 1, open: cs.braces[0]})
		}
	}
	return i + 1, true
}

// closeBrace handles the '}' at i: the end of a top-level type (its body's
// cuts learn the closing brace; the next type may start after it), or of a
// member of one.
func (cs *cutScan) closeBrace(i int) bool {
	if len(cs.braces) == 0 {
		return false
	}
	cs.braces = cs.braces[:len(cs.braces)-1]
	switch {
	case len(cs.braces) == 0:
		for k := cs.bodyStart; k < len(cs.cuts); k++ {
			cs.cuts[k].close = i
		}
		if cs.parens == 0 && startsMember(cs.src, i+1) {
			cs.cuts = append(cs.cuts, cut{at: i + 1, open: -1, close: -1})
		}
	case len(cs.braces) == 1 && cs.parens == 0 && !cs.inEnum && startsMember(cs.src, i+1):
		cs.cuts = append(cs.cuts, cut{at: i + 1, open: cs.braces[0]})
	}
	return true
}

// startsMember reports whether the first token at or after i can start a
// member or type declaration, so that the '}' before i ended one (a method
// body, a nested type) rather than an expression (an array initializer, a
// lambda or anonymous class in a field's initializer).
func startsMember(src []byte, i int) bool {
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return false
			}
			i += j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return false
			}
			i += 2 + j + 2
		default:
			return c == '@' || c == '<' || c == '{' || c == '_' || c == '$' ||
				(c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
		}
	}
	return false
}

// skipTrivia skips the comment, string or character literal that starts
// at i, if any: end is the offset after it. ok is false when it does not
// end (a line comment ends at the end of the text).
func skipTrivia(src []byte, i int) (end int, skipped, ok bool) {
	switch {
	case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return len(src), true, true
		}
		return i + j, true, true
	case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
		j := bytes.Index(src[i+2:], []byte("*/"))
		if j < 0 {
			return 0, true, false
		}
		return i + 2 + j + 2, true, true
	case src[i] == '"':
		end, ok := skipString(src, i)
		return end, true, ok
	case src[i] == '\'':
		end, ok := skipChar(src, i)
		return end, true, ok
	}
	return i + 1, false, true
}

// skipString returns the offset after the string literal or text block
// that starts at i.
func skipString(src []byte, i int) (int, bool) {
	if bytes.HasPrefix(src[i:], []byte(`"""`)) {
		for j := i + 3; j < len(src); j++ {
			switch src[j] {
			case '\\':
				j++
			case '"':
				if bytes.HasPrefix(src[j:], []byte(`"""`)) {
					return j + 3, true
				}
			}
		}
		return 0, false
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// skipChar returns the offset after the character literal that starts at i.
func skipChar(src []byte, i int) (int, bool) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\'':
			return j + 1, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// pointer converts byte offsets to tree-sitter points (row, byte column).
type pointer struct {
	lines []int // offset of each line's start
}

func newPointer(src []byte) pointer {
	lines := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i, c := range src {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	return pointer{lines: lines}
}

func (p pointer) at(off int) sitter.Point {
	lo, hi := 0, len(p.lines)-1
	for lo < hi {
		m := (lo + hi + 1) / 2
		if p.lines[m] <= off {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return sitter.Point{Row: uint32(lo), Column: uint32(off - p.lines[lo])}
}

func (p pointer) rng(from, to int) sitter.Range {
	return sitter.Range{StartByte: uint32(from), EndByte: uint32(to), StartPoint: p.at(from), EndPoint: p.at(to)}
}

// joinHalves joins the flattened trees of the two halves cut at mid into
// the tree of the whole file. It returns nil when they do not fit
// together as expected.
func joinHalves(a, b *fnode, mid uint32) *fnode {
	// The compilation units start where their first declarations do.
	if a.sym != b.sym || (a.start != b.start && a.parent != nil) {
		return nil
	}
	ak, bk := a.allKids(), b.allKids()
	kids := make([]*fnode, 0, len(ak)+len(bk))
	var joined *fnode
	for _, k := range ak {
		switch {
		case k.end <= mid:
			kids = append(kids, k)
		case k.start < mid:
			if joined != nil {
				return nil
			}
			var other *fnode
			for _, o := range bk {
				if o.start == k.start && o.end > mid {
					other = o
					break
				}
			}
			if other == nil {
				return nil
			}
			if joined = joinHalves(k, other, mid); joined == nil {
				return nil
			}
			kids = append(kids, joined)
		}
		// A node of the first half starting at or after mid is the body's
		// closing brace, which the second half has too.
	}
	for _, k := range bk {
		if k.start >= mid {
			kids = append(kids, k)
		}
	}
	n := *a
	n.end = b.end
	n.kids = kids
	n.flags = a.flags | b.flags
	for _, k := range kids {
		k.parent = &n
	}
	return &n
}

// Parsers of halves, kept apart from freeParsers because their included
// ranges are set for each parse.
var freeSplitParsers = make(chan *sitter.Parser, 4)

// splitPart is one part of a split parse: its tree and flattened root.
type splitPart struct {
	tree *sitter.Tree
	root *fnode
	err  error
}

// parseSplitPart parses the ranges of src (a file at path), with a pooled
// parser unless ctx can be cancelled (see freeParsers on cancellable
// parses). A part with a syntax error has no root: the file is then parsed
// whole.
func parseSplitPart(ctx context.Context, path string, src []byte, ranges []sitter.Range) (h splitPart) {
	pooled := ctx.Done() == nil
	var p *sitter.Parser
	if pooled {
		select {
		case p = <-freeSplitParsers:
		default:
			p = newParser()
		}
	} else {
		p = newParser()
	}
	defer func() {
		if r := recover(); r != nil {
			h.err = fmt.Errorf("javasrc: internal error parsing part of %s: %v", path, r)
			pooled = false
		}
		if !pooled {
			p.Close()
			return
		}
		select {
		case freeSplitParsers <- p:
		default:
			p.Close()
		}
	}()
	p.SetIncludedRanges(ranges)
	t, err := p.ParseCtx(ctx, nil, src)
	if err == nil && t == nil {
		err = fmt.Errorf("javasrc: tree-sitter returned no tree")
	}
	if err != nil {
		p.Reset()
		return splitPart{err: err}
	}
	h.tree = t
	if t.RootNode().HasError() {
		return h // parsed whole instead
	}
	h.root, h.err = flatten(t.RootNode(), true)
	return h
}

// parseSplit parses src as planned, the parts on goroutines of their
// own, and builds the model from their joined trees (with save, also what
// a Doc keeps). ok is false when a part has a syntax error, the parts do
// not join, or a hole is not a method body: the file must then be parsed
// whole.
func parseSplit(ctx context.Context, base *File, src []byte, plan splitPlan, save bool) (f *File, st *docState, ok bool, err error) {
	parsePart := func(ranges []sitter.Range) splitPart { return parseSplitPart(ctx, base.Path, src, ranges) }
	parts := make([]splitPart, len(plan.parts))
	if len(parts) == 2 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			parts[1] = parsePart(plan.parts[1])
		}()
		parts[0] = parsePart(plan.parts[0])
		<-done
	} else {
		parts[0] = parsePart(plan.parts[0])
	}
	var trees []*sitter.Tree
	var fts []*ftree
	failed := false
	for _, h := range parts {
		if h.tree != nil {
			trees = append(trees, h.tree)
		}
		if h.err != nil || h.root == nil {
			failed = true
		} else {
			fts = append(fts, h.root.t)
		}
	}
	closeAll := func() {
		for _, t := range trees {
			t.Close()
		}
	}
	if failed {
		closeAll()
		if ctx.Err() != nil {
			return nil, nil, false, ctx.Err()
		}
		return nil, nil, false, nil // a whole parse reports it, if it recurs
	}
	root := parts[0].root
	if len(parts) == 2 {
		root = joinHalves(root, parts[1].root, uint32(plan.mid))
	}
	if root == nil || !holesAreBodies(root, plan.holes) {
		closeAll()
		return nil, nil, false, nil
	}
	f, st, err = newBuilder(base.Src, save).buildModel(base, root, fts, trees, true)
	if err != nil {
		return nil, nil, false, nil
	}
	return f, st, true, nil
}
