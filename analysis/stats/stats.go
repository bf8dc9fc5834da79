// Package stats holds the summaries and tests behind SPL verdicts. It is pure
// computation: no I/O, no global state.
package stats

import (
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes one sample of observations.
type Summary struct {
	N        int
	Mean     float64
	Variance float64 // unbiased (n-1); 0 when N < 2
	Median   float64
	Min, Max float64
}

// Summarize computes a Summary; it does not modify xs.
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs)}
	if s.N == 0 {
		return s
	}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	s.Median = stat.Quantile(0.5, stat.Empirical, sorted, nil)
	if s.N < 2 {
		s.Mean = sorted[0]
		return s
	}
	s.Mean, s.Variance = stat.MeanVariance(xs, nil)
	return s
}

// Scale applies the linear transformation x → c·x to every observation:
// the mean scales by c and the variance by c² (seed 004, Def. 8).
func (s Summary) Scale(c float64) Summary {
	s.Mean *= c
	s.Median *= c
	s.Min *= c
	s.Max *= c
	if c < 0 {
		s.Min, s.Max = s.Max, s.Min
	}
	s.Variance *= c * c
	return s
}

// StdErr2 is the squared standard error of the mean.
func (s Summary) StdErr2() float64 { return s.Variance / float64(s.N) }

// ErrTooFewSamples reports a sample too small for a variance estimate.
var ErrTooFewSamples = errors.New("fewer than 2 samples")

// WelchResult is the outcome of Welch's unequal-variance t-test of X against Y.
type WelchResult struct {
	T  float64 // (mean X − mean Y) / sqrt(Sx²/nx + Sy²/ny)
	DF float64 // Welch–Satterthwaite degrees of freedom
	// PGreater is the one-sided p-value of H0: E[X] ≤ E[Y] against
	// H1: E[X] > E[Y], i.e. P(T ≥ t) under H0.
	PGreater float64
	// PLess is the one-sided p-value of H0: E[X] ≥ E[Y] against E[X] < E[Y].
	PLess float64
	// PTwoSided is the p-value of H0: E[X] = E[Y].
	PTwoSided float64
}

// Welch runs Welch's t-test on two summaries (seed 004 appendix, L2961–L3022).
// When both variances are zero the statistic is ±Inf (or 0 for equal means),
// which decides the test by the means alone.
func Welch(x, y Summary) (WelchResult, error) {
	if x.N < 2 || y.N < 2 {
		return WelchResult{}, ErrTooFewSamples
	}
	ex, ey := x.StdErr2(), y.StdErr2()
	se2 := ex + ey
	diff := x.Mean - y.Mean
	var r WelchResult
	if se2 == 0 {
		switch {
		case diff > 0:
			r.T = math.Inf(1)
		case diff < 0:
			r.T = math.Inf(-1)
		}
		r.DF = float64(x.N + y.N - 2)
	} else {
		r.T = diff / math.Sqrt(se2)
		r.DF = se2 * se2 / (ex*ex/float64(x.N-1) + ey*ey/float64(y.N-1))
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.PGreater = t.Survival(r.T)
	r.PLess = t.CDF(r.T)
	r.PTwoSided = math.Min(1, 2*math.Min(r.PGreater, r.PLess))
	return r, nil
}

// RatioCI is a confidence interval for mean(X)/mean(Y) by the delta method on
// the log scale, which keeps the interval positive and is accurate when the
// relative standard errors are small, as they are for repeated timings.
// It returns NaNs when a mean is not positive.
func RatioCI(x, y Summary, level float64) (ratio, low, high float64) {
	if x.Mean <= 0 || y.Mean <= 0 || x.N < 2 || y.N < 2 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	ratio = x.Mean / y.Mean
	se := math.Sqrt(x.StdErr2()/(x.Mean*x.Mean) + y.StdErr2()/(y.Mean*y.Mean))
	z := distuv.UnitNormal.Quantile(0.5 + level/2)
	return ratio, ratio * math.Exp(-z*se), ratio * math.Exp(z*se)
}

// MeanCI is the Student-t confidence interval for the mean of one sample.
func MeanCI(s Summary, level float64) (low, high float64) {
	if s.N < 2 {
		return math.NaN(), math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(s.N - 1)}
	h := t.Quantile(0.5+level/2) * math.Sqrt(s.StdErr2())
	return s.Mean - h, s.Mean + h
}
