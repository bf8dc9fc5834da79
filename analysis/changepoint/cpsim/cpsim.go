// Package cpsim validates package changepoint on synthetic histories with
// known truth: level series with injected relative steps and Gaussian noise,
// scored by precision, recall and F1 with a tolerance on the index.
package cpsim

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/perfls/perfls/analysis/changepoint"
)

// Setting describes the generated series.
type Setting struct {
	Series, Points int
	MaxSteps       int     // 0..MaxSteps steps per series
	MinStep        float64 // step sizes are uniform in [MinStep, MaxStep], either sign
	MaxStep        float64
	Noise          float64 // relative standard deviation of a point
	Tolerance      int     // a detection within this many points of a true step matches it
}

// DefaultSetting: 200 series of 300 points, up to 4 steps of 5–30 %, 2 %
// noise, ±3 points.
var DefaultSetting = Setting{Series: 200, Points: 300, MaxSteps: 4, MinStep: 0.05, MaxStep: 0.30, Noise: 0.02, Tolerance: 3}

// Result counts matches over all series.
type Result struct {
	True, Detected, Matched int
	// FalseSeries counts the series with a detection that matched no true
	// step: with no steps (an A/A run), the series a report would flag.
	FalseSeries int
	// RecallBySize: recall for steps of 5–10 %, 10–20 %, 20–30 %.
	RecallBySize [3]float64
}

// Precision is matched / detected (1 when nothing was detected).
func (r Result) Precision() float64 { return ratio(r.Matched, r.Detected) }

// Recall is matched / true (1 when there was nothing to find).
func (r Result) Recall() float64 { return ratio(r.Matched, r.True) }

// F1 is their harmonic mean.
func (r Result) F1() float64 {
	p, q := r.Precision(), r.Recall()
	if p+q == 0 {
		return 0
	}
	return 2 * p * q / (p + q)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Evaluate generates s's series from seed and detects with cfg.
func Evaluate(seed uint64, s Setting, cfg changepoint.Config) (Result, error) {
	rng := rand.New(rand.NewPCG(seed, 23))
	var r Result
	var sizeTrue, sizeHit [3]int
	for k := 0; k < s.Series; k++ {
		at, xs := generate(rng, s)
		cps, err := changepoint.Detect(xs, cfg)
		if err != nil {
			return r, err
		}
		r.True += len(at)
		r.Detected += len(cps)
		used := map[int]bool{}
		for _, pos := range sortedKeys(at) {
			b := sizeBucket(math.Abs(at[pos]))
			sizeTrue[b]++
			for i, c := range cps {
				if !used[i] && abs(c.Index-pos) <= s.Tolerance {
					used[i] = true
					r.Matched++
					sizeHit[b]++
					break
				}
			}
		}
		if len(used) < len(cps) {
			r.FalseSeries++
		}
	}
	for b := range sizeTrue {
		r.RecallBySize[b] = ratio(sizeHit[b], sizeTrue[b])
	}
	return r, nil
}

// generate draws the step positions (at least 30 points apart and from the
// ends) and sizes, and the series.
func generate(rng *rand.Rand, s Setting) (map[int]float64, []float64) {
	at := map[int]float64{}
	want := rng.IntN(s.MaxSteps + 1)
	for tries := 0; len(at) < want && tries < 100; tries++ {
		pos := 30 + rng.IntN(s.Points-60)
		ok := true
		for p := range at {
			if abs(p-pos) < 30 {
				ok = false
			}
		}
		if ok {
			size := s.MinStep + rng.Float64()*(s.MaxStep-s.MinStep)
			if rng.IntN(2) == 0 {
				size = -size
			}
			at[pos] = size
		}
	}
	level := 100.0
	xs := make([]float64, s.Points)
	for i := range xs {
		if f, ok := at[i]; ok {
			level *= 1 + f
		}
		xs[i] = level * (1 + s.Noise*rng.NormFloat64())
	}
	return at, xs
}

func sizeBucket(x float64) int {
	switch {
	case x < 0.10:
		return 0
	case x < 0.20:
		return 1
	}
	return 2
}

func sortedKeys(m map[int]float64) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
