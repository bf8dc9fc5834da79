package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/perfls/perfls/analysis/report"
)

// seriesColors tell a panel's series (machine class and JVM) apart.
var seriesColors = []color.RGBA{
	leftColor, rightColor, fitColor,
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, {R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

// RenderHistory renders perfls history --html: one plot per workload and
// arguments of the method, its results over the commits with their 95 %
// intervals, one series per machine class and JVM, and every result in a
// table.
func RenderHistory(p *report.HistoryPlot, command string, generated time.Time) ([]byte, error) {
	v := historyView{HistoryPlot: p, Command: command, Generated: generated}
	for _, pn := range p.Panels {
		hp := historyPanel{Title: fmt.Sprintf("%s(%s)", pn.Workload, pn.Args)}
		if svg, err := HistorySVG(pn, p.Commits); err != nil {
			hp.PlotError = err.Error()
		} else {
			hp.SVG = template.HTML(svg)
		}
		v.Panels = append(v.Panels, hp)
	}
	var buf bytes.Buffer
	if err := historyPage.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("html history report: %w", err)
	}
	return buf.Bytes(), nil
}

type historyView struct {
	*report.HistoryPlot
	Command   string
	Generated time.Time
	Panels    []historyPanel
}

type historyPanel struct {
	Title     string
	SVG       template.HTML
	PlotError string
}

// HistorySVG draws one panel: x is the place of the commit on the axis
// (labelled with its short hash), y the mean time per operation; each
// result is a diamond with its interval, a series' results are joined in
// commit order and its points are shifted a little sideways so that two
// machines' results at one commit do not hide each other. The time axis is
// logarithmic when the results spread over more than a decade.
func HistorySVG(pn report.HistoryPanel, commits []report.HistoryCommit) (svg []byte, err error) {
	defer recoverPlot(&err)
	var ys []float64
	for _, s := range pn.Series {
		for _, pt := range s.Points {
			ys = append(ys, pt.Row.MeanNs)
		}
	}
	if len(ys) == 0 {
		return nil, fmt.Errorf("no result to plot")
	}
	p := plot.New()
	styleSans(p)
	p.Title.Text = "mean time per operation, 95 % interval over the forks"
	p.X.Label.Text = "commit"
	p.Y.Tick.Marker = durationTicks{}
	logY := useLog(ys)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logDurationTicks{}
	}
	floor := intervalFloor(ys, logY)
	n := len(pn.Series)
	for i, s := range pn.Series {
		clr := seriesColors[i%len(seriesColors)]
		shift := (float64(i) - float64(n-1)/2) * 0.12
		var means plotter.XYs
		var bars errPoints
		for _, pt := range s.Points {
			x, r := float64(pt.X)+shift, pt.Row
			means = append(means, plotter.XY{X: x, Y: r.MeanNs})
			if r.CIHighNs > r.CILowNs {
				bars = append(bars, errPoint{x: x, y: r.MeanNs, lo: r.MeanNs - math.Max(r.CILowNs, floor), hi: r.CIHighNs - r.MeanNs})
			}
		}
		line, sc, err := plotter.NewLinePoints(means)
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", s.Machine, err)
		}
		line.LineStyle.Color, line.LineStyle.Width = withAlpha(clr, 0x80), vg.Points(1)
		sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: draw.PyramidGlyph{}}
		p.Add(line, sc)
		if len(bars) > 0 {
			eb, err := plotter.NewYErrorBars(bars)
			if err != nil {
				return nil, fmt.Errorf("intervals: %w", err)
			}
			eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = clr, vg.Points(1.2), vg.Points(6)
			p.Add(eb)
		}
		p.Legend.Add(seriesName(s), sc)
	}
	p.Legend.Top, p.Legend.Left = true, true
	if logY { // room above the points for the legend
		p.Y.Max *= 1.6
	} else {
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.18
	}
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.X.Tick.Marker = plot.ConstantTicks(commitTicks(commits))
	p.X.Min, p.X.Max = -0.5, float64(len(commits))-0.5
	return writeSVG(p, 24*vg.Centimeter, 10*vg.Centimeter)
}

func seriesName(s report.HistorySeries) string {
	if s.JVM == "" {
		return s.Machine
	}
	return s.Machine + " · " + s.JVM
}

// commitTicks label the commits with their short hash, at most about 16 of
// them (evenly spread) so the labels stay readable; the last is always
// labelled.
func commitTicks(commits []report.HistoryCommit) []plot.Tick {
	step := max(1, (len(commits)+15)/16)
	var ticks []plot.Tick
	for i, c := range commits {
		t := plot.Tick{Value: float64(i)}
		if i%step == 0 || i == len(commits)-1 {
			t.Label = fmt.Sprintf("%.7s", c.Commit)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

var historyPage = template.Must(template.New("history").Funcs(pageFuncs).Funcs(template.FuncMap{
	"ns": report.Duration,
	// ci is a row's interval, its lower bound clamped at 0 (a time), saying so.
	"ci": func(lo, hi float64) string {
		if lo < 0 {
			return fmt.Sprintf("[0 ns, %s] (%s)", report.Duration(hi), report.ClampNote)
		}
		return fmt.Sprintf("[%s, %s]", report.Duration(lo), report.Duration(hi))
	},
	"short": func(c string, dirty bool) string {
		if c == "" {
			return "–"
		}
		if dirty {
			return fmt.Sprintf("%.10s+dirty", c)
		}
		return fmt.Sprintf("%.10s", c)
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>perfls history {{.Method}}</title>
<style>
{{css}}
</style>
</head>
<body>
<h1>perfls history <code>{{.Method}}</code></h1>
<table>
<tr><th>results</th><td>{{len .Rows}} stored, {{len .Commits}} commits plotted{{if .Left}}, {{.Left}} not plotted (no commit, a tree with changes, or a commit off this line){{end}}</td></tr>
<tr><th>commits</th><td>{{.Order}}</td></tr>
<tr><th>command</th><td class="mono">{{.Command}}</td></tr>
<tr><th>generated</th><td>{{time .Generated}}</td></tr>
</table>
{{range .Panels}}<h2 class="mono">{{.Title}}</h2>
{{if .SVG}}<figure>{{.SVG}}<figcaption class="note">One series per machine class and JVM: each result's mean of the fork means (diamond) with its 95 % interval over the forks (none with one fork).</figcaption></figure>{{end}}
{{if .PlotError}}<p class="note">plot not drawn: {{.PlotError}}</p>{{end}}
{{else}}<p class="note">No result to plot: measure the method in a clean work tree (perfls check, perfls measure) at commits of this line.</p>
{{end}}
{{if .Commits}}<h2>Commits</h2>
<table class="grid">
<tr><th>#</th><th>commit</th><th>subject</th></tr>
{{range $i, $c := .Commits}}<tr><td>{{$i}}</td><td class="mono">{{$c.Commit}}</td><td>{{$c.Subject}}</td></tr>
{{end}}</table>{{end}}
<h2>Results</h2>
<table class="grid">
<tr><th>ID</th><th>measured</th><th>commit</th><th>machine</th><th>JVM</th><th>workload(args)</th><th>forks</th><th>time/op</th><th>95 % interval</th><th>review</th></tr>
{{range .Rows}}<tr><td>{{.ID}}</td><td>{{time .MeasuredAt}}</td><td class="mono">{{short .Commit .Dirty}}</td><td>{{.Machine}}</td><td>{{.JVM}}</td><td class="mono">{{.Workload}}({{.Args}})</td><td>{{.Forks}}</td><td>{{ns .MeanNs}}</td><td>{{if .CIHighNs}}{{ci .CILowNs .CIHighNs}}{{else}}–{{end}}</td><td>{{or .Review "–"}}</td></tr>
{{end}}</table>
</body>
</html>
`))
