package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

// values builds measured values whose fork k took level[k] × the value's
// cost, with a JVM-to-JVM scatter of spread (log-normal).
func values(rng *rand.Rand, level []float64, spread float64, n ...float64) []Measured {
	var ms []Measured
	for _, x := range n {
		m := Measured{N: x}
		for _, l := range level {
			v := x * l * math.Exp(spread*rng.NormFloat64())
			m.Forks = append(m.Forks, measured.Fork{NsPerOp: []float64{v, v, v}, Ops: 1})
		}
		ms = append(ms, m)
	}
	return ms
}

func TestRoundDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Run K's pattern: the first round in a fast period, the rest ×2 slower.
	ratio, fast, slow, p, ok := RoundDrift(values(rng, []float64{1, 2, 2}, 0.05, 1000, 2000, 4000, 8000, 16000, 32000), Wall)
	if !ok || p >= DriftAlpha || fast != 0 || slow == 0 || ratio < 1.8 || ratio > 2.2 {
		t.Errorf("a ×2 step after round 1: ratio %.2f, rounds %d→%d, p %.3g, ok %v", ratio, fast, slow, p, ok)
	}
	// Power: a step in the second of three rounds, over JVM scatter of
	// 10 %, six values.
	for _, step := range []float64{1.3, 1.5, 2} {
		found := 0
		for i := 0; i < 500; i++ {
			ratio, _, _, p, _ := RoundDrift(values(rng, []float64{1, step, 1}, 0.1, 1, 2, 4, 8, 16, 32), Wall)
			if p < DriftAlpha && ratio >= DriftRatio {
				found++
			}
		}
		t.Logf("a ×%.1f step: found in %d of 500", step, found)
		if step == 2 && found < 450 {
			t.Errorf("a ×2 step over 10 %% scatter found in %d of 500, want ≥ 450", found)
		}
	}
	// A steady machine: over many draws of JVM scatter alone, the report
	// (≥ DriftRatio at DriftAlpha) is rare.
	reported := 0
	const draws = 2000
	for i := 0; i < draws; i++ {
		ratio, _, _, p, _ := RoundDrift(values(rng, []float64{1, 1, 1}, 0.3, 1, 2, 4, 8, 16, 32), Wall)
		if p < DriftAlpha && ratio >= DriftRatio {
			reported++
		}
	}
	if reported > draws/50 { // α = 0.01, with slack for the draws
		t.Errorf("steady machine, JVM scatter of 30 %%: drift reported in %d of %d", reported, draws)
	}
	t.Logf("steady machine: drift reported in %d of %d draws", reported, draws)
	// JVMs in two modes ×1.8 apart (a slow share of 0.3), each fork drawing
	// its own, the rounds in step with nothing: rare too.
	reported = 0
	for i := 0; i < draws; i++ {
		ms := values(rng, []float64{1, 1, 1}, 0.05, 1, 2, 4, 8, 16, 32)
		for _, m := range ms {
			for _, f := range m.Forks {
				if rng.Float64() < 0.3 {
					for j := range f.NsPerOp {
						f.NsPerOp[j] *= 1.8
					}
				}
			}
		}
		if ratio, _, _, p, _ := RoundDrift(ms, Wall); p < DriftAlpha && ratio >= DriftRatio {
			reported++
		}
	}
	t.Logf("two modes per JVM: drift reported in %d of %d draws", reported, draws)
	if reported > draws/50 {
		t.Errorf("JVMs in two modes, steady machine: drift reported in %d of %d", reported, draws)
	}
	if _, _, _, _, ok := RoundDrift(values(rng, []float64{1}, 0, 1, 2, 3), Wall); ok {
		t.Errorf("one round: ok")
	}
	if _, _, _, _, ok := RoundDrift(values(rng, []float64{1, 2, 2}, 0, 1, 2), Wall); ok {
		t.Errorf("two values: ok")
	}
}
