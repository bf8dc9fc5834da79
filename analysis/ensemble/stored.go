package ensemble

// The store form's data preparation: a perfls result (its forks'
// per-sample series) as a run of the detector (docs/regressions.md, "The
// store form"). The engine reads the store and converts.

import (
	"errors"
	"strconv"

	"github.com/perfls/perfls/analysis/stats"
)

// StoredFork is what the store form reads of one stored fork: its
// per-sample series (the fields of the store's fork of the same names).
type StoredFork struct {
	NsPerOp, CPUNsPerOp, ProcCPUNsPerOp, AllocBytesPerOp []float64
	GCs                                                  []int64
	// The JVM's state per sample: GC time during the sample (ms), heap
	// used, total JIT time (ms) and loaded classes at its end.
	GCMs, HeapUsed, JITMs, Classes []float64
	OpsPerSample                   int64 // operations timed in one sample
}

// ClockTick is how coarsely a fork's process CPU clock ticks, from its
// per-sample process CPU time per operation and the operations in a
// sample: fine when it resolves below a millisecond, else its tick in ns
// (measure.ProcessClockTick).
type ClockTick func(procNsPerOp []float64, ops int64) (tick float64, fine bool)

// storedCounter is a per-sample series of a fork that becomes a counter.
type storedCounter struct {
	name string
	of   func(StoredFork) []float64
	// delta: the series is a running total (at the sample's end); the
	// counter is its increase during the sample.
	delta bool
	// clock: read from the process CPU clock, which may tick more coarsely
	// than a sample lasts (CoarseClock).
	clock bool
}

// storedCounters are the per-sample series the store has: per-op wall and
// thread CPU time, process CPU time, allocated bytes, the GC count and GC
// time during the sample, the heap used at its end, and the JIT time and
// classes loaded during the sample. The store keeps the last two as totals
// at the sample's end, which carry how long the fork warmed up: as totals
// they differed from fork to fork and run to run (JIT 44–342 ms in one run)
// and were flagged on replicas (docs/regressions.md, the real-data
// evaluation). Operations per second would be 1e9/wall: the same counter.
var storedCounters = []storedCounter{
	{"wall_ns_per_op", func(f StoredFork) []float64 { return f.NsPerOp }, false, false},
	{"cpu_ns_per_op", func(f StoredFork) []float64 { return f.CPUNsPerOp }, false, false},
	{"process_cpu_ns_per_op", func(f StoredFork) []float64 { return f.ProcCPUNsPerOp }, false, true},
	{"alloc_bytes_per_op", func(f StoredFork) []float64 { return f.AllocBytesPerOp }, false, false},
	{"gc_count", func(f StoredFork) []float64 {
		xs := make([]float64, len(f.GCs))
		for i, n := range f.GCs {
			xs[i] = float64(n)
		}
		return xs
	}, false, false},
	{"gc_ms", func(f StoredFork) []float64 { return f.GCMs }, false, false},
	{"heap_used_bytes", func(f StoredFork) []float64 { return f.HeapUsed }, false, false},
	{"jit_ms", func(f StoredFork) []float64 { return f.JITMs }, true, false},
	{"classes_loaded", func(f StoredFork) []float64 { return f.Classes }, true, false},
}

// CoarseClock says whether a result's process CPU clock ticks more coarsely
// than its samples last (Linux's JVMs read it in 10-ms ticks; perfls's
// samples last about a millisecond): a sample's figure is then 0 or a
// whole tick, and the interval's median says nothing about the process (0
// in most samples of every run: undecided in every case of the real-data
// evaluation, docs/regressions.md). tick and sample are in ns, sample the
// median sample's length.
func CoarseClock(forks []StoredFork, clockTick ClockTick) (tick, sample float64, coarse bool) {
	var lengths []float64
	for _, f := range forks {
		t, fine := clockTick(f.ProcCPUNsPerOp, f.OpsPerSample)
		if fine {
			return 0, 0, false
		}
		tick = max(tick, t)
		for _, ns := range f.NsPerOp {
			lengths = append(lengths, ns*float64(max(f.OpsPerSample, 1)))
		}
	}
	if tick == 0 || len(lengths) == 0 {
		return 0, 0, false
	}
	sample = stats.Median(lengths)
	return tick, sample, tick > sample
}

// significantDigits is the resolution of a stored counter in the
// ensemble: 3 significant digits (0.1–1 %). perfls's counters are ratios
// of large counts (bytes allocated over operations, ns over operations):
// an allocation of exactly 1,040 bytes a call shows as 1040.0…1040.3 from
// the harness's own share, with as many unique values as samples, so the
// seed's equal-width bins (k from the unique values) are narrower than that
// jitter and no rule concludes on the counter — a tripled allocation went
// unflagged (engine's TestStoredEnsemble). The seed's counters (performance
// monitor readings) have a resolution of their own.
const significantDigits = 3

// RoundStored rounds a stored counter's value to the store form's
// resolution, significantDigits significant digits.
func RoundStored(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', significantDigits, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// ErrNoSamples is StoredRun's error for a result without a fork of two
// samples or more.
var ErrNoSamples = errors.New("no fork of two samples or more")

// StoredRun is a stored result's forks as a run named name in env: one
// interval per sample but each fork's first (the base of the JIT and class
// increases), the forks' samples concatenated in fork order, each value
// rounded by RoundStored; a counter is one of storedCounters that every
// fork recorded for every sample (older results lack the JVM state and
// process CPU: those counters are left out of the run, and the detector
// out of the check), process CPU only when its clock resolves a sample
// (CoarseClock). Forks without samples are skipped; Forks says how many
// intervals each of the others gave (DecideByRange tests fork means).
func StoredRun(name string, env Environment, forks []StoredFork, clockTick ClockTick) (Run, error) {
	r := Run{Name: name, Env: env}
	var sampled []StoredFork
	for _, f := range forks {
		if len(f.NsPerOp) > 0 {
			sampled = append(sampled, f)
		}
	}
	_, _, coarse := CoarseClock(sampled, clockTick)
	var cols [][]float64
	for _, c := range storedCounters {
		if c.clock && coarse {
			continue
		}
		var col []float64
		for _, f := range sampled {
			xs := c.of(f)
			if len(xs) != len(f.NsPerOp) {
				col = nil
				break
			}
			for i := 1; i < len(xs); i++ {
				x := xs[i]
				if c.delta {
					x -= xs[i-1]
				}
				col = append(col, RoundStored(x))
			}
		}
		if col != nil {
			r.Counters, cols = append(r.Counters, c.name), append(cols, col)
		}
	}
	if len(cols) == 0 || len(cols[0]) == 0 {
		return r, ErrNoSamples
	}
	for _, f := range sampled {
		if len(f.NsPerOp) > 1 {
			r.Forks = append(r.Forks, len(f.NsPerOp)-1)
		}
	}
	r.Intervals = make([][]float64, len(cols[0]))
	for t := range r.Intervals {
		r.Intervals[t] = make([]float64, len(cols))
		for c, col := range cols {
			r.Intervals[t][c] = col[t]
		}
	}
	return r, nil
}
