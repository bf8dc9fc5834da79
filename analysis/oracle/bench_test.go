package oracle

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Calibration and classification over 30 forks of 1,000 iterations and six
// metrics, about what a 1 ms workload records in a second per fork.
func benchRuns(n int) []Run {
	rng := rand.New(rand.NewPCG(9, 9))
	runs := make([]Run, n)
	for i := range runs {
		runs[i] = Run{ID: fmt.Sprint(i), Series: map[string][]float64{}}
		for _, m := range []string{"ns_per_op", "cpu_ns_per_op", "alloc_bytes_per_op", "gc_count", "heap_used", "classes"} {
			runs[i].Series[m] = noisy(rng, 1000, 1000, 20)
		}
	}
	return runs
}

func BenchmarkCalibrate30x1000(b *testing.B) {
	runs := benchRuns(30)
	for i := 0; i < b.N; i++ {
		if _, err := Calibrate(runs, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClassify1000(b *testing.B) {
	runs := benchRuns(31)
	m, err := Calibrate(runs[:30], Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Classify(m, runs[30])
	}
}
