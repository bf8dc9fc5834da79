package measured

import (
	"math"
	"time"

	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/stats"
)

// Fork holds the samples of one forked JVM.
type Fork struct {
	NsPerOp         []float64 // per sample: wall time / operations
	CPUNsPerOp      []float64 // per sample: thread CPU time / operations; nil when unavailable
	AllocBytesPerOp []float64 // per sample: bytes allocated by the thread / operations; nil when unavailable
	GCs             []int64   // per sample: garbage collections during it
	// Processors is per sample the processor the measuring thread ran on,
	// -2 when it moved during the sample; nil when unknown (not Linux, an
	// older harness).
	Processors []int64
	// ProcCPUNsPerOp is per sample the CPU time of the whole process (the
	// measuring thread, JIT compiler and GC threads) / operations (protocol
	// 3); nil when unavailable. In clock ticks on Linux (10 ms): one
	// sample's value is coarse, a fork's mean is not (docs/models.md).
	ProcCPUNsPerOp []float64
	// The JVM's state per sample, for the bounds oracle (protocol version
	// 2); each nil when the JVM does not report it or the fork ran an older
	// harness.
	GCMs      []float64 // per sample: time spent in garbage collection during it, ms
	HeapUsed  []float64 // per sample: heap in use at its end, bytes
	JITMs     []float64 // per sample: total JIT compilation time at its end, ms (cumulative)
	Classes   []float64 // per sample: classes loaded at its end
	Ops       int64     // operations (calls, or workload-loop spans) per sample
	Calls     int64     // argument tuples per pass over the generator's list; 0 for workload loops
	WarmupOps int64     // operations run during warm-up
	Warmup    time.Duration
	// WarmupSettled is 1 when warm-up ended because JIT compilation settled,
	// 0 when MaxWarmup cut it short, -1 when the JVM does not report
	// compilation time (warm-up then lasted Warmup).
	WarmupSettled int
	// WarmupCompileMs is the JIT compilation time (all compiler threads)
	// during warm-up; -1 when unknown.
	WarmupCompileMs int64
	// WarmupOpen names the steady-state conditions that still held a capped
	// warm-up open: "calls" (too few calls for the last JIT tier), "jit"
	// (compiling, or other threads busy), "trend" (time per call still
	// falling), "heap" (the heap grew recently). Empty when it settled,
	// and for results read from the cache.
	WarmupOpen []string
	// Retaken counts the samples taken again because the thread was off
	// the CPU during them (wall time well above CPU time, no GC): another
	// process's load, not the method's cost.
	Retaken int           // at most 2 × SamplesPerFork
	Wall    time.Duration // the fork's wall time, JVM start to exit
	Output  string        // tail of what user code printed
	PID     int
	// Profile is the reduced recording of a profiled fork (Options.Profile);
	// nil otherwise.
	Profile *profile.Summary `json:",omitempty"`
}

// Oracle metric names: the per-sample series a fork offers the bounds
// oracle (analysis/oracle), by Fork.Series.
const (
	MetricNsPerOp    = "ns_per_op"          // wall time per operation
	MetricCPUNsPerOp = "cpu_ns_per_op"      // thread CPU time per operation
	MetricAllocPerOp = "alloc_bytes_per_op" // bytes allocated by the thread per operation
	MetricGCCount    = "gc_count"           // collections during the sample
	MetricGCMs       = "gc_ms"              // time in collections during the sample
	MetricHeapUsed   = "heap_used"          // heap in use at the sample's end
	MetricJITMs      = "jit_ms"             // total JIT compilation time at the sample's end
	MetricClasses    = "classes"            // classes loaded at the sample's end
)

// Series returns the fork's per-sample series by oracle metric name, leaving
// out the metrics the fork did not report.
func (f Fork) Series() map[string][]float64 {
	out := map[string][]float64{}
	add := func(name string, xs []float64) {
		if len(xs) > 0 {
			out[name] = xs
		}
	}
	add(MetricNsPerOp, f.NsPerOp)
	add(MetricCPUNsPerOp, f.CPUNsPerOp)
	add(MetricAllocPerOp, f.AllocBytesPerOp)
	if len(f.GCs) > 0 {
		gcs := make([]float64, len(f.GCs))
		for i, g := range f.GCs {
			gcs[i] = float64(g)
		}
		out[MetricGCCount] = gcs
	}
	add(MetricGCMs, f.GCMs)
	add(MetricHeapUsed, f.HeapUsed)
	add(MetricJITMs, f.JITMs)
	add(MetricClasses, f.Classes)
	return out
}

// Drift thresholds: a fork drifts when the medians of its first and second
// halves of samples differ by more than DriftRatio and a Mann-Whitney test
// finds the halves different at level DriftAlpha. Both are needed: with
// hundreds of samples a 1 % change is significant, and a large ratio of a
// few noisy samples is not evidence.
const (
	DriftRatio = 0.10
	DriftAlpha = 0.01
	// minDriftSamples is the least number of samples per half the test is
	// run on.
	minDriftSamples = 5
)

// Drift compares the fork's second half of samples with its first: the
// ratio of their medians (second / first), and whether the fork drifted —
// its time per operation changed while it was measured (a garbage
// collection that moved the data, a deoptimisation, a late compilation).
func (f Fork) Drift() (ratio float64, drifted bool) {
	n := len(f.NsPerOp) / 2
	if n < minDriftSamples {
		return 1, false
	}
	first, second := f.NsPerOp[:n], f.NsPerOp[len(f.NsPerOp)-n:]
	m1, m2 := stats.Median(first), stats.Median(second)
	if !(m1 > 0) {
		return 1, false
	}
	ratio = m2 / m1
	if ratio < 1+DriftRatio && ratio > 1/(1+DriftRatio) {
		return ratio, false
	}
	mw, err := stats.MannWhitney(second, first)
	return ratio, err == nil && mw.PTwoSided < DriftAlpha
}

// ProcessClockTick recognises a coarse process CPU clock from one fork's
// per-sample figures (ProcCPUNsPerOp with ops operations a sample): Linux's
// JVMs read it with times(2), in ticks of 10 ms, so every sample's raw
// difference is a whole number of milliseconds. fine is true when some
// difference is not (a fine clock); otherwise tick is the smallest non-zero
// difference in ns, 0 when nothing ticked.
func ProcessClockTick(procNsPerOp []float64, ops int64) (tick float64, fine bool) {
	ops = max(ops, 1)
	for _, p := range procNsPerOp {
		raw := math.Round(p * float64(ops))
		if raw != 0 && math.Mod(raw, 1e6) != 0 {
			return 0, true
		}
		if raw > 0 && (tick == 0 || raw < tick) {
			tick = raw
		}
	}
	return tick, false
}
