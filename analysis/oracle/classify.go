package oracle

import (
	"fmt"
	"math"
)

// Verdict of a run against a model.
type Verdict string

const (
	Pass          Verdict = "pass"
	Fail          Verdict = "fail"
	NotApplicable Verdict = "not_applicable" // the environment differs: never a regression
)

// Violation is one smoothed point outside its band.
type Violation struct {
	Index int     `json:"index"`
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Above bool    `json:"above"` // above the band (slower, more memory…) or below it
	// By is how far outside the band the point lies, relative to the band's
	// centre: 0.25 means a quarter of the typical value beyond the edge.
	By float64 `json:"by"`
}

// MetricFinding is the classification of one metric.
type MetricFinding struct {
	Metric     string      `json:"metric"`
	Compared   int         `json:"compared"`   // points compared (common index range)
	Violations []Violation `json:"violations"` // outside the displayed bands (Config.K)
	// Decisive counts points outside the policy's spike bands (Policy.K),
	// Shifted those outside its sustained-shift bands (Policy.ShiftK).
	Decisive int  `json:"decisive"`
	Shifted  int  `json:"shifted"`
	Failed   bool `json:"failed"`
	// LengthDiffers reports runs of another length: extra or missing points
	// are not compared and not counted as violations (unlike the seed,
	// where 4 of 50 good runs failed for running past the last band).
	LengthDiffers bool `json:"length_differs,omitempty"`
	RunPoints     int  `json:"run_points"`
	ModelPoints   int  `json:"model_points"`
}

// Result classifies one run.
type Result struct {
	Verdict     Verdict         `json:"result"`
	Metrics     []MetricFinding `json:"metrics"`
	EnvDiffs    []EnvDiff       `json:"env_diffs,omitempty"`
	Provisional bool            `json:"provisional"`
	Missing     []string        `json:"missing_metrics,omitempty"` // in the model, not in the run
}

// Classify compares a run with the model. A run from another environment
// makes the oracle not applicable. Otherwise each metric is smoothed like the
// calibration runs and compared index by index over the common range.
func Classify(m *Model, run Run) Result {
	res := Result{Verdict: Pass, Provisional: m.Provisional}
	if diffs := DiffEnv(m.Env, run.Env, m.Config.EnvFilter); len(diffs) > 0 {
		res.Verdict, res.EnvDiffs = NotApplicable, diffs
		return res
	}
	cfg := m.Config
	for _, met := range m.Metrics {
		series, ok := run.Series[met.Name]
		if !ok {
			res.Missing = append(res.Missing, met.Name)
			continue
		}
		s := Smooth(series, cfg.Window, cfg.Smoothing)
		f := MetricFinding{Metric: met.Name, RunPoints: len(s), ModelPoints: len(met.Bands)}
		f.LengthDiffers = len(s) != len(met.Bands)
		n := min(len(s), len(met.Bands))
		f.Compared = n
		for i := 0; i < n; i++ {
			b, v := met.Bands[i], s[i]
			if v < b.Lo || v > b.Hi {
				f.Violations = append(f.Violations, violation(b, i, v))
			}
			if lo, hi, _ := b.bounds(cfg.Policy.K); v < lo || v > hi {
				f.Decisive++
			}
			if cfg.Policy.ShiftK > 0 {
				if lo, hi, _ := b.bounds(cfg.Policy.ShiftK); v < lo || v > hi {
					f.Shifted++
				}
			}
		}
		spike := f.Decisive > 0 && float64(f.Decisive)/float64(max(n, 1)) > cfg.Policy.MaxViolationRatio
		shift := cfg.Policy.ShiftK > 0 && f.Shifted > 0 && float64(f.Shifted)/float64(max(n, 1)) > cfg.Policy.ShiftRatio
		if n > 0 && (spike || shift) {
			f.Failed = true
			res.Verdict = Fail
		}
		res.Metrics = append(res.Metrics, f)
	}
	return res
}

func violation(b Band, idx int, v float64) Violation {
	viol := Violation{Index: idx, Value: v, Lo: b.Lo, Hi: b.Hi, Above: v > b.Hi}
	edge := b.Lo
	if viol.Above {
		edge = b.Hi
	}
	if b.Center != 0 {
		viol.By = math.Abs(v-edge) / math.Abs(b.Center)
	}
	return viol
}

// Summary is a one-line description of a finding, for diagnostics:
// "heap_used outside its band at 12/48 points (first #7: 812 above [0, 671])".
func (f MetricFinding) Summary() string {
	if len(f.Violations) == 0 {
		return fmt.Sprintf("%s within its band at all %d points", f.Metric, f.Compared)
	}
	v := f.Violations[0]
	dir := "below"
	if v.Above {
		dir = "above"
	}
	return fmt.Sprintf("%s outside its band at %d/%d points (first #%d: %.4g %s [%.4g, %.4g], %.0f%% beyond the edge)",
		f.Metric, len(f.Violations), f.Compared, v.Index, v.Value, dir, v.Lo, v.Hi, 100*v.By)
}

// Confusion counts a classifier's outcomes with "regressed" as positive.
type Confusion struct {
	TP, FN, TN, FP int
}

// Accuracy is (TP+TN)/all.
func (c Confusion) Accuracy() float64 {
	return float64(c.TP+c.TN) / float64(c.TP+c.FN+c.TN+c.FP)
}

// Precision is TP/(TP+FP).
func (c Confusion) Precision() float64 { return float64(c.TP) / float64(c.TP+c.FP) }

// MCC is Matthews' correlation coefficient (reference Eq. 3.3); 0 when a
// marginal is empty.
func (c Confusion) MCC() float64 {
	tp, fn, tn, fp := float64(c.TP), float64(c.FN), float64(c.TN), float64(c.FP)
	d := math.Sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
	if d == 0 {
		return 0
	}
	return (tp*tn - fp*fn) / d
}

// Combine is the verdict of one measurement of several runs (forks): not
// applicable when no run is applicable (their environment differs from
// calibration); otherwise fail when more than half of the applicable runs
// fail, else pass. A single run's verdict is its own. A majority rather than
// "any run" keeps the false-alarm rate of a multi-fork check from growing
// with the number of forks.
func Combine(results []Result) Verdict {
	applicable, failed := 0, 0
	for _, r := range results {
		switch r.Verdict {
		case Fail:
			applicable++
			failed++
		case Pass:
			applicable++
		}
	}
	switch {
	case applicable == 0:
		return NotApplicable
	case 2*failed > applicable:
		return Fail
	default:
		return Pass
	}
}
