package ensemble

import (
	"errors"
	"slices"
	"testing"
)

// fine is a process CPU clock that resolves every sample; coarse one that
// ticks in 10 ms.
func fine([]float64, int64) (float64, bool)   { return 0, true }
func coarse([]float64, int64) (float64, bool) { return 10e6, false }

// A run has one interval per sample after each fork's first, the forks in
// order, JIT time and classes as increases, values to 3 significant
// digits; counters some fork lacks are left out, forks without samples
// skipped.
func TestStoredRun(t *testing.T) {
	f1 := StoredFork{NsPerOp: []float64{10400, 10412.7, 10399}, CPUNsPerOp: []float64{10300, 10301, 10302}, AllocBytesPerOp: []float64{1040.2, 1040.3, 1040.1},
		GCs: []int64{0, 1, 0}, JITMs: []float64{100, 103, 110}, Classes: []float64{1500, 1500, 1502}, OpsPerSample: 100}
	f2 := f1
	f2.NsPerOp = []float64{20000, 20123, 19876}
	r, err := StoredRun("result-7", Environment{"gc": "G1"}, []StoredFork{f1, {}, f2}, fine)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"wall_ns_per_op", "cpu_ns_per_op", "alloc_bytes_per_op", "gc_count", "jit_ms", "classes_loaded"}
	if r.Name != "result-7" || r.Env["gc"] != "G1" || !slices.Equal(r.Counters, want) || len(r.Intervals) != 4 || !slices.Equal(r.Forks, []int{2, 2}) {
		t.Fatalf("run %+v, want counters %v and 4 intervals of two forks", r, want)
	}
	for i, w := range [][]float64{{10400, 10300, 1040, 1, 3, 0}, {10400, 10300, 1040, 0, 7, 2}, {20100, 10300, 1040, 1, 3, 0}, {19900, 10300, 1040, 0, 7, 2}} {
		if !slices.Equal(r.Intervals[i], w) {
			t.Errorf("interval %d = %v, want %v", i, r.Intervals[i], w)
		}
	}
	if _, err := StoredRun("x", nil, []StoredFork{{NsPerOp: []float64{1}}}, fine); !errors.Is(err, ErrNoSamples) {
		t.Errorf("one sample: %v, want ErrNoSamples", err)
	}
}

// Process CPU is a counter while its clock resolves a sample, left out
// when it ticks more coarsely than a sample lasts (the median sample: 1 ms
// here), kept when the samples last longer than a tick.
func TestCoarseClock(t *testing.T) {
	f := StoredFork{NsPerOp: []float64{10000, 10000, 10000}, ProcCPUNsPerOp: []float64{0, 1e5, 0}, OpsPerSample: 100}
	if r, _ := StoredRun("x", nil, []StoredFork{f}, fine); !slices.Contains(r.Counters, "process_cpu_ns_per_op") {
		t.Errorf("fine clock: counters %v", r.Counters)
	}
	tick, sample, isCoarse := CoarseClock([]StoredFork{f}, coarse)
	if !isCoarse || tick != 10e6 || sample != 1e6 {
		t.Errorf("coarse clock: tick %g, sample %g, %v", tick, sample, isCoarse)
	}
	if r, _ := StoredRun("x", nil, []StoredFork{f}, coarse); slices.Contains(r.Counters, "process_cpu_ns_per_op") || !slices.Contains(r.Counters, "wall_ns_per_op") {
		t.Errorf("coarse clock: counters %v", r.Counters)
	}
	long := f
	long.OpsPerSample = 10000 // 100 ms a sample
	if _, _, isCoarse := CoarseClock([]StoredFork{long}, coarse); isCoarse {
		t.Error("samples longer than a tick: coarse")
	}
	// The median of an even count is the lower middle (stats.Median).
	even := StoredFork{NsPerOp: []float64{10000, 30000, 20000, 40000}, OpsPerSample: 100}
	if _, sample, _ := CoarseClock([]StoredFork{even}, coarse); sample != 2e6 {
		t.Errorf("median sample %g, want the lower middle 2e6", sample)
	}
}

func TestRoundStored(t *testing.T) {
	for x, want := range map[float64]float64{1040.3: 1040, 10412.7: 10400, 0.0012345: 0.00123, 0: 0, -2.5: -2.5} {
		if got := RoundStored(x); got != want {
			t.Errorf("RoundStored(%g) = %g, want %g", x, got, want)
		}
	}
}
