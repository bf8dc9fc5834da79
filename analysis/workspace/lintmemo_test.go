package workspace

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
)

// memoSource has formulas that resolve, formulas with errors, and a
// generator whose declaration the edits below change.
func memoSource() string {
	var b strings.Builder
	b.WriteString("package p;\n\nimport java.util.Arrays;\n\npublic class G {\n    public static Iterable<Object[]> ints(int n) { return null; }\n    public static int base(int[] a) { return a.length; }\n\n")
	for i := range 40 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "    @SPL(\"for n in {10, 100} SELF[ints](n) <= %d * p.G#base[ints](n)\")\n", i%5+2)
		case 1:
			fmt.Fprintf(&b, "    @SPL(\"SELF[ints](1) <= p.G#nothing%d[ints](1)\")\n", i)
		case 2:
			fmt.Fprintf(&b, "    @SPL(value = \"SELF[g](3) <= m[g](3)\", methods = \"m=p.G#base\", generators = \"g=p.G#ints\")\n")
		default:
			fmt.Fprintf(&b, "    @SPL(\"SELF[ints](\\\"x\\\") <= java.util.Arrays#sort[ints](2)\")\n")
		}
		fmt.Fprintf(&b, "    public static int m%d(int[] a) { return a.length + %d; }\n\n", i, i)
	}
	b.WriteString("}\n")
	return b.String()
}

// After every edit, linting with the previous version's memo (when the
// declarations allow it) gives exactly what linting every formula gives,
// and edits inside one formula or body check one formula or none.
func TestLintReusingMatchesLint(t *testing.T) {
	text := memoSource()
	doc := javasrc.NewDoc("G.java")
	defer doc.Close()
	lint := func(text string, prevFile *javasrc.File, prev *LintMemo) (*javasrc.File, []Diagnostic, []Diagnostic, *LintMemo) {
		f, err := doc.Update([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		formulas, _ := JavaFormulas(f)
		ix := NewIndex([]*javasrc.File{f})
		opt := LintOptions{External: jdk}
		if !SameDeclarations(prevFile, f) {
			prev = nil
		}
		got, memo := ix.LintReusing(formulas, opt, prev)
		return f, got, ix.Lint(formulas, opt), memo
	}
	f, got, want, memo := lint(text, nil, nil)
	if len(want) < 20 || !reflect.DeepEqual(got, want) {
		t.Fatalf("first lint: %d diagnostics, equal %v", len(want), reflect.DeepEqual(got, want))
	}
	rng := rand.New(rand.NewSource(7))
	edits := []struct {
		name      string
		apply     func(string) string
		unchanged bool // no declaration changes: one formula at most is checked
	}{
		{"space in a formula", func(s string) string { return insertAt(s, rng, "SELF[", " ") }, true},
		{"break a formula", func(s string) string { return insertAt(s, rng, "<= ", "p.G#nothingElse[ints](n) + ") }, true},
		{"body", func(s string) string { return insertAt(s, rng, "return a.length", " + 1") }, true},
		{"escape in a formula", func(s string) string { return insertAt(s, rng, "SELF[", "\\u0020") }, true},
		{"a line above", func(s string) string { return insertAt(s, rng, "    public static int m", "// note\n    ") }, false},
		{"rename the generator", func(s string) string { return strings.Replace(s, " ints(int n)", " ints2(int n)", 1) }, false},
		{"rename it back", func(s string) string { return strings.Replace(s, " ints2(int n)", " ints(int n)", 1) }, false},
		{"generator not static", func(s string) string {
			return strings.Replace(s, "static Iterable<Object[]> ints", "Iterable<Object[]> ints", 1)
		}, false},
		{"static again", func(s string) string {
			return strings.Replace(s, "public Iterable<Object[]> ints", "public static Iterable<Object[]> ints", 1)
		}, false},
		{"base takes a long[]", func(s string) string { return strings.Replace(s, "base(int[] a)", "base(long[] a)", 1) }, false},
	}
	reused := 0
	for round := range 60 {
		e := edits[rng.Intn(len(edits))]
		if round < 20 {
			e = edits[round%4]
		}
		next := e.apply(text)
		nf, got, want, nmemo := lint(next, f, memo)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d, %s: reused lint differs from a full lint:\n got %v\nwant %v", round, e.name, got, want)
		}
		if e.unchanged && SameDeclarations(f, nf) {
			if nmemo.checked > 1 {
				t.Errorf("round %d, %s: %d formulas checked again, want at most 1", round, e.name, nmemo.checked)
			}
			reused++
		}
		text, f, memo = next, nf, nmemo
	}
	if reused < 20 {
		t.Errorf("only %d edits reused the memo", reused)
	}
}

// insertAt inserts ins after a random occurrence of at.
func insertAt(s string, rng *rand.Rand, at, ins string) string {
	n := strings.Count(s, at)
	if n == 0 {
		return s
	}
	k := rng.Intn(n)
	pos := 0
	for range k + 1 {
		pos += strings.Index(s[pos:], at) + len(at)
	}
	return s[:pos] + ins + s[pos:]
}

func TestSameDeclarations(t *testing.T) {
	parse := func(src string) *javasrc.File {
		f, err := javasrc.Parse("A.java", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a := parse("package p; class A { static int f(int x) { return x; } }")
	for src, same := range map[string]bool{
		"package p;\n\nclass A {\n  static int f(int x) { return x + 1; }\n}":                     true,
		"package p; class A { @SPL(\"x\") static int f(int x) { return x; } }":                    true,
		"package q; class A { static int f(int x) { return x; } }":                                false,
		"package p; import java.util.List; class A { static int f(int x) { return x; } }":         false,
		"package p; class A { int f(int x) { return x; } }":                                       false,
		"package p; class A { static long f(int x) { return x; } }":                               false,
		"package p; class A { static int f(int y) { return y; } }":                                false,
		"package p; class A { static int f(long x) { return 0; } }":                               false,
		"package p; class A extends B { static int f(int x) { return x; } }":                      false,
		"package p; class A { static int f(int x) { return x; } static void g() {} }":             false,
		"package p; class A { static final String S = \"a\"; static int f(int x) { return x; } }": false,
	} {
		if got := SameDeclarations(a, parse(src)); got != same {
			t.Errorf("SameDeclarations(…, %q) = %v, want %v", src, got, same)
		}
	}
}
