package report

import (
	"fmt"
	"io"

	"github.com/perfls/perfls/analysis/verdict"
)

// Evaluation is perfls evaluate's result (its JSON document): every
// instance of a formula decided against recorded results (engine.Evaluate).
type Evaluation struct {
	Result    verdict.Outcome     `json:"result"`
	Formula   string              `json:"formula"`
	Alpha     float64             `json:"alpha"`
	Semantics string              `json:"semantics"` // what satisfied means: shown or classic
	Instances []EvaluatedInstance `json:"instances"`
}

// ExitStatus is perfls evaluate's: 1 when the formula is violated, else 0
// (undecided alone exits 0).
func (e *Evaluation) ExitStatus() int {
	if e.Result == verdict.Violated {
		return 1
	}
	return 0
}

// EvaluatedInstance is one decided formula instance.
type EvaluatedInstance struct {
	Formula  string          `json:"formula"`
	Instance string          `json:"instance,omitempty"`
	Result   verdict.Outcome `json:"result"`
	// PValue is the p-value of the comparison with the least support (the
	// smallest p), the one that decides a conjunction.
	PValue      *float64              `json:"p_value"`
	Comparisons []EvaluatedComparison `json:"comparisons"`
}

// EvaluatedComparison is one decided comparison with its p-value.
type EvaluatedComparison struct {
	verdict.ComparisonResult
	PValue float64 `json:"p_value"`
}

// WriteText writes the evaluation as WriteEvaluationText does.
func (e *Evaluation) WriteText(w io.Writer) { WriteEvaluationText(w, e) }

// WriteEvaluationText writes an evaluation as perfls evaluate prints it: a
// line per instance (and per comparison when it has several) with the
// evidence and the test, then the overall result.
func WriteEvaluationText(w io.Writer, res *Evaluation) {
	for _, in := range res.Instances {
		label := ""
		if in.Instance != "" {
			label = "[" + in.Instance + "] "
		}
		if len(in.Comparisons) == 1 {
			c := in.Comparisons[0]
			fmt.Fprintf(w, "%-9s %s%s  %s  (%s)\n", in.Result, label, c.Text, Evidence(c.ComparisonResult), c.Evidence.Test)
			continue
		}
		fmt.Fprintf(w, "%-9s %s%s\n", in.Result, label, in.Formula)
		for _, c := range in.Comparisons {
			fmt.Fprintf(w, "  %-9s %s  %s  (%s)\n", c.Outcome, c.Text, Evidence(c.ComparisonResult), c.Evidence.Test)
		}
	}
	level := "α = " + FormatAlpha(res.Alpha)
	if res.Semantics == string(verdict.Classic) {
		level += ", " + ClassicNote
	}
	if len(res.Instances) > 0 { // before the result, which stays the last line
		fmt.Fprintln(w, IntervalsNote(res.Alpha, 1))
	}
	fmt.Fprintf(w, "%s (%s)\n", res.Result, level)
}
