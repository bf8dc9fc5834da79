package javasrc

import (
	"context"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// Method bodies are most of a Java file and nothing in them reaches the
// model unless they declare a type (a local or anonymous class). A large
// file is therefore parsed with the inside of such bodies left out of
// tree-sitter's included ranges: it sees "void m() { }". Which braces are
// method bodies is guessed lexically (a '{' after the ')' of a parameter
// list, or after its throws clause) and then checked on the tree: every
// hole must be exactly the inside of a method's or constructor's body,
// and the tree must have no error; otherwise the file is parsed whole.
//
// The cost: a syntax error inside a left-out body is not seen (the
// model's SyntaxErrors list those in the declarations only, for such
// files), which the model does not need: javac reports them.

// hole is the inside of a method body left out of a parse: the bytes
// after its '{' up to its '}'.
type hole struct{ from, to int }

// bodyKeywords cannot name a method before its parameter list.
var bodyKeywords = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "catch": true, "synchronized": true,
	"try": true, "return": true, "new": true, "super": true, "this": true, "assert": true,
	"throw": true, "case": true, "default": true, "else": true, "do": true, "yield": true,
}

// lazyHoles finds the method bodies of src that can be left out of a
// parse: after a parameter list whose name is preceded by a type (an
// identifier other than new or record, '>' or ']'), not inside another
// method body, and whose text cannot declare a type (mayDeclareType). It
// returns nil when braces or parentheses do not balance.
func lazyHoles(src []byte) []hole {
	h := &holeScan{src: src}
	for i := 0; i < len(src); {
		next, ok := h.scan(i)
		if !ok {
			return nil
		}
		i = next
	}
	if len(h.parens) != 0 || h.braces != 0 {
		return nil // unbalanced: the whole parse will find the error
	}
	return h.holes
}

// holeTok is a token lazyHoles looks at.
type holeTok struct {
	kind byte // 'i' identifier or keyword, else the punctuation byte
	word []byte
}

// holeScan is lazyHoles's state as it scans the source.
type holeScan struct {
	src         []byte
	holes       []hole
	last, prev  holeTok // the last two tokens
	parens      []bool  // per open '(': whether it opens a parameter list
	braces      int     // open braces outside the holes
	methodParen bool    // the last ')' closed a method's parameter list
	state       int     // 0 nothing, 1 after a method's ')', 2 in its throws clause
}

func (h *holeScan) push(t holeTok) {
	switch {
	case t.kind == ')':
		h.state = 0
		if h.methodParen {
			h.state = 1
		}
	case h.state == 1 && t.kind == 'i' && string(t.word) == "throws":
		h.state = 2
	case h.state == 2 && (t.kind == 'i' || t.kind == '.' || t.kind == ','):
	default:
		h.state = 0
	}
	h.prev, h.last = h.last, t
}

// scan reads the token at i and returns where the next one may start; ok
// is false when the source cannot be split (unbalanced, unterminated).
func (h *holeScan) scan(i int) (next int, ok bool) {
	src := h.src
	switch c := src[i]; {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
	case c == '/' || c == '"' || c == '\'':
		end, skipped, ok := skipTrivia(src, i)
		switch {
		case !ok:
			return 0, false
		case !skipped:
			h.push(holeTok{kind: c})
		default:
			if c != '/' {
				h.push(holeTok{kind: c}) // a literal
			}
			return end, true
		}
	case isWordByte(c):
		j := i + 1
		for j < len(src) && isWordByte(src[j]) {
			j++
		}
		h.push(holeTok{kind: 'i', word: src[i:j]})
		return j, true
	case c == '(':
		// A parameter list: NAME( where NAME is preceded by a type.
		last, prev := h.last, h.prev
		params := last.kind == 'i' && !bodyKeywords[string(last.word)] &&
			((prev.kind == 'i' && string(prev.word) != "new" && string(prev.word) != "record" && !bodyKeywords[string(prev.word)]) ||
				prev.kind == '>' || prev.kind == ']')
		h.parens = append(h.parens, params)
		h.push(holeTok{kind: '('})
	case c == ')':
		if len(h.parens) == 0 {
			return 0, false
		}
		h.methodParen = h.parens[len(h.parens)-1]
		h.parens = h.parens[:len(h.parens)-1]
		h.push(holeTok{kind: ')'})
	case c == '{' && (h.state == 1 || h.state == 2):
		end, ok := matchBrace(src, i)
		if !ok {
			return 0, false
		}
		if !mayDeclareType(string(src[i+1:end])) && end > i+1 {
			h.holes = append(h.holes, hole{from: i + 1, to: end})
		}
		// Either way nothing inside is looked at: a body that may declare
		// a type is parsed as it is.
		h.push(holeTok{kind: '}'})
		return end + 1, true
	case c == '{':
		h.braces++
		h.push(holeTok{kind: '{'})
	case c == '}':
		if h.braces--; h.braces < 0 {
			return 0, false
		}
		h.push(holeTok{kind: '}'})
	default:
		h.push(holeTok{kind: c})
	}
	return i + 1, true
}

// matchBrace returns the offset of the '}' that closes the '{' at open.
func matchBrace(src []byte, open int) (int, bool) {
	depth := 0
	for i := open; i < len(src); i++ {
		switch c := src[i]; c {
		case '/', '"', '\'':
			end, skipped, ok := skipTrivia(src, i)
			if !ok {
				return 0, false
			}
			if skipped {
				i = end - 1
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// withoutHoles returns ranges minus the holes (both sorted).
func withoutHoles(ranges []sitter.Range, holes []hole, pts pointer) []sitter.Range {
	if len(holes) == 0 {
		return ranges
	}
	out := make([]sitter.Range, 0, len(ranges)+len(holes))
	k := 0
	for _, r := range ranges {
		from, to := int(r.StartByte), int(r.EndByte)
		for k < len(holes) && holes[k].to <= from {
			k++
		}
		for k < len(holes) && holes[k].from < to {
			h := holes[k]
			if h.from > from {
				out = append(out, pts.rng(from, h.from))
			}
			if h.to > from {
				from = h.to
			}
			if h.to > to {
				break
			}
			k++
		}
		if from < to {
			out = append(out, pts.rng(from, to))
		}
	}
	return out
}

// holesAreBodies reports whether every hole is the inside of the body of a
// method or constructor of root's tree. Bodies are not copied by flatten;
// one is copied here only when a hole lies inside it (a method of an
// anonymous class in a static initializer, say).
func holesAreBodies(root *fnode, holes []hole) bool {
	if len(holes) == 0 {
		return true
	}
	body := fieldID("body")
	found, failed := 0, false
	// inside reports whether a hole lies inside the node [start, end),
	// other than its own inside (a left-out body's, which holds no other).
	inside := func(start, end uint32) bool {
		k := sort.Search(len(holes), func(i int) bool { return holes[i].from > int(start) })
		if k == len(holes) || holes[k].to >= int(end) {
			return false
		}
		return holes[k].from != int(start)+1 || holes[k].to != int(end)-1
	}
	var walk func(n *fnode)
	walk = func(n *fnode) {
		if n.raw != 0 {
			if !inside(n.start, n.end) {
				return
			}
			n.expand()
			if n.t.err != nil {
				failed = true
				return
			}
		}
		switch kindOf(n) {
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
			for _, k := range n.kids {
				if k.field != body {
					continue
				}
				i := sort.Search(len(holes), func(i int) bool { return holes[i].from >= int(k.start)+1 })
				if i < len(holes) && holes[i].from == int(k.start)+1 && holes[i].to+1 == int(k.end) {
					found++
				}
			}
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(root)
	return found == len(holes) && !failed
}

// lazyModel models a large src whose tree has errors as Parse does: with
// the method bodies left out, when that parse has no error. ok is false
// otherwise: the model of the whole tree is then Parse's.
func lazyModel(base *File, src []byte) (*File, *docState, bool) {
	plan, ok := planSplit(src)
	if !ok || len(plan.holes) == 0 {
		return nil, nil, false
	}
	f, st, ok, err := parseSplit(context.Background(), base, src, plan, true)
	if err != nil || !ok {
		return nil, nil, false
	}
	return f, st, true
}
