package editor

import (
	"math"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/verdict"
)

func TestFigureLabel(t *testing.T) {
	cases := []struct {
		fig  Figure
		want string
	}{
		{Figure{Mean: 1432, Unit: "ns", Relative: 0.02}, "≈ 1.43 µs ± 2 %"},
		{Figure{Mean: 1432, Unit: "ns", Relative: 0.024, Stale: true}, "≈ 1.43 µs ± 2 % (stale)"},
		{Figure{Mean: 20.9, Unit: "ns", Relative: 0.03, On: "lookups(100000)", Stale: true}, "≈ 20.9 ns ± 3 % on lookups(100000) (stale)"},
		{Figure{Mean: 18.2, Unit: "ns", Relative: 0.004}, "≈ 18.2 ns ± 0.4 %"},
		{Figure{Mean: 4.5e6, Unit: "ns"}, "≈ 4.50 ms"},
		{Figure{Mean: 4.5e6, Unit: "ns", Relative: math.NaN()}, "≈ 4.50 ms"},
		{Figure{Mean: 512, Unit: "B", Relative: 0.15}, "≈ 512 B ± 15 %"},
		{Figure{Mean: math.NaN(), Unit: "ns"}, "≈ n/a"},
	}
	for _, c := range cases {
		if got := FigureLabel(c.fig); got != c.want {
			t.Errorf("FigureLabel(%+v) = %q, want %q", c.fig, got, c.want)
		}
	}
}

func TestOutcomeLabel(t *testing.T) {
	cases := []struct {
		o                verdict.Outcome
		failed, stale    bool
		count, instances int
		want             string
	}{
		{verdict.Satisfied, false, false, 1, 1, "✓ satisfied"},
		{verdict.Violated, false, false, 2, 3, "✗ violated (2 of 3)"},
		{verdict.Undecided, false, true, 1, 1, "? undecided (stale)"},
		{verdict.Undecided, true, false, 1, 1, "! failed"},
	}
	for _, c := range cases {
		if got := OutcomeLabel(c.o, c.failed, c.stale, c.count, c.instances); got != c.want {
			t.Errorf("OutcomeLabel(%v, %v, %v, %d, %d) = %q, want %q", c.o, c.failed, c.stale, c.count, c.instances, got, c.want)
		}
	}
}

func TestHintPositions(t *testing.T) {
	src := "package p;\nclass H {\n" +
		"    @SPL(\"SELF[g](1) < 2 * SELF@HEAD[g](1)\") // guard\r\n" +
		"    void find(@Label(\"a (b)\") int n /* ) */, char c) throws E { }\n" +
		"    abstract void none(\n"
	f := parseJava(t, "H.java", src)
	var find, none = f.Methods[0], f.Methods[1]
	h, ok := MethodHint(f, find, "≈ 1 µs")
	if !ok || h.Position != (textpos.Position{Line: 3, Character: strings.Index(strings.Split(src, "\n")[3], " throws")}) {
		t.Errorf("MethodHint = %+v %v", h, ok)
	}
	if _, ok := MethodHint(f, none, "x"); ok {
		t.Errorf("a parameter list without its end got a hint")
	}
	v := find.SPL[0].Formulas[0]
	if h := FormulaHint(f, v, "✓ satisfied"); h.Position != (textpos.Position{Line: 2, Character: len(`    @SPL("SELF[g](1) < 2 * SELF@HEAD[g](1)") // guard`)}) {
		t.Errorf("FormulaHint = %+v", h)
	}
	hs := []Hint{{Position: textpos.Position{Line: 1}}, {Position: textpos.Position{Line: 5, Character: 3}}, {Position: textpos.Position{Line: 9}}}
	if got := HintsInRange(hs, textpos.Range{Start: textpos.Position{Line: 2}, End: textpos.Position{Line: 8}}); len(got) != 1 || got[0].Position.Line != 5 {
		t.Errorf("HintsInRange = %+v", got)
	}
}
