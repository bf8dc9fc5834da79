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
func errorCost(n *sitter.Node) int {
	if n == nil || !n.HasError() {
		return 0
	}
	if n.IsMissing() {
		return 1
	}
	if n.IsError() {
		return int(n.EndByte()-n.StartByte()) + 1
	}
	cost := 0
	c := int(n.ChildCount())
	for i := 0; i < c; i++ {
		cost += errorCost(n.Child(i))
	}
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
	var (
		ins       []insertion
		stack     []opener
		line      int  // current line number (0-based)
		lineStart int  // offset of the current line
		prevEnd   = -1 // end of the previous code token
		prevLine  = -1 // line of the previous code token's end
		prevWord  string
	)
	indentOf := func(tokStart int) int {
		w := 0
		for i := lineStart; i < tokStart; i++ {
			switch src[i] {
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
	closeTop := func(at int) {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ins = append(ins, insertion{at: at, text: string(closerOf(top.ch)),
			msg: "missing " + strconv.Quote(string(closerOf(top.ch))) + " to close " + strconv.Quote(string(top.ch)) + " on line " + strconv.Itoa(top.line+1)})
	}
	// newToken handles the start of a code token at offset s with first
	// byte c and word w ("" unless the token is a word): the first token
	// of a line closes what the line's indentation says must be closed.
	newToken := func(s int, c byte, w string) {
		if line > prevLine && prevEnd >= 0 {
			ind := indentOf(s)
			for len(stack) > 0 {
				top := stack[len(stack)-1]
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
				closeTop(prevEnd)
			}
		}
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			i++
			line++
			lineStart = i
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			end := len(src)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			for k := i; k < end; k++ {
				if src[k] == '\n' {
					line++
					lineStart = k + 1
				}
			}
			i = end
			continue
		}

		s := i
		newToken(s, c, wordAt(src, i))
		switch {
		case c == '"' && strings.HasPrefix(src[i:], `"""`):
			i += 3
			for i < len(src) && !strings.HasPrefix(src[i:], `"""`) {
				if src[i] == '\\' {
					i++
				}
				if i < len(src) && src[i] == '\n' {
					line++
					lineStart = i + 1
				}
				i++
			}
			i = min(i+3, len(src))
		case c == '"' || c == '\'':
			i++
			closed := false
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] != '\n' && src[i+1] != '\r' {
					i += 2
					continue
				}
				if src[i] == c {
					i++
					closed = true
					break
				}
				i++
			}
			if !closed {
				q := string(c)
				ins = append(ins, insertion{at: i, text: q, msg: "missing closing " + strconv.Quote(q)})
			}
		case c == '{' || c == '(' || c == '[':
			if c == '{' {
				for len(stack) > 0 && stack[len(stack)-1].ctrl && stack[len(stack)-1].line == line {
					stack = stack[:len(stack)-1]
				}
			}
			stack = append(stack, opener{ch: c, indent: indentOf(lineStartOfLine(src, lineStart, s)), line: line,
				ctrl: c == '(' && controlKeywords[prevWord]})
			i++
		case c == '}' || c == ')' || c == ']':
			j := len(stack) - 1
			for j >= 0 && closerOf(stack[j].ch) != c && stack[j].ch != '{' {
				j--
			}
			if j >= 0 && closerOf(stack[j].ch) == c {
				stack = stack[:j]
			}
			i++
		case isWordByte(c):
			for i < len(src) && isWordByte(src[i]) {
				i++
			}
		default:
			i++
		}
		prevEnd, prevLine = i, line
		prevWord = ""
		if isWordByte(c) {
			prevWord = src[s:i]
		}
	}
	for len(stack) > 0 && prevEnd >= 0 {
		closeTop(prevEnd)
	}
	sort.SliceStable(ins, func(a, b int) bool { return ins[a].at < ins[b].at })
	return ins
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
