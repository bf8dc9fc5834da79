// Package oracle is the bounds oracle of seed 000 (reference
// 000-bounds-oracle.md): it learns a workload's normal per-iteration
// behaviour from calibration forks, as a band per metric and iteration, and
// flags a later run that leaves the bands — including changes that a mean or
// a peak cannot see (a slow leak, a different GC rhythm). It is pure logic:
// runs come in as values, models and results go out as values.
package oracle

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Run is one calibration or test fork: per-iteration series of each metric
// (e.g. "ns_per_op", "alloc_bytes_per_op", "gc_count", "heap_used") and the
// environment's meta-data.
type Run struct {
	ID     string               `json:"id"`
	Series map[string][]float64 `json:"series"`
	Env    map[string]string    `json:"env"`
}

// Config is everything that shapes a model; it is stored with the model so
// the model can be rebuilt from the same runs with other settings.
type Config struct {
	Smoothing string  `json:"smoothing"` // "mean" (default), "median" or "none"
	Window    int     `json:"window"`    // odd; 0 = 9, or 17 when runs have ≥ 50 points, capped at a third of the run
	Center    string  `json:"center"`    // "mean" (default) or "median": the band's centre
	K         float64 `json:"k"`         // band half-width in standard deviations; default 4
	// MinAbs and MinRel set a minimum band half-width, max(k·sd, MinAbs,
	// MinRel·|centre|), so a deterministic metric (sd = 0) does not flag
	// every jitter. Defaults 0 and 0.01.
	MinAbs float64 `json:"min_abs"`
	MinRel float64 `json:"min_rel"`
	// NonNegative lists metrics whose values cannot be negative (bytes,
	// counts, times): their lower bound is clamped at 0. nil = all metrics.
	NonNegative []string `json:"non_negative,omitempty"`
	// EnvFilter lists volatile meta-data keys ignored when comparing
	// environments (pid, start time, load…).
	EnvFilter []string `json:"env_filter,omitempty"`
	// Policy decides a run's verdict from the per-metric findings.
	Policy Policy `json:"policy"`
}

// Override returns c with the settings of given whose names set reports
// (the command line's flags that were given: smoothing, window, k,
// policy-k, max-violation-ratio, shift-k, shift-ratio); the others stay.
func (c Config) Override(given Config, set func(name string) bool) Config {
	for name, apply := range map[string]func(){
		"smoothing": func() { c.Smoothing = given.Smoothing }, "window": func() { c.Window = given.Window }, "k": func() { c.K = given.K },
		"policy-k": func() { c.Policy.K = given.Policy.K }, "max-violation-ratio": func() { c.Policy.MaxViolationRatio = given.Policy.MaxViolationRatio },
		"shift-k": func() { c.Policy.ShiftK = given.Policy.ShiftK }, "shift-ratio": func() { c.Policy.ShiftRatio = given.Policy.ShiftRatio },
	} {
		if set(name) {
			apply()
		}
	}
	return c
}

// Policy is the documented rule that turns findings into a run verdict. A
// metric fails on a departure of either kind:
//   - a spike: more than MaxViolationRatio of its compared points lie
//     outside its band widened to K standard deviations (the seed's rule;
//     k = 20 and any point is its best run-level setting, MCC 0.94,
//     reference §5.2 item 6);
//   - a sustained shift (ours): more than ShiftRatio of its points lie
//     outside the band at ShiftK standard deviations — a whole run a few
//     deviations off, as more work per call gives, which the wide spike
//     band misses. ShiftK = 0 disables the rule.
//
// The run fails when any metric fails. Bands at every k keep the minimum
// half-width (Config.MinAbs, MinRel) and the non-negative clamp. The
// displayed bands use Config.K. The defaults come from the validation in
// docs/oracle.md.
type Policy struct {
	K                 float64 `json:"k"`                     // spike band; default 20
	MaxViolationRatio float64 `json:"max_violation_ratio"`   // default 0: one point outside fails the metric
	ShiftK            float64 `json:"shift_k,omitempty"`     // sustained-shift band; default 3
	ShiftRatio        float64 `json:"shift_ratio,omitempty"` // default 0.8
}

// defaultPolicy applies when a Config sets none (see Policy).
var defaultPolicy = Policy{K: 20, MaxViolationRatio: 0, ShiftK: 3, ShiftRatio: 0.8}

// DefaultPolicy is the policy of a Config that sets none.
func DefaultPolicy() Policy { return defaultPolicy }

// MinRuns below which a model is provisional (reference §5.2 item 1).
const MinRuns = 20

// DefaultEnvFilter are meta-data keys that change from fork to fork.
var DefaultEnvFilter = []string{"pid", "start_time", "uptime", "load_average", "hostname_time"}

func (c Config) withDefaults(points int) Config {
	if c.Smoothing == "" {
		c.Smoothing = "mean"
	}
	if c.Center == "" {
		c.Center = "mean"
	}
	if c.K <= 0 {
		c.K = 4
	}
	if c.MinRel == 0 && c.MinAbs == 0 {
		c.MinRel = 0.01
	}
	if c.Policy == (Policy{}) {
		c.Policy = defaultPolicy
	}
	if c.Policy.K <= 0 {
		c.Policy.K = defaultPolicy.K
	}
	if c.EnvFilter == nil {
		c.EnvFilter = DefaultEnvFilter
	}
	if c.Smoothing != "none" && c.Window == 0 {
		c.Window = 9
		if points >= 50 {
			c.Window = 17
		}
		for c.Window > 1 && c.Window > points/3 {
			c.Window -= 2
		}
	}
	if c.Smoothing == "none" || c.Window < 1 {
		c.Window = 1
	}
	if c.Window%2 == 0 {
		c.Window--
	}
	return c
}

// Smooth replaces each point by the mean (or median) of the odd window
// centred on it. Half a window is lost at each end: n points become
// n−(w−1) (reference §1.4.1). A series shorter than the window yields none.
func Smooth(xs []float64, w int, method string) []float64 {
	if w <= 1 || method == "none" {
		return append([]float64(nil), xs...)
	}
	if len(xs) < w {
		return nil
	}
	out := make([]float64, 0, len(xs)-w+1)
	buf := make([]float64, w)
	for i := 0; i+w <= len(xs); i++ {
		win := xs[i : i+w]
		if method == "median" {
			copy(buf, win)
			sort.Float64s(buf)
			out = append(out, buf[w/2])
		} else {
			out = append(out, stat.Mean(win, nil))
		}
	}
	return out
}

// Band is the calibrated range of one metric at one iteration index.
type Band struct {
	Index    int     `json:"index"` // iteration index after smoothing
	Mean     float64 `json:"mean"`
	Median   float64 `json:"median"`
	SD       float64 `json:"sd"` // sample (n−1) standard deviation across runs
	N        int     `json:"n"`
	Center   float64 `json:"center"` // Mean or Median, as Config.Center says
	Lo       float64 `json:"lo"`     // bounds at Config.K
	Hi       float64 `json:"hi"`
	Floored  bool    `json:"floored,omitempty"` // the minimum half-width applied
	NonNeg   bool    `json:"non_negative"`
	MinWidth float64 `json:"min_half_width"`
}

// Metric is the model of one metric: a band per iteration index.
type Metric struct {
	Name  string `json:"name"`
	Bands []Band `json:"bands"`
}

// Model is a calibrated oracle.
type Model struct {
	Config      Config            `json:"config"`
	Runs        []string          `json:"runs"` // IDs of the calibration runs
	Metrics     []Metric          `json:"metrics"`
	Env         map[string]string `json:"env"`
	Provisional bool              `json:"provisional"` // fewer than MinRuns runs
	// Measure records how the runs were measured (sample count and length,
	// warm-up, heap…), so later runs can be measured alike. The oracle
	// does not read it; Calibrate leaves it empty for the caller to fill.
	Measure map[string]string `json:"measure,omitempty"`
}

// Calibrate builds a model from calibration runs. Runs must share their
// environment (after the filter) and their metrics; series are truncated to
// the shortest run, since index-based time points need every run at every
// index.
func Calibrate(runs []Run, cfg Config) (*Model, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("calibration needs at least 2 runs, got %d", len(runs))
	}
	shortest := math.MaxInt
	for _, r := range runs {
		for _, s := range r.Series {
			shortest = min(shortest, len(s))
		}
	}
	cfg = cfg.withDefaults(shortest)
	envs := make([]map[string]string, len(runs))
	for i, r := range runs {
		envs[i] = r.Env
	}
	env, err := TrainEnv(envs, cfg.EnvFilter)
	if err != nil {
		return nil, err
	}
	m := &Model{Config: cfg, Env: env, Provisional: len(runs) < MinRuns}
	for _, r := range runs {
		m.Runs = append(m.Runs, r.ID)
	}
	for _, name := range metricNames(runs[0]) {
		smoothed := make([][]float64, len(runs))
		n := math.MaxInt
		for i, r := range runs {
			s, ok := r.Series[name]
			if !ok {
				return nil, fmt.Errorf("run %s lacks metric %s", r.ID, name)
			}
			smoothed[i] = Smooth(s, cfg.Window, cfg.Smoothing)
			n = min(n, len(smoothed[i]))
		}
		if n == 0 {
			return nil, fmt.Errorf("metric %s: runs are shorter than the smoothing window %d", name, cfg.Window)
		}
		met := Metric{Name: name, Bands: make([]Band, n)}
		col := make([]float64, len(runs))
		for idx := 0; idx < n; idx++ {
			for i := range runs {
				col[i] = smoothed[i][idx]
			}
			met.Bands[idx] = cfg.band(name, idx, col)
		}
		m.Metrics = append(m.Metrics, met)
	}
	return m, nil
}

func metricNames(r Run) []string {
	var names []string
	for n := range r.Series {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// band computes the time point of one index and its bounds at cfg.K.
func (cfg Config) band(metric string, idx int, col []float64) Band {
	mean, sd := stat.MeanStdDev(col, nil)
	sorted := append([]float64(nil), col...)
	sort.Float64s(sorted)
	b := Band{Index: idx, Mean: mean, SD: sd, N: len(col), Median: stat.Quantile(0.5, stat.Empirical, sorted, nil)}
	b.Center = mean
	if cfg.Center == "median" {
		b.Center = b.Median
	}
	b.NonNeg = cfg.nonNegative(metric)
	b.MinWidth = math.Max(cfg.MinAbs, cfg.MinRel*math.Abs(b.Center))
	b.Lo, b.Hi, b.Floored = b.bounds(cfg.K)
	return b
}

// bounds is centre ± max(k·sd, minimum half-width), clamped at 0 for
// non-negative metrics.
func (b Band) bounds(k float64) (lo, hi float64, floored bool) {
	half := k * b.SD
	if half < b.MinWidth {
		half, floored = b.MinWidth, true
	}
	lo, hi = b.Center-half, b.Center+half
	if b.NonNeg && lo < 0 {
		lo = 0
	}
	return lo, hi, floored
}

func (cfg Config) nonNegative(metric string) bool {
	if cfg.NonNegative == nil {
		return true
	}
	for _, m := range cfg.NonNegative {
		if m == metric {
			return true
		}
	}
	return false
}

// ErrEnvMismatch is returned by TrainEnv when calibration runs come from
// different environments.
var ErrEnvMismatch = errors.New("calibration runs come from different environments")
