// Package methodspec is the one rule by which perfls names and matches
// methods: a method as written (Spec: "p.C#m(int[], String)"), how it is
// parsed, which resolved method it names (Matches) and Java type erasure.
// It needs no I/O and imports nothing of perfls, so every package can
// share it: analysis/measured's data, the profile (whose methods come from
// JVM descriptors) and measure, the package that runs JVMs.
package methodspec

import (
	"fmt"
	"strings"
)

// Spec names a method as written in a formula or annotation.
type Spec struct {
	// Class is fully qualified and dotted; nested classes may be written
	// Outer.Inner or Outer$Inner. A name without a dot may also denote a
	// java.lang class ("Math").
	Class string
	Name  string
	// Params is nil when the parameter types are not given; otherwise the
	// type names as written ("int[]", "String", "java.util.List",
	// "List<String>", "int..."), matched by erased type, simple or qualified.
	Params []string
}

func (s Spec) String() string {
	if s.Params == nil {
		return s.Class + "#" + s.Name
	}
	return s.Class + "#" + s.Name + "(" + strings.Join(s.Params, ",") + ")"
}

// Parse reads a method as the command line and the editor write
// it: "pkg.Class#m", or with parameter types "pkg.Class#m(int[], String)".
func Parse(s string) (Spec, error) {
	cls, rest, ok := strings.Cut(strings.TrimSpace(s), "#")
	if !ok || cls == "" || rest == "" {
		return Spec{}, fmt.Errorf("%q is not pkg.Class#method", s)
	}
	name, params, hasParams := strings.Cut(rest, "(")
	spec := Spec{Class: cls, Name: strings.TrimSpace(name)}
	if hasParams {
		if !strings.HasSuffix(params, ")") {
			return Spec{}, fmt.Errorf("%q: missing ')'", s)
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
func (s Spec) Matches(resolved string) bool {
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
	a, b = Erasure(a), Erasure(b)
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

// Erasure normalises a type name: no spaces or type arguments, "$" as ".",
// varargs as an array.
func Erasure(t string) string {
	t = strings.Join(strings.Fields(t), "")
	var b strings.Builder
	depth := 0
	for _, r := range t {
		switch {
		case r == '<':
			depth++
		case r == '>':
			if depth > 0 { // a stray '>' closes nothing
				depth--
			}
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
