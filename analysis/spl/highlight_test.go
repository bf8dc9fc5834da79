package spl

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// render writes each highlight as text:kind, "*" marking a declaration.
func renderHighlights(src string, hs []Highlight) string {
	names := map[HighlightKind]string{
		HlKeyword: "kw", HlOperator: "op", HlNumber: "num", HlString: "str", HlRevision: "rev",
		HlMethod: "method", HlGenerator: "gen", HlVariable: "var", HlParameter: "param",
		HlNamespace: "ns", HlClass: "class", HlType: "type",
	}
	var b []string
	for _, h := range hs {
		s := src[h.Span.Start:h.Span.End] + ":" + names[h.Kind]
		if h.Declaration {
			s += "*"
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

func TestHighlights(t *testing.T) {
	cases := []struct{ src, want string }{
		{"for n in {10, 20} SELF[gen](n) <= 1.5 * pkg.Other#fast[gen](n)",
			"for:kw n:var* in:kw 10:num 20:num SELF:kw gen:gen n:var <=:op 1.5:num *:op pkg:ns Other:class fast:method gen:gen n:var"},
		{"SELF@HEAD[w](n) < SELF@v1.2[w](n)", "SELF:kw @HEAD:rev w:gen n:param <:op SELF:kw @v1.2:rev w:gen n:param"},
		{"a.b.Sorter.sort(int[])[a.b.Gens.random](2 * i) == cpu(linearSearch)[g](i)",
			"a:ns b:ns Sorter:class sort:method int:type a:ns b:ns Gens:class random:gen 2:num *:op i:param ==:op cpu:kw linearSearch:method g:gen i:param"},
		{"w := pkg.Gen#make\nSELF[w](1) = (0.1) m[w](1)", "w:method* :=:op pkg:ns Gen:class make:method SELF:kw w:gen 1:num =:op 0.1:num m:method w:gen 1:num"},
		{"for (i{1,2} j{3}) m#x[g](i) <=(2, CPU) m#y[g](j) & SELF[g](i) > SELF[g](j)",
			"for:kw i:var* 1:num 2:num j:var* 3:num m:ns x:method g:gen i:var <=:op 2:num CPU:param m:ns y:method g:gen j:var &:op SELF:kw g:gen i:var >:op SELF:kw g:gen j:var"},
		{"SELF[pkg.Gen('x')#make('y'), f](1) < SELF[f](2)", "SELF:kw pkg:ns Gen:class 'x':str make:gen 'y':str f:gen 1:num <:op SELF:kw f:gen 2:num"},
		{"proj@v1:pkg.C#m[g](1) < THIS[g](1)", "proj:ns @v1:rev pkg:ns C:class m:method g:gen 1:num <:op THIS:kw g:gen 1:num"},
		// broken text: highlighted by the look of its tokens
		{"SELF[g](1) <= ", "SELF:kw g:gen 1:num <=:op"},
		{"é < \"x", "<:op \"x:str"},
		{"linearSerch[g](1) <", "linearSerch:method g:gen 1:num <:op"},
		{"", ""},
	}
	for _, c := range cases {
		if got := renderHighlights(c.src, Highlights(c.src)); got != c.want {
			t.Errorf("Highlights(%q)\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestHighlightsAliasAndGenerator(t *testing.T) {
	if got, want := renderHighlights("fast=pkg.Sort#quick(int[])", HighlightsAlias("fast=pkg.Sort#quick(int[])", true)),
		"fast:method* =:op pkg:ns Sort:class quick:method int:type"; got != want {
		t.Errorf("method alias: got %s, want %s", got, want)
	}
	if got, want := renderHighlights("g=pkg.Gen('a')#make", HighlightsAlias("g=pkg.Gen('a')#make", false)),
		"g:gen* =:op pkg:ns Gen:class 'a':str make:gen"; got != want {
		t.Errorf("generator alias: got %s, want %s", got, want)
	}
	if got, want := renderHighlights("pkg.Gens#random", HighlightsGenerator("pkg.Gens#random")), "pkg:ns Gens:class random:gen"; got != want {
		t.Errorf("generator: got %s, want %s", got, want)
	}
}

// FuzzHighlights: any text gives highlights in order, inside the text, on
// rune boundaries, never overlapping, without panicking.
func FuzzHighlights(f *testing.F) {
	for _, s := range []string{
		"for n in {10, 20} SELF[gen](n) <= 1.5 * pkg.Other#fast[gen](n)",
		"w := pkg.Gen#make\nSELF[w](1) = (0.1) m[w](1)",
		"for (i{1,2} j{3}) m#x[g](i) <=(2, CPU) m#y[g](j)",
		"proj@v1:pkg.C('s')#m(int[] a)@HEAD[g, f](n+1) < cpu(THIS)[g](n/2)",
		"#comment\n'unterminated", "@", "a.b.", "SELF[", "≤ &&",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		valid := utf8.ValidString(src) // invalid bytes are tokens of their own
		check := func(hs []Highlight) {
			prev := 0
			for _, h := range hs {
				if h.Span.Start < prev || h.Span.End <= h.Span.Start || h.Span.End > len(src) {
					t.Fatalf("bad span %v after %d in %q", h.Span, prev, src)
				}
				if h.Kind < HlKeyword || h.Kind > HlType {
					t.Fatalf("bad kind %d in %q", h.Kind, src)
				}
				if valid && (!utf8.RuneStart(src[h.Span.Start]) || h.Span.End < len(src) && !utf8.RuneStart(src[h.Span.End])) {
					t.Fatalf("span %v cuts a rune in %q", h.Span, src)
				}
				prev = h.Span.End
			}
		}
		check(Highlights(src))
		check(HighlightsAlias(src, true))
		check(HighlightsAlias(src, false))
		check(HighlightsGenerator(src))
	})
}
