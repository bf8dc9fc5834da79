package editor

import (
	"sort"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
)

// TokenTypes is the semantic-token legend's types, indexed by the type
// number in the encoded tokens. Standard LSP names, so every client's theme
// colours them: a generator is a "function", a revision a "macro".
var TokenTypes = []string{
	"keyword", "operator", "number", "string", "macro", "method", "function",
	"variable", "parameter", "namespace", "class", "type",
}

// TokenModifiers is the legend's modifiers; bit i of a token's modifier set
// is TokenModifiers[i].
var TokenModifiers = []string{"declaration"}

// tokenType maps spl's roles to indices into TokenTypes.
var tokenType = [...]uint32{
	spl.HlKeyword: 0, spl.HlOperator: 1, spl.HlNumber: 2, spl.HlString: 3, spl.HlRevision: 4,
	spl.HlMethod: 5, spl.HlGenerator: 6, spl.HlVariable: 7, spl.HlParameter: 8,
	spl.HlNamespace: 9, spl.HlClass: 10, spl.HlType: 11,
}

// Token is one semantic token at a document position: a 0-based line, a
// UTF-16 column and length (LSP counts in UTF-16), a type index into
// TokenTypes and a modifier bit set.
type Token struct {
	Line, Char, Length uint32
	Type, Modifiers    uint32
}

// Tokens returns the semantic tokens of the SPL text in f's annotation
// strings (formulas, methods={…} and generators={…} elements, @Workload
// values), sorted by position and non-overlapping. A token whose text in
// the document spans lines (a string joined with "+" across a line break)
// is left out: LSP tokens are single-line.
func Tokens(f *javasrc.File) []Token { return new(Highlighter).Tokens(f) }

// Highlighter computes semantic tokens and remembers the highlights of the
// strings of its last call: after an edit only the strings that changed
// are parsed again. One per open document; safe for concurrent use.
type Highlighter struct {
	mu   sync.Mutex
	prev map[hlKey][]spl.Highlight
	// the last .spl text and its tokens: a delta request after a
	// keystroke's full one finds the same text
	splText   string
	splTokens []Token
}

// SPLFileTokens are the semantic tokens of a .spl file, whose whole text
// (m's) is SPL; tokens spanning lines are left out, as in Tokens.
func (h *Highlighter) SPLFileTokens(m *textpos.Mapper) []Token {
	h.mu.Lock()
	defer h.mu.Unlock()
	text := m.Text()
	if h.splTokens != nil && h.splText == text {
		return h.splTokens
	}
	c := cursor{m: m}
	out := []Token{}
	for _, hl := range spl.Highlights(text) {
		if t, ok := c.place(textpos.Span{Start: hl.Span.Start, End: hl.Span.End}, hl); ok {
			out = append(out, t)
		}
	}
	h.splText, h.splTokens = text, out
	return out
}

// hlKey is a string's text and how it is read (strFormula …).
type hlKey struct {
	what int
	text string
}

// highlightsOf classifies the tokens of an annotation string read as what.
func highlightsOf(what int, text string) []spl.Highlight {
	switch what {
	case strMethodAlias:
		return spl.HighlightsAlias(text, true)
	case strGeneratorAlias:
		return spl.HighlightsAlias(text, false)
	case strWorkload:
		return spl.HighlightsGenerator(text)
	}
	return spl.Highlights(text)
}

// Tokens is the package's Tokens, reusing the highlights of h's last call.
func (h *Highlighter) Tokens(f *javasrc.File) []Token {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur := make(map[hlKey][]spl.Highlight, len(h.prev))
	var out []Token
	add := func(v *javasrc.StringValue, what int) {
		k := hlKey{what, v.Text}
		hs, ok := cur[k]
		if !ok {
			if hs, ok = h.prev[k]; !ok {
				hs = highlightsOf(k.what, k.text)
			}
			cur[k] = hs
		}
		c := cursor{m: f.Mapper}
		for _, h := range hs {
			if t, ok := c.token(v, h); ok {
				out = append(out, t)
			}
		}
	}
	eachString(f, func(_ *javasrc.Method, _ *javasrc.SPLAnnotation, v *javasrc.StringValue, what int) bool {
		add(v, what)
		return true
	})
	h.prev = cur
	// A constant referenced by several formulas maps their tokens to the
	// same place; overlapping tokens are not allowed.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Char < out[j].Char
	})
	kept := out[:0]
	for _, t := range out {
		if n := len(kept); n > 0 && kept[n-1].Line == t.Line && t.Char < kept[n-1].Char+kept[n-1].Length {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// cursor converts the increasing offsets of one string's tokens to
// positions, walking forward from the last one on the same line instead of
// from the line's start each time: a long line of formulas stays linear.
type cursor struct {
	m   *textpos.Mapper
	off int
	pos textpos.Position
	set bool
}

func (c *cursor) position(off int) textpos.Position {
	text := c.m.Text()
	if !c.set || off < c.off || off > len(text) || strings.IndexByte(text[c.off:off], '\n') >= 0 {
		c.off, c.pos, c.set = off, c.m.Position(off), true
		return c.pos
	}
	for _, r := range text[c.off:off] {
		c.pos.Character += max(utf16.RuneLen(r), 1) // invalid UTF-8: one unit per byte, as textpos counts
	}
	c.off = off
	return c.pos
}

// token places a highlight of v's text in the document.
func (c *cursor) token(v *javasrc.StringValue, h spl.Highlight) (Token, bool) {
	return c.place(v.DocSpan(textpos.Span{Start: h.Span.Start, End: h.Span.End}), h)
}

// place makes the token of h at the document span sp.
func (c *cursor) place(sp textpos.Span, h spl.Highlight) (Token, bool) {
	if sp.End <= sp.Start {
		return Token{}, false
	}
	r := textpos.Range{Start: c.position(sp.Start)}
	r.End = c.position(sp.End)
	if r.Start.Line != r.End.Line || r.End.Character <= r.Start.Character {
		return Token{}, false
	}
	var mods uint32
	if h.Declaration {
		mods = 1
	}
	return Token{
		Line: uint32(r.Start.Line), Char: uint32(r.Start.Character), Length: uint32(r.End.Character - r.Start.Character),
		Type: tokenType[h.Kind], Modifiers: mods,
	}, true
}

// InRange keeps the tokens that start on lines [r.Start.Line, r.End.Line]
// and, on those lines, within the range: textDocument/semanticTokens/range.
func InRange(ts []Token, r textpos.Range) []Token {
	before := func(l, c int) bool { return l < r.Start.Line || l == r.Start.Line && c < r.Start.Character }
	after := func(l, c int) bool { return l > r.End.Line || l == r.End.Line && c >= r.End.Character }
	var out []Token
	for _, t := range ts {
		if !before(int(t.Line), int(t.Char)+int(t.Length)-1) && !after(int(t.Line), int(t.Char)) {
			out = append(out, t)
		}
	}
	return out
}

// Encode delta-encodes sorted tokens as LSP wants them: per token, the
// line relative to the previous token's, the start relative to the
// previous token's when on the same line, the length, the type and the
// modifiers.
func Encode(ts []Token) []uint32 {
	data := make([]uint32, 0, 5*len(ts))
	var line, char uint32
	for _, t := range ts {
		dl, dc := t.Line-line, t.Char
		if dl == 0 {
			dc = t.Char - char
		}
		data = append(data, dl, dc, t.Length, t.Type, t.Modifiers)
		line, char = t.Line, t.Char
	}
	return data
}

// SemanticTokens is Encode(Tokens(f)): textDocument/semanticTokens/full's data.
func SemanticTokens(f *javasrc.File) []uint32 { return Encode(Tokens(f)) }

// TokensEdit is textDocument/semanticTokens/full/delta's edit from the
// encoded tokens prev to next: next equals prev with prev[start :
// start+deleteCount] replaced by data. One edit around what differs: after
// a keystroke the relative encoding changes a few numbers only. Positions
// are whole tokens (multiples of 5), as clients expect.
func TokensEdit(prev, next []uint32) (start, deleteCount int, data []uint32) {
	n := min(len(prev), len(next))
	for start < n && prev[start] == next[start] {
		start++
	}
	start -= start % 5
	tail := 0
	for tail < n-start && prev[len(prev)-1-tail] == next[len(next)-1-tail] {
		tail++
	}
	tail -= tail % 5
	return start, len(prev) - tail - start, next[start : len(next)-tail]
}
