// Package ensemblesim reproduces seed 001's evaluation design in miniature
// (reference §3): generated runs of a small service on labs that differ in
// cores, memory, JVM and OS, faults injected into chosen counters, and
// counters that differ only because the environment does. Each case is
// scored with the seed's precision and recall (L157) for the single model,
// bagging and stacking.
package ensemblesim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/perfls/perfls/analysis/ensemble"
)

// Lab is one test environment.
type Lab struct {
	Cores    int
	MemoryGB int
	JVM      int
	OS       string
}

// Environment is the lab as the detector's components.
func (l Lab) Environment() ensemble.Environment {
	return ensemble.Environment{"cores": fmt.Sprint(l.Cores), "memory": fmt.Sprintf("%dg", l.MemoryGB), "jvm": fmt.Sprint(l.JVM), "os": l.OS}
}

// Counters are what a run records per interval. Which lab components move
// each one is in generate.
var Counters = []string{
	"arrival_rate", "throughput", "cpu_util", "response_ms", "alloc_mb_s", "gc_per_min",
	"gc_pause_ms", "heap_used_mb", "threads", "context_switches", "db_queries", "disk_reads", "jit_ms",
}

// Fault is an injected problem and the counters it is expected to move,
// side effects included (the seed's m_expected, L159).
type Fault struct {
	Name     string
	Expected []string
	apply    func(*model)
}

// Faults are the injected problems; the zero Fault is "no fault".
var Faults = []Fault{
	{"busy loop", []string{"cpu_util", "response_ms"}, func(m *model) { m.cpuMs *= 1.6 }},
	{"memory leak", []string{"alloc_mb_s", "gc_per_min", "heap_used_mb"}, func(m *model) { m.allocKB *= 2; m.liveMB *= 1.8 }},
	{"n+1 queries", []string{"db_queries", "disk_reads", "response_ms"}, func(m *model) { m.queries *= 3; m.extraMs += 4 }},
	{"thread leak", []string{"threads", "context_switches"}, func(m *model) { m.extraThreads += 30; m.switchFactor *= 1.5 }},
}

// model holds a run's per-request costs, which a lab and a fault set.
type model struct {
	cpuMs, allocKB, liveMB, queries, extraMs float64
	extraThreads, switchFactor               float64
}

// Intervals per run: an hour in one-minute intervals.
const Intervals = 60

// Noise is the relative standard deviation of a counter per interval (an
// interval's value is a median over many samples, so it is small) and of a
// run as a whole (repeated runs differ a little).
type Noise struct{ Interval, Run float64 }

// DefaultNoise is 1 % per interval and 1 % per run, set before the first
// evaluation and not tuned on it.
var DefaultNoise = Noise{Interval: 0.01, Run: 0.01}

// resolution is how finely each counter is recorded (1/unit): percentages
// and milliseconds to a tenth, counts and megabytes whole.
var resolution = []float64{1, 1, 10, 10, 10, 1, 10, 1, 1, 1, 1, 1, 1}

// generate simulates one run of the service on lab, with fault (zero: none).
// The load alternates between two levels in blocks of ten intervals; every
// counter but the thread count gets noise, and is rounded to its resolution.
func generate(rng *rand.Rand, name string, lab Lab, fault Fault, noise Noise) ensemble.Run {
	m := model{cpuMs: 8, allocKB: 40, liveMB: 300, queries: 4, switchFactor: 1}
	if lab.JVM >= 21 {
		m.cpuMs *= 0.9
		m.allocKB = 32
	}
	if fault.apply != nil {
		fault.apply(&m)
	}
	offset := 1 + noise.Run*rng.NormFloat64()
	noisy := func(x float64) float64 { return x * offset * (1 + noise.Interval*rng.NormFloat64()) }
	pause, jit := 12.0, 40.0
	if lab.JVM >= 21 {
		pause, jit = 8, 25
	}
	diskFactor := 0.2
	if lab.OS != "linux" {
		diskFactor = 0.26
	}
	run := ensemble.Run{Name: name, Env: lab.Environment(), Counters: Counters}
	for t := 0; t < Intervals; t++ {
		load := 100.0
		if (t/10)%2 == 1 {
			load = 160
		}
		util := math.Min(0.95, load*m.cpuMs/1000/float64(lab.Cores))
		alloc := load * m.allocKB / 1000
		gcs := alloc * 60 / (float64(lab.MemoryGB) * 8) // young collections a minute
		queries := load * m.queries
		row := []float64{
			load, load * 0.995, 100 * util, (5*m.cpuMs/8 + m.extraMs) / (1 - util), alloc, gcs,
			pause * math.Pow(float64(lab.MemoryGB)/8, 0.3), m.liveMB + 0.25*1024*float64(lab.MemoryGB),
			40 + 2*float64(lab.Cores) + m.extraThreads, (3*load + 500*float64(lab.Cores)) * m.switchFactor,
			queries, queries * diskFactor, jit,
		}
		for i := range row {
			if Counters[i] != "threads" {
				row[i] = noisy(row[i])
			}
			row[i] = math.Round(row[i]*resolution[i]) / resolution[i]
		}
		run.Intervals = append(run.Intervals, row)
	}
	return run
}
