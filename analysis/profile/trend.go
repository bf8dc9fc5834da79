package profile

import (
	"math"
	"sort"
)

// trend is a monotonic-trend test of a series against its index: the
// Mann–Kendall test (Kendall's tau between index and value; ranks only, so
// a single outlier moves S by at most n−1 of its n(n−1)/2 pairs) and the
// Theil–Sen slope (the median of the pairwise slopes, robust to outliers).
type trend struct {
	N int
	// S is the Mann–Kendall statistic: pairs (i<j) with y[j] > y[i] minus
	// pairs with y[j] < y[i]. VarS is its variance under "no trend", with
	// the correction for tied values.
	S, VarS float64
	// Z is the normal score with continuity correction, P the one-sided
	// p-value of "no trend" against "increasing".
	Z, P float64
	// Slope is the Theil–Sen slope per index step; Intercept is
	// median(y) − Slope·median(index) (SciPy's theilslopes "separate").
	Slope, Intercept float64
}

// trendOf computes the trend of y against 0, 1, …, n−1. It needs n ≥ 3.
func trendOf(y []float64) (trend, bool) {
	n := len(y)
	if n < 3 {
		return trend{}, false
	}
	t := trend{N: n}
	slopes := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d := y[j] - y[i]
			switch {
			case d > 0:
				t.S++
			case d < 0:
				t.S--
			}
			slopes = append(slopes, d/float64(j-i))
		}
	}
	// Ties among the values lower the variance.
	sorted := append([]float64(nil), y...)
	sort.Float64s(sorted)
	tieTerm := 0.0
	for i := 0; i < n; {
		j := i
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		if k := float64(j - i); k > 1 {
			tieTerm += k * (k - 1) * (2*k + 5)
		}
		i = j
	}
	fn := float64(n)
	t.VarS = (fn*(fn-1)*(2*fn+5) - tieTerm) / 18
	switch {
	case t.VarS <= 0:
		t.Z = 0
	case t.S > 0:
		t.Z = (t.S - 1) / math.Sqrt(t.VarS)
	case t.S < 0:
		t.Z = (t.S + 1) / math.Sqrt(t.VarS)
	}
	t.P = normalSF(t.Z)
	t.Slope = theilSenMedian(slopes)
	idx := make([]float64, n)
	for i := range idx {
		idx[i] = float64(i)
	}
	t.Intercept = theilSenMedian(append([]float64(nil), y...)) - t.Slope*theilSenMedian(idx)
	return t, true
}

// normalSF is the standard normal survival function, P(Z > z).
func normalSF(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// theilSenMedian is the median as Theil–Sen's estimator defines it (the
// mean of the two middle values of an even count), which SciPy's theilslopes
// uses and the tests compare with; it is the one place perfls does not use
// stats.Median, the order statistic every measured figure reports. It
// reorders v; NaN for an empty slice.
func theilSenMedian(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}

// theilSen is the Theil–Sen line of y against x: the median of the slopes
// of all pairs with different x, and median(y) − slope·median(x).
func theilSen(x, y []float64) (slope, intercept float64) {
	var slopes []float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if x[j] != x[i] {
				slopes = append(slopes, (y[j]-y[i])/(x[j]-x[i]))
			}
		}
	}
	if len(slopes) == 0 {
		return math.NaN(), math.NaN()
	}
	slope = theilSenMedian(slopes)
	return slope, theilSenMedian(append([]float64(nil), y...)) - slope*theilSenMedian(append([]float64(nil), x...))
}
