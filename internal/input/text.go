package input

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQuote is the most bytes of an input's text a message quotes.
const MaxQuote = 64

// Quote is text from an input as a message shows it: quoted, with control
// characters, terminal escapes and invalid UTF-8 escaped (strconv.Quote),
// and cut after MaxQuote bytes with a marker saying how much more there is:
// a 50 MB cell is not echoed back.
func Quote(s string) string {
	head, more := Cut(s, MaxQuote)
	if more == 0 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes more)", strconv.Quote(head), more)
}

// Cut is the start of s, at most max bytes and not inside a character,
// and how many bytes it leaves out.
func Cut(s string, max int) (head string, more int) {
	if len(s) <= max {
		return s, 0
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], len(s) - cut
}

// Printable is s with every character that could drive a terminal escaped
// as Go writes it (\x1b, \u202e): control characters but newline and tab,
// bidirectional overrides, and bytes that are not UTF-8 (0x9b alone is a
// CSI to some terminals). Everything else, quotes and backslashes
// included, stays as it is.
func Printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune: a control character other than newline and tab, or a
// bidirectional embedding, override or isolate (they reorder what a
// terminal shows).
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t' || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
