package ensemble

import (
	"math"
	"sort"
	"strings"
)

// ConfidenceChange is the seed's Δconfidence (reference §2.4) read as the
// cosine distance 1 − cos θ between V_history = (Conf_h, 1 − Conf_h) and
// V_new = (Conf_n, 1 − Conf_n): 0 for an unchanged confidence, 1 when the
// premise still holds but the consequent never does (1.0 → 0.0). The literal
// "1 − cosine_distance" would be 1 for an unchanged rule, against the seed's
// own reading (L99).
func ConfidenceChange(confHistory, confNew float64) float64 {
	dot := confHistory*confNew + (1-confHistory)*(1-confNew)
	norm := math.Hypot(confHistory, 1-confHistory) * math.Hypot(confNew, 1-confNew)
	return min(1, max(0, 1-dot/norm))
}

// Similarity compares a prior run's environment with the new run's: the
// components of the new run whose value the prior run shares (the 1s of the
// seed's binary similarity vector) and the vector's length √N.
func Similarity(prior, current Environment) (matching []string, length float64) {
	for k, v := range current {
		if pv, ok := prior[k]; ok && strings.TrimSpace(pv) == strings.TrimSpace(v) {
			matching = append(matching, k)
		}
	}
	sort.Strings(matching)
	return matching, math.Sqrt(float64(len(matching)))
}

// Weights are the stacking weights w_i = l_i / Σ_j l_j (reference §2.5).
// When no prior run shares any component (Σ l_j = 0, which the seed leaves
// open) every model gets 1/n and fallback is true: the vote is then a plain
// majority with stacking's "> ½" threshold.
func Weights(lengths []float64) (w []float64, fallback bool) {
	var sum float64
	for _, l := range lengths {
		sum += l
	}
	w = make([]float64, len(lengths))
	for i, l := range lengths {
		if sum == 0 {
			w[i] = 1 / float64(len(lengths))
		} else {
			w[i] = l / sum
		}
	}
	return w, sum == 0
}

// voteTolerance absorbs rounding in sums of weights: four weights of ¼ must
// give exactly ½ and so not be reported by stacking.
const voteTolerance = 1e-9

// BaggingReports is the simple majority: at least half of the n models.
func BaggingReports(votes, n int) bool { return n > 0 && 2*votes >= n }

// StackingReports is the weighted vote: s(x) = Σ w_i R_i(x) greater than ½.
func StackingReports(s float64) bool { return s > 0.5+voteTolerance }

// StackingScore is s(x) for one counter: the sum of the weights of the
// models that flag it.
func StackingScore(weights []float64, flagged []bool) float64 {
	var s float64
	for i, f := range flagged {
		if f {
			s += weights[i]
		}
	}
	return s
}

// Severity is the fraction of the new run's intervals in which the flagged
// counter takes part in a violated rule (reference §2.6).
func Severity(flaggedIntervals, totalIntervals int) float64 {
	if totalIntervals == 0 {
		return 0
	}
	return float64(flaggedIntervals) / float64(totalIntervals)
}
