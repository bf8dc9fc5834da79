package model

import (
	"math"

	"github.com/perfls/perfls/analysis/stats"
)

// A change of the machine's speed between rounds of a model's forks is
// reported when the slowest round took DriftRatio × the fastest's time or
// more and the block design's F test (values as blocks, rounds as
// treatments, on the logarithm of the fork figures) finds the rounds
// different at DriftAlpha.
const (
	DriftRatio = 1.2
	DriftAlpha = 0.01
)

// RoundDrift looks for a change of the machine's speed while a model's
// values were measured together. Their forks ran in turns (engine
// measureValues), so fork k of every value ran at about the same time: a
// round. Per value, each of the first k fork figures (k: the fewest forks
// of any value) is taken relative to the value's median; per round, the
// median of those over the values is the round's level. RoundDrift returns
// the slowest round's level over the fastest's, the two rounds (0-based),
// and the p-value of the rounds' F test (stats.BlockANOVA) — the values
// moving together is what a change of the whole machine looks like, while
// JVM-to-JVM scatter moves them independently. ok is false with fewer than
// 3 values or 2 rounds.
func RoundDrift(ms []Measured, metric Metric) (ratio float64, fast, slow int, p float64, ok bool) {
	var figures [][]float64
	rounds := math.MaxInt
	for _, m := range ms {
		d, has := DemandOf(m.Forks, metric)
		if !has {
			return 0, 0, 0, 1, false
		}
		figures = append(figures, d.ForkMeans)
		rounds = min(rounds, len(d.ForkMeans))
	}
	if len(figures) < 3 || rounds < 2 {
		return 0, 0, 0, 1, false
	}
	rel := make([][]float64, len(figures)) // per value, per round: log(figure / the value's median)
	for v, fs := range figures {
		med := stats.Median(fs)
		if !(med > 0) {
			return 0, 0, 0, 1, false
		}
		for r := 0; r < rounds; r++ {
			rel[v] = append(rel[v], math.Log(fs[r]/med))
		}
	}
	level := make([]float64, rounds)
	for r := range level {
		var at []float64
		for v := range rel {
			at = append(at, rel[v][r])
		}
		level[r] = stats.Median(at)
	}
	fast, slow = 0, 0
	for r, l := range level {
		if l < level[fast] {
			fast = r
		}
		if l > level[slow] {
			slow = r
		}
	}
	_, p, err := stats.BlockANOVA(rel)
	if err != nil {
		return 0, 0, 0, 1, false
	}
	return math.Exp(level[slow] - level[fast]), fast, slow, p, true
}
