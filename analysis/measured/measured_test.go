package measured

import (
	"math"
	"math/rand/v2"
	"testing"
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

func TestSummarizeCIOverForks(t *testing.T) {
	forks := []Fork{
		{NsPerOp: []float64{10, 10, 10}, AllocBytesPerOp: []float64{8, 8, 8}, CPUNsPerOp: []float64{9, 9, 9}},
		{NsPerOp: []float64{12, 12, 12}, AllocBytesPerOp: []float64{8, 8, 8}, CPUNsPerOp: []float64{11, 11, 11}},
		{NsPerOp: []float64{14, 14, 14}, AllocBytesPerOp: []float64{8, 8, 8}, CPUNsPerOp: []float64{13, 13, 13}},
	}
	s := Summarize(forks)
	if s.MeanNsPerOp != 12 || s.MedianNsPerOp != 12 || s.Forks != 3 || s.SamplesPerFork != 3 {
		t.Fatalf("summary %+v", s)
	}
	// Fork means 10, 12, 14: sd 2, se 2/√3, t(0.975, 2) = 4.3027.
	want := 4.302652729911275 * 2 / math.Sqrt(3)
	if !s.CIOverForks || math.Abs((s.CI95[1]-s.CI95[0])/2-want) > 1e-9 {
		t.Errorf("CI %v (over forks %v), want half width %v over the fork means", s.CI95, s.CIOverForks, want)
	}
	if s.MeanAllocBytesPerOp != 8 || s.MeanCPUNsPerOp != 11 {
		t.Errorf("alloc %v cpu %v", s.MeanAllocBytesPerOp, s.MeanCPUNsPerOp)
	}
	// Within-fork spread is zero, so a pooled-sample interval would be
	// much narrower: the interval must not pool samples.
	one := Summarize(forks[:1])
	if one.CIOverForks || one.CI95[0] != 10 || one.CI95[1] != 10 {
		t.Errorf("one fork: %+v", one)
	}
	none := Summarize(nil)
	if !math.IsNaN(none.MeanNsPerOp) || !math.IsNaN(none.CI95[0]) {
		t.Errorf("no forks: %+v", none)
	}
	noAlloc := Summarize([]Fork{{NsPerOp: []float64{1, 2}}})
	if !math.IsNaN(noAlloc.MeanAllocBytesPerOp) || !math.IsNaN(noAlloc.MeanCPUNsPerOp) {
		t.Errorf("unmeasured alloc/cpu should be NaN: %+v", noAlloc)
	}
}

// Linux's process clock ticks in 10 ms: samples whose raw differences are
// whole milliseconds read as coarse, with the smallest tick; one that is not
// reads as fine.
func TestProcessClockTick(t *testing.T) {
	tick, fine := ProcessClockTick([]float64{0, 10000, 20000}, 1000) // raw 0, 10 ms, 20 ms
	if fine || tick != 1e7 {
		t.Errorf("coarse clock: tick %v fine %v, want 1e7 false", tick, fine)
	}
	if _, fine := ProcessClockTick([]float64{1001.5, 998.25}, 1000); !fine {
		t.Error("a raw difference that is not whole milliseconds should read as a fine clock")
	}
	if tick, fine := ProcessClockTick(nil, 0); fine || tick != 0 {
		t.Errorf("nothing ticked: %v %v", tick, fine)
	}
}
