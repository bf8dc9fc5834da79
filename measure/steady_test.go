package measure

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func noisy(rng *rand.Rand, n int, level float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level * (1 + 0.03*rng.NormFloat64())
	}
	return xs
}

// A fork that jumps from 1.7 µs to 4.2 µs per call halfway (as a G1 fork of
// quickstart's joinWithBuilder did after a collection) drifts; a steady one,
// one with a single outlier and one with too few samples do not.
func TestForkDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	jump := append(noisy(rng, 8, 1700), noisy(rng, 22, 4200)...)
	outlier := noisy(rng, 30, 1700)
	outlier[20] = 3700
	for _, c := range []struct {
		name    string
		samples []float64
		want    bool
	}{
		{"jump", jump, true},
		{"steady", noisy(rng, 30, 1700), false},
		{"one outlier", outlier, false},
		{"slow fall by 5 %", func() []float64 {
			xs := noisy(rng, 30, 1000)
			for i := range xs {
				xs[i] *= 1 - 0.05*float64(i)/29
			}
			return xs
		}(), false},
		{"few samples", []float64{1, 1, 1, 5, 5, 5}, false},
	} {
		ratio, drifted := Fork{NsPerOp: c.samples}.Drift()
		if drifted != c.want {
			t.Errorf("%s: drifted %v (ratio %.2f), want %v", c.name, drifted, ratio, c.want)
		}
	}
}

func TestSteadyStateWarnings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forks := []Fork{
		{NsPerOp: noisy(rng, 30, 100), WarmupSettled: 1},
		{NsPerOp: noisy(rng, 30, 100), WarmupSettled: 0, WarmupOpen: []string{"trend", "heap"}},
		{NsPerOp: append(noisy(rng, 15, 100), noisy(rng, 15, 250)...), WarmupSettled: 1},
	}
	ws := SteadyStateWarnings("p.A#m", forks, 5*time.Second)
	if len(ws) != 2 || !strings.Contains(ws[0], "1 of 3 forks did not reach a steady state within 5s (the warm-up cap; time per call still falling in 1; the heap still growing in 1)") || !strings.Contains(ws[0], "raise --max-warmup, or fix the heap's size (--heap MB") || !strings.Contains(ws[1], "fork 3 drifted") {
		t.Errorf("warnings %q", ws)
	}
	if ws := SteadyStateWarnings("p.A#m", forks[:1], time.Second); len(ws) != 0 {
		t.Errorf("a steady fork warned: %q", ws)
	}
}
