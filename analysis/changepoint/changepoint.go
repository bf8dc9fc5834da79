// Package changepoint finds where a benchmark's history changes level: the
// E-divisive means of Matteson and James with a Student t-test as the
// significance step and the split and merge steps of Hunter (Fleming et al.,
// "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", 2023), as Apache Otava does it.
//
// Split: the series is cut into windows of WindowLen points, starting half
// a window apart (or at the last change point found); in each window
// E-divisive picks the point that maximises the energy statistic Q̂ and
// keeps it while the t-test between its two sides has p ≤ 10·MaxPValue
// (the "weak" change points). Merge: the weakest change point is dropped
// (largest p above MaxPValue or SeriesAlpha/n, else smallest change below
// MinMagnitude) and its neighbours re-tested, until all pass.
//
// A Detector is incremental: appending points re-runs the split only on the
// windows that did not lie wholly inside the old series (their data are
// unchanged, so their results are too), which is at most about three
// windows; the merge re-tests the weak change points from prefix sums,
// O(1) each. The result equals a batch run over the whole series.
package changepoint

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Config holds the detector's parameters; DefaultConfig gives Otava's.
type Config struct {
	WindowLen    int     // points per split window (Otava: 50)
	MaxPValue    float64 // a change point's t-test must reach p ≤ this (Otava: 0.001)
	MinMagnitude float64 // and its relative change must exceed this (Otava: 0)
	// SeriesAlpha, when > 0, bounds the chance that a series with no
	// change gets one: a change point must also reach p ≤ SeriesAlpha/n
	// over n points (Bonferroni over the positions a split can take; the
	// t-test's p is taken at the position that maximises the statistic,
	// so p ≤ MaxPValue alone flags 1.7 % of 33-point and 10.9 % of
	// 300-point series of noise). 0 is Otava's rule.
	SeriesAlpha float64
}

// DefaultConfig is a window of 50, p ≤ 0.001, no minimum magnitude, and at
// most a 1 % chance that a series without a change is given one.
func DefaultConfig() Config { return Config{WindowLen: 50, MaxPValue: 0.001, SeriesAlpha: 0.01} }

// pValueFor is the p a change point of a series of n points must reach.
func (c Config) pValueFor(n int) float64 {
	if c.SeriesAlpha > 0 && n > 0 {
		return min(c.MaxPValue, c.SeriesAlpha/float64(n))
	}
	return c.MaxPValue
}

// Validate refuses parameters outside their ranges.
func (c Config) Validate() error {
	switch {
	case c.WindowLen < 4:
		return fmt.Errorf("window length %d: must be at least 4", c.WindowLen)
	case !(c.MaxPValue > 0 && c.MaxPValue < 1):
		return fmt.Errorf("maximum p-value %v: must be in (0, 1)", c.MaxPValue)
	case !(c.MinMagnitude >= 0):
		return fmt.Errorf("minimum magnitude %v: must be ≥ 0", c.MinMagnitude)
	case !(c.SeriesAlpha >= 0 && c.SeriesAlpha < 1):
		return fmt.Errorf("series alpha %v: must be in [0, 1)", c.SeriesAlpha)
	}
	return nil
}

// weakPValue is Otava's first-pass threshold for the split step.
func (c Config) weakPValue() float64 {
	switch {
	case c.MaxPValue < 0.05:
		return c.MaxPValue * 10
	case c.MaxPValue < 0.5:
		return c.MaxPValue * 2
	}
	return c.MaxPValue
}

// ChangePoint is a level change: the series is different from Index on.
type ChangePoint struct {
	Index int `json:"index"` // first point of the new level
	// Before and After are the means of the segments on either side (up to
	// the neighbouring change points).
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Magnitude is the relative change of the mean, After/Before − 1 (0 when
	// Before is 0); its sign is the direction.
	Magnitude float64 `json:"magnitude"`
	PValue    float64 `json:"p_value"` // two-sided Student t-test of the two segments
}

// Direction is "increase" or "decrease" (for a time, an increase is a slow-down).
func (c ChangePoint) Direction() string {
	if c.After >= c.Before {
		return "increase"
	}
	return "decrease"
}

// window is one split window and the weak change points found in it.
type window struct {
	start int
	cps   []int
}

// Detector holds a series and its change points.
type Detector struct {
	cfg        Config
	xs         []float64
	sum, sumsq []float64 // prefix sums: sum[i] = Σ xs[:i]
	windows    []window
	result     []ChangePoint
	dist       []float64 // scratch: the window's 2-D prefix sums of |x_a − x_b|
	distW      int       // its row width
}

// New makes an empty detector.
func New(cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Detector{cfg: cfg, sum: []float64{0}, sumsq: []float64{0}}, nil
}

// Detect finds the change points of a whole series.
func Detect(xs []float64, cfg Config) ([]ChangePoint, error) {
	d, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return d.Append(xs...)
}

// Append adds points at the end of the series and returns all change points.
func (d *Detector) Append(xs ...float64) ([]ChangePoint, error) {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("point %d is %v: values must be finite", len(d.xs)+i, x)
		}
	}
	old := len(d.xs)
	// Grown once for the points: a series read whole appends them all.
	d.xs, d.sum, d.sumsq = slices.Grow(d.xs, len(xs)), slices.Grow(d.sum, len(xs)), slices.Grow(d.sumsq, len(xs))
	for _, x := range xs {
		d.xs = append(d.xs, x)
		d.sum = append(d.sum, d.sum[len(d.sum)-1]+x)
		d.sumsq = append(d.sumsq, d.sumsq[len(d.sumsq)-1]+x*x)
	}
	if len(xs) > 0 {
		if p, ok := scratch.Get().(*[]float64); ok {
			d.dist = *p
		}
		d.split(old)
		d.result = d.merge(d.weak())
		// The scratch goes back to be shared: a detector kept for later
		// appends (one per series of a history, tens of thousands in a
		// team's store) holds no window matrix between them.
		p := d.dist[:0]
		scratch.Put(&p)
		d.dist = nil
	}
	return d.ChangePoints(), nil
}

// scratch holds the window matrices (Detector.dist) of detectors between
// their appends.
var scratch sync.Pool

// ChangePoints are the change points of the series so far.
func (d *Detector) ChangePoints() []ChangePoint { return append([]ChangePoint(nil), d.result...) }

// Len is the number of points.
func (d *Detector) Len() int { return len(d.xs) }

// split re-runs the windows that reached past the old length old.
func (d *Detector) split(old int) {
	w, step := d.cfg.WindowLen, d.cfg.WindowLen/2
	start := 0
	for k, win := range d.windows {
		if win.start+w > old {
			d.windows, start = d.windows[:k], win.start
			break
		}
		start = d.nextStart(win)
	}
	n := len(d.xs)
	for start < n {
		win := window{start: start, cps: d.edivisive(start, min(start+w, n), d.cfg.weakPValue())}
		d.windows = append(d.windows, win)
		start = max(d.nextStart(win), start+step)
	}
}

func (d *Detector) nextStart(win window) int {
	next := win.start + d.cfg.WindowLen/2
	if len(win.cps) > 0 {
		next = max(next, win.cps[len(win.cps)-1])
	}
	return next
}

// weak is the union of the windows' change points, in order.
func (d *Detector) weak() []int {
	seen := map[int]bool{}
	var cps []int
	for _, w := range d.windows {
		for _, c := range w.cps {
			if !seen[c] {
				seen[c] = true
				cps = append(cps, c)
			}
		}
	}
	sort.Ints(cps)
	return cps
}

// merge drops the weakest change point until every one has p ≤ MaxPValue
// (and ≤ SeriesAlpha/n) and a magnitude above MinMagnitude, re-testing its
// neighbours each time.
func (d *Detector) merge(cps []int) []ChangePoint {
	for len(cps) > 0 {
		stats := d.test(cps)
		weakest := 0
		for i, s := range stats {
			if s.PValue > stats[weakest].PValue {
				weakest = i
			}
		}
		if stats[weakest].PValue <= d.cfg.pValueFor(len(d.xs)) {
			for i, s := range stats {
				if bothWays(s) < bothWays(stats[weakest]) {
					weakest = i
				}
			}
			if bothWays(stats[weakest]) > d.cfg.MinMagnitude {
				return stats
			}
		}
		cps = append(cps[:weakest], cps[weakest+1:]...)
	}
	return nil
}

// bothWays is Otava's magnitude for the merge: the larger of the forward
// and backward relative changes.
func bothWays(c ChangePoint) float64 {
	return math.Max(math.Abs(rel(c.After, c.Before)), math.Abs(rel(c.Before, c.After)))
}

func rel(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a/b - 1
}

// test computes each change point's statistics against its neighbours.
func (d *Detector) test(cps []int) []ChangePoint {
	out := make([]ChangePoint, len(cps))
	for i, c := range cps {
		lo, hi := 0, len(d.xs)
		if i > 0 {
			lo = cps[i-1]
		}
		if i+1 < len(cps) {
			hi = cps[i+1]
		}
		out[i] = d.compare(lo, c, hi)
	}
	return out
}

// compare tests xs[lo:c] against xs[c:hi].
func (d *Detector) compare(lo, c, hi int) ChangePoint {
	n1, m1, v1 := d.moments(lo, c)
	n2, m2, v2 := d.moments(c, hi)
	_, p := StudentT(n1, m1, v1, n2, m2, v2)
	return ChangePoint{Index: c, Before: m1, After: m2, Magnitude: rel(m2, m1), PValue: p}
}

// moments are the count, mean and unbiased variance of xs[a:b].
func (d *Detector) moments(a, b int) (n int, mean, variance float64) {
	n = b - a
	s := d.sum[b] - d.sum[a]
	mean = s / float64(n)
	if n > 1 {
		variance = math.Max(0, (d.sumsq[b]-d.sumsq[a]-s*mean)/float64(n-1))
	}
	return n, mean, variance
}

// StudentT is the two-sided two-sample Student t-test with pooled variance
// (Otava's ttest_ind_from_stats with equal variances) from counts, means and
// unbiased variances. It needs n1 + n2 ≥ 3; p is 1 otherwise, and 0 or 1 for
// zero variance with different or equal means.
func StudentT(n1 int, m1, v1 float64, n2 int, m2, v2 float64) (t, p float64) {
	df := float64(n1 + n2 - 2)
	if df <= 0 {
		return 0, 1
	}
	sp2 := (float64(n1-1)*v1 + float64(n2-1)*v2) / df
	se := math.Sqrt(sp2 * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		if m1 == m2 {
			return 0, 1
		}
		return math.Copysign(math.Inf(1), m1-m2), 0
	}
	t = (m1 - m2) / se
	return t, 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
}
