package verdict

import (
	"math/rand/v2"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
)

// Figures of issue 5, printed by
//
//	go test ./analysis/verdict -run '^$' -bench . -benchtime 3x
//
// BenchmarkThousandComparisons/* decides 1,000 comparisons of sides of 10
// forks × 20,000 samples (one op = all 1,000): "fresh" reads both sides'
// samples in every comparison (memory-bound: 3.2 GB per op); "prepared"
// pairs 40 measurements prepared once (Side.Prepare, included in the time),
// as check and evaluate do when comparisons share measurements.
// BenchmarkNonParametric decides one such comparison with 10,000 resamples.

func benchSides(n int) []Side {
	rng := rand.New(rand.NewPCG(99, 100))
	s := simSetup{rho: 0.02, sigma: 0.05, samples: 20000}
	out := make([]Side, n)
	for i := range out {
		out[i] = Side{Runs: simRuns(rng, 100, s, 10)}
	}
	return out
}

func BenchmarkThousandComparisons(b *testing.B) {
	// 40 distinct sides (64 MB) paired in 1,000 different ways: the data of a
	// comparison is not shared with the previous one, so caches do not help.
	sides := benchSides(40)
	for _, in := range []stats.Interpretation{stats.Quick, stats.Parametric} {
		b.Run(string(in)+"/fresh", func(b *testing.B) {
			opt := Options{Interpretation: in}
			for b.Loop() {
				for k := 0; k < 1000; k++ {
					l, r := sides[k%40], sides[(k*7+1)%40]
					if c := Compare(spl.LE, l, r, nil, opt); c.Evidence.Test == "" {
						b.Fatal("no test")
					}
				}
			}
		})
		b.Run(string(in)+"/prepared", func(b *testing.B) {
			opt := Options{Interpretation: in}
			for b.Loop() {
				prepared := make([]Side, len(sides))
				for i, s := range sides {
					prepared[i] = s.Prepare()
				}
				for k := 0; k < 1000; k++ {
					l, r := prepared[k%40], prepared[(k*7+1)%40]
					if c := Compare(spl.LE, l, r, nil, opt); c.Evidence.Test == "" {
						b.Fatal("no test")
					}
				}
			}
		})
	}
}

func BenchmarkNonParametric(b *testing.B) {
	sides := benchSides(2)
	opt := Options{Interpretation: stats.NonParametric, Bootstrap: stats.BootstrapConfig{Seed: 1, Resamples: 10000}}
	for b.Loop() {
		if c := Compare(spl.LE, sides[0], sides[1], nil, opt); c.Evidence.Resamples != 10000 {
			b.Fatal("resamples not recorded")
		}
	}
}
