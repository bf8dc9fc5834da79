package editor

import (
	"strings"
	"testing"
)

const sigA = `package p;
import dev.perfls.SPL;
class A {
    @SPL({"for n in {10} SELF[Gens.gen](n, 2) <= 2 * A#f[w](n)", "w := p.Gens#gen", "SELF(f(1), 3) <= SELF[nope](1)"})
    void m() {}
    static int f(int n) { return 0; }
}
`

const sigB = `package p;
import dev.perfls.Generator;
class Gens {
    @Generator("sizes and repeats")
    static Iterable<Object[]> gen(@Generator.Param(label = "elements", min = 1, max = 1e6) int n, int reps) { return null; }
}
`

func TestSignatureAt(t *testing.T) {
	w := testWorkspace(t, sigA, sigB)
	at := func(s string, plus int) int { return strings.Index(sigA, s) + plus }
	cases := []struct {
		name   string
		offset int
		want   string // label, active parameter and its documentation; "" for none
	}{
		{"first argument", at("gen](n", 5), "gen(int n, int reps) 0 elements, 1 … 1e+06"},
		{"second argument", at("gen](n, 2", 8), "gen(int n, int reps) 1 "},
		{"through an alias", at("[w](n", 4), "gen(int n, int reps) 0 elements, 1 … 1e+06"},
		{"a method's own arguments", at("SELF(f(1)", 7), ""},
		{"inside a nested call", at("SELF(f(1), 3", 11), ""},
		{"an unknown generator", at("[nope](1", 7), ""},
		{"inside the brackets", at("[Gens.gen]", 3), ""},
		{"outside strings", at("void m", 2), ""},
	}
	for _, c := range cases {
		s, ok := w.SignatureAt("A.java", c.offset)
		got := ""
		if ok {
			p := s.Params[s.Active]
			got = strings.TrimSpace(s.Label + " " + string(rune('0'+s.Active)) + " " + p.Doc)
			if s.Doc != "sizes and repeats" {
				t.Errorf("%s: doc %q", c.name, s.Doc)
			}
			if s.Label[p.Start:p.End] == "" {
				t.Errorf("%s: empty parameter label", c.name)
			}
		}
		if got != strings.TrimSpace(c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
