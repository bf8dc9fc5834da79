package regression

import (
	"errors"
	"strings"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
)

// DecideChange decides one workload of perfls diff from its head and base
// sides (each fork's time per operation, the earlier runs' fork means):
// slower when "head ≤ base" is rejected at opt.Alpha, faster when "head ≥
// base" is, same when equivalence within ±δ is shown, else undecided. It
// fills c's verdict, ratio, interval, p and reason, and reports whether
// more forks could decide it.
func DecideChange(c *report.DiffChange, head, base verdict.Side, opt verdict.Options) bool {
	if head.Err != nil || base.Err != nil {
		c.Verdict, c.Failed, c.Reason = report.Undecided, true, errors.Join(base.Err, head.Err).Error()
		return false
	}
	hs, bs := head.Prepare(), base.Prepare()
	slower := verdict.Compare(spl.LE, hs, bs, nil, opt)
	faster := verdict.Compare(spl.GE, hs, bs, nil, opt)
	delta := verdict.DefaultDelta
	same := verdict.Compare(spl.EQI, hs, bs, &delta, opt)
	ev := slower.Evidence
	c.Ratio, c.Low, c.High, c.Reason, c.Failed = report.Float(ev.Ratio), report.Float(ev.RatioLow), report.Float(ev.RatioHigh), "", false
	switch {
	case slower.Outcome == verdict.Violated:
		c.Verdict, c.P = report.Slower, report.Float(ev.P)
	case faster.Outcome == verdict.Violated:
		c.Verdict, c.P = report.Faster, report.Float(faster.Evidence.P)
	case same.Outcome == verdict.Satisfied:
		c.Verdict, c.P = report.Same, report.Float(same.Evidence.PHolds)
	default:
		c.Verdict, c.P = report.Undecided, report.Float(ev.P)
		c.Reason = slower.Reason
		return true
	}
	return false
}

// Figures are one side's figures in perfls diff: the mean of its fork
// means with its 95 % interval, the forks and the fewest samples of a
// fork; nil when the measurement failed or has no fork. cached says the
// cache answered it.
func Figures(s verdict.Side, cached bool) *report.DiffFigures {
	if s.Err != nil || len(s.Runs) == 0 {
		return nil
	}
	f := &report.DiffFigures{Forks: len(s.Runs), Cached: cached, Samples: len(s.Runs[0])}
	var means []float64
	for _, run := range s.Runs {
		if len(run) > 0 {
			means = append(means, stats.Summarize(run).Mean)
		}
		f.Samples = min(f.Samples, len(run))
	}
	f.MeanNs = report.Float(stats.Summarize(means).Mean)
	lo, hi, _ := stats.TInterval(means, 0.95)
	f.LowNs, f.HighNs = report.Float(lo), report.Float(hi)
	return f
}

// EnvironmentVerdict turns a diff's slow-down into "environment differs"
// when the base's result was measured in another environment than the
// head's: diffs are the components in which they differ ("memory MiB 16384
// → 8192"), none when they are the same or either is unknown.
func EnvironmentVerdict(c *report.DiffChange, diffs []string) {
	if c.Verdict != report.Slower || len(diffs) == 0 {
		return
	}
	c.Verdict, c.Reason = report.EnvironmentDiffers, "the base was measured in another environment: "+strings.Join(diffs, ", ")
}
