// Package stats holds the summaries and tests behind SPL verdicts. It is pure
// computation: no I/O, no global state.
package stats

import (
	"errors"
	"math"
	"sort"

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

// Summarize computes a Summary; it does not modify xs. It is O(n): the
// median is selected through a histogram of the range, not a sort. Median is
// the lower middle value for even n (gonum's stat.Empirical quantile).
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs)}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = xs[0], xs[0]
	var sum float64
	for _, x := range xs {
		sum += x
		if x < s.Min {
			s.Min = x
		}
		if x > s.Max {
			s.Max = x
		}
	}
	if s.N < 2 {
		s.Mean, s.Median = xs[0], xs[0]
		return s
	}
	s.Mean = sum / float64(s.N)
	var ss, c float64
	for _, x := range xs {
		d := x - s.Mean
		ss += d * d
		c += d
	}
	n := float64(s.N)
	s.Variance = (ss - c*c/n) / (n - 1)
	s.Median = orderStat(xs, (s.N+1)/2-1, s.Min, s.Max)
	return s
}

// orderStat returns the k-th smallest value (0-based) of xs, whose minimum
// and maximum are lo and hi: it counts values into buckets of the range,
// then sorts only the bucket that holds rank k.
func orderStat(xs []float64, k int, lo, hi float64) float64 {
	if lo == hi || math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(hi-lo, 0) {
		return lo
	}
	const nb = 4096
	scale := nb / (hi - lo)
	bucket := func(x float64) int {
		b := int((x - lo) * scale)
		if b >= nb {
			b = nb - 1
		}
		if b < 0 {
			b = 0
		}
		return b
	}
	var counts [nb]int
	for _, x := range xs {
		counts[bucket(x)]++
	}
	target, below := 0, 0
	for target = 0; target < nb; target++ {
		if below+counts[target] > k {
			break
		}
		below += counts[target]
	}
	in := make([]float64, 0, counts[target])
	for _, x := range xs {
		if bucket(x) == target {
			in = append(in, x)
		}
	}
	sort.Float64s(in)
	return in[k-below]
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

// RatioCISE is the delta-method interval of mx/my on the log scale from the
// squared standard errors of the two means; NaNs when a mean is not positive
// or a standard error is unknown.
func RatioCISE(mx, se2x, my, se2y, level float64) (ratio, low, high float64) {
	if !(mx > 0) || !(my > 0) || math.IsNaN(se2x) || math.IsNaN(se2y) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	ratio = mx / my
	se := math.Sqrt(se2x/(mx*mx) + se2y/(my*my))
	z := distuv.UnitNormal.Quantile(0.5 + level/2)
	return ratio, ratio * math.Exp(-z*se), ratio * math.Exp(z*se)
}

// Var is the unbiased variance of xs (0 for fewer than 2 values).
func Var(xs []float64) float64 {
	_, v := meanVar(xs)
	return v
}
