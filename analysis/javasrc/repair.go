package javasrc

import (
	"sort"
	"strconv"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Error recovery.
//
// Tree-sitter recovers well from an error inside one line, but a brace or
// parenthesis left open while the user types (an unfinished method body,
// a half-typed "@SPL(") often turns the rest of the class into one ERROR
// node and every later method is lost. When a parse has errors we therefore
// try a repaired text: Java code is indented, so a bracket opened on a line
// must be closed before the next line that is indented no deeper (unless
// that line starts with the closer itself, or with case/default under a
// switch's brace). The missing closers, and closing quotes of strings left
// open at the end of a line, are inserted where they belong, the repaired
// text is parsed, and its tree is used when it has less error than the
// original. The insertions are reported as the syntax errors ("missing
// "}"") and every offset of the repaired text maps back to the document.

// insertion is text inserted before original offset at.
type insertion struct {
	at   int
	text string
	msg  string
}

// offsetMap maps offsets of a repaired text back to the original text.
type offsetMap struct {
	rStart []int // start of each insertion in the repaired text
	at     []int // its original offset
	cum    []int // total inserted length up to and including insertion i
}

func newOffsetMap(ins []insertion) *offsetMap {
	m := &offsetMap{}
	total := 0
	for _, in := range ins {
		m.rStart = append(m.rStart, in.at+total)
		m.at = append(m.at, in.at)
		total += len(in.text)
		m.cum = append(m.cum, total)
	}
	return m
}

// orig maps a repaired offset to the original text; offsets inside inserted
// text map to the insertion point.
func (m *offsetMap) orig(x int) int {
	if m == nil || len(m.rStart) == 0 {
		return x
	}
	i := sort.SearchInts(m.rStart, x+1) // insertions starting at or before x
	if i == 0 {
		return x
	}
	j := i - 1
	if x < m.rStart[j]+(m.cum[j]-prevCum(m.cum, j)) {
		return m.at[j]
	}
	return x - m.cum[j]
}

func prevCum(cum []int, j int) int {
	if j == 0 {
		return 0
	}
	return cum[j-1]
}

// applyInsertions returns src with the insertions applied (ins sorted by at,
// stable).
func applyInsertions(src string, ins []insertion) string {
	var sb strings.Builder
	n := len(src)
	for _, in := range ins {
		n += len(in.text)
	}
	sb.Grow(n)
	last := 0
	for _, in := range ins {
		sb.WriteString(src[last:in.at])
		sb.WriteString(in.text)
		last = in.at
	}
	sb.WriteString(src[last:])
	return sb.String()
}

// errorCost measures how much of a tree is broken: bytes inside ERROR nodes
// plus one per MISSING node.
func errorCost(root *sitter.Node) int {
	cost := 0
	walkTree(root, func(n *sitter.Node) bool {
		switch {
		case !n.HasError():
		case n.IsMissing():
			cost++
		case n.IsError():
			cost += int(n.EndByte()-n.StartByte()) + 1
		default:
			return true
		}
		return false
	})
	return cost
}

type opener struct {
	ch     byte // '{', '(' or '['
	indent int  // indentation of the line it was opened on
	line   int
	// ctrl marks a parenthesis after if/for/while/switch/catch/synchronized:
	// a brace opened while it is still open ("if (x {") means the
	// parenthesis was left unclosed, and tree-sitter recovers from that.
	ctrl bool
}

var controlKeywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "synchronized": true, "try": true}

func closerOf(ch byte) byte {
	switch ch {
	case '{':
		return '}'
	case '(':
		return ')'
	}
	return ']'
}

// planRepair scans src and returns the insertions that close brackets and
// strings left open, judged by indentation. It returns nil when nothing
// needs inserting.
func planRepair(src string) []insertion {
	r := &repairScan{src: src, prevEnd: -1, prevLine: -1}
	for r.i < len(src) {
		if !r.skipBlank() {
			r.token()
		}
	}
	for len(r.stack) > 0 && r.prevEnd >= 0 {
		r.closeTop(r.prevEnd)
	}
	sort.SliceStable(r.ins, func(a, b int) bool { return r.ins[a].at < r.ins[b].at })
	return r.ins
}

// repairScan is planRepair's state as it scans the source.
type repairScan struct {
	src       string
	i         int
	ins       []insertion
	stack     []opener
	line      int // current line number (0-based)
	lineStart int // offset of the current line
	prevEnd   int // end of the previous code token; -1 before the first
	prevLine  int // line of the previous code token's end
	prevWord  string
}

// skipBlank skips white space, a line end or a comment at the scan's
// position and reports whether it did.
func (r *repairScan) skipBlank() bool {
	src, c := r.src, r.src[r.i]
	switch {
	case c == '\n':
		r.i++
		r.line++
		r.lineStart = r.i
	case c == ' ' || c == '\t' || c == '\r' || c == '\f':
		r.i++
	case c == '/' && r.i+1 < len(src) && src[r.i+1] == '/':
		for r.i < len(src) && src[r.i] != '\n' {
			r.i++
		}
	case c == '/' && r.i+1 < len(src) && src[r.i+1] == '*':
		j := strings.Index(src[r.i+2:], "*/")
		end := len(src)
		if j >= 0 {
			end = r.i + 2 + j + 2
		}
		for k := r.i; k < end; k++ {
			if src[k] == '\n' {
				r.line++
				r.lineStart = k + 1
			}
		}
		r.i = end
	default:
		return false
	}
	return true
}

// token scans one code token.
func (r *repairScan) token() {
	src, s, c := r.src, r.i, r.src[r.i]
	r.newToken(s, c, wordAt(src, s))
	switch {
	case c == '"' && strings.HasPrefix(src[s:], `"""`):
		r.textBlock()
	case c == '"' || c == '\'':
		r.quoted(c)
	case c == '{' || c == '(' || c == '[':
		if c == '{' {
			for len(r.stack) > 0 && r.stack[len(r.stack)-1].ctrl && r.stack[len(r.stack)-1].line == r.line {
				r.stack = r.stack[:len(r.stack)-1]
			}
		}
		r.stack = append(r.stack, opener{ch: c, indent: r.indentOf(lineStartOfLine(src, r.lineStart, s)), line: r.line,
			ctrl: c == '(' && controlKeywords[r.prevWord]})
		r.i++
	case c == '}' || c == ')' || c == ']':
		j := len(r.stack) - 1
		for j >= 0 && closerOf(r.stack[j].ch) != c && r.stack[j].ch != '{' {
			j--
		}
		if j >= 0 && closerOf(r.stack[j].ch) == c {
			r.stack = r.stack[:j]
		}
		r.i++
	case isWordByte(c):
		for r.i < len(src) && isWordByte(src[r.i]) {
			r.i++
		}
	default:
		r.i++
	}
	r.prevEnd, r.prevLine = r.i, r.line
	r.prevWord = ""
	if isWordByte(c) {
		r.prevWord = src[s:r.i]
	}
}

// textBlock skips a text block """...""".
func (r *repairScan) textBlock() {
	src := r.src
	r.i += 3
	for r.i < len(src) && !strings.HasPrefix(src[r.i:], `"""`) {
		if src[r.i] == '\\' {
			r.i++
		}
		if r.i < len(src) && src[r.i] == '\n' {
			r.line++
			r.lineStart = r.i + 1
		}
		r.i++
	}
	r.i = min(r.i+3, len(src))
}

// quoted skips a string or character literal quoted with q, and closes it
// at the line's end when it is left open.
func (r *repairScan) quoted(q byte) {
	src := r.src
	r.i++
	for r.i < len(src) && src[r.i] != '\n' && src[r.i] != '\r' {
		if src[r.i] == '\\' && r.i+1 < len(src) && src[r.i+1] != '\n' && src[r.i+1] != '\r' {
			r.i += 2
			continue
		}
		r.i++
		if src[r.i-1] == q {
			return
		}
	}
	r.ins = append(r.ins, insertion{at: r.i, text: string(q), msg: "missing closing " + strconv.Quote(string(q))})
}

// indentOf is the indentation of the current line before a token at
// tokStart.
func (r *repairScan) indentOf(tokStart int) int {
	w := 0
	for i := r.lineStart; i < tokStart; i++ {
		switch r.src[i] {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w + (tokStart - i) // something before the token: count as deeper
		}
	}
	return w
}

func (r *repairScan) closeTop(at int) {
	top := r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	r.ins = append(r.ins, insertion{at: at, text: string(closerOf(top.ch)),
		msg: "missing " + strconv.Quote(string(closerOf(top.ch))) + " to close " + strconv.Quote(string(top.ch)) + " on line " + strconv.Itoa(top.line+1)})
}

// newToken handles the start of a code token at offset s with first byte
// c and word w ("" unless the token is a word): the first token of a line
// closes what the line's indentation says must be closed.
func (r *repairScan) newToken(s int, c byte, w string) {
	if r.line <= r.prevLine || r.prevEnd < 0 {
		return
	}
	ind := r.indentOf(s)
	for len(r.stack) > 0 {
		top := r.stack[len(r.stack)-1]
		if top.indent < ind {
			break
		}
		if top.indent == ind {
			if c == closerOf(top.ch) {
				break
			}
			if top.ch == '{' && (w == "case" || w == "default") {
				break
			}
		}
		r.closeTop(r.prevEnd)
	}
}

// lineStartOfLine returns the token start used to measure the indentation
// of the line an opener is on: the line's first non-blank byte.
func lineStartOfLine(src string, lineStart, s int) int {
	for k := lineStart; k < s; k++ {
		if src[k] != ' ' && src[k] != '\t' {
			return k
		}
	}
	return s
}

func wordAt(src string, i int) string {
	j := i
	for j < len(src) && isWordByte(src[j]) {
		j++
	}
	return src[i:j]
}
