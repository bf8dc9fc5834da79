package verdict

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
)

// TestHolmPublishedExample: the worked example of the Holm–Bonferroni
// method (four hypotheses, p = 0.01, 0.04, 0.03, 0.005 at α = 0.05) rejects
// the first and the fourth (Wikipedia, "Holm–Bonferroni method", Example);
// the adjusted p-values are R's p.adjust(c(0.01, 0.04, 0.03, 0.005),
// "holm") by its documented definition (neither R nor statsmodels is on
// this machine to recompute them).
func TestHolmPublishedExample(t *testing.T) {
	ps := []float64{0.01, 0.04, 0.03, 0.005}
	level, m := HolmLevel(ps, 0.05)
	if m != 4 || level != 0.025 {
		t.Fatalf("level %g over %d, want 0.025 over 4", level, m)
	}
	var rejected []int
	for i, p := range ps {
		if p < level {
			rejected = append(rejected, i)
		}
	}
	if len(rejected) != 2 || rejected[0] != 0 || rejected[1] != 3 {
		t.Errorf("rejected %v, want [0 3]", rejected)
	}
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i, got := range HolmAdjusted(ps) {
		if math.Abs(got-want[i]) > 1e-12 {
			t.Errorf("adjusted p[%d] = %g, want %g", i, got, want[i])
		}
	}
}

func TestHolmEdges(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name  string
		ps    []float64
		level float64
		m     int
	}{
		{"none", nil, 0.05, 0},
		{"only NaN", []float64{nan, nan}, 0.05, 0},
		{"all rejected", []float64{0.001, 0.002}, 0.05, 2},
		{"none rejected", []float64{0.5, 0.9, 0.2}, 0.05 / 3, 3},
		{"NaN ignored", []float64{nan, 0.01, nan, 0.04}, 0.05, 2},
		{"ties", []float64{0.02, 0.02, 0.02}, 0.05 / 3, 3},
	} {
		level, m := HolmLevel(c.ps, 0.05)
		if m != c.m || math.Abs(level-c.level) > 1e-15 {
			t.Errorf("%s: level %g over %d, want %g over %d", c.name, level, m, c.level, c.m)
		}
		for i, a := range HolmAdjusted(c.ps) {
			if math.IsNaN(c.ps[i]) != math.IsNaN(a) {
				t.Errorf("%s: adjusted[%d] = %g for p %g", c.name, i, a, c.ps[i])
			}
			if !math.IsNaN(a) && (a < 0.05) != (c.ps[i] < level) {
				t.Errorf("%s: adjusted %g and level %g disagree on p %g", c.name, a, level, c.ps[i])
			}
		}
	}
}

// TestFamilyHoldsAlphaAcrossASuite (~4 s): a suite of 20 `L <= R` formulas
// on identical methods (A/A; fork effect 2 %, within-fork σ 5 %, 5 forks),
// decided one by one at α = 0.05, reports some violation in most runs;
// decided as one family (Holm) in at most α of them (+ Monte-Carlo error),
// while a real 30 % slow-down among them is still found in nearly every run.
func TestFamilyHoldsAlphaAcrossASuite(t *testing.T) {
	const reps, formulas, alpha = 300, 20, 0.05
	rng := rand.New(rand.NewPCG(7, 20))
	forks := func(mu float64) [][]float64 {
		out := make([][]float64, 5)
		for i := range out {
			out[i] = normalForks(rng, mu)
		}
		return out
	}
	var anyAlone, anyFamily, found int
	for k := 0; k < reps; k++ {
		sides := make([][2]Side, formulas)
		for i := range sides {
			mu := 100.0
			if i == 0 {
				mu = 130 // the one real slow-down
			}
			sides[i] = [2]Side{{Runs: forks(mu)}, {Runs: forks(100)}}
		}
		decideAll := func(opt Options) []Comparison {
			out := make([]Comparison, formulas)
			for i, s := range sides {
				out[i] = Compare(spl.LE, s[0], s[1], nil, opt)
			}
			return out
		}
		opt := Options{Alpha: alpha}
		alone := decideAll(opt)
		ps := make([]float64, formulas)
		for i, c := range alone {
			ps[i] = c.PReject
		}
		level, _ := HolmLevel(ps, alpha)
		opt.RejectAlpha = level
		family := decideAll(opt)
		falseAlone, falseFamily := false, false
		for i := 1; i < formulas; i++ {
			falseAlone = falseAlone || alone[i].Outcome == Violated
			falseFamily = falseFamily || family[i].Outcome == Violated
			if family[i].Outcome == Violated && alone[i].Outcome != Violated {
				t.Fatalf("rep %d: formula %d violated in the family but not alone", k, i)
			}
		}
		if falseAlone {
			anyAlone++
		}
		if falseFamily {
			anyFamily++
		}
		if family[0].Outcome == Violated {
			found++
		}
	}
	rateAlone, rateFamily := float64(anyAlone)/reps, float64(anyFamily)/reps
	power := float64(found) / reps
	t.Logf("runs with any false violation among 19 A/A formulas: one by one %.3f, Holm %.3f; the 30%% slow-down found in %.3f", rateAlone, rateFamily, power)
	if rateFamily > mcBound(alpha, reps) {
		t.Errorf("Holm: false violations in %.3f of runs, above α = %g (+3 MC SE)", rateFamily, alpha)
	}
	if rateAlone < 0.3 {
		t.Errorf("one by one: false violations in only %.3f of runs; the simulation does not show the problem", rateAlone)
	}
	if power < 0.9 {
		t.Errorf("the 30%% slow-down found in %.3f of runs, want ≥ 0.9", power)
	}
}

// TestFamilyReasonSaysWhy: a comparison violated at α alone but not at the
// family's level is not violated, and its reason says why.
func TestFamilyReasonSaysWhy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 200; k++ {
		l := Side{Runs: [][]float64{normalForks(rng, 103), normalForks(rng, 103), normalForks(rng, 103)}}
		r := Side{Runs: [][]float64{normalForks(rng, 100), normalForks(rng, 100), normalForks(rng, 100)}}
		alone := Compare(spl.LE, l, r, nil, Options{})
		if alone.Outcome != Violated || alone.PReject < 0.001 {
			continue
		}
		fam := Compare(spl.LE, l, r, nil, Options{RejectAlpha: alone.PReject / 2})
		if fam.Outcome == Violated {
			t.Fatalf("violated at RejectAlpha %g with p %g", alone.PReject/2, alone.PReject)
		}
		if fam.Evidence.FamilyAlpha != alone.PReject/2 || fam.Reason == "" {
			t.Fatalf("family level not in the evidence or reason: %+v %q", fam.Evidence, fam.Reason)
		}
		t.Logf("reason: %s", fam.Reason)
		return
	}
	t.Fatal("no draw was violated alone with 0.001 ≤ p < 0.05")
}
