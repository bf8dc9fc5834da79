// Package textpos converts between byte offsets in a document and LSP
// positions (0-based line, UTF-16 code unit column). LSP 3.16, which
// go.lsp.dev/protocol v0.12.0 speaks, always counts columns in UTF-16, while
// tree-sitter and Go strings count bytes; every range perfls reports passes
// through a Mapper exactly once.
package textpos

import (
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Position is an LSP position: 0-based line and UTF-16 column.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Span is a half-open byte range [Start, End) within some text.
type Span struct {
	Start, End int
}

// Mapper maps byte offsets of one immutable text to LSP positions and back.
// It is safe for concurrent use once built.
type Mapper struct {
	text       string
	lineStarts []int // byte offset where each line begins; lineStarts[0] == 0
}

// NewMapper indexes the line starts of text. Lines end at "\n"; a "\r"
// before it belongs to the line it ends, as LSP clients expect.
func NewMapper(text string) *Mapper {
	starts := make([]int, 1, strings.Count(text, "\n")+1)
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &Mapper{text: text, lineStarts: starts}
}

// Text returns the indexed text.
func (m *Mapper) Text() string { return m.text }

// Position converts a byte offset to an LSP position. Offsets outside the
// text are clamped; an offset inside a multi-byte rune maps to that rune's
// start.
func (m *Mapper) Position(offset int) Position {
	if offset < 0 {
		offset = 0
	}
	if offset > len(m.text) {
		offset = len(m.text)
	}
	line := sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > offset }) - 1
	col := 0
	for i := m.lineStarts[line]; i < offset; {
		r, size := utf8.DecodeRuneInString(m.text[i:])
		if i+size > offset {
			break
		}
		col += utf16Len(r)
		i += size
	}
	return Position{Line: line, Character: col}
}

// Range converts a byte span to an LSP range.
func (m *Mapper) Range(s Span) Range {
	return Range{Start: m.Position(s.Start), End: m.Position(s.End)}
}

// Offset converts an LSP position to a byte offset. Positions past the end
// of a line clamp to the line's end (clients send such positions), and lines
// past the end clamp to the end of the text.
func (m *Mapper) Offset(p Position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(m.lineStarts) {
		return len(m.text)
	}
	i := m.lineStarts[p.Line]
	end := len(m.text)
	if p.Line+1 < len(m.lineStarts) {
		end = m.lineStarts[p.Line+1] - 1 // the '\n'
		if end > i && m.text[end-1] == '\r' {
			end--
		}
	}
	col := 0
	for i < end && col < p.Character {
		r, size := utf8.DecodeRuneInString(m.text[i:])
		col += utf16Len(r)
		i += size
	}
	return i
}

func utf16Len(r rune) int {
	if n := utf16.RuneLen(r); n > 0 {
		return n
	}
	return 1 // invalid UTF-8 decodes to RuneError, one code unit
}
