package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/perfls/perfls/analysis/oracle"
)

// WriteJudgement writes one oracle judgement: a headline and, with detail
// or when the oracle failed, a line per departing metric.
func WriteJudgement(w io.Writer, j oracle.Judgement, detail bool) {
	subject := j.Method
	if j.Workload != "" {
		subject += "[" + j.Workload + "]"
	}
	subject += "(" + j.Args + ")"
	head := fmt.Sprintf("%d of %d forks outside the calibrated bands", j.Failed, j.Forks)
	switch j.Result {
	case oracle.NotApplicable:
		head = "environment differs from calibration: " + strings.Join(j.EnvDiffs, "; ")
	case oracle.Pass:
		if j.Failed == 0 {
			head = fmt.Sprintf("within the calibrated bands (%d fork(s))", j.Forks)
		}
	}
	if j.Provisional {
		head += fmt.Sprintf(" [provisional oracle: fewer than %d calibration runs]", oracle.MinRuns)
	}
	if j.Cached {
		head += " [forks from the cache]"
	}
	fmt.Fprintf(w, "oracle %-14s %s  %s\n", string(j.Result), subject, head)
	if j.Result == oracle.NotApplicable {
		return
	}
	for _, m := range j.Metrics {
		if !detail && m.FailedForks == 0 {
			continue
		}
		state := "ok  "
		if m.FailedForks > 0 {
			state = "FAIL"
		}
		extra := ""
		if m.LengthDiffers {
			extra = " (run length differs from calibration: compared over the common range)"
		}
		fmt.Fprintf(w, "  %s %s%s\n", state, m.Summary, extra)
	}
	if missing := j.Missing(); len(missing) > 0 {
		fmt.Fprintf(w, "  not measured in this run: %s\n", strings.Join(missing, ", "))
	}
}

// ModelSummary condenses a calibrated model for display: perfls calibrate's
// JSON "model" and the lines of WriteModel.
type ModelSummary struct {
	Runs        int               `json:"runs"`
	Provisional bool              `json:"provisional"`
	Config      oracle.Config     `json:"config"`
	Env         map[string]string `json:"environment"`
	Measure     map[string]string `json:"measure,omitempty"`
	Metrics     []MetricSummary   `json:"metrics"`
}

// MetricSummary condenses one metric's bands.
type MetricSummary struct {
	Metric string `json:"metric"`
	Points int    `json:"points"`
	// Typical is the median band centre; HalfWidth the median half-width
	// of the displayed bands, also relative to the centre.
	Typical      float64 `json:"typical"`
	HalfWidth    float64 `json:"half_width"`
	RelHalfWidth float64 `json:"rel_half_width"`
	Floored      int     `json:"floored"` // bands widened to the minimum half-width
}

// SummarizeModel condenses m.
func SummarizeModel(m *oracle.Model) ModelSummary {
	out := ModelSummary{Runs: len(m.Runs), Provisional: m.Provisional, Config: m.Config, Env: m.Env, Measure: m.Measure}
	for _, met := range m.Metrics {
		s := MetricSummary{Metric: met.Name, Points: len(met.Bands)}
		for _, b := range met.Bands {
			if b.Floored {
				s.Floored++
			}
		}
		s.Typical, s.HalfWidth = met.Typical()
		if s.Typical != 0 {
			s.RelHalfWidth = s.HalfWidth / math.Abs(s.Typical)
		}
		out.Metrics = append(out.Metrics, s)
	}
	return out
}

// VerifyNotApplicable is perfls verify's exit status when the run's
// environment differs from calibration (another JVM, machine, flags or
// harness): the oracle cannot judge it, which is not a regression.
const VerifyNotApplicable = 3

// VerifyStatus is perfls verify's exit status for an oracle verdict: 0
// pass, 1 fail, VerifyNotApplicable.
func VerifyStatus(v oracle.Verdict) int {
	switch v {
	case oracle.Fail:
		return 1
	case oracle.NotApplicable:
		return VerifyNotApplicable
	}
	return 0
}

// WriteCalibration writes what perfls calibrate did to the model of key —
// "calibrated", "rebuilt", or accepted run accepted (≠ 0) — and the model.
func WriteCalibration(w io.Writer, key string, rebuilt bool, accepted int64, m *oracle.Model) {
	switch {
	case rebuilt:
		fmt.Fprintf(w, "rebuilt %s\n", key)
	case accepted != 0:
		fmt.Fprintf(w, "accepted run %d into %s\n", accepted, key)
	default:
		fmt.Fprintf(w, "calibrated %s\n", key)
	}
	WriteModel(w, m)
}

// WriteModel writes a calibrated model's settings and a line per metric.
func WriteModel(w io.Writer, m *oracle.Model) {
	s := SummarizeModel(m)
	prov := ""
	if s.Provisional {
		prov = fmt.Sprintf(" — provisional: fewer than %d runs", oracle.MinRuns)
	}
	c := m.Config
	fmt.Fprintf(w, "  %d runs%s; %s-%d smoothing, bands ±%g·sd; a run fails when a metric has more than %g%% of its points outside ±%g·sd",
		s.Runs, prov, c.Smoothing, c.Window, c.K, 100*c.Policy.MaxViolationRatio, c.Policy.K)
	if c.Policy.ShiftK > 0 {
		fmt.Fprintf(w, " or more than %g%% outside ±%g·sd", 100*c.Policy.ShiftRatio, c.Policy.ShiftK)
	}
	fmt.Fprintln(w)
	for _, ms := range s.Metrics {
		floor := ""
		if ms.Floored > 0 {
			floor = fmt.Sprintf(" (minimum width at %d)", ms.Floored)
		}
		fmt.Fprintf(w, "  %-20s %3d points, typical %-12.4g ± %.4g (%.1f%%)%s\n", ms.Metric, ms.Points, ms.Typical, ms.HalfWidth, 100*ms.RelHalfWidth, floor)
	}
}
