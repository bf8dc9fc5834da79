package oracle

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Calibration and classification over 30 forks of the eight metrics the
// harness reports per sample (measured.Fork.Series), with 1,000 samples per
// fork (a long run) or 30 (perfls's default, what check classifies).
func benchRuns(n int) []Run { return benchRunsOf(n, 1000) }

var benchMetrics = []string{"ns_per_op", "cpu_ns_per_op", "alloc_bytes_per_op", "gc_count", "gc_ms", "heap_used", "jit_ms", "classes"}

func benchRunsOf(n, samples int) []Run {
	rng := rand.New(rand.NewPCG(9, 9))
	runs := make([]Run, n)
	for i := range runs {
		runs[i] = Run{ID: fmt.Sprint(i), Series: map[string][]float64{}, Env: map[string]string{"java.version": "17", "pid": fmt.Sprint(i)}}
		for _, m := range benchMetrics {
			runs[i].Series[m] = noisy(rng, samples, 1000, 20)
		}
	}
	return runs
}

// BenchmarkClassify30 is the per-run cost of what check and verify do: one
// fork of 30 samples and eight metrics against a 30-run model (issue 8:
// ≤ 10 ms per run).
func BenchmarkClassify30(b *testing.B) {
	runs := benchRunsOf(31, 30)
	m, err := Calibrate(runs[:30], Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Classify(m, runs[30])
	}
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
