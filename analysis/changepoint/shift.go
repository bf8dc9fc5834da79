package changepoint

import (
	"fmt"
	"math"
)

// Shift tests whether the level of after differs from the level of before
// with the change-point step's own test: a two-sided Student t-test that
// must reach p ≤ MaxPValue, and a relative change above MinMagnitude. It
// serves two series that cannot be one, such as the points of two machine
// classes around the commit where one takes over from the other: their
// difference is the environment's, never a change point of either. The
// result's Index is len(before); ok is false when the shift does not pass.
func Shift(before, after []float64, cfg Config) (cp ChangePoint, ok bool, err error) {
	if err := cfg.Validate(); err != nil {
		return ChangePoint{}, false, err
	}
	if len(before) == 0 || len(after) == 0 {
		return ChangePoint{}, false, fmt.Errorf("shift needs points on both sides (%d before, %d after)", len(before), len(after))
	}
	n1, m1, v1, err := moments(before)
	if err != nil {
		return ChangePoint{}, false, err
	}
	n2, m2, v2, err := moments(after)
	if err != nil {
		return ChangePoint{}, false, err
	}
	_, p := StudentT(n1, m1, v1, n2, m2, v2)
	cp = ChangePoint{Index: n1, Before: m1, After: m2, Magnitude: rel(m2, m1), PValue: p}
	return cp, p <= cfg.MaxPValue && bothWays(cp) > cfg.MinMagnitude, nil
}

// moments are the count, mean and unbiased variance of xs.
func moments(xs []float64) (n int, mean, variance float64, err error) {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, 0, 0, fmt.Errorf("point %d is %v: values must be finite", i, x)
		}
		mean += x
	}
	n = len(xs)
	mean /= float64(n)
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	if n > 1 {
		variance /= float64(n - 1)
	}
	return n, mean, variance, nil
}
