package spl

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the lexical class of a token.
type tokKind int

const (
	tEOF     tokKind = iota
	tIdent           // [letter_$][letter digit _ $]*
	tInt             // [0-9]+
	tReal            // INT ( EXPONENT | "." INT EXPONENT? )
	tString          // '…' (original) — val holds the decoded content
	tDString         // "…" (thesis) — val holds the decoded content
	tAt              // "@" plus the revision that follows; val = revision ("" if none)
	tComma           // ,
	tDot             // .
	tColon           // :
	tAssign          // :=
	tHash            // #
	tStar            // *
	tMinus           // -
	tPlus            // + (arithmetic in arguments)
	tSlash           // / (arithmetic in arguments)
	tLParen          // (
	tRParen          // )
	tLBrace          // {
	tRBrace          // }
	tLBrack          // [
	tRBrack          // ]
	tEq              // =
	tEqEq            // ==
	tLT              // <
	tGT              // >
	tLE              // <=
	tGE              // >=
	tAnd             // &
	tOr              // |
	tImply           // ==>
	tAndAnd          // && (not SPL; reported, read as &)
	tOrOr            // || (not SPL; reported, read as |)
	tArrow           // => (not SPL; reported)
	tNotEq           // != (not SPL; reported)
	tIllegal         // a run of characters SPL does not use
)

// token is one lexeme. nl records that a line break separates it from the
// previous token: .spl files end formulas and aliases at line ends, and
// entity continuations such as "(" must stay on the entity's line.
type token struct {
	kind       tokKind
	start, end int
	text       string // source text of the token
	val        string // decoded string content or revision
	nl         bool
	bad        bool // the lexer already reported this token (unterminated string)
}

func (t token) span() Span { return Span{t.start, t.end} }

// lex splits src into tokens (always ending with tEOF) and reports lexical
// errors: unterminated strings, bad escapes, out-of-range numbers.
// Unknown characters become tIllegal tokens so the parser can report them in
// context.
//
// Comment rule ("#" is also the method separator of pkg.Class#m): a "#"
// starts a comment running to the end of the line when
//
//	(a) it is the first non-blank character of its line, or
//	(b) it follows a blank (space, tab, CR, LF) and the next character
//	    cannot start an identifier (so "x  # note" is a comment while
//	    "pkg.Class #m" still names method m).
//
// Everywhere else "#" is the separator token. A "#" glued to the preceding
// text ("pkg.Class#m", "}#") is never a comment.
func lex(src string) ([]token, []Diagnostic) {
	// About one token per 4 bytes, or two per comma in a long value list
	// ("1234,"): growing the slice by appending would allocate several
	// times its final size.
	lx := lexer{src: src, toks: make([]token, 0, max(len(src)/4, 2*strings.Count(src, ",")+64))}
	lx.run()
	return lx.toks, lx.diags
}

type lexer struct {
	src   string
	pos   int
	toks  []token
	diags []Diagnostic
}

func isIdentStart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isRevisionByte tells the bytes of a revision after "@": those of tags,
// branches and hashes, and "~" and "^" of relative names (HEAD~2).
func isRevisionByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '~' || c == '^' || isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'z'
}

func (lx *lexer) errorf(start, end int, code, msg string) {
	lx.diags = append(lx.diags, Diagnostic{Span: Span{start, end}, Severity: Error, Code: code, Message: msg})
}

func (lx *lexer) emit(k tokKind, start int, val string, nl bool) {
	lx.toks = append(lx.toks, token{kind: k, start: start, end: lx.pos, text: lx.src[start:lx.pos], val: val, nl: nl})
}

func (lx *lexer) run() {
	src := lx.src
	lineStart := true // only blanks since the start of the line
	for {
		nl := lx.skipBlank(&lineStart)
		if lx.pos >= len(src) {
			lx.toks = append(lx.toks, token{kind: tEOF, start: len(src), end: len(src), nl: nl})
			return
		}
		lineStart = false
		lx.token(nl)
	}
}

// skipBlank skips blanks and comments and reports whether it passed a line
// end; lineStart tracks whether only blanks stand before lx.pos on its line.
func (lx *lexer) skipBlank(lineStart *bool) (nl bool) {
	src := lx.src
	for lx.pos < len(src) {
		switch c := src[lx.pos]; {
		case c == '\n':
			nl, *lineStart = true, true
			lx.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			lx.pos++
		case c == '#' && lx.isComment(*lineStart):
			for lx.pos < len(src) && src[lx.pos] != '\n' {
				lx.pos++
			}
		default:
			return nl
		}
	}
	return nl
}

// token reads the token at lx.pos; nl says a line end precedes it.
func (lx *lexer) token(nl bool) {
	src, start := lx.src, lx.pos
	c := src[lx.pos]
	r, size := utf8.DecodeRuneInString(src[lx.pos:])
	switch {
	case isIdentStart(r):
		lx.pos += size
		for lx.pos < len(src) {
			r, size := utf8.DecodeRuneInString(src[lx.pos:])
			if !isIdentPart(r) {
				break
			}
			lx.pos += size
		}
		lx.emit(tIdent, start, "", nl)
	case isDigit(c):
		lx.number(start, nl)
	case c == '\'' || c == '"':
		lx.str(start, c, nl)
	case c == '@':
		lx.pos++
		for lx.pos < len(src) && isRevisionByte(src[lx.pos]) {
			lx.pos++
		}
		// A revision never ends with "." (git refuses such names), and a
		// trailing "." is more likely punctuation.
		for lx.pos > start+1 && src[lx.pos-1] == '.' {
			lx.pos--
		}
		lx.emit(tAt, start, src[start+1:lx.pos], nl)
	default:
		if k, n := punct(src[lx.pos:]); n > 0 {
			lx.pos += n
			lx.emit(k, start, "", nl)
			return
		}
		// Group a run of unknown characters into one token.
		lx.pos += size
		for lx.pos < len(src) {
			r, size := utf8.DecodeRuneInString(src[lx.pos:])
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' || isIdentPart(r) || r == '\'' || r == '"' || r == '@' {
				break
			}
			if k2, n2 := punct(src[lx.pos:]); n2 > 0 && k2 != tIllegal {
				break
			}
			lx.pos += size
		}
		lx.emit(tIllegal, start, "", nl)
	}
}

// isComment applies the comment rule documented on lex to the "#" at lx.pos.
func (lx *lexer) isComment(lineStart bool) bool {
	if lineStart {
		return true
	}
	prev := lx.src[lx.pos-1] // lx.pos > 0: otherwise lineStart is true
	if prev != ' ' && prev != '\t' && prev != '\r' && prev != '\n' && prev != '\f' {
		return false
	}
	if lx.pos+1 >= len(lx.src) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(lx.src[lx.pos+1:])
	return !isIdentStart(r)
}

// punct recognises operators and punctuation by longest match.
func punct(s string) (tokKind, int) {
	switch {
	case strings.HasPrefix(s, "==>"):
		return tImply, 3
	case strings.HasPrefix(s, "=="):
		return tEqEq, 2
	case strings.HasPrefix(s, "=>"):
		return tArrow, 2
	case strings.HasPrefix(s, "<="):
		return tLE, 2
	case strings.HasPrefix(s, ">="):
		return tGE, 2
	case strings.HasPrefix(s, ":="):
		return tAssign, 2
	case strings.HasPrefix(s, "&&"):
		return tAndAnd, 2
	case strings.HasPrefix(s, "||"):
		return tOrOr, 2
	case strings.HasPrefix(s, "!="):
		return tNotEq, 2
	}
	switch s[0] {
	case ',':
		return tComma, 1
	case '.':
		return tDot, 1
	case ':':
		return tColon, 1
	case '#':
		return tHash, 1
	case '*':
		return tStar, 1
	case '-':
		return tMinus, 1
	case '+':
		return tPlus, 1
	case '/':
		return tSlash, 1
	case '(':
		return tLParen, 1
	case ')':
		return tRParen, 1
	case '{':
		return tLBrace, 1
	case '}':
		return tRBrace, 1
	case '[':
		return tLBrack, 1
	case ']':
		return tRBrack, 1
	case '=':
		return tEq, 1
	case '<':
		return tLT, 1
	case '>':
		return tGT, 1
	case '&':
		return tAnd, 1
	case '|':
		return tOr, 1
	}
	return tIllegal, 0
}

// number lexes INT or REAL exactly as SPL Tools does: "1.5", "2e+4",
// "10e-3" are REAL; "1." is INT then ".", ".5" is "." then INT.
func (lx *lexer) number(start int, nl bool) {
	src := lx.src
	digits := func(i int) int {
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		return i
	}
	exponent := func(i int) int { // returns i unchanged when no exponent
		if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
			j := i + 1
			if j < len(src) && (src[j] == '+' || src[j] == '-') {
				j++
			}
			if j < len(src) && isDigit(src[j]) {
				return digits(j)
			}
		}
		return i
	}
	i := digits(start)
	kind := tInt
	if i+1 < len(src) && src[i] == '.' && isDigit(src[i+1]) {
		i = exponent(digits(i + 1))
		kind = tReal
	} else if j := exponent(i); j != i {
		i, kind = j, tReal
	}
	lx.pos = i
	lx.emit(kind, start, "", nl)
	text := src[start:i]
	if kind == tInt {
		if _, err := strconv.ParseInt(text, 10, 64); err != nil {
			lx.errorf(start, i, CodeInvalidNumber, "integer "+text+" is out of range (at most 9223372036854775807)")
		}
	} else if _, err := strconv.ParseFloat(text, 64); err != nil {
		lx.errorf(start, i, CodeInvalidNumber, "number "+text+" is out of range")
	}
}

// str lexes a quoted string with the escapes of SPL Tools' STRING_LITERAL:
// \n \t \b \r \f \\ \' \" and octal \0 … \377. A string ends at its quote;
// a line break or the end of the text first makes it unterminated.
func (lx *lexer) str(start int, quote byte, nl bool) {
	src := lx.src
	kind := tString
	if quote == '"' {
		kind = tDString
	}
	var b strings.Builder
	lx.pos++
	for {
		if lx.pos >= len(src) || src[lx.pos] == '\n' || src[lx.pos] == '\r' {
			where := "line"
			if lx.pos >= len(src) {
				where = "text"
			}
			lx.emit(kind, start, b.String(), nl)
			lx.toks[len(lx.toks)-1].bad = true
			lx.errorf(start, lx.pos, CodeUnterminatedString,
				"unterminated string: expected a closing "+string(quote)+" before the end of the "+where)
			return
		}
		switch c := src[lx.pos]; c {
		case quote:
			lx.pos++
			lx.emit(kind, start, b.String(), nl)
			return
		case '\\':
			lx.escape(&b)
		default:
			b.WriteByte(c)
			lx.pos++
		}
	}
}

// escape decodes the escape sequence at lx.pos (a backslash) into b and
// moves past it; at a line end or the end of the text it stops there (the
// string is unterminated, which str reports).
func (lx *lexer) escape(b *strings.Builder) {
	src := lx.src
	escStart := lx.pos
	lx.pos++
	if lx.pos >= len(src) {
		return
	}
	switch e := src[lx.pos]; e {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'b':
		b.WriteByte('\b')
	case 'r':
		b.WriteByte('\r')
	case 'f':
		b.WriteByte('\f')
	case '\\', '\'', '"':
		b.WriteByte(e)
	case '\n', '\r':
		return
	default:
		if e >= '0' && e <= '7' {
			// Up to three octal digits, value at most 0377.
			v, n, most := 0, 0, 2
			if e <= '3' {
				most = 3
			}
			for n < most && lx.pos < len(src) && src[lx.pos] >= '0' && src[lx.pos] <= '7' {
				v = v*8 + int(src[lx.pos]-'0')
				lx.pos++
				n++
			}
			b.WriteRune(rune(v)) // a Java char value, as in SPL Tools
			return
		}
		_, size := utf8.DecodeRuneInString(src[lx.pos:])
		lx.errorf(escStart, lx.pos+size, CodeInvalidEscape,
			"invalid escape "+strconv.Quote(src[escStart:lx.pos+size])+" in string: use \\n \\t \\b \\r \\f \\\\ \\' \\\" or an octal escape")
		b.WriteString(src[lx.pos : lx.pos+size])
		lx.pos += size
		return
	}
	lx.pos++
}
