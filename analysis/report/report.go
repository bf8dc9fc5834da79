// Package report holds perfls's output formats: the command line's text,
// JSON and JUnit XML of a check (check.go, junit.go; HTML in htmlreport), a
// measurement's document (measure.go), the oracle's judgements and models,
// evaluations, cache listings, and the editor's hover Markdown. Markdown uses
// only code fences and plain tables, which render the same in VS Code and
// Neovim. It renders values; it does no I/O beyond the writer it is given.
package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
)

// Duration formats nanoseconds per operation with three significant digits
// and a unit that keeps the number readable: "18.2 ns", "1.23 µs", "4.50 ms".
func Duration(ns float64) string {
	if math.IsNaN(ns) || math.IsInf(ns, 0) {
		return "n/a"
	}
	units := []struct {
		scale float64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, u := range units {
		if math.Abs(ns) >= u.scale || u.scale == 1 {
			return sig3(ns/u.scale) + " " + u.name
		}
	}
	return ""
}

// perOp shows a side's own mean, and the factor a formula applied to it:
// "2 × 1.97 µs/op" rather than a scaled figure the method never took.
// Another metric than wall time is named: "cpu 1.9 µs/op", "alloc 64 B/op".
func perOp(s verdict.SideEvidence) string {
	v := Duration(s.MeanNs) + "/op"
	if s.Metric != "" && s.Metric != "wall" {
		v = s.Metric + " " + Figure(s.MeanNs, metricUnit(s.Metric))
		if u := metricUnit(s.Metric); u == "ns" || u == "B" {
			v += "/op"
		}
	}
	if s.Scale == 0 || s.Scale == 1 {
		return v
	}
	return fmt.Sprintf("%g × %s", s.Scale, v)
}

// metricUnit is the unit of a metric as analysis/model names them.
func metricUnit(metric string) string {
	if m, ok := model.ParseMetric(metric); ok {
		return m.Unit()
	}
	return "ns"
}

func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// Ratio formats a ratio with its interval and the interval's level (the
// rule in labels.go), e.g. "0.058 [0.055, 0.061] (95 % bounds)".
func Ratio(ev verdict.Evidence) string {
	if math.IsNaN(ev.Ratio) {
		return "n/a"
	}
	// No interval: NaN, or both bounds zero, as a record decided without a
	// test reads back (JSON has no NaN); a positive ratio's bounds are never
	// [0, 0].
	if math.IsNaN(ev.RatioLow) || ev.RatioLow == 0 && ev.RatioHigh == 0 {
		return sigRatio(ev.Ratio)
	}
	return fmt.Sprintf("%s [%s, %s] (%s)", sigRatio(ev.Ratio), sigRatio(ev.RatioLow), sigRatio(ev.RatioHigh), ratioLevelLabel(ev))
}

func sigRatio(r float64) string { return fmt.Sprintf("%.3g", r) }

// PValue formats a p-value; tiny values print as "<1e-16" rather than 0.
func PValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 1e-16:
		return "<1e-16"
	case p < 0.001:
		return fmt.Sprintf("%.1e", p)
	default:
		return fmt.Sprintf("%.3f", p)
	}
}

// ClassicNote names the classic semantics wherever a verdict decided under
// it is shown, so that its satisfied is not read as the default's.
const ClassicNote = "classic semantics: satisfied = not rejected (as the SPL paper defines it)"

// semanticsName is the name a document records: shown when not set.
func semanticsName(s verdict.Semantics) string {
	if s == "" {
		return string(verdict.Shown)
	}
	return string(s)
}

// Evidence is the CLI form of a comparison's evidence:
// "18.2 ns/op vs 312 ns/op  ratio 0.058 [0.055, 0.061]  p=1.000", followed by
// the reason when the comparison is undecided, and "[classic]" when the
// classic semantics decided it.
func Evidence(c verdict.ComparisonResult) string {
	ev := c.Evidence
	if ev.Left.Samples == 0 && ev.Right.Samples == 0 {
		return c.Reason
	}
	s := fmt.Sprintf("%s vs %s  ratio %s  p=%s", perOp(ev.Left), perOp(ev.Right), Ratio(ev), PValue(ev.P))
	if c.Reason != "" {
		s += "  (" + c.Reason + ")"
	}
	if ev.Semantics == string(verdict.Classic) {
		s += "  [classic]"
	}
	return s
}

// MethodHover documents an annotated method of file: each formula, then the
// latest verdict of every instance, marked stale when the method changed
// since.
func MethodHover(file *javasrc.File, m *javasrc.Method, formulas []*workspace.Formula, results []verdict.MethodResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**perfls** `%s`\n\n", signature(m))
	var texts []string
	for _, f := range formulas {
		if f.Method == m && f.Value != nil && !contains(texts, f.Value.Text) {
			texts = append(texts, f.Value.Text)
		}
	}
	if len(texts) > 0 {
		b.WriteString("```spl\n")
		for _, t := range texts {
			b.WriteString(strings.TrimSpace(t) + "\n")
		}
		b.WriteString("```\n\n")
	}
	res := resultFor(m, results)
	if res == nil {
		b.WriteString("Not measured yet. Run `perfls check` on the project to decide these formulas.\n")
		return b.String()
	}
	if res.Source != "" && res.Source != m.SourceHash(file) {
		b.WriteString("**Stale**: the method changed since this check; run *Check* again for current verdicts.\n\n")
	}
	writeMeasurements(&b, res.Measurements)
	if len(res.Instances) > 0 { // a record of measurements only has no verdicts
		writeVerdictTable(&b, res)
	}
	return b.String()
}

// writeMeasurements documents the method's own performance: per workload
// argument the time per operation with its 95 % interval, allocation,
// forks × samples and when it was measured; a text chart; the cost model.
func writeMeasurements(b *strings.Builder, ms []verdict.Measurement) {
	if len(ms) == 0 {
		return
	}
	b.WriteString("| workload | time/op (95% CI) | median | alloc/op | forks × samples | measured |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|\n")
	for _, m := range ms {
		ci := ""
		if m.CIHighNs > 0 {
			ci = " (" + Span(m.CILowNs, m.CIHighNs, "ns") + ")"
		}
		alloc := "n/a"
		if m.AllocBytes >= 0 {
			alloc = fmt.Sprintf("%.0f B", m.AllocBytes)
		}
		fmt.Fprintf(b, "| %s(%s) | %s%s | %s | %s | %d × %d | %s |\n", m.Workload, m.Args, Duration(m.MeanNs), ci,
			Duration(m.MedianNs), alloc, m.Forks, m.Samples, m.MeasuredAt.Local().Format("2006-01-02 15:04"))
	}
	b.WriteString("\n")
	writeDemandTable(b, ms)
	if len(ms) > 1 {
		b.WriteString("```text\n" + Chart(ms) + "```\n\n")
	}
	if line := costLine(ms); line != "" {
		b.WriteString(line + "\n\n")
	}
	if line := demandLine(ms); line != "" {
		b.WriteString(line + "\n\n")
	}
}

// demandLine fits the other demands against a single integer argument,
// as perfls model does (docs/models.md): "Demands: cpu ≈ 0.9·n² ns; …".
func demandLine(ms []verdict.Measurement) string {
	byMetric := map[model.Metric][]model.Point{}
	values := 0
	for _, m := range ms {
		if m.N > 0 && len(m.Demands) > 0 {
			values++
			for _, d := range m.Demands {
				byMetric[d.Metric] = append(byMetric[d.Metric], model.Point{N: m.N, Figures: d.ForkMeans})
			}
		}
	}
	var parts []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, metric := range model.Metrics {
		pts := byMetric[metric]
		if values < 3 || len(pts) < values {
			continue
		}
		d, err := model.FitDependency(metric, pts)
		if err != nil || d.Best.Model == "" {
			continue
		}
		lo, hi = math.Min(lo, d.Range[0]), math.Max(hi, d.Range[1])
		parts = append(parts, strings.ReplaceAll(string(metric), "_", " ")+" "+d.Text)
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Demands per op: %s (fitted on %g … %g; beyond, extrapolated).", strings.Join(parts, "; "), lo, hi)
}

// writeDemandTable shows the demands per operation beside time: thread
// and process CPU, GC and the CPU share, each with its 95 % interval.
func writeDemandTable(b *strings.Builder, ms []verdict.Measurement) {
	any := false
	for _, m := range ms {
		any = any || len(m.Demands) > 0
	}
	if !any {
		return
	}
	b.WriteString("| workload | demands per op (95% CI) |\n|---|---|\n")
	for _, m := range ms {
		var parts []string
		for _, d := range m.Demands {
			if d.Metric != model.Alloc { // in the table above
				parts = append(parts, DemandText(d))
			}
		}
		fmt.Fprintf(b, "| %s(%s) | %s |\n", m.Workload, m.Args, strings.Join(parts, "; "))
	}
	b.WriteString("\n")
}

// Chart draws time per operation as bars on a log scale (timings across
// arguments often span orders of magnitude), one line per measurement.
func Chart(ms []verdict.Measurement) string {
	const width = 24
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range ms {
		if m.MeanNs > 0 {
			lo, hi = math.Min(lo, m.MeanNs), math.Max(hi, m.MeanNs)
		}
	}
	labelW := 0
	for _, m := range ms {
		labelW = max(labelW, len(m.Args))
	}
	var b strings.Builder
	for _, m := range ms {
		n := 1
		if m.MeanNs > 0 && hi > lo {
			n = 1 + int(math.Round(float64(width-1)*math.Log(m.MeanNs/lo)/math.Log(hi/lo)))
		}
		fmt.Fprintf(&b, "%*s %s %s\n", labelW, m.Args, strings.Repeat("█", n), Duration(m.MeanNs))
	}
	return b.String()
}

// costLine fits time per operation against a single integer argument and
// says when the measured values cannot tell the models apart; with two
// values it names no model (NoModel).
func costLine(ms []verdict.Measurement) string {
	var pts []stats.CostPoint
	distinct := map[float64]bool{}
	for _, m := range ms {
		if !(m.N > 0 && m.MeanNs > 0) {
			continue
		}
		distinct[m.N] = true
		// Fork means are the independent points; the overall mean alone
		// (records written before fork means were kept) gives one per n.
		if len(m.ForkMeansNs) == 0 {
			pts = append(pts, stats.CostPoint{N: m.N, Y: m.MeanNs})
		}
		for _, y := range m.ForkMeansNs {
			if y > 0 {
				pts = append(pts, stats.CostPoint{N: m.N, Y: y})
			}
		}
	}
	switch {
	case len(distinct) < 2:
		return ""
	case len(distinct) < MinModelValues:
		return "Cost model: " + NoModel(len(distinct)) + "."
	}
	fit, err := stats.FitCostModels(pts)
	if err != nil || fit.Best == "" {
		return ""
	}
	line := "Cost model: **" + fit.Best + "** fits best"
	if len(fit.Indistinct) > 1 {
		line += fmt.Sprintf(", but %d argument values cannot tell it from %s", len(distinct), strings.Join(fit.Indistinct[1:], ", "))
	}
	return line + "."
}

func writeVerdictTable(b *strings.Builder, res *verdict.MethodResult) {
	b.WriteString("| instance | verdict | left | right | ratio | p |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|\n")
	for _, in := range res.Instances {
		for i, c := range in.Comparisons {
			label := in.Instance
			if label == "" {
				label = "—"
			}
			out := Outcome(in)
			if len(in.Comparisons) > 1 {
				label = fmt.Sprintf("%s #%d", label, i+1)
				out = c.Outcome.String()
				if c.Failed {
					out = "failed"
				}
			}
			ev := c.Evidence
			if ev.Left.Samples == 0 && ev.Right.Samples == 0 {
				fmt.Fprintf(b, "| %s | %s | | | | |\n", label, out)
				continue
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", label, out,
				perOp(ev.Left), perOp(ev.Right), sigRatio(ev.Ratio), PValue(ev.P))
		}
	}
	b.WriteString("\n")
	var reasons []string
	for _, in := range res.Instances {
		for _, c := range in.Comparisons {
			if c.Reason != "" && !contains(reasons, c.Reason) {
				reasons = append(reasons, c.Reason)
			}
		}
	}
	for _, r := range reasons {
		fmt.Fprintf(b, "- %s\n", r)
	}
	if len(reasons) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "Checked %s. %s\n", res.CheckedAt.Local().Format(time.DateTime), meaningOfSatisfied(res))
}

// meaningOfSatisfied says what a satisfied verdict rests on, from the
// evidence of the test that decided it (the first decided comparison).
func meaningOfSatisfied(res *verdict.MethodResult) string {
	shown := false
	for _, in := range res.Instances {
		for _, c := range in.Comparisons {
			ev := c.Evidence
			if ev.Alpha <= 0 || in.Failed {
				continue
			}
			if ev.Semantics == string(verdict.Shown) && ev.Margin == 0 {
				// Decided without the test that shows a relation holds (a
				// violation): its evidence does not say what satisfied means.
				shown = true
				continue
			}
			test := EvidenceAlpha(ev)
			if ev.Test != "" {
				test = ev.Test + ", " + test
			}
			if ev.Semantics == string(verdict.Classic) {
				return fmt.Sprintf("Classic semantics (the SPL paper's reading): *satisfied* means no significant evidence against the formula (%s), not proof; by default it must be shown to hold.", test)
			}
			if ev.Margin > 0 {
				return fmt.Sprintf("*satisfied* means the data show the formula holds within a %g %% margin (%s).", 100*ev.Margin, test)
			}
			return fmt.Sprintf("*satisfied* means no significant evidence against the formula (%s), not proof.", test)
		}
	}
	if shown {
		return fmt.Sprintf("*satisfied* means the data show the formula holds within a %g %% margin.", 100*verdict.DefaultDelta)
	}
	return "*satisfied* means no significant evidence against the formula, not proof."
}

func resultFor(m *javasrc.Method, results []verdict.MethodResult) *verdict.MethodResult {
	params := make([]string, len(m.Params))
	for i, p := range m.Params {
		params[i] = p.Erased
	}
	for i := range results {
		r := &results[i]
		if r.Class == m.Type.BinaryName && r.Method == m.Name && strings.Join(r.Params, ",") == strings.Join(params, ",") {
			return r
		}
	}
	return nil
}

func signature(m *javasrc.Method) string {
	var ps []string
	for _, p := range m.Params {
		ps = append(ps, p.Type)
	}
	return fmt.Sprintf("%s#%s(%s)", m.Type.QualifiedName, m.Name, strings.Join(ps, ", "))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
