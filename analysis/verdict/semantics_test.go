package verdict

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The same one-fork data decided under both semantics. Under classic the
// outcome must be the one seed 004's definitions give, computed here by
// hand from them (reference digest 004-spl-paper.md §2.2 and §2.5); under
// the default the same data are undecided, because they do not show the
// relation holds within 5 %.

// oneForkL and oneForkR are one fork each: L 3 % slower than R on average,
// too noisy for the Welch test to reject `L <= R`.
var (
	oneForkL = []float64{95, 110, 100, 108, 102}
	oneForkR = []float64{97, 103, 100, 104, 96}
)

// welch is Def. 8's statistic and degrees of freedom (L2961–L3022):
// t = (X̄ − Ȳ)/√(S²x/Vx + S²y/Vy), ν by Welch–Satterthwaite.
func welch(x, y []float64) (t, nu float64) {
	mx, vx := stat.MeanVariance(x, nil)
	my, vy := stat.MeanVariance(y, nil)
	ax, ay := vx/float64(len(x)), vy/float64(len(y))
	t = (mx - my) / math.Sqrt(ax+ay)
	nu = (ax + ay) * (ax + ay) / (ax*ax/float64(len(x)-1) + ay*ay/float64(len(y)-1))
	return t, nu
}

func TestClassicSemanticsIsTheSeedsQuickInterpretation(t *testing.T) {
	const alpha = 0.05
	l, r := Side{Runs: [][]float64{oneForkL}}, Side{Runs: [][]float64{oneForkR}}
	tt, nu := welch(oneForkL, oneForkR)
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(1 - alpha)
	// Def. 8 (L1694–L1727) with the decision rules of L3068–L3115:
	// M ≤p N ⇔ t ≤ t_{ν,1−α}; M =p N ⇔ −t_{ν,1−α} ≤ t ≤ t_{ν,1−α}; and
	// M ≥p N ≡ N ≤p M (§1.3, inferred), so `L < R` ≡ ¬(L ≥p R) ⇔ −t > crit.
	seed := map[spl.CmpOp]Outcome{}
	holds := func(b bool) Outcome {
		if b {
			return Satisfied
		}
		return Violated
	}
	seed[spl.LE] = holds(tt <= crit)
	seed[spl.GE] = holds(-tt <= crit)
	seed[spl.EQ] = holds(math.Abs(tt) <= crit)
	seed[spl.LT] = holds(-tt > crit)
	seed[spl.GT] = holds(tt > crit)
	if seed[spl.LE] != Satisfied || seed[spl.EQ] != Satisfied {
		t.Fatalf("the data were chosen so that the seed calls L <= R and L == R satisfied: t = %.3f, t_{%.2f,0.95} = %.3f", tt, nu, crit)
	}
	quick := Options{Alpha: alpha, Interpretation: stats.Quick}
	classic := quick
	classic.Semantics = Classic
	for _, op := range []spl.CmpOp{spl.LE, spl.GE, spl.EQ, spl.LT, spl.GT} {
		c := Compare(op, l, r, nil, classic)
		if c.Outcome != seed[op] || c.Evidence.Semantics != "classic" || c.Evidence.Margin != 0 {
			t.Errorf("classic %v: %v (%s), seed 004 Def. 8: %v; evidence %+v", op, c.Outcome, c.Reason, seed[op], c.Evidence)
		}
		if math.Abs(c.Evidence.T) != math.Abs(tt) || c.Evidence.Interpretation != "quick" {
			t.Errorf("classic %v: statistic %g, Def. 8's Welch t %g", op, c.Evidence.T, tt)
		}
	}
	// The default on the same data: not rejected, but not shown to hold
	// within 5 % either, so undecided where the seed says satisfied.
	for _, op := range []spl.CmpOp{spl.LE, spl.EQ, spl.LT, spl.GT} {
		c := Compare(op, l, r, nil, quick)
		if c.Outcome != Undecided || c.Failed || c.Evidence.Semantics != "shown" {
			t.Errorf("default %v: %v (%s), want undecided; evidence %+v", op, c.Outcome, c.Reason, c.Evidence)
		}
	}
	if c := Compare(spl.LE, l, r, nil, quick); !strings.Contains(c.Reason, "not shown to hold within 5%") || c.Evidence.Margin != 0.05 {
		t.Errorf("default <=: reason %q, margin %g", c.Reason, c.Evidence.Margin)
	}
	// A look's α (0.05 over 3 looks) reads rounded in the reason, and the
	// evidence records the looks (issue 40: α = 0.016666666666666666).
	look := quick
	look.Alpha, look.Looks = 0.05/3, 3
	if c := Compare(spl.LE, l, r, nil, look); !strings.Contains(c.Reason, "α = 0.0167)") || c.Evidence.Looks != 3 {
		t.Errorf("a look's α: reason %q, looks %d", c.Reason, c.Evidence.Looks)
	}
	// SPL Tools' interval equality (anchors-perf §1.6): L(1−δ) ≤p R(1+δ)
	// and L(1+δ) ≥p R(1−δ), each by Def. 8.
	d := 0.05
	lo, hi := scaled(oneForkL, 1-d), scaled(oneForkR, 1+d)
	t1, nu1 := welch(lo, hi)
	t2, nu2 := welch(scaled(oneForkR, 1-d), scaled(oneForkL, 1+d))
	want := holds(t1 <= distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu1}.Quantile(1-alpha) && t2 <= distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu2}.Quantile(1-alpha))
	if c := Compare(spl.EQI, l, r, nil, classic); c.Outcome != want || want != Satisfied {
		t.Errorf("classic =: %v, interval equality by Def. 8: %v", c.Outcome, want)
	}
	// A clear slowdown is violated under both.
	slow := Side{Runs: [][]float64{scaled(oneForkL, 1.5)}}
	for _, s := range []Semantics{Shown, Classic} {
		o := quick
		o.Semantics = s
		if c := Compare(spl.LE, slow, r, nil, o); c.Outcome != Violated {
			t.Errorf("%s, L 50 %% slower: %v", s, c.Outcome)
		}
	}
}

func scaled(xs []float64, c float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = c * x
	}
	return out
}

// Def. 9 (L1892–L1917) on one fork per side with a run history: the
// history gives R², the fork S², and `L <= R` holds iff
// M̄ − N̄ ≤ z_{1−α}·√D², D² = R²_M/r_M + S²_M/(r_M o_M) + R²_N/r_N + S²_N/(r_N o_N).
// perfls compares with Student's t instead of z (docs/statistics.md); the
// data lie well inside both.
func TestClassicSemanticsIsTheSeedsParametricInterpretation(t *testing.T) {
	const alpha = 0.05
	hist := func(mean float64) [][]float64 {
		// Ten earlier runs, as one-value runs (only their means matter).
		var h [][]float64
		for _, d := range []float64{-4, 3, -2, 5, 0, -1, 4, -3, 2, -4} {
			h = append(h, []float64{mean + d})
		}
		return h
	}
	l := Side{Runs: [][]float64{oneForkL}, History: hist(103)}
	r := Side{Runs: [][]float64{oneForkR}, History: hist(100)}
	var hm []float64
	for _, h := range l.History {
		hm = append(hm, h[0])
	}
	r2 := stat.Variance(hm, nil) // both histories have the same spread
	_, s2l := stat.MeanVariance(oneForkL, nil)
	_, s2r := stat.MeanVariance(oneForkR, nil)
	o := float64(len(oneForkL))
	d2 := r2 + s2l/o + r2 + s2r/o
	diff := stat.Mean(oneForkL, nil) - stat.Mean(oneForkR, nil)
	z := distuv.UnitNormal.Quantile(1 - alpha)
	if !(diff <= z*math.Sqrt(d2)) {
		t.Fatalf("the data were chosen so that Def. 9 holds: %g > %g", diff, z*math.Sqrt(d2))
	}
	c := Compare(spl.LE, l, r, nil, Options{Alpha: alpha, Semantics: Classic})
	if c.Outcome != Satisfied || c.Evidence.Interpretation != "parametric" || c.Evidence.Semantics != "classic" {
		t.Errorf("classic, parametric: %v (%s) %+v", c.Outcome, c.Reason, c.Evidence)
	}
	if got := c.Evidence.T; math.Abs(got-diff/math.Sqrt(d2)) > 1e-9 {
		t.Errorf("statistic %g, Def. 9's (M̄ − N̄)/√D² = %g", got, diff/math.Sqrt(d2))
	}
	if c := Compare(spl.LE, l, r, nil, Options{Alpha: alpha}); c.Outcome != Undecided || c.Failed {
		t.Errorf("default, parametric: %v (%s), want undecided", c.Outcome, c.Reason)
	}
	// Without a history one fork has no between-run variance: Def. 9
	// cannot be computed, so classic is undecided too.
	c = Compare(spl.LE, Side{Runs: l.Runs}, Side{Runs: r.Runs}, nil, Options{Alpha: alpha, Semantics: Classic})
	if c.Outcome != Undecided || !strings.Contains(c.Reason, "between-fork variance is unknown") {
		t.Errorf("classic, one fork, no history: %v (%s)", c.Outcome, c.Reason)
	}
}

func TestParseSemantics(t *testing.T) {
	for in, want := range map[string]Semantics{"": "", "shown": Shown, " classic ": Classic} {
		if got, err := ParseSemantics(in); err != nil || got != want {
			t.Errorf("ParseSemantics(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseSemantics("lenient"); err == nil || !strings.Contains(err.Error(), "classic") {
		t.Errorf("ParseSemantics(lenient): %v", err)
	}
}

// A withheld side leaves the comparison undecided, not failed, with its
// reason and the evidence of the data there are; an error still fails it.
func TestWithheldSide(t *testing.T) {
	l := Side{Runs: [][]float64{oneForkL}, Withheld: "warm-up did not settle in 2 of 3 forks"}
	r := Side{Runs: [][]float64{scaled(oneForkR, 2)}}
	for _, s := range []Semantics{Shown, Classic} {
		c := Compare(spl.LE, l, r, nil, Options{Interpretation: stats.Quick, Semantics: s})
		if c.Outcome != Undecided || c.Failed || c.Reason != "left side: warm-up did not settle in 2 of 3 forks" || c.Evidence.Left.Samples != 5 || c.Evidence.MoreForks != 0 {
			t.Errorf("%s: %v failed=%v %q %+v", s, c.Outcome, c.Failed, c.Reason, c.Evidence)
		}
	}
	r.Err = errors.New("not measured")
	if c := Compare(spl.LE, l, r, nil, Options{}); !c.Failed || c.Reason != "right side: not measured" {
		t.Errorf("with an error: failed=%v %q", c.Failed, c.Reason)
	}
}
