// Package model extracts performance models from measurements (reference
// 002-pcm-extraction §3): the resource demands of one operation per call
// (wall time, thread and process CPU time, allocation, garbage collection,
// CPU share), their parametric dependencies on the workload parameter
// (fitted with model selection, with confidence intervals and the fitted
// range), and predictions from them. It is pure: measurements in, values
// out; docs/models.md explains the choices.
package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/stats"
)

// Metric names a per-operation demand. The names are the ones formulas use
// (cpu(m)[w](n), see docs/models.md) and the keys of the JSON model.
type Metric string

const (
	Wall       Metric = "wall"        // wall time per op, ns
	CPU        Metric = "cpu"         // CPU time of the measuring thread per op, ns
	ProcessCPU Metric = "process_cpu" // CPU time of the whole process per op (JIT, GC threads too), ns
	Alloc      Metric = "alloc"       // bytes allocated by the measuring thread per op
	GCCount    Metric = "gc_count"    // garbage collections per op
	GCTime     Metric = "gc_time"     // time in garbage collection per op, ns
	CPUShare   Metric = "cpu_share"   // thread CPU / wall: well below 1 means the method waits
)

// Metrics lists every metric in display order.
var Metrics = []Metric{Wall, CPU, ProcessCPU, Alloc, GCCount, GCTime, CPUShare}

// ParseMetric reads a metric name; ok is false for an unknown one.
func ParseMetric(s string) (Metric, bool) {
	for _, m := range Metrics {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

// Unit is the metric's unit: "ns", "B", "1" (a count or a ratio).
func (m Metric) Unit() string {
	switch m {
	case Alloc:
		return "B"
	case GCCount, CPUShare, Calls:
		return "1"
	}
	return "ns"
}

// Series is one fork's per-sample values of the metric; nil when the fork
// does not have it (the JVM did not report it, or an older harness ran).
func Series(f measured.Fork, m Metric) []float64 {
	switch m {
	case Wall:
		return f.NsPerOp
	case CPU:
		return f.CPUNsPerOp
	case ProcessCPU:
		return f.ProcCPUNsPerOp
	case Alloc:
		return f.AllocBytesPerOp
	case GCCount:
		if len(f.GCs) == 0 || f.Ops <= 0 {
			return nil
		}
		out := make([]float64, len(f.GCs))
		for i, g := range f.GCs {
			out[i] = float64(g) / float64(f.Ops)
		}
		return out
	case GCTime:
		if len(f.GCMs) == 0 || f.Ops <= 0 {
			return nil
		}
		out := make([]float64, len(f.GCMs))
		for i, g := range f.GCMs {
			out[i] = g * 1e6 / float64(f.Ops)
		}
		return out
	case CPUShare:
		if len(f.CPUNsPerOp) == 0 || len(f.CPUNsPerOp) != len(f.NsPerOp) {
			return nil
		}
		out := make([]float64, len(f.NsPerOp))
		for i, w := range f.NsPerOp {
			if w > 0 {
				out[i] = f.CPUNsPerOp[i] / w
			}
		}
		return out
	}
	return nil
}

// Runs is the metric's series of every fork; nil when any fork lacks it.
func Runs(forks []measured.Fork, m Metric) [][]float64 {
	var runs [][]float64
	for _, f := range forks {
		s := Series(f, m)
		if s == nil {
			return nil
		}
		runs = append(runs, s)
	}
	return runs
}

// Demand is one metric's figure per operation with its 95 % confidence
// interval.
type Demand struct {
	Metric Metric   `json:"metric"`
	Unit   string   `json:"unit"`
	Mean   float64  `json:"mean"`
	CI95   Interval `json:"ci95"`
	// ForkMeans are the per-fork figures the interval is computed from.
	ForkMeans []float64 `json:"fork_means"`
	// CIOver is "forks" (t-interval over fork figures) or "samples" (one
	// fork: over its samples, which ignores run-to-run variance).
	CIOver string `json:"ci_over"`
	// Coarse says why the figure is less precise than its interval claims,
	// e.g. a process CPU clock in 10 ms ticks over a short fork.
	Coarse string `json:"coarse,omitempty"`
}

// ForkFigure is one fork's figure for the metric: the mean of its samples,
// and for CPUShare the ratio of its mean CPU time to its mean wall time (a
// ratio of sums, not a mean of ratios). ok is false when the fork lacks the
// metric.
func ForkFigure(f measured.Fork, m Metric) (float64, bool) {
	if m == CPUShare {
		if len(f.CPUNsPerOp) == 0 || len(f.NsPerOp) == 0 {
			return math.NaN(), false
		}
		w := mean(f.NsPerOp)
		if !(w > 0) {
			return math.NaN(), false
		}
		return mean(f.CPUNsPerOp) / w, true
	}
	s := Series(f, m)
	if len(s) == 0 {
		return math.NaN(), false
	}
	return mean(s), true
}

// Demands computes every metric the forks report, in Metrics order.
func Demands(forks []measured.Fork) []Demand {
	var out []Demand
	for _, m := range Metrics {
		if d, ok := DemandOf(forks, m); ok {
			out = append(out, d)
		}
	}
	return out
}

// DemandOf computes one metric's demand; ok is false when a fork lacks it.
func DemandOf(forks []measured.Fork, m Metric) (Demand, bool) {
	d := Demand{Metric: m, Unit: m.Unit(), CIOver: "forks", CI95: Interval{math.NaN(), math.NaN()}}
	for _, f := range forks {
		if len(f.NsPerOp) == 0 {
			continue
		}
		v, ok := ForkFigure(f, m)
		if !ok {
			return d, false
		}
		d.ForkMeans = append(d.ForkMeans, v)
	}
	if len(d.ForkMeans) == 0 {
		return d, false
	}
	d.Mean = mean(d.ForkMeans)
	xs := d.ForkMeans
	if len(xs) == 1 {
		d.CIOver = "samples"
		for _, f := range forks {
			if len(f.NsPerOp) > 0 {
				xs = Series(f, m)
			}
		}
	}
	if lo, hi, ok := stats.TInterval(xs, 0.95); ok {
		d.CI95 = Interval{lo, hi}
	}
	if m == ProcessCPU {
		d.Coarse = processClockNote(forks)
	}
	return d, true
}

// processClockNote says when the process CPU clock ticks too coarsely for
// the forks' length. Linux's JVMs read it with times(2) in 10 ms ticks: a
// sample's difference is a whole number of ticks, unbiased but coarse, so a
// fork's figure is good to about one tick over its total sampled time. The
// tick is recognised from the data (measured.ProcessClockTick); a fork
// shorter than 100 ticks is reported.
func processClockNote(forks []measured.Fork) string {
	tick := math.Inf(1)
	shortest := math.Inf(1)
	for _, f := range forks {
		t, fine := measured.ProcessClockTick(f.ProcCPUNsPerOp, f.Ops)
		if fine {
			return ""
		}
		if t > 0 {
			tick = math.Min(tick, t)
		}
		var sampled float64
		for _, ns := range f.NsPerOp[:min(len(f.NsPerOp), len(f.ProcCPUNsPerOp))] {
			sampled += ns * float64(max(f.Ops, 1))
		}
		shortest = math.Min(shortest, sampled)
	}
	if math.IsInf(tick, 1) || shortest >= 100*tick {
		return ""
	}
	return fmt.Sprintf("the process CPU clock ticks in %.0f ms and a fork sampled only %.0f ms: about ±%.0f %% (perfls model samples ≥ 20 ms for this)",
		tick/1e6, shortest/1e6, 100*tick/shortest)
}

// Interval is a confidence interval [lo, hi]; NaN bounds (none could be
// computed) are null in JSON.
type Interval [2]float64

// MarshalJSON writes null for a NaN or infinite bound.
func (iv Interval) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, 48)
	out = append(out, '[')
	for i, v := range iv {
		if i > 0 {
			out = append(out, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			out = append(out, "null"...)
		} else {
			out = strconv.AppendFloat(out, v, 'g', -1, 64)
		}
	}
	return append(out, ']'), nil
}

// UnmarshalJSON reads null bounds as NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var raw [2]*float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for i, p := range raw {
		iv[i] = math.NaN()
		if p != nil {
			iv[i] = *p
		}
	}
	return nil
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
