package javasrc

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/perfls/perfls/analysis/textpos"
)

// This file decodes Java string, text-block and character literals into
// their values while remembering, for every byte of the value, which bytes
// of the document produced it.
//
// Java processes a literal in this order (JLS 3.3, 3.10.6, 3.10.7):
//  1. Unicode escapes (\uXXXX, any number of u's) are translated everywhere,
//     before tokenisation; a translated backslash still starts an escape
//     sequence but never another Unicode escape.
//  2. Text blocks only: line terminators are normalised to LF and incidental
//     white space is stripped (String.stripIndent), then trailing white space
//     is removed from every line.
//  3. Escape sequences (\n, \t, \s, octal, \<line terminator>, ...) are
//     interpreted.

// byteOrigin says where one byte of a decoded value came from.
type byteOrigin struct {
	// src is the document span of the source character (or whole escape
	// sequence) that produced the byte.
	srcStart, srcEnd int32
	// site is the span in the annotation's own expression: equal to src for
	// bytes written there, the span of the constant's name for bytes that
	// come from a referenced constant.
	siteStart, siteEnd int32
	// seg numbers the literal (or formatted operand) the byte came from, so
	// that a span inside one literal can be mapped exactly even when the
	// literal lies elsewhere in the document.
	seg int32
}

// strBuf is a decoded string under construction.
type strBuf struct {
	text  []byte
	orig  []byteOrigin
	empty int   // document offset used for DocOffset(0) when text is empty
	nseg  int32 // number of segments used so far
}

// unit is one character of a literal after Unicode-escape translation: a
// whole rune copied from the document, or one UTF-16 code unit produced by a
// \u escape (surrogates are paired up afterwards).
type unit struct {
	r          rune
	start, end int
	raw        bool // copied verbatim from the document
}

// litProblem is a problem found while decoding a literal.
type litProblem struct {
	span textpos.Span
	msg  string
}

// decodeStringLiteral decodes the string literal or text block whose source
// text lit starts at document offset base.
func decodeStringLiteral(lit string, base int) (*strBuf, []litProblem) {
	if len(lit) >= 3 && lit[:3] == `"""` {
		return decodeTextBlock(lit, base)
	}
	content, closeAt := lit, len(lit)
	if len(content) > 0 && content[0] == '"' {
		content = content[1:]
		base++
		closeAt = len(content)
		if len(content) > 0 && content[len(content)-1] == '"' && !endsInEscape(content[:len(content)-1]) {
			content = content[:len(content)-1]
			closeAt = len(content)
		}
	}
	units, probs := unicodeUnits(content, base)
	runes, p2 := interpretEscapes(units, false)
	probs = append(probs, p2...)
	b := encodeRunes(runes)
	b.empty = base + closeAt
	return b, probs
}

// decodeCharLiteral decodes a character literal such as 'x' or '\n'.
func decodeCharLiteral(lit string, base int) (*strBuf, []litProblem) {
	content := lit
	if len(content) > 0 && content[0] == '\'' {
		content = content[1:]
		base++
		if len(content) > 0 && content[len(content)-1] == '\'' && !endsInEscape(content[:len(content)-1]) {
			content = content[:len(content)-1]
		}
	}
	units, probs := unicodeUnits(content, base)
	runes, p2 := interpretEscapes(units, false)
	probs = append(probs, p2...)
	b := encodeRunes(runes)
	b.empty = base
	return b, probs
}

// endsInEscape reports whether s ends with an odd number of backslashes, so
// that a quote following it would be escaped.
func endsInEscape(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) rune {
	switch {
	case c <= '9':
		return rune(c - '0')
	case c >= 'a':
		return rune(c-'a') + 10
	default:
		return rune(c-'A') + 10
	}
}

// unicodeUnits translates Unicode escapes in s (which starts at document
// offset base) and returns the resulting characters.
func unicodeUnits(s string, base int) ([]unit, []litProblem) {
	units := make([]unit, 0, len(s))
	var probs []litProblem
	backslashes := 0 // raw backslashes immediately before i
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' && backslashes%2 == 0 {
			j := i + 1
			for j < len(s) && s[j] == 'u' {
				j++
			}
			if j > i+1 {
				if j+4 <= len(s) && isHex(s[j]) && isHex(s[j+1]) && isHex(s[j+2]) && isHex(s[j+3]) {
					v := hexVal(s[j])<<12 | hexVal(s[j+1])<<8 | hexVal(s[j+2])<<4 | hexVal(s[j+3])
					units = append(units, unit{r: v, start: base + i, end: base + j + 4})
					backslashes = 0
					i = j + 4
					continue
				}
				probs = append(probs, litProblem{textpos.Span{Start: base + i, End: base + j}, "illegal Unicode escape"})
			}
		}
		if c == '\\' {
			backslashes++
		} else {
			backslashes = 0
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		units = append(units, unit{r: r, start: base + i, end: base + i + size, raw: true})
		i += size
	}
	// Pair surrogates produced by escapes (\uD83D\uDE00 is one character).
	out := units[:0]
	for k := 0; k < len(units); k++ {
		u := units[k]
		if !u.raw && utf16.IsSurrogate(u.r) {
			if u.r < 0xDC00 && k+1 < len(units) && !units[k+1].raw && units[k+1].r >= 0xDC00 && units[k+1].r <= 0xDFFF {
				u = unit{r: utf16.DecodeRune(u.r, units[k+1].r), start: u.start, end: units[k+1].end}
				k++
			} else {
				u.r = utf8.RuneError
			}
		}
		out = append(out, u)
	}
	return out, probs
}

// interpretEscapes interprets escape sequences; textBlock enables the
// \<line terminator> escape.
func interpretEscapes(units []unit, textBlock bool) ([]unit, []litProblem) {
	out := make([]unit, 0, len(units))
	var probs []litProblem
	for k := 0; k < len(units); {
		u := units[k]
		if u.r != '\\' || k+1 >= len(units) {
			if u.r == '\\' {
				probs = append(probs, litProblem{textpos.Span{Start: u.start, End: u.end}, "incomplete escape sequence"})
			}
			out = append(out, u)
			k++
			continue
		}
		v := units[k+1]
		var r rune = -1
		n := 2
		switch v.r {
		case 'b':
			r = '\b'
		case 't':
			r = '\t'
		case 'n':
			r = '\n'
		case 'f':
			r = '\f'
		case 'r':
			r = '\r'
		case 's':
			r = ' '
		case '"', '\'', '\\':
			r = v.r
		case '\n':
			if textBlock { // line continuation: the escape produces nothing
				k += 2
				continue
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			r = v.r - '0'
			limit := 2
			if v.r <= '3' {
				limit = 3
			}
			for n-1 < limit && k+n < len(units) && units[k+n].r >= '0' && units[k+n].r <= '7' {
				r = r*8 + units[k+n].r - '0'
				n++
			}
		}
		if r < 0 {
			probs = append(probs, litProblem{textpos.Span{Start: u.start, End: v.end}, "invalid escape sequence"})
			out = append(out, u)
			k++
			continue
		}
		out = append(out, unit{r: r, start: u.start, end: units[k+n-1].end})
		k += n
	}
	return out, probs
}

// encodeRunes UTF-8 encodes characters into a strBuf of one segment.
func encodeRunes(units []unit) *strBuf {
	b := &strBuf{text: make([]byte, 0, len(units)), orig: make([]byteOrigin, 0, len(units)), nseg: 1}
	var tmp [utf8.UTFMax]byte
	for _, u := range units {
		r := u.r
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		n := utf8.EncodeRune(tmp[:], r)
		b.text = append(b.text, tmp[:n]...)
		verbatim := u.raw && u.end-u.start == n
		for k := 0; k < n; k++ {
			o := byteOrigin{srcStart: int32(u.start), srcEnd: int32(u.end)}
			if verbatim {
				o.srcStart, o.srcEnd = int32(u.start+k), int32(u.start+k+1)
			}
			o.siteStart, o.siteEnd = o.srcStart, o.srcEnd
			b.orig = append(b.orig, o)
		}
	}
	return b
}

// isJavaSpace reports whether Character.isWhitespace(r) holds, which is what
// String.stripIndent uses.
func isJavaSpace(r rune) bool {
	switch r {
	case '\u00a0', '\u2007', '\u202f':
		return false
	case 0x1c, 0x1d, 0x1e, 0x1f:
		return true
	}
	return unicode.IsSpace(r)
}

// decodeTextBlock decodes a text block """...""".
func decodeTextBlock(lit string, base int) (*strBuf, []litProblem) {
	content := lit[3:]
	cbase := base + 3
	closed := false
	if len(content) >= 3 && content[len(content)-3:] == `"""` && !endsInEscape(content[:len(content)-3]) {
		content = content[:len(content)-3]
		closed = true
	}
	units, probs := unicodeUnits(content, cbase)
	// Skip the rest of the opening line: white space then a line terminator.
	k := openingLineEnd(units)
	if k < 0 {
		probs = append(probs, litProblem{textpos.Span{Start: base, End: base + 3}, "text block opening delimiter must be followed by a line terminator"})
		k = 0
	}
	units = units[k:]
	lines, terms := splitLines(units)
	joined := stripIndent(lines, terms, len(units))
	runes, p2 := interpretEscapes(joined, true)
	probs = append(probs, p2...)
	b := encodeRunes(runes)
	b.empty = cbase + len(content)
	if !closed {
		probs = append(probs, litProblem{textpos.Span{Start: base, End: base + len(lit)}, "unclosed text block"})
	}
	return b, probs
}

// openingLineEnd is where a text block's content starts: after white space
// and one line terminator; -1 when something else follows the delimiter.
func openingLineEnd(units []unit) int {
	k := 0
	for k < len(units) && units[k].r != '\n' && units[k].r != '\r' && isJavaSpace(units[k].r) {
		k++
	}
	switch {
	case k < len(units) && units[k].r == '\r':
		k++
		if k < len(units) && units[k].r == '\n' {
			k++
		}
		return k
	case k < len(units) && units[k].r == '\n':
		return k + 1
	}
	return -1
}

// splitLines splits units into lines and their terminators, each
// normalised to one LF unit.
func splitLines(units []unit) (lines [][]unit, terms []unit) {
	start := 0
	for i := 0; i < len(units); i++ {
		u := units[i]
		if u.r != '\n' && u.r != '\r' {
			continue
		}
		lines = append(lines, units[start:i])
		t := unit{r: '\n', start: u.start, end: u.end}
		if u.r == '\r' && i+1 < len(units) && units[i+1].r == '\n' {
			i++
			t.end = units[i].end
		}
		terms = append(terms, t)
		start = i + 1
	}
	return append(lines, units[start:]), terms
}

// stripIndent removes incidental white space as String.stripIndent does:
// the minimum indentation over non-blank lines and the last line (the
// closing delimiter's, even when blank), and trailing white space; blank
// lines become empty.
func stripIndent(lines [][]unit, terms []unit, size int) []unit {
	blank := func(l []unit) bool {
		for _, u := range l {
			if !isJavaSpace(u.r) {
				return false
			}
		}
		return true
	}
	minIndent := -1
	for i, l := range lines {
		if blank(l) && i != len(lines)-1 {
			continue
		}
		n := 0
		for n < len(l) && isJavaSpace(l[n].r) {
			n++
		}
		if minIndent < 0 || n < minIndent {
			minIndent = n
		}
	}
	minIndent = max(minIndent, 0)
	joined := make([]unit, 0, size)
	for i, l := range lines {
		if !blank(l) {
			l = l[minIndent:]
			e := len(l)
			for e > 0 && isJavaSpace(l[e-1].r) {
				e--
			}
			joined = append(joined, l[:e]...)
		}
		if i < len(terms) {
			joined = append(joined, terms[i])
		}
	}
	return joined
}

// appendBuf appends o to b (string concatenation).
func (b *strBuf) appendBuf(o *strBuf) {
	b.text = append(b.text, o.text...)
	for _, m := range o.orig {
		m.seg += b.nseg
		b.orig = append(b.orig, m)
	}
	b.nseg += o.nseg
}

// clone returns a copy of b, optionally re-attributing every byte to the
// use site span (for a reference to a constant).
func (b *strBuf) clone(site *textpos.Span) *strBuf {
	c := &strBuf{text: append([]byte(nil), b.text...), orig: append([]byteOrigin(nil), b.orig...), empty: b.empty, nseg: b.nseg}
	if site != nil {
		for i := range c.orig {
			c.orig[i].siteStart, c.orig[i].siteEnd = int32(site.Start), int32(site.End)
		}
		if len(c.text) == 0 {
			c.empty = site.Start
		}
	}
	return c
}

// plainBuf is a value formatted by perfls (a number or boolean joined to a
// string): all its bytes map to the operand's span, except that a literal
// written exactly as formatted maps byte for byte.
func plainBuf(text string, span textpos.Span, verbatim bool) *strBuf {
	b := &strBuf{text: []byte(text), orig: make([]byteOrigin, len(text)), empty: span.Start, nseg: 1}
	for i := range b.orig {
		o := byteOrigin{srcStart: int32(span.Start), srcEnd: int32(span.End)}
		if verbatim {
			o.srcStart, o.srcEnd = int32(span.Start+i), int32(span.Start+i+1)
		}
		o.siteStart, o.siteEnd = o.srcStart, o.srcEnd
		b.orig[i] = o
	}
	return b
}
