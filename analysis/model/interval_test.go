package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/perfls/perfls/analysis/stats"
)

// Simulation with known truth: every value has its own deviation from the
// smooth cost curve (σ_v, its data's place in the caches) and every fork
// its own scatter (σ_f). The prediction interval at a value that was not
// measured covers that value's measured mean (3 forks) in about 95 % of
// draws; the fitted mean's interval (CI95) is the curve's, narrower, and
// covers a new measurement far less often. The curve's interval of a fit
// fork by fork (as FitDependency fitted before it took one point per
// value) claims more precision still, and covers it less often again when
// the values depart from the curve.
func TestPredictionIntervalCoversNewValues(t *testing.T) {
	grid := []float64{1000, 2000, 4000, 8000, 16000, 32000}
	checks := []float64{1414, 5657, 22627}
	for _, c := range []struct {
		sigmaV, sigmaF float64
		piMin, piMax   float64
		ciMax          float64 // CI95's coverage stays below
	}{
		{0.10, 0.05, 0.90, 0.995, 0.85},
		{0.20, 0.10, 0.90, 0.995, 0.85},
		{0, 0.05, 0.90, 0.995, 0.85},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(100*c.sigmaV)))
		measure := func(n float64) []float64 {
			u := math.Exp(c.sigmaV * rng.NormFloat64())
			var fs []float64
			for range 3 {
				fs = append(fs, 0.4*n*u*math.Exp(c.sigmaF*rng.NormFloat64()))
			}
			return fs
		}
		const draws = 400
		var piIn, ciIn, forkIn, total int
		for range draws {
			var pts []Point
			for _, n := range grid {
				pts = append(pts, Point{N: n, Figures: measure(n)})
			}
			d, err := FitDependency(Wall, pts)
			if err != nil {
				t.Fatal(err)
			}
			byFork := forkByFork(t, pts)
			for _, n := range checks {
				m := mean(measure(n))
				p := d.Predict(n)
				if p.PI95[0] <= m && m <= p.PI95[1] {
					piIn++
				}
				if p.CI95[0] <= m && m <= p.CI95[1] {
					ciIn++
				}
				if lo, hi := byFork(n); lo <= m && m <= hi {
					forkIn++
				}
				total++
			}
		}
		pi, ci, fork := float64(piIn)/float64(total), float64(ciIn)/float64(total), float64(forkIn)/float64(total)
		t.Logf("σ_v %.2f, σ_f %.2f: PI95 covers %.3f, CI95 %.3f, the fork-by-fork curve interval %.3f of %d new values", c.sigmaV, c.sigmaF, pi, ci, fork, total)
		if pi < c.piMin || pi > c.piMax || ci > c.ciMax || fork > ci {
			t.Errorf("σ_v %.2f, σ_f %.2f: PI95 covers %.3f (want %.2f–%.3f), CI95 %.3f (want ≤ %.2f), fork by fork %.3f (want ≤ CI95)",
				c.sigmaV, c.sigmaF, pi, c.piMin, c.piMax, ci, c.ciMax, fork)
		}
	}
}

// forkByFork fits every fork figure as its own point and returns the
// curve's 95 % interval at n, widened over the indistinct models.
func forkByFork(t *testing.T, pts []Point) func(n float64) (lo, hi float64) {
	t.Helper()
	var cps []stats.CostPoint
	for _, p := range pts {
		for _, y := range p.Figures {
			cps = append(cps, stats.CostPoint{N: p.N, Y: y})
		}
	}
	res, err := stats.FitCostModels(cps)
	if err != nil {
		t.Fatal(err)
	}
	return func(n float64) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, f := range res.Fits {
			if f.Valid && slices.Contains(res.Indistinct, f.Model) {
				l, h, _ := f.Interval(n, 0.95)
				lo, hi = math.Min(lo, l), math.Max(hi, h)
			}
		}
		return lo, hi
	}
}
