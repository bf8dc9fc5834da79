package stats

import "math"

// Median is the median as perfls means it everywhere: the middle value of
// the sorted sample, and for an even number of values the lower of the two
// middle ones (the ⌈n/2⌉-th smallest). It is always an observed value, as
// gonum's stat.Quantile(0.5, stat.Empirical, …) and NumPy's
// quantile(x, 0.5, method="inverted_cdf") define it, and it is the order
// statistic Summarize and Describe select. NaN for an empty sample; xs is not
// modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return Summarize(xs).Median
}

// TInterval is the Student-t confidence interval of the mean of xs at level
// (0.95 for 95 %), with n−1 degrees of freedom; ok is false for fewer than two
// values. Given fork means, it is the interval over runs that perfls reports
// for a measurement.
func TInterval(xs []float64, level float64) (lo, hi float64, ok bool) {
	s := Summarize(xs)
	if s.N < 2 {
		return math.NaN(), math.NaN(), false
	}
	lo, hi = MeanCI(s, level)
	return lo, hi, true
}
