package measured

import (
	"math"

	"github.com/perfls/perfls/analysis/stats"
)

// Summary condenses the forks of one result into per-operation figures.
type Summary struct {
	// MeanNsPerOp is the mean of the fork means. Every fork holds the same
	// number of samples, so this equals the mean of all samples, but it is
	// computed per fork because forks are the independent runs.
	MeanNsPerOp float64
	// MedianNsPerOp is the median (stats.Median) of all samples of all forks.
	MedianNsPerOp float64
	// CI95 is the 95 % confidence interval of the mean; NaN when it cannot
	// be computed (one sample in total).
	CI95 [2]float64
	// CIOverForks is true when CI95 is a Student-t interval over the fork
	// means (two or more forks), false when it is one over the samples of a
	// single fork, which ignores run-to-run variance and so is too narrow
	// whenever forks differ.
	CIOverForks bool
	// MeanAllocBytesPerOp is the mean allocation per operation; NaN when not
	// measured.
	MeanAllocBytesPerOp float64
	// MeanCPUNsPerOp is the mean thread CPU time per operation; NaN when
	// not measured.
	MeanCPUNsPerOp float64
	Forks          int
	SamplesPerFork int // the smallest number of samples of any fork
}

// Summarize computes the Summary of forks.
//
// The confidence interval treats forks as runs: samples of one JVM share its
// JIT decisions, memory layout and so on, so they are not independent
// observations of the method's cost. With two or more forks the interval is
// the Student-t interval over the fork means (r−1 degrees of freedom); with a
// single fork it falls back to the Student-t interval over that fork's
// samples.
func Summarize(forks []Fork) Summary {
	s := Summary{Forks: len(forks), MeanAllocBytesPerOp: math.NaN(), MeanCPUNsPerOp: math.NaN(),
		MeanNsPerOp: math.NaN(), MedianNsPerOp: math.NaN(), CI95: [2]float64{math.NaN(), math.NaN()}}
	if len(forks) == 0 {
		return s
	}
	var all, means, allocs, cpus []float64
	hasAlloc, hasCPU := true, true
	s.SamplesPerFork = math.MaxInt
	for _, f := range forks {
		s.SamplesPerFork = min(s.SamplesPerFork, len(f.NsPerOp))
		if len(f.NsPerOp) == 0 {
			continue
		}
		all = append(all, f.NsPerOp...)
		means = append(means, mean(f.NsPerOp))
		hasAlloc = hasAlloc && len(f.AllocBytesPerOp) > 0
		hasCPU = hasCPU && len(f.CPUNsPerOp) > 0
		allocs = append(allocs, f.AllocBytesPerOp...)
		cpus = append(cpus, f.CPUNsPerOp...)
	}
	if len(all) == 0 {
		s.SamplesPerFork = 0
		return s
	}
	s.MeanNsPerOp = mean(means)
	s.MedianNsPerOp = stats.Median(all)
	if hasAlloc {
		s.MeanAllocBytesPerOp = mean(allocs)
	}
	if hasCPU {
		s.MeanCPUNsPerOp = mean(cpus)
	}
	xs := all
	if len(means) >= 2 {
		xs, s.CIOverForks = means, true
	}
	if lo, hi, ok := stats.TInterval(xs, 0.95); ok {
		s.CI95 = [2]float64{lo, hi}
	}
	return s
}

// RelativeHalfWidth is the CI's half width relative to the mean (0.02 for
// ±2 %); NaN without an interval.
func (s Summary) RelativeHalfWidth() float64 {
	return (s.CI95[1] - s.CI95[0]) / 2 / s.MeanNsPerOp
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
