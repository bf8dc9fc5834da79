package verdict

import (
	"math"
	"sort"
)

// A check decides many comparisons at once. Each alone at α would raise a
// false violation with probability α, so a suite of N formulas that all
// hold would report about N·α of them violated. The check therefore
// decides its comparisons' violation tests as one family with Holm's
// step-down procedure (Holm 1979), which keeps the chance of any false
// violation across the family within α whatever the tests' dependence,
// and rejects at least what Bonferroni (α/N each) would.

// HolmLevel is the level below which Holm's procedure at alpha rejects
// among the p-values ps (NaNs, the comparisons no violation test decided,
// take no part), and how many took part. Holm sorts p₍₁₎ ≤ … ≤ p₍ₘ₎ and
// rejects p₍₁₎ … p₍ₖ₎ where k+1 is the first rank with p₍ₖ₊₁₎ ≥ α/(m−k);
// every p below α/(m−k) is among those, every other one is not, so the
// rejections are exactly the p-values below that one level (alpha itself
// when all are rejected, or when none took part).
func HolmLevel(ps []float64, alpha float64) (level float64, m int) {
	var sorted []float64
	for _, p := range ps {
		if !math.IsNaN(p) {
			sorted = append(sorted, p)
		}
	}
	m = len(sorted)
	sort.Float64s(sorted)
	for k, p := range sorted {
		if limit := alpha / float64(m-k); p >= limit {
			return limit, m
		}
	}
	return alpha, m
}

// HolmAdjusted is Holm's adjusted p-values of ps in their order (NaN stays
// NaN): p̃₍ᵢ₎ = max over j ≤ i of min(1, (m−j+1)·p₍ⱼ₎), so p̃ < α exactly
// when HolmLevel rejects p. R's p.adjust(method = "holm") computes the
// same; the tests compare with its values.
func HolmAdjusted(ps []float64) []float64 {
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, len(ps))
	for i := range out {
		out[i] = math.NaN()
	}
	m, run := len(idx), 0.0
	for j, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-j)*ps[i]))
		out[i] = run
	}
	return out
}

// RejectPValues are the violation tests' p-values (PReject) of every
// comparison of the results, NaN for those no violation test decided.
func RejectPValues(ms []MethodResult) []float64 {
	var ps []float64
	for _, m := range ms {
		for _, in := range m.Instances {
			for _, c := range in.Comparisons {
				ps = append(ps, c.PReject)
			}
		}
	}
	return ps
}

// NeedsFamilyLevel says whether a violation in results rests on a p-value
// at or above the family's level, so the results must be decided again
// with Options.RejectAlpha = level.
func NeedsFamilyLevel(ms []MethodResult, level float64) bool {
	for _, m := range ms {
		for _, in := range m.Instances {
			for _, c := range in.Comparisons {
				if c.Outcome == Violated && c.PReject >= level {
					return true
				}
			}
		}
	}
	return false
}
