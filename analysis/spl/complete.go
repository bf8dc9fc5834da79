package spl

import "regexp"

// SiteKind says what may be written at a cursor in a formula.
type SiteKind int

const (
	// SiteTerm starts a term or fills an argument list: SELF, aliases,
	// variables, keywords, methods.
	SiteTerm SiteKind = iota
	// SiteGenerator is inside a term's "[…]": a generator.
	SiteGenerator
	// SiteMember follows "Qualifier#": a method of that class.
	SiteMember
	// SiteDotted follows "Qualifier.": a method of that class, or the next
	// segment of a package or class name.
	SiteDotted
)

// Site is what a completion at a cursor replaces and offers.
type Site struct {
	Kind SiteKind
	// Word is the identifier typed so far before the cursor; a completion
	// replaces it.
	Word string
	// Qualifier is the dotted name before "#" or "." (SiteMember,
	// SiteDotted).
	Qualifier string
	// Generator is true when the cursor is inside "[…]": for SiteMember and
	// SiteDotted, a generator method is wanted.
	Generator bool
}

// CompletionSite reads the formula text before the cursor (which need not
// parse: it is being typed) and says what may be written there.
func CompletionSite(before string) Site {
	s := Site{Word: trailingIdent(before)}
	rest := before[:len(before)-len(s.Word)]
	s.Generator = inBrackets(rest)
	switch {
	case len(rest) > 0 && rest[len(rest)-1] == '#':
		s.Kind, s.Qualifier = SiteMember, qualifierBefore(rest[:len(rest)-1])
	case len(rest) > 0 && rest[len(rest)-1] == '.':
		s.Kind, s.Qualifier = SiteDotted, qualifierBefore(rest[:len(rest)-1])
	case s.Generator:
		s.Kind = SiteGenerator
	}
	return s
}

var (
	aliasDecl = regexp.MustCompile(`(?m)(?:^|\s)([A-Za-z_$][\w$]*)\s*:=`)
	// quantified variables: "for n in {…}" and SPL Tools "n{…}".
	thesisVar   = regexp.MustCompile(`\bfor\s+([A-Za-z_$][\w$]*)\s+in\b`)
	originalVar = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*\{`)
)

// DeclaredAliases lists the names text declares as aliases ("w := …"), in
// order and once each, whether or not text parses.
func DeclaredAliases(text string) []string {
	return uniqueMatches(text, aliasDecl)
}

// QuantifiedVariables lists the variables text quantifies ("for n in …",
// "n{…}"), in order and once each, whether or not text parses.
func QuantifiedVariables(text string) []string {
	return uniqueMatches(text, thesisVar, originalVar)
}

var keywords = map[string]bool{"for": true, "in": true, "and": true, "or": true, "implies": true, "SELF": true, "THIS": true}

func uniqueMatches(text string, res ...*regexp.Regexp) []string {
	var out []string
	seen := map[string]bool{}
	for _, re := range res {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if !seen[m[1]] && !keywords[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	return out
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// trailingIdent is the identifier that ends s.
func trailingIdent(s string) string {
	i := len(s)
	for i > 0 && isIdentByte(s[i-1]) {
		i--
	}
	return s[i:]
}

// qualifierBefore is the dotted name that ends s ("demo.Demo" in
// "SELF <= demo.Demo").
func qualifierBefore(s string) string {
	i := len(s)
	for i > 0 && (isIdentByte(s[i-1]) || s[i-1] == '.') {
		i--
	}
	for i < len(s) && s[i] == '.' {
		i++
	}
	j := len(s)
	for j > i && s[j-1] == '.' {
		j--
	}
	return s[i:j]
}

// inBrackets tells whether s leaves a "[" open: a term's generator position.
func inBrackets(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return depth > 0
}
