// Package benchtime reports latency distributions from Go benchmarks. On a
// shared machine a benchmark's mean mixes in other processes' bursts, so the
// figures perfls's targets name are the median and the 99th percentile of
// single runs (and the fastest run, the machine's best case).
package benchtime

import (
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

// Run runs f b.N times and reports Latencies of the runs plus the process
// CPU time per run (cpu-ms, GC included).
func Run(b *testing.B, f func(i int)) {
	ds := make([]time.Duration, 0, b.N)
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		f(i)
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	Latencies(b, ds)
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N), "cpu-ms")
}

// RunIdle is Run with prepare(i) run before each f(i), untimed, followed
// by a garbage collection and a short pause: f starts on an idle process,
// as a request does that arrives while the user reads (cold latency, not
// throughput). cpu-ms counts f's runs only.
func RunIdle(b *testing.B, prepare, f func(i int)) {
	ds := make([]time.Duration, 0, b.N)
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if prepare != nil {
			prepare(i)
		}
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		b.StartTimer()
		cpu0 := cpuTime()
		t0 := time.Now()
		f(i)
		ds = append(ds, time.Since(t0))
		cpu += cpuTime() - cpu0
	}
	b.StopTimer()
	Latencies(b, ds)
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N), "cpu-ms")
}

// Latencies reports the median, the 99th percentile and the minimum of ds
// in milliseconds (p50-ms, p99-ms, min-ms). It sorts ds.
func Latencies(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Nanoseconds()) / 1e6 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(ms(0), "min-ms")
}

// cpuTime is the CPU time the process used so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
