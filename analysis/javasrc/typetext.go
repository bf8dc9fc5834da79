package javasrc

import "strings"

// Type text, worked on as text: the source of a type node is short, and
// handling it here avoids a cgo call per token.

// normalizeType drops comments and joins the tokens of s with a single
// space only where Java needs or conventionally has one: between two
// words, after a comma, around '&', after '?' before a word and after ')'
// before a word ("Map<String, List<? extends T>>", "@A(1) String").
func normalizeType(s string) string {
	// Fast path: nothing to normalise.
	clean := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r', '\f', '/', ',', '&', '"', '\'':
			clean = false
		}
		if !clean {
			break
		}
	}
	if clean {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	var prev byte // last byte written, 0 at start
	emit := func(tok string) {
		if prev != 0 && needSpace(prev, tok[0]) {
			sb.WriteByte(' ')
		}
		sb.WriteString(tok)
		prev = tok[len(tok)-1]
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i += j + 4
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			emit(s[i:j])
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			emit(s[i:j])
			i = j
		default:
			emit(s[i : i+1])
			i++
		}
	}
	return sb.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func needSpace(p, n byte) bool {
	switch {
	case p == ',' || p == '&' || n == '&':
		return true
	case (p == '?' || p == ')') && isWordByte(n):
		return true
	case isWordByte(p) && isWordByte(n):
		return true
	}
	return false
}

// stripAnnotations removes type annotations (@A, @a.B, @A(...)) from
// normalised type text.
func stripAnnotations(s string) string {
	if strings.IndexByte(s, '@') < 0 {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '@' {
			sb.WriteByte(s[i])
			i++
			continue
		}
		j := i + 1
		for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
			j++
		}
		if j < len(s) && s[j] == '(' {
			depth := 0
			for ; j < len(s); j++ {
				switch s[j] {
				case '"':
					for j++; j < len(s) && s[j] != '"'; j++ {
						if s[j] == '\\' {
							j++
						}
					}
				case '(':
					depth++
				case ')':
					depth--
				}
				if depth == 0 {
					j++
					break
				}
			}
		}
		if j < len(s) && s[j] == ' ' {
			j++
		}
		i = j
	}
	return sb.String()
}

// eraseType erases normalised type text: annotations and type arguments
// are removed, and a type variable (resolved by tv) is replaced by its
// erasure. "Map.Entry<K, V>[]" gives "Map.Entry[]".
func eraseType(s string, tv func(string) (string, bool)) string {
	s = stripAnnotations(s)
	var sb strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			depth++
		case c == '>':
			if depth > 0 {
				depth--
			}
		case depth == 0 && c != ' ':
			sb.WriteByte(c)
		}
	}
	e := sb.String()
	if tv != nil {
		base, dims := e, ""
		if i := strings.IndexByte(e, '['); i >= 0 {
			base, dims = e[:i], e[i:]
		}
		if base != "" && strings.IndexByte(base, '.') < 0 {
			if r, ok := tv(base); ok {
				return r + dims
			}
		}
	}
	return e
}
