package stats

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDescribe reads one side of 10 forks × 20,000 samples.
func BenchmarkDescribe(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	runs := runsOf(rng, 100, 2, 5, 10, 20000)
	b.SetBytes(8 * 200000)
	for b.Loop() {
		Describe(runs)
	}
}
