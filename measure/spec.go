package measure

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseMethodSpec reads a method as the command line and the editor write
// it: "pkg.Class#m", or with parameter types "pkg.Class#m(int[], String)".
func ParseMethodSpec(s string) (MethodSpec, error) {
	cls, rest, ok := strings.Cut(strings.TrimSpace(s), "#")
	if !ok || cls == "" || rest == "" {
		return MethodSpec{}, fmt.Errorf("%q is not pkg.Class#method", s)
	}
	name, params, hasParams := strings.Cut(rest, "(")
	spec := MethodSpec{Class: cls, Name: strings.TrimSpace(name)}
	if hasParams {
		if !strings.HasSuffix(params, ")") {
			return MethodSpec{}, fmt.Errorf("%q: missing ')'", s)
		}
		params = strings.TrimSpace(strings.TrimSuffix(params, ")"))
		spec.Params = []string{}
		if params != "" {
			spec.Params = splitTopLevel(params)
		}
	}
	return spec, nil
}

// splitTopLevel splits a parameter list at the commas outside type
// arguments ("Map<K, V>, int" is two types).
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// Matches tells whether a resolved method, as measurement and oracle keys
// spell it ("p.Outer$Inner#m(int[],java.lang.String)", Resolved.String),
// is the method s names. Nested classes match written with "$" or "."; a
// class without a package may name a java.lang class. Without parameter
// types s matches every overload; with them, each type matches by erasure
// ("List<String>" is "java.util.List"), simple or qualified ("String" is
// "java.lang.String"), with the same array dimensions ("int..." is "int[]").
func (s MethodSpec) Matches(resolved string) bool {
	name, params, hasParams := strings.Cut(resolved, "(")
	class, method, ok := strings.Cut(name, "#")
	if !ok || method != s.Name || !sameClass(s.Class, class) {
		return false
	}
	if s.Params == nil {
		return true
	}
	var got []string
	if params = strings.TrimSuffix(strings.TrimSpace(params), ")"); hasParams && strings.TrimSpace(params) != "" {
		got = splitTopLevel(params)
	}
	if len(got) != len(s.Params) {
		return false
	}
	for i, p := range s.Params {
		if !sameType(p, got[i]) {
			return false
		}
	}
	return true
}

func sameClass(written, resolved string) bool {
	w, r := strings.ReplaceAll(written, "$", "."), strings.ReplaceAll(resolved, "$", ".")
	return w == r || (!strings.Contains(w, ".") && r == "java.lang."+w)
}

// sameType compares two Java type names by erasure, array dimensions and
// name, where a simple name matches any qualified name ending in it.
func sameType(a, b string) bool {
	a, b = erasure(a), erasure(b)
	if a == b {
		return true
	}
	ab, ad := strings.CutSuffix(a, "[]")
	bb, bd := strings.CutSuffix(b, "[]")
	if ad || bd {
		return ad == bd && sameType(ab, bb)
	}
	return strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// erasure normalises a type name: no spaces or type arguments, "$" as ".",
// varargs as an array.
func erasure(t string) string {
	t = strings.Join(strings.Fields(t), "")
	var b strings.Builder
	depth := 0
	for _, r := range t {
		switch {
		case r == '<':
			depth++
		case r == '>':
			depth--
		case depth == 0 && r == '$':
			b.WriteByte('.')
		case depth == 0:
			b.WriteRune(r)
		}
	}
	s := b.String()
	if base, ok := strings.CutSuffix(s, "..."); ok {
		s = base + "[]"
	}
	return s
}

// ParseArgs reads comma-separated arguments: integers, or strings, bare
// (abc) or quoted with ' or " ('a, b' keeps its comma and spaces; a quote
// inside is written twice). An unterminated quote runs to the end.
func ParseArgs(s string) []Arg {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []Arg
	for _, f := range splitArgs(s) {
		if f.quoted {
			out = append(out, StringArg(f.text))
			continue
		}
		if v, err := strconv.ParseInt(f.text, 10, 64); err == nil {
			out = append(out, IntArg(v))
			continue
		}
		out = append(out, StringArg(f.text))
	}
	return out
}

// ArgsKey spells arguments as measurement and oracle keys do: "1000",
// `"a",5`.
func ArgsKey(args []Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return strings.Join(parts, ",")
}

type argField struct {
	text   string
	quoted bool
}

// splitArgs splits at commas outside quotes.
func splitArgs(s string) []argField {
	var out []argField
	var cur strings.Builder
	var quote rune
	quoted := false
	flush := func() {
		text := cur.String()
		if !quoted {
			text = strings.TrimSpace(text)
		}
		out = append(out, argField{text, quoted})
		cur.Reset()
		quoted = false
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote && i+1 < len(rs) && rs[i+1] == quote:
			cur.WriteRune(r) // a doubled quote stands for itself
			i++
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case (r == '\'' || r == '"') && strings.TrimSpace(cur.String()) == "":
			cur.Reset()
			quote, quoted = r, true
		case r == ',':
			flush()
		default:
			if !quoted || r != ' ' {
				cur.WriteRune(r)
			}
		}
	}
	flush()
	return out
}
