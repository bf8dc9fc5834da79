// Package htmlreport renders the verdicts of a check as one self-contained
// HTML page: a summary, every comparison with its evidence and a plot of
// both sides' per-fork distributions, and a cost curve per measured method.
// Plots are SVG drawn with gonum/plot and inlined, so the page needs no
// network, no script and no other file. The package only builds bytes; the
// caller writes them.
package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
)

// Report is everything the page shows.
type Report struct {
	Project   string        // the checked directory, as the user named it
	Command   string        // the command line that produced the report
	Generated time.Time     // when the check ended
	Elapsed   time.Duration // how long it took
	Alpha     float64       // the significance level used, over all looks
	Looks     int           // how often the formulas could be decided (report.LooksPhrase); each look at Alpha/Looks
	// Environment describes where the measurements ran (JVM, OS, CPU,
	// measurement settings), in order.
	Environment []Field
	Notices     []string // e.g. "4 of 8 measurements answered from the cache"
	Diagnostics []string // formula problems, as file:line:col: severity: message
	Methods     []Method
	Costs       []Cost
}

// Field is one labelled value of the summary.
type Field = report.Field

// Method is an annotated method and the verdicts of its formulas.
type Method struct {
	Name      string // e.g. quickstart.Search#binarySearch(int[],int)
	File      string // the source file, as shown to the user
	Instances []Instance
}

// Instance is one formula instance.
type Instance struct {
	Line    int
	Label   string // e.g. "n=10000"; empty for unquantified formulas
	Formula string
	Outcome verdict.Outcome
	// Failed is true when an error left the instance undecided (shown
	// red, as "failed"), false when it is undecided for lack of evidence.
	Failed      bool
	Comparisons []Comparison
}

// State is how the instance is shown: its outcome, or "failed".
func (in Instance) State() string {
	if in.Failed {
		return "failed"
	}
	return in.Outcome.String()
}

// Comparison is a decided comparison with the samples its sides rest on.
type Comparison struct {
	Result      verdict.ComparisonResult
	Left, Right Side
}

// Side is the measurement of one operand.
type Side = report.Side

// Cost is the cost curve of one method on one workload.
type Cost = report.Cost

// CostPoint is the measurement at one value of the workload argument.
type CostPoint = report.CostPoint

// Counts returns the number of instances with each outcome.
func (r *Report) Counts() verdict.Counts {
	var c verdict.Counts
	for _, m := range r.Methods {
		for _, in := range m.Instances {
			c.Add(verdict.InstanceResult{Outcome: in.Outcome, Failed: in.Failed})
		}
	}
	return c
}

// severity orders outcomes for the reader: failed, violated, undecided,
// satisfied.
func severity(in Instance) int {
	switch {
	case in.Failed:
		return 0
	case in.Outcome == verdict.Violated:
		return 1
	case in.Outcome == verdict.Undecided:
		return 2
	}
	return 3
}

// worst is the severity of a method's most severe instance.
func worst(m methodView) int {
	w := 4
	for _, iv := range m.Instances {
		w = min(w, severity(iv.Instance))
	}
	return w
}

// Render builds the page. A plot that cannot be drawn is replaced by a note
// saying why; the rest of the page is still written.
func Render(r *Report) ([]byte, error) {
	v := view{Report: r, Counts: r.Counts()}
	for mi, m := range r.Methods {
		mv := methodView{Method: m}
		for ii, in := range m.Instances {
			iv := instanceView{Instance: in, ID: fmt.Sprintf("f%d-%d", mi+1, ii+1), Method: m.Name, File: m.File}
			for _, c := range in.Comparisons {
				cv := comparisonView{Comparison: c, State: c.Result.Outcome.String()}
				if c.Result.Failed {
					cv.State = "failed"
				}
				svg, err := ComparisonSVG(c)
				if err != nil {
					cv.PlotError = err.Error()
				} else {
					cv.SVG = template.HTML(svg)
				}
				cv.Rows = evidenceRows(c)
				cv.Meaning = meaning(c.Result)
				iv.Comparisons = append(iv.Comparisons, cv)
				v.NComparisons++
			}
			mv.Instances = append(mv.Instances, iv)
			v.Index = append(v.Index, iv)
		}
		v.Methods = append(v.Methods, mv)
	}
	// Failures first: what needs attention leads the index and the page.
	sort.SliceStable(v.Index, func(i, j int) bool { return severity(v.Index[i].Instance) < severity(v.Index[j].Instance) })
	sort.SliceStable(v.Methods, func(i, j int) bool { return worst(v.Methods[i]) < worst(v.Methods[j]) })
	for _, c := range r.Costs {
		cv := costView{Cost: c, Rows: costRows(c)}
		svg, err := CostSVG(c)
		if err != nil {
			cv.PlotError = err.Error()
		} else {
			cv.SVG = template.HTML(svg)
		}
		v.Costs = append(v.Costs, cv)
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	return buf.Bytes(), nil
}

type view struct {
	*Report
	Counts       verdict.Counts
	NComparisons int
	Index        []instanceView
	Methods      []methodView
	Costs        []costView
}

type methodView struct {
	Method
	Instances []instanceView
}

type instanceView struct {
	Instance
	ID, Method, File string
	Comparisons      []comparisonView
}

type comparisonView struct {
	Comparison
	State     string // the outcome, or "failed"
	Rows      []Field
	Meaning   string
	SVG       template.HTML
	PlotError string
}

type costView struct {
	Cost
	Rows      [][]string
	SVG       template.HTML
	PlotError string
}

// evidenceRows lists a comparison's evidence as label/value pairs.
func evidenceRows(c Comparison) []Field {
	ev := c.Result.Evidence
	var rows []Field
	if ev.Left.Samples > 0 || ev.Right.Samples > 0 {
		rows = append(rows,
			Field{Name: "left mean", Value: sideFigure(ev.Left)},
			Field{Name: "right mean", Value: sideFigure(ev.Right)},
			Field{Name: "ratio L/R", Value: report.Ratio(ev)},
			Field{Name: "p-value", Value: fmt.Sprintf("%s (%s)", report.PValue(ev.P), report.EvidenceAlpha(ev))},
		)
		interp := ev.Interpretation
		if ev.Tolerance > 0 {
			interp += fmt.Sprintf(", tolerance %g %%", 100*ev.Tolerance)
		}
		if interp != "" {
			rows = append(rows, Field{Name: "interpretation", Value: interp})
		}
		test := ev.Test
		if ev.StatName != "" && !math.IsNaN(ev.T) {
			test += fmt.Sprintf(", %s = %.3g", ev.StatName, ev.T)
			if ev.DF > 0 {
				test += fmt.Sprintf(", df = %.3g", ev.DF)
			}
		}
		if test != "" {
			rows = append(rows, Field{Name: "test", Value: test})
		}
		if ev.Resamples > 0 {
			rows = append(rows, Field{Name: "bootstrap", Value: fmt.Sprintf("%d resamples", ev.Resamples)})
		}
		if ev.MoreForks > 0 {
			rows = append(rows, Field{Name: "to decide", Value: fmt.Sprintf("about %d more forks per side", ev.MoreForks)})
		}
	}
	if c.Result.Reason != "" {
		rows = append(rows, Field{Name: "reason", Value: c.Result.Reason})
	}
	return rows
}

// sideFigure is a side's mean as compared, its own mean when a factor
// applies, and how much data it rests on.
func sideFigure(s verdict.SideEvidence) string {
	out := report.Duration(s.MeanNs) + "/op"
	if s.Scale != 0 && s.Scale != 1 {
		out = fmt.Sprintf("%s/op (%g × %s/op)", report.Duration(s.Scale*s.MeanNs), s.Scale, report.Duration(s.MeanNs))
	}
	out += fmt.Sprintf(", median %s; %d forks, %d samples", report.Duration(s.MedianNs), s.Forks, s.Samples)
	if s.HistoryRuns > 0 {
		out += fmt.Sprintf(", %d earlier runs", s.HistoryRuns)
	}
	return out
}

// meaning says in words what the outcome of a comparison means.
func meaning(c verdict.ComparisonResult) string {
	ev := c.Evidence
	alpha := report.FormatAlpha(ev.Alpha)
	switch {
	case c.Failed:
		return "Failed: an error left the comparison undecided: " + c.Reason + "."
	case c.Outcome == verdict.Satisfied && ev.Margin > 0:
		return fmt.Sprintf("Holds: the data show the relation holds within %g %% (p = %s < α = %s) and do not reject it (p = %s). This is not a proof.", 100*ev.Margin, report.PValue(ev.PHolds), alpha, report.PValue(ev.P))
	case c.Outcome == verdict.Satisfied && ev.P < ev.Alpha:
		// A strict relation: it holds on evidence of the difference.
		return fmt.Sprintf("Holds: the data show the difference (p = %s < α = %s). This is not a proof.", report.PValue(ev.P), alpha)
	case c.Outcome == verdict.Satisfied:
		how := ""
		if ev.Semantics == string(verdict.Classic) {
			how = " (" + report.ClassicNote + ")"
		}
		return fmt.Sprintf("Holds: the data give no significant evidence against the relation (p = %s ≥ α = %s)%s. This is not a proof.", report.PValue(ev.P), alpha, how)
	case c.Outcome == verdict.Violated:
		return fmt.Sprintf("Violated: the data reject the relation (p = %s < α = %s).", report.PValue(ev.P), alpha)
	default:
		if c.Reason != "" {
			return "Undecided: " + c.Reason + "."
		}
		return "Undecided: the data neither support nor reject the relation."
	}
}

// costRows tabulates a cost curve: n, mean with interval, forks.
func costRows(c Cost) [][]string {
	var rows [][]string
	for _, p := range c.Points {
		if len(p.ForkMeans) == 0 {
			continue
		}
		mean, low, high := meanCI(p.ForkMeans)
		ci := "n/a (one fork)"
		if !math.IsNaN(low) {
			ci = report.Span(low, high, "ns")
		}
		rows = append(rows, []string{fmt.Sprintf("%g", p.N), report.Duration(mean) + "/op", ci, fmt.Sprint(len(p.ForkMeans))})
	}
	return rows
}

// fitText describes the fitted models of a cost curve.
func fitText(c Cost) string {
	if n := c.DistinctValues(); n < report.MinModelValues {
		return report.NoModel(n) + "."
	}
	if c.Fit == nil {
		return "No cost model fitted."
	}
	f := c.Fit
	if f.Best == "" {
		s := "No model fits."
		if f.Note != "" {
			s += " Caveat: " + f.Note + "."
		}
		return s
	}
	s := fmt.Sprintf("Best fit: %s", f.Best)
	for _, fit := range f.Fits {
		if fit.Model == f.Best {
			s += fmt.Sprintf(" (%s ns/op)", fit)
		}
	}
	s += "."
	if f.Note != "" {
		s += " Caveat: " + f.Note + "."
	} else if len(f.Indistinct) > 1 {
		s += fmt.Sprintf(" The measured arguments cannot tell it from %s: measure more values, over a wider range.", strings.Join(f.Indistinct[1:], ", "))
	}
	return s
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"time":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"secs":  func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) },
	"fit":   fitText,
	"looks": report.LooksText,
	"intervals": func(alpha float64, looks int) string {
		// The row is labelled "intervals" already.
		note := strings.TrimPrefix(report.IntervalsNote(alpha, looks), "intervals: ")
		return note + " (the time and demand intervals are two-sided Student-t intervals over the forks' means)"
	},
}).Parse(pageTemplate))

const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>perfls check: {{.Project}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 70rem; padding: 1rem 1.5rem 3rem; color: #222; line-height: 1.4; }
h1 { margin-bottom: .3rem; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.5rem; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .92em; }
h2.mono { font-size: 1.3rem; } h3.mono { font-size: 1.1rem; }
pre { background: #f6f6f6; padding: .5rem .7rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; margin: .4rem 0; }
th, td { text-align: left; vertical-align: top; padding: .2rem .7rem .2rem 0; }
table.grid th, table.grid td { border-bottom: 1px solid #e4e4e4; padding: .25rem .7rem; }
.badge { display: inline-block; border-radius: .3rem; padding: .05rem .5rem; font-weight: 600; color: #fff; }
.satisfied { background: #2e7d32; } .violated { background: #c62828; } .undecided { background: #8d6e00; } .failed { background: #7f0000; }
.counts .badge { font-size: 1.1rem; margin-right: .5rem; }
article.instance { border: 1px solid #ddd; border-left: .4rem solid #888; border-radius: .3rem; padding: .3rem 1rem 1rem; margin: 1rem 0; }
article.instance.is-satisfied { border-left-color: #2e7d32; } article.instance.is-violated { border-left-color: #c62828; } article.instance.is-undecided { border-left-color: #8d6e00; } article.instance.is-failed { border-left-color: #7f0000; }
section.comparison { margin-top: .8rem; }
figure { margin: .5rem 0; } figcaption { font-size: .85em; color: #555; }
svg { width: 100%; max-width: 60rem; height: auto; }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: .15em; vertical-align: baseline; margin-right: .3em; }
.left { background: #1f77b4; } .right { background: #e67e22; }
.note { color: #555; } .warn { color: #8d6e00; }
</style>
</head>
<body>
<header>
<h1>perfls check</h1>
<p class="counts" id="summary"><span class="badge satisfied">{{.Counts.Satisfied}} satisfied</span><span class="badge violated">{{.Counts.Violated}} violated</span><span class="badge undecided">{{.Counts.Undecided}} undecided</span>{{if .Counts.Failed}}<span class="badge failed">{{.Counts.Failed}} failed</span>{{end}} <span class="note">{{.NComparisons}} comparisons</span></p>
<table class="meta">
<tr><th>project</th><td class="mono">{{.Project}}</td></tr>
<tr><th>command</th><td class="mono">{{.Command}}</td></tr>
<tr><th>generated</th><td>{{time .Generated}} ({{secs .Elapsed}})</td></tr>
<tr><th>significance</th><td>{{looks .Alpha .Looks}}</td></tr>
<tr><th>intervals</th><td>{{intervals .Alpha .Looks}}</td></tr>
{{- range .Environment}}
<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>
{{- end}}
</table>
{{- if .Notices}}
<ul class="notices">{{range .Notices}}<li class="note">{{.}}</li>{{end}}</ul>
{{- end}}
{{- if .Diagnostics}}
<h2>Formula problems</h2>
<ul class="diagnostics">{{range .Diagnostics}}<li class="warn mono">{{.}}</li>{{end}}</ul>
{{- end}}
</header>
<main>
{{- if .Index}}
<h2>Verdicts</h2>
<table class="grid index">
<tr><th>outcome</th><th>method</th><th>formula instance</th></tr>
{{- range .Index}}
<tr><td><span class="badge {{.State}}">{{.State}}</span></td><td class="mono">{{.Method}}</td><td><a href="#{{.ID}}">{{.File}}:{{.Line}}{{if .Label}} [{{.Label}}]{{end}}</a></td></tr>
{{- end}}
</table>
{{- else}}
<p>No formula instance was checked.</p>
{{- end}}
{{- range .Methods}}
<section class="method">
<h2 class="mono">{{.Name}}</h2>
<p class="note mono">{{.File}}</p>
{{- range .Instances}}
<article class="instance is-{{.State}}" id="{{.ID}}">
<h3><span class="badge {{.State}}">{{.State}}</span> line {{.Line}}{{if .Label}} [{{.Label}}]{{end}}</h3>
<pre>{{.Formula}}</pre>
{{- range .Comparisons}}
<section class="comparison" data-outcome="{{.State}}">
<h4><span class="badge {{.State}}">{{.State}}</span> <code>{{.Result.Text}}</code></h4>
<p><span class="swatch left"></span>L = <code>{{.Left.Label}}</code>{{if and .Left.Scale (ne .Left.Scale 1.0)}} × {{.Left.Scale}}{{end}}<br>
<span class="swatch right"></span>R = <code>{{.Right.Label}}</code>{{if and .Right.Scale (ne .Right.Scale 1.0)}} × {{.Right.Scale}}{{end}}</p>
<p>{{.Meaning}}</p>
<table class="evidence">
{{- range .Rows}}
<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>
{{- end}}
</table>
<figure>
{{- if .SVG}}
{{.SVG}}
<figcaption>Per-fork distributions of time per operation (boxes: quartiles and median; whiskers: 1.5 × IQR; dots: outliers), as compared (after the formula's factor), and the mean of the fork means with its 95 % interval (triangle and bar).</figcaption>
{{- else}}
<figcaption class="warn">No plot: {{.PlotError}}</figcaption>
{{- end}}
</figure>
</section>
{{- end}}
</article>
{{- end}}
</section>
{{- end}}
{{- if .Costs}}
<h2 id="costs">Cost curves</h2>
<p class="note">Time per operation against the workload argument, for every method measured at a single integer argument.</p>
{{- range .Costs}}
<section class="cost">
<h3 class="mono">{{.Subject}}</h3>
<figure>
{{- if .SVG}}
{{.SVG}}
<figcaption>Dots: fork means; triangles and bars: the mean of the fork means with its 95 % interval; green line: the best fitted cost model.</figcaption>
{{- else}}
<figcaption class="warn">No plot: {{.PlotError}}</figcaption>
{{- end}}
</figure>
<table class="grid">
<tr><th>n</th><th>mean</th><th>95 % CI</th><th>forks</th></tr>
{{- range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</table>
<p>{{fit .Cost}}</p>
{{- if .Demands}}
<p>Demands per operation{{range .Demands}}; {{.Metric}} {{.Text}}{{end}} (docs/models.md).</p>
{{- end}}
{{- if .Callees}}
<p>Callees, from the stored model (perfls model; docs/models.md):</p>
<ul>{{range .Callees}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
</section>
{{- end}}
{{- end}}
</main>
</body>
</html>
`
