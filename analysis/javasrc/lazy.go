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
	type tok struct {
		kind byte // 'i' identifier or keyword, else the punctuation byte
		word []byte
	}
	var (
		holes       []hole
		last, prev  tok    // the last two tokens
		parens      []bool // per open '(': whether it opens a parameter list
		braces      int    // open braces outside the holes
		methodParen bool   // the last ')' closed a method's parameter list
		state       int    // 0 nothing, 1 after a method's ')', 2 in its throws clause
	)
	n := len(src)
	push := func(t tok) {
		switch {
		case t.kind == ')':
			state = 0
			if methodParen {
				state = 1
			}
		case state == 1 && t.kind == 'i' && string(t.word) == "throws":
			state = 2
		case state == 2 && (t.kind == 'i' || t.kind == '.' || t.kind == ','):
		default:
			state = 0
		}
		prev, last = last, t
	}
	for i := 0; i < n; i++ {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
		case c == '/' || c == '"' || c == '\'':
			end, skipped, ok := skipTrivia(src, i)
			if !ok {
				return nil
			}
			if !skipped {
				push(tok{kind: c})
				continue
			}
			i = end - 1
			if c != '/' {
				push(tok{kind: c}) // a literal
			}
		case isWordByte(c):
			j := i + 1
			for j < n && isWordByte(src[j]) {
				j++
			}
			push(tok{kind: 'i', word: src[i:j]})
			i = j - 1
		case c == '(':
			// A parameter list: NAME( where NAME is preceded by a type.
			params := last.kind == 'i' && !bodyKeywords[string(last.word)] &&
				((prev.kind == 'i' && string(prev.word) != "new" && string(prev.word) != "record" && !bodyKeywords[string(prev.word)]) ||
					prev.kind == '>' || prev.kind == ']')
			parens = append(parens, params)
			push(tok{kind: '('})
		case c == ')':
			if len(parens) == 0 {
				return nil
			}
			methodParen = parens[len(parens)-1]
			parens = parens[:len(parens)-1]
			push(tok{kind: ')'})
		case c == '{':
			if state == 1 || state == 2 {
				end, ok := matchBrace(src, i)
				if !ok {
					return nil
				}
				if !mayDeclareType(string(src[i+1 : end])) {
					if end > i+1 {
						holes = append(holes, hole{from: i + 1, to: end})
					}
				}
				// Either way nothing inside is looked at: a body that may
				// declare a type is parsed as it is.
				i = end
				push(tok{kind: '}'})
				continue
			}
			braces++
			push(tok{kind: '{'})
		case c == '}':
			if braces--; braces < 0 {
				return nil
			}
			push(tok{kind: '}'})
		default:
			push(tok{kind: c})
		}
	}
	if len(parens) != 0 || braces != 0 {
		return nil // unbalanced: the whole parse will find the error
	}
	return holes
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
