package oracle

import (
	"fmt"
	"slices"

	"github.com/perfls/perfls/analysis/stats"
)

// Typical condenses a metric's bands for display: the median band centre
// and the median half-width (stats.Median over the iteration indices).
func (m Metric) Typical() (centre, halfWidth float64) {
	if len(m.Bands) == 0 {
		return 0, 0
	}
	cs := make([]float64, len(m.Bands))
	hs := make([]float64, len(m.Bands))
	for i, b := range m.Bands {
		cs[i], hs[i] = b.Center, (b.Hi-b.Lo)/2
	}
	return stats.Median(cs), stats.Median(hs)
}

// Judgement is the oracle's judgement of one measurement of a calibrated
// workload: the verdict over its forks (Combine) and each fork's
// classification, with a summary per metric. It is perfls verify's JSON
// document and an element of perfls check's "oracle" arrays.
type Judgement struct {
	Method      string            `json:"method"`
	Workload    string            `json:"workload,omitempty"`
	Args        string            `json:"args"`
	Result      Verdict           `json:"result"` // pass, fail or not_applicable
	Provisional bool              `json:"provisional"`
	Forks       int               `json:"forks"`
	Failed      int               `json:"failed_forks"`
	Cached      bool              `json:"cached,omitempty"` // check: forks answered from the cache
	Metrics     []MetricJudgement `json:"metrics"`
	EnvDiffs    []string          `json:"env_diffs,omitempty"`
	Runs        []Result          `json:"runs"`
}

// MetricJudgement sums up one metric over the forks.
type MetricJudgement struct {
	Metric      string `json:"metric"`
	FailedForks int    `json:"failed_forks"`
	Violations  int    `json:"violations"` // outside the displayed bands, over all forks
	Compared    int    `json:"compared"`
	Summary     string `json:"summary"` // the worst fork's finding
	// Above/Below count violations by direction: above is slower, bigger
	// or more; below is faster or fewer (an improvement is a departure too).
	Above         int  `json:"above"`
	Below         int  `json:"below"`
	LengthDiffers bool `json:"length_differs,omitempty"`
}

// Judge sums up the classified forks of one measurement of the workload
// (method, workload, args) against its model m (nil: unknown) with their
// combined verdict v.
func Judge(method, workload, args string, m *Model, results []Result, v Verdict) Judgement {
	j := Judgement{Method: method, Workload: workload, Args: args, Result: v, Forks: len(results), Runs: results}
	if m != nil {
		j.Provisional = m.Provisional
	}
	byMetric := map[string]*MetricJudgement{}
	var order []string
	worst := map[string]int{}
	for _, r := range results {
		if r.Verdict == Fail {
			j.Failed++
		}
		for _, d := range r.EnvDiffs {
			if s := d.String(); !slices.Contains(j.EnvDiffs, s) {
				j.EnvDiffs = append(j.EnvDiffs, s)
			}
		}
		for _, f := range r.Metrics {
			mj := byMetric[f.Metric]
			if mj == nil {
				mj = &MetricJudgement{Metric: f.Metric}
				byMetric[f.Metric] = mj
				order = append(order, f.Metric)
				worst[f.Metric] = -1
			}
			mj.add(f)
			if len(f.Violations) > worst[f.Metric] {
				worst[f.Metric] = len(f.Violations)
				mj.Summary = f.Summary()
			}
		}
	}
	for _, name := range order {
		j.Metrics = append(j.Metrics, *byMetric[name])
	}
	return j
}

func (mj *MetricJudgement) add(f MetricFinding) {
	if f.Failed {
		mj.FailedForks++
	}
	mj.Violations += len(f.Violations)
	mj.Compared += f.Compared
	mj.LengthDiffers = mj.LengthDiffers || f.LengthDiffers
	for _, x := range f.Violations {
		if x.Above {
			mj.Above++
		} else {
			mj.Below++
		}
	}
}

// Missing lists the metrics some run did not measure, once each.
func (j Judgement) Missing() []string {
	var out []string
	for _, r := range j.Runs {
		for _, m := range r.Missing {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// AnyFailed reports whether any judgement failed.
func AnyFailed(js []Judgement) bool {
	for _, j := range js {
		if j.Result == Fail {
			return true
		}
	}
	return false
}

// Validate says what is wrong with a configuration a user gave: a smoothing
// other than mean, median or none (or "" for the default), an even or
// negative window.
func (c Config) Validate() error {
	if s := c.Smoothing; s != "" && s != "mean" && s != "median" && s != "none" {
		return fmt.Errorf("unknown smoothing %q (want mean, median or none)", s)
	}
	if c.Window < 0 || (c.Window > 0 && c.Window%2 == 0) {
		return fmt.Errorf("the smoothing window must be odd (got %d)", c.Window)
	}
	return nil
}
