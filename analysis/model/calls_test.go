package model

import (
	"math"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

// TestFitCountsExact: counts that a polynomial reproduces are fitted by it
// exactly (n·(n−1)/2 pairs, 3n+2 steps, a constant), predicted exactly
// with a zero-width interval and flagged outside the range; counts no
// polynomial of degree ≤ 3 reproduces (⌊log₂ n⌋ + 1 halvings) and counts
// that varied between samples are fitted like demands instead.
func TestFitCountsExact(t *testing.T) {
	grid := []float64{100, 200, 400, 800, 1600, 3200}
	pts := func(f func(n float64) float64) []Point {
		var out []Point
		for _, n := range grid {
			out = append(out, Point{N: n, Figures: []float64{f(n)}})
		}
		return out
	}
	for _, c := range []struct {
		f    func(n float64) float64
		text string
	}{
		{func(n float64) float64 { return n * (n - 1) / 2 }, "= 0.5·n² − 0.5·n calls per op, exact at all 6 values"},
		{func(n float64) float64 { return 3*n + 2 }, "= 3·n + 2 calls per op, exact at all 6 values"},
		{func(n float64) float64 { return 7 }, "= 7 calls per op, exact at all 6 values"},
	} {
		d, err := FitCounts(pts(c.f), false)
		if err != nil {
			t.Fatal(err)
		}
		if d.Text != c.text || d.Best.Model != ExactModel {
			t.Errorf("%s (%s), want %s", d.Text, d.Best.Model, c.text)
		}
		for _, n := range []float64{150, 5000} {
			p := d.Predict(n)
			if p.Value != c.f(n) || p.CI95 != (Interval{p.Value, p.Value}) || p.Extrapolated != (n > 3200) {
				t.Errorf("%s at %g: %+v, want %g", c.text, n, p, c.f(n))
			}
		}
	}
	halvings := func(n float64) float64 { return math.Floor(math.Log2(n)) + 1 }
	d, err := FitCounts(pts(halvings), false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Best.Model != "log n" || !strings.HasSuffix(d.Text, "calls per op") {
		t.Errorf("halvings: %s (%s)", d.Text, d.Best.Model)
	}
	if d, err := FitCounts(pts(func(n float64) float64 { return 2 * n }), true); err != nil || d.Best.Model == ExactModel || !strings.Contains(d.Note, "varied") {
		t.Errorf("varying counts: %+v %v", d, err)
	}
}

// TestExtractJoinsCounts: the counting forks' counts join the apportioned
// callees by name and are fitted per method; the operation's own method,
// called once per operation, is left out; a method not called at some
// values counts 0 there.
func TestExtractJoinsCounts(t *testing.T) {
	var ms []Measured
	for _, n := range []float64{10, 20, 40, 80} {
		f := measured.Fork{NsPerOp: []float64{n * n, n * n}, CPUNsPerOp: []float64{n * n, n * n}, Ops: 10}
		calls := []measured.CallCount{{Method: "p.A#pairs(int,int)", PerOp: n * (n - 1) / 2}, {Method: "p.A#compute(int[])", PerOp: 1}}
		if n > 10 {
			calls = append(calls, measured.CallCount{Method: "p.A#grow()", PerOp: 1})
		}
		ms = append(ms, Measured{N: n, Forks: []measured.Fork{f, f},
			Profile: &CalleeSamples{Total: 1000, ByCallee: map[string]float64{"p.A#pairs(int,int)": 900}},
			Counts:  &measured.CallCounts{Ops: 100, Calls: calls}})
	}
	op := Extract("p.A#compute(int[])", "p.A#gen(int)", "n", nil, ms)
	if c := op.Points[3].Callees[0]; c.Calls != 80*79/2 {
		t.Errorf("callee %+v has no count", c)
	}
	var got []string
	for _, d := range op.CallDependencies {
		got = append(got, d.Callee+" "+d.Text)
	}
	want := "p.A#pairs(int,int) = 0.5·n² − 0.5·n calls per op, exact at all 4 values"
	if len(got) != 1 || got[0] != want {
		t.Errorf("call dependencies %q, want [%s]; problems %v", got, want, op.Problems)
	}
	if len(op.Problems) != 1 || !strings.Contains(op.Problems[0], "p.A#grow()") {
		t.Errorf("problems %v: want grow() (0 at n = 10, then 1) not fitted", op.Problems)
	}
}

// The operation's own method is recognised among the counted ones as
// methodspec matches methods: written with or without parameters, with
// simple or qualified type names.
func TestSameMethod(t *testing.T) {
	for _, c := range []struct {
		counted, op string
		want        bool
	}{
		{"p.A#compute(int[])", "p.A#compute(int[])", true},
		{"p.A#compute(int[])", "p.A#compute", true},
		{"p.A#find(java.lang.String)", "p.A#find(String)", true},
		{"p.A#compute(int[])", "p.A#compute(int)", false},
		{"p.A#compute(int[])", "p.A#computeAll", false},
		{"p.A#compute(int[])", "p.B#compute", false},
		{"p.A$In#run()", "p.A.In#run()", true},
	} {
		if got := sameMethod(c.counted, c.op); got != c.want {
			t.Errorf("sameMethod(%q, %q) = %v, want %v", c.counted, c.op, got, c.want)
		}
	}
}
