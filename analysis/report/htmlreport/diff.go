package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/perfls/perfls/analysis/report"
)

// RenderDiff renders perfls diff's result as one self-contained page: the
// counts, every compared workload with both trees' figures, and a plot of
// every ratio head/base with its interval against the "same" band.
func RenderDiff(d *report.Diff, command string, generated time.Time, elapsed time.Duration) ([]byte, error) {
	v := diffView{Diff: d, Command: command, Generated: generated, Elapsed: elapsed, Counts: map[string]int{}}
	for _, c := range d.Changes {
		state := c.Verdict
		if c.Failed {
			state = "failed"
		}
		v.Counts[state]++
		row := diffRow{DiffChange: c, State: state, Ratio: "–", Base: "–", Head: "–"}
		if c.Base != nil && c.Head != nil && c.Reason == "" {
			row.Ratio = fmt.Sprintf("%.3g [%.3g, %.3g]", float64(c.Ratio), float64(c.Low), float64(c.High))
		}
		if c.Base != nil {
			row.Base = figures(*c.Base)
		}
		if c.Head != nil {
			row.Head = figures(*c.Head)
		}
		v.Rows = append(v.Rows, row)
	}
	if svg, err := RatioSVG(d); err != nil {
		v.PlotError = err.Error()
	} else if svg != nil {
		v.SVG = template.HTML(svg)
	}
	var buf bytes.Buffer
	if err := diffPage.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("html diff report: %w", err)
	}
	return buf.Bytes(), nil
}

func figures(f report.DiffFigures) string {
	return fmt.Sprintf("%s/op [%s, %s], %d forks", report.Duration(float64(f.MeanNs)), report.Duration(float64(f.LowNs)), report.Duration(float64(f.HighNs)), f.Forks)
}

type diffView struct {
	*report.Diff
	Command   string
	Generated time.Time
	Elapsed   time.Duration
	Counts    map[string]int
	Rows      []diffRow
	SVG       template.HTML
	PlotError string
}

type diffRow struct {
	report.DiffChange
	State, Ratio, Base, Head string
}

// RatioSVG draws every compared workload's ratio head/base (a diamond) with
// its confidence interval on a log axis, one row each, and shades the band
// 1 ± margin inside which a ratio counts as the same. Nil when no change
// has a ratio.
func RatioSVG(d *report.Diff) (svg []byte, err error) {
	defer recoverPlot(&err)
	var rows []report.DiffChange
	for _, c := range d.Changes {
		if c.Base != nil && c.Head != nil && c.Reason == "" && float64(c.Ratio) > 0 {
			rows = append(rows, c)
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	p := plot.New()
	styleSans(p)
	p.Title.Text = "head / base: mean time per operation, 95 % interval"
	p.X.Label.Text = "ratio (log scale; < 1 faster, > 1 slower)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = ratioTicks{}
	lo, hi := 1-d.Margin, 1+d.Margin
	var names []string
	for i, c := range rows {
		y := float64(len(rows) - i)
		clr := map[string]color.RGBA{report.Slower: {R: 0xc6, G: 0x28, B: 0x28, A: 0xff}, report.Faster: {R: 0x2e, G: 0x7d, B: 0x32, A: 0xff}}[c.Verdict]
		if clr.A == 0 {
			clr = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: float64(c.Ratio), Y: y}})
		if err != nil {
			return nil, fmt.Errorf("ratio marker: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: draw.PyramidGlyph{}}
		p.Add(sc)
		if l, h := float64(c.Low), float64(c.High); l > 0 && h >= l && !math.IsInf(h, 0) {
			line, err := plotter.NewLine(plotter.XYs{{X: l, Y: y}, {X: h, Y: y}})
			if err != nil {
				return nil, fmt.Errorf("interval: %w", err)
			}
			line.LineStyle.Color, line.LineStyle.Width = clr, vg.Points(1.5)
			p.Add(line)
			lo, hi = math.Min(lo, l), math.Max(hi, h)
		}
		lo, hi = math.Min(lo, float64(c.Ratio)), math.Max(hi, float64(c.Ratio))
		names = append(names, fmt.Sprintf("%s(%s)", shortMethod(c.Method), c.Args))
	}
	band, err := plotter.NewPolygon(plotter.XYs{{X: 1 - d.Margin, Y: 0.5}, {X: 1 + d.Margin, Y: 0.5},
		{X: 1 + d.Margin, Y: float64(len(rows)) + 0.5}, {X: 1 - d.Margin, Y: float64(len(rows)) + 0.5}})
	if err != nil {
		return nil, fmt.Errorf("same band: %w", err)
	}
	band.Color = color.NRGBA{R: 0x88, G: 0x88, B: 0x88, A: 0x30}
	band.LineStyle.Width = 0
	p.Add(band)
	p.X.Min, p.X.Max = lo/1.1, hi*1.1
	p.Y.Min, p.Y.Max = 0.5, float64(len(rows))+0.5
	var ticks []plot.Tick
	for i, n := range names {
		ticks = append(ticks, plot.Tick{Value: float64(len(rows) - i), Label: n})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return writeSVG(p, 24*vg.Centimeter, vg.Length(3+len(rows))*vg.Centimeter*0.6)
}

// ratioTicks label the ratios people read on a log axis (×½, ×0.9, ×1,
// ×1.1, ×2, …) that fall in the range; log ticks would label powers of ten
// only.
type ratioTicks struct{}

func (ratioTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, decade := range []float64{0.001, 0.01, 0.1, 1, 10, 100, 1000} {
		for _, m := range []float64{1, 1.25, 1.5, 2, 3, 5, 8} {
			v := decade * m
			if decade == 0.1 && m == 8 || decade == 1 && m == 1.25 {
				continue // crowded beside 0.9 and 1.1
			}
			if v >= min && v <= max {
				out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
			}
		}
	}
	for _, v := range []float64{0.9, 1.1} {
		if v >= min && v <= max {
			out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
		}
	}
	return out
}

// shortMethod drops the package and parameters: "pkg.C#m(int[])" → "C#m".
func shortMethod(m string) string {
	m, _, _ = strings.Cut(m, "(")
	if i := strings.LastIndex(m[:max(strings.Index(m, "#"), 0)], "."); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// pageCSS is the style the diff and history pages share.
const pageCSS template.CSS = `body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 75rem; padding: 1rem 1.5rem 3rem; color: #222; line-height: 1.4; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .92em; }
table { border-collapse: collapse; margin: .4rem 0; }
th, td { text-align: left; vertical-align: top; padding: .25rem .7rem .25rem 0; }
table.grid th, table.grid td { border-bottom: 1px solid #e4e4e4; padding: .25rem .7rem; }
svg { width: 100%; max-width: 70rem; height: auto; }
.note { color: #555; }`

// pageFuncs are the template functions the diff and history pages share.
var pageFuncs = template.FuncMap{
	"time": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"css":  func() template.CSS { return pageCSS },
}

var diffPage = template.Must(template.New("diff").Funcs(pageFuncs).Funcs(template.FuncMap{
	"secs":        func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) },
	"pct":         func(x float64) string { return fmt.Sprintf("%g", 100*x) },
	"alpha":       report.FormatAlpha,
	"looksPhrase": func() string { return report.LooksPhrase },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>perfls diff {{printf "%.12s" .Base}}</title>
<style>
{{css}}
.badge { display: inline-block; border-radius: .3rem; padding: .05rem .5rem; font-weight: 600; color: #fff; margin-right: .4rem; }
.slower, .failed { background: #c62828; } .faster { background: #2e7d32; } .same { background: #555; } .undecided { background: #8d6e00; }
</style>
</head>
<body>
<h1>perfls diff</h1>
<p id="summary"><span class="badge slower">{{index .Counts "slower"}} slower</span><span class="badge faster">{{index .Counts "faster"}} faster</span><span class="badge same">{{index .Counts "same"}} same</span><span class="badge undecided">{{index .Counts "undecided"}} undecided</span>{{if index .Counts "failed"}}<span class="badge failed">{{index .Counts "failed"}} failed</span>{{end}} <span class="note">{{len .Unchanged}} unchanged (not measured)</span></p>
<table>
<tr><th>base</th><td class="mono">{{.Base}} ({{.BaseName}})</td></tr>
<tr><th>head</th><td class="mono">{{.Head}}</td></tr>
<tr><th>command</th><td class="mono">{{.Command}}</td></tr>
<tr><th>generated</th><td>{{time .Generated}}, in {{secs .Elapsed}}</td></tr>
<tr><th>statistics</th><td>α = {{alpha .Alpha}} over all looks ({{looksPhrase}}); same = ratio interval inside 1 ± {{pct .Margin}} %; {{.Measured}} measured, {{.Cached}} from the cache</td></tr>
</table>
{{if .SVG}}<figure>{{.SVG}}<figcaption class="note">Each row: the ratio of the head's mean time to the base's (diamond) and its interval; the grey band is "same".</figcaption></figure>{{end}}
{{if .PlotError}}<p class="note">plot not drawn: {{.PlotError}}</p>{{end}}
<table class="grid">
<tr><th>verdict</th><th>method[workload](args)</th><th>base</th><th>head</th><th>ratio [interval]</th></tr>
{{range .Rows}}<tr><td><span class="badge {{.State}}">{{.State}}</span></td><td class="mono">{{.Method}}[{{.Workload}}]({{.Args}}){{if .Reason}}<br><span class="note">{{.Reason}}</span>{{end}}</td><td>{{.Base}}</td><td>{{.Head}}</td><td>{{.Ratio}}</td></tr>
{{end}}</table>
{{if .Unchanged}}<h2>Unchanged</h2><p class="note">The code (method, workload and every project class they reach) is the base's: not measured.</p><ul>{{range .Unchanged}}<li class="mono">{{.}}</li>{{end}}</ul>{{end}}
{{if .Added}}<h2>Added</h2><ul>{{range .Added}}<li class="mono">{{.}}</li>{{end}}</ul>{{end}}
{{if .Removed}}<h2>Removed</h2><ul>{{range .Removed}}<li class="mono">{{.}}</li>{{end}}</ul>{{end}}
{{if .Notices}}<h2>Notes</h2><ul>{{range .Notices}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body>
</html>
`))
