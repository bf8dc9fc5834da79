package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
)

// Check is a finished perfls check as its output formats show it: the text
// lines, the JSON document, JUnit XML (junit.go) and the HTML page
// (htmlreport.FromCheck). The engine fills it in.
type Check struct {
	Project  string        // the checked directory; paths are shown relative to it
	Command  string        // the command line, for the HTML page
	Finished time.Time     // when the check ended
	Elapsed  time.Duration // how long it took
	Alpha    float64       // the significance level used, over all looks
	// Semantics is what satisfied meant (verdict.Semantics); "" = shown.
	Semantics verdict.Semantics
	Looks     int // how often the formulas could be decided, forks added between looks; each look at Alpha/Looks
	// ExtraForks is the forks added after the first look.
	ExtraForks int
	// Family is how the comparisons shared α ("holm" or "none"), Tests how
	// many violation tests took part and FamilyLevel the level a violation
	// needed among them (engine.CheckResult).
	Family      string
	FamilyTests int
	FamilyLevel float64
	// Environment describes where and how the measurements ran (JVM, OS,
	// CPU, measurement settings, perfls), in order.
	Environment []Field
	Notices     []string // e.g. a store that could not record
	Diagnostics []string // formula problems, as file:line:col: severity: message
	// FormulaErrors counts the Diagnostics that are errors: their formulas
	// were not checked, so the check failed.
	FormulaErrors int
	Methods       []verdict.MethodResult
	// Sides holds the samples behind each comparison:
	// Sides[m][i][c] for Methods[m].Instances[i].Comparisons[c]; shorter
	// slices where they are not known.
	Sides    [][][]Sides
	Costs    []Cost
	Oracle   []oracle.Judgement // bounds-oracle judgements of calibrated workloads
	Requests int                // distinct measurements the formulas needed
	Cached   int                // of which the cache answered
	// Colour marks outcomes with ANSI colours in the text output (a
	// terminal that allows it: internal/cli.Colour).
	Colour bool
}

// Field is one labelled value of a summary.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Sides are the measurements of a comparison's two operands.
type Sides struct{ Left, Right Side }

// Side is the measurement of one operand.
type Side struct {
	Label string      // the operand as measured, e.g. p.C#m[gen](10)
	Scale float64     // the formula's factor; 0 means 1
	Forks [][]float64 // ns per operation of every sample, per fork; empty when not measured
}

// Cost is the cost curve of one method on one workload: time per operation
// against the workload's single integer argument.
type Cost struct {
	Subject string // e.g. p.C#m[gen]
	Points  []CostPoint
	Fit     *stats.CostModels // nil when no model was fitted
	// Demands are the other demands' fitted dependencies on the argument
	// (docs/models.md), for 3 or more values.
	Demands []model.Dependency
	// Callees are the callee lines of the newest stored model of the
	// method on the workload (CalleeLines), when perfls model extracted one.
	Callees []string
}

// CostPoint is the measurement at one value of the workload argument.
type CostPoint struct {
	N         float64
	ForkMeans []float64 // ns per operation, one per fork
}

// Check results, as Result names them.
const (
	Passed       = "passed"   // every instance holds or is undecided for lack of evidence
	ViolatedRun  = "violated" // an instance is violated or a calibrated workload fails its bounds oracle
	FailedErrors = "failed"   // a formula error, or an instance an error left undecided
)

// Result says what the check found, as its exit status does: failed
// before violated before passed.
func (c *Check) Result() string {
	n := c.Counts()
	switch {
	case n.Failed > 0 || c.FormulaErrors > 0:
		return FailedErrors
	case n.Violated > 0 || oracle.AnyFailed(c.Oracle):
		return ViolatedRun
	}
	return Passed
}

// Counts counts the check's instances by outcome.
func (c *Check) Counts() verdict.Counts { return verdict.Count(c.Methods) }

// Rel shows path relative to the project when it lies inside it.
func (c *Check) Rel(path string) string { return Rel(c.Project, path) }

// Rel shows path relative to dir when it lies inside it.
func Rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !filepath.IsAbs(r) && r != "" && r[0] != '.' {
		return r
	}
	return path
}

// Outcome is how an instance is shown: its outcome, or "failed" when an
// error left it undecided.
func Outcome(in verdict.InstanceResult) string {
	if in.Failed {
		return "failed"
	}
	return in.Outcome.String()
}

// outcomeColours are the ANSI colours of the outcomes: the ones that fail
// CI in red, undecided in yellow, satisfied in green.
var outcomeColours = map[string]string{"violated": "\033[31m", "failed": "\033[1;31m", "undecided": "\033[33m", "satisfied": "\033[32m"}

// paint pads an outcome to the outcome column and colours it when c.Colour.
func (c *Check) paint(outcome string) string {
	padded := fmt.Sprintf("%-9s", outcome)
	if code, ok := outcomeColours[outcome]; ok && c.Colour {
		return code + padded + "\033[0m"
	}
	return padded
}

// WriteCheckText writes the check as perfls check prints it: a line per
// formula instance (and one per comparison when it has several), the cost
// models, the oracle's judgements and the counts.
func WriteCheckText(w io.Writer, c *Check) {
	for _, m := range c.Methods {
		for _, in := range m.Instances {
			loc := fmt.Sprintf("%s:%d", c.Rel(m.File), in.Line)
			label := in.Instance
			if label != "" {
				label = "[" + label + "]"
			}
			if len(in.Comparisons) == 1 {
				cmp := in.Comparisons[0]
				fmt.Fprintf(w, "%s %s %s  %s  %s\n", c.paint(Outcome(in)), loc, label, cmp.Text, Evidence(cmp))
				continue
			}
			fmt.Fprintf(w, "%s %s %s\n", c.paint(Outcome(in)), loc, label)
			for _, cmp := range in.Comparisons {
				fmt.Fprintf(w, "  %s %s  %s\n", c.paint(cmp.Outcome.String()), cmp.Text, Evidence(cmp))
			}
		}
	}
	writeCosts(w, c.Costs)
	if len(c.Oracle) > 0 {
		fmt.Fprintln(w, "\nbounds oracle (calibrated workloads; see docs/oracle.md):")
		for _, j := range c.Oracle {
			WriteJudgement(w, j, false)
		}
	}
	level := LooksText(c.Alpha, c.Looks)
	if c.Semantics == verdict.Classic {
		level += ", " + ClassicNote
	}
	if c.Looks > 1 && c.ExtraForks > 0 {
		level += fmt.Sprintf("; %d forks added to decide", c.ExtraForks)
	}
	fmt.Fprintf(w, "\n%s (%s; %.1fs)\n", c.Counts(), level, c.Elapsed.Seconds())
	if c.hasRatioInterval() {
		fmt.Fprintln(w, IntervalsNote(c.Alpha, c.Looks))
	}
	if note := FamilyNote(c.Family, c.Alpha, c.FamilyTests, c.FamilyLevel); note != "" {
		fmt.Fprintln(w, note)
	}
	// Where the figures come from: JVM, collector and heap, flags.
	for _, f := range c.Environment {
		if f.Name == "JVM" || f.Name == "JVM flags" {
			fmt.Fprintf(w, "%s: %s\n", f.Name, f.Value)
		}
	}
}

// MinModelValues is how many distinct argument values a cost model needs
// before perfls names one: two points are fitted exactly by every model
// with two parameters (n, log n, n², …), so they cannot tell models apart.
const MinModelValues = 3

// NoModel says why no cost model is named for a curve measured at values
// distinct argument values (fewer than MinModelValues), e.g. "2 values: no
// model (a cost model needs 3 or more argument values)".
func NoModel(values int) string {
	unit := "values"
	if values == 1 {
		unit = "value"
	}
	return fmt.Sprintf("%d %s: no model (a cost model needs %d or more argument values)", values, unit, MinModelValues)
}

// DistinctValues counts the argument values of a cost curve.
func (c Cost) DistinctValues() int {
	seen := map[float64]bool{}
	for _, p := range c.Points {
		seen[p.N] = true
	}
	return len(seen)
}

// hasRatioInterval reports whether some comparison shows a ratio interval,
// which IntervalsNote explains.
func (c *Check) hasRatioInterval() bool {
	for _, m := range c.Methods {
		for _, in := range m.Instances {
			for _, cmp := range in.Comparisons {
				if ev := cmp.Evidence; !math.IsNaN(ev.Ratio) && !math.IsNaN(ev.RatioLow) && (ev.Left.Samples > 0 || ev.Right.Samples > 0) {
					return true
				}
			}
		}
	}
	return false
}

// writeCosts shows the fitted cost models of workloads measured at three
// or more argument values, and says when they cannot tell the candidates
// apart. A check whose workloads all have two values (a formula's "for n
// in {200, 2000}") prints no section; when the section is printed, a
// workload with two values says "2 values: no model" rather than naming
// one the data cannot choose.
func writeCosts(w io.Writer, costs []Cost) {
	var shown []Cost
	fitted := 0
	for _, c := range costs {
		switch n := c.DistinctValues(); {
		case n >= MinModelValues && c.Fit != nil:
			fitted++
			shown = append(shown, c)
		case n == 2:
			shown = append(shown, c)
		}
	}
	if fitted == 0 {
		return
	}
	fmt.Fprintln(w, "\ncost models (time per operation against the workload argument):")
	for _, c := range shown {
		f := c.Fit
		switch {
		case c.DistinctValues() < MinModelValues:
			fmt.Fprintf(w, "  %s: %s\n", c.Subject, NoModel(c.DistinctValues()))
			continue
		case f.Best == "":
			fmt.Fprintf(w, "  %s: no model fits\n", c.Subject)
			continue
		}
		line := fmt.Sprintf("  %s: %s fits best", c.Subject, f.Best)
		for _, fit := range f.Fits {
			if fit.Model == f.Best {
				line += fmt.Sprintf(" (%s ns/op)", fit)
			}
		}
		if len(f.Indistinct) > 1 {
			line += fmt.Sprintf(", but %d values of the argument over %.1f decades cannot tell it from %s: measure more values, over a wider range",
				c.DistinctValues(), c.Decades(), strings.Join(f.Indistinct[1:], ", "))
		}
		fmt.Fprintln(w, line)
	}
}

// Decades is the range of the argument values, in powers of ten.
func (c Cost) Decades() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range c.Points {
		lo, hi = math.Min(lo, p.N), math.Max(hi, p.N)
	}
	if len(c.Points) == 0 || lo <= 0 {
		return 0
	}
	return math.Log10(hi / lo)
}

// methodJSON is one element of the methods of check's JSON document: the
// method's verdicts, plus the oracle judgements of its calibrated workloads.
type methodJSON struct {
	verdict.MethodResult
	Oracle []oracle.Judgement `json:"oracle,omitempty"`
}

// CheckDocument is the check as perfls check --format json writes it: a
// summary that says at a glance what CI would say, then the details.
type CheckDocument struct {
	Summary     CheckSummary `json:"summary"`
	Environment []Field      `json:"environment,omitempty"`
	Notices     []string     `json:"notices,omitempty"`
	Diagnostics []string     `json:"diagnostics,omitempty"`
	// Methods holds each method's verdict records, with the oracle
	// judgements of its workloads (a judgement of a method without
	// formulas goes with the first method, so none is lost).
	Methods []methodJSON `json:"methods"`
}

// CheckSummary counts a check's formula instances by outcome and says how
// they were decided.
type CheckSummary struct {
	Result    string  `json:"result"` // passed, violated or failed: what the exit status says
	Satisfied int     `json:"satisfied"`
	Violated  int     `json:"violated"`
	Undecided int     `json:"undecided"`
	Failed    int     `json:"failed"`
	Alpha     float64 `json:"alpha"`
	Semantics string  `json:"semantics"` // what satisfied means: shown or classic
	Looks     int     `json:"looks"`
	// Family is how the comparisons shared α (holm or none), FamilyTests
	// how many violation tests took part, FamilyLevel the level a violation
	// needed among them.
	Family      string  `json:"family,omitempty"`
	FamilyTests int     `json:"family_tests,omitempty"`
	FamilyLevel float64 `json:"family_level,omitempty"`
	ExtraForks  int     `json:"extra_forks"`
	// Measurements is how many distinct measurements the formulas needed,
	// Cached how many of them the cache answered.
	Measurements int     `json:"measurements"`
	Cached       int     `json:"cached"`
	Seconds      float64 `json:"seconds"`
	Project      string  `json:"project"`
}

// CheckJSON is the check as perfls check --format json writes it.
func CheckJSON(c *Check) CheckDocument {
	n := c.Counts()
	doc := CheckDocument{
		Summary: CheckSummary{Result: c.Result(), Satisfied: n.Satisfied, Violated: n.Violated, Undecided: n.Undecided,
			Failed: n.Failed, Alpha: c.Alpha, Semantics: semanticsName(c.Semantics), Looks: c.Looks, ExtraForks: c.ExtraForks, Measurements: c.Requests,
			Family: c.Family, FamilyTests: c.FamilyTests, FamilyLevel: c.FamilyLevel,
			Cached: c.Cached, Seconds: math.Round(c.Elapsed.Seconds()*1000) / 1000, Project: c.Project},
		Environment: c.Environment, Notices: c.Notices, Diagnostics: c.Diagnostics,
	}
	doc.Methods = make([]methodJSON, len(c.Methods))
	for i, m := range c.Methods {
		doc.Methods[i].MethodResult = m
	}
	for _, j := range c.Oracle {
		at := 0
		for i, m := range c.Methods {
			if (methodspec.Spec{Class: m.Class, Name: m.Method, Params: m.Params}).Matches(j.Method) {
				at = i
				break
			}
		}
		if len(doc.Methods) > 0 {
			doc.Methods[at].Oracle = append(doc.Methods[at].Oracle, j)
		}
	}
	return doc
}

// WriteDiagnostics writes formula problems, one a line, with paths
// relative to dir, and returns how many are errors.
func WriteDiagnostics(w io.Writer, dir string, ds []workspace.Diagnostic) (errors int) {
	for _, d := range ds {
		d.Path = Rel(dir, d.Path)
		fmt.Fprintln(w, d)
		if d.Severity == workspace.Error {
			errors++
		}
	}
	return errors
}
