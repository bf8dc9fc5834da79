package htmlreport

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
)

// Colours of the two sides of a comparison, also used by the page's legend.
var (
	leftColor  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff} // blue
	rightColor = color.RGBA{R: 0xe6, G: 0x7e, B: 0x22, A: 0xff} // orange
	fitColor   = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff} // green
)

// ciLevel is the level of every interval the plots draw.
const ciLevel = 0.95

// meanCI summarizes fork means: their mean and the Student-t interval of
// it; the interval is NaN with fewer than two forks.
func meanCI(forkMeans []float64) (mean, low, high float64) {
	s := stats.Summarize(forkMeans)
	low, high = stats.MeanCI(s, ciLevel)
	return s.Mean, low, high
}

// forkMeans returns the mean of every non-empty fork, scaled.
func forkMeans(forks [][]float64, scale float64) []float64 {
	var out []float64
	for _, f := range forks {
		if len(f) == 0 {
			continue
		}
		out = append(out, scale*stats.Summarize(f).Mean)
	}
	return out
}

func scaleOf(s Side) float64 {
	if s.Scale == 0 {
		return 1
	}
	return s.Scale
}

// ComparisonSVG draws the per-fork distributions of both sides of a
// comparison as box plots (after the formula's factor, so that the two sides
// are drawn as they were compared), each followed by the mean of the fork
// means with its 95 % interval. The time axis is logarithmic when the sides
// differ by more than a factor of ten.
func ComparisonSVG(c Comparison) (svg []byte, err error) {
	defer recoverPlot(&err)
	p := plot.New()
	styleSans(p)
	p.Title.Text = "time per operation"
	p.Y.Tick.Marker = durationTicks{}

	type group struct {
		side  Side
		color color.RGBA
		name  string
	}
	groups := []group{{c.Left, leftColor, "L"}, {c.Right, rightColor, "R"}}
	type meanMark struct {
		x, mean, low, high float64
		color              color.RGBA
	}
	var names []string
	var all []float64 // samples and means: they choose the scale
	var marks []meanMark
	pos := 0.0
	for gi, g := range groups {
		if gi > 0 {
			names = append(names, "") // a gap between the sides
			pos++
		}
		scale := scaleOf(g.side)
		fork := 0
		for _, f := range g.side.Forks {
			if len(f) == 0 {
				continue
			}
			fork++
			vals := make(plotter.Values, len(f))
			for i, v := range f {
				vals[i] = scale * v
			}
			all = append(all, vals...)
			box, err := plotter.NewBoxPlot(vg.Points(14), pos, vals)
			if err != nil {
				return nil, fmt.Errorf("box plot of %s fork %d: %w", g.name, fork, err)
			}
			box.BoxStyle.Color = g.color
			box.MedianStyle.Color = g.color
			box.MedianStyle.Width = vg.Points(1.5)
			box.WhiskerStyle.Color = g.color
			box.GlyphStyle.Color = g.color
			box.GlyphStyle.Radius = vg.Points(1.5)
			box.FillColor = withAlpha(g.color, 0x30)
			p.Add(box)
			names = append(names, fmt.Sprintf("%s%d", g.name, fork))
			pos++
		}
		means := forkMeans(g.side.Forks, scale)
		if len(means) == 0 {
			names = append(names, g.name+": no data")
			pos++
			continue
		}
		mean, low, high := meanCI(means)
		marks = append(marks, meanMark{pos, mean, low, high, g.color})
		all = append(all, mean)
		names = append(names, g.name+" mean")
		pos++
	}
	p.NominalX(names...)
	logY := useLog(all)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logDurationTicks{}
		p.Title.Text = "time per operation (log scale)"
	}
	floor := intervalFloor(all, logY)
	for _, m := range marks {
		if err := addMeanCI(p, m.x, m.mean, math.Max(m.low, floor), m.high, m.color); err != nil {
			return nil, err
		}
	}
	return writeSVG(p, 6*vg.Inch, 3.2*vg.Inch)
}

// intervalFloor is where the lower end of an interval is cut: a time is
// not negative, and a log axis ends above zero (there at the smallest value
// drawn, over 1.5).
func intervalFloor(values []float64, logY bool) float64 {
	if !logY {
		return 0
	}
	lo := math.Inf(1)
	for _, v := range values {
		lo = math.Min(lo, v)
	}
	return lo / 1.5
}

// addMeanCI draws a mean as a diamond with its interval as an error bar.
func addMeanCI(p *plot.Plot, x, mean, low, high float64, clr color.Color) error {
	pt := plotter.XYs{{X: x, Y: mean}}
	sc, err := plotter.NewScatter(pt)
	if err != nil {
		return fmt.Errorf("mean marker: %w", err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: draw.PyramidGlyph{}}
	p.Add(sc)
	if math.IsNaN(low) || math.IsNaN(high) {
		return nil
	}
	eb, err := plotter.NewYErrorBars(errPoints{{x: x, y: mean, lo: mean - low, hi: high - mean}})
	if err != nil {
		return fmt.Errorf("interval: %w", err)
	}
	eb.LineStyle.Color = clr
	eb.LineStyle.Width = vg.Points(1.5)
	eb.CapWidth = vg.Points(10)
	p.Add(eb)
	return nil
}

// CostSVG draws a cost curve: time per operation against the workload
// argument on log–log axes, every fork mean as a dot, the mean of each
// argument with its 95 % interval, and the best fitted cost model as a line.
func CostSVG(c Cost) (svg []byte, err error) {
	defer recoverPlot(&err)
	if len(c.Points) == 0 {
		return nil, errors.New("cost curve without points")
	}
	p := plot.New()
	styleSans(p)
	p.X.Label.Text = "workload argument n"
	p.Title.Text = "time per operation"
	p.Y.Tick.Marker = durationTicks{}
	s := costSeriesOf(c.Points)
	if len(s.means) == 0 {
		return nil, errors.New("cost curve without measurements")
	}
	logX, logY := allPositive(s.xs) && spread(s.xs) >= 10, useLog(s.ys)
	// Label the measured arguments.
	var ticks []plot.Tick
	for _, x := range s.xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: fmt.Sprintf("%g", x)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if logX {
		p.X.Scale = plot.LogScale{}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logDurationTicks{}
		p.Title.Text = "time per operation (log scale)"
	}
	floor := intervalFloor(s.ys, logY)
	for i := range s.bars { // from bounds to distances, cut at the floor
		s.bars[i].lo, s.bars[i].hi = s.bars[i].y-math.Max(s.bars[i].lo, floor), s.bars[i].hi-s.bars[i].y
	}
	fit := c.Fit
	if c.DistinctValues() < report.MinModelValues { // no curve the data cannot choose
		fit = nil
	}
	if err := addFit(p, fit, s.xs[0], s.xs[len(s.xs)-1], logX); err != nil {
		return nil, err
	}
	if err := s.add(p); err != nil {
		return nil, err
	}
	// Keep a little room around the extreme points.
	if logX {
		p.X.Min, p.X.Max = p.X.Min/1.5, p.X.Max*1.5
	} else {
		pad := (p.X.Max - p.X.Min) * 0.05
		p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	}
	return writeSVG(p, 5*vg.Inch, 3.2*vg.Inch)
}

// costSeries are a cost curve's plotted points: every fork mean, the mean
// per argument with its interval, and the values the axes must hold.
type costSeries struct {
	dots, means plotter.XYs
	bars        errPoints
	xs, ys      []float64
}

func costSeriesOf(points []CostPoint) costSeries {
	var s costSeries
	pts := append([]CostPoint(nil), points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].N < pts[j].N })
	for _, pt := range pts {
		if len(pt.ForkMeans) == 0 {
			continue
		}
		for _, y := range pt.ForkMeans {
			s.dots = append(s.dots, plotter.XY{X: pt.N, Y: y})
			s.ys = append(s.ys, y)
		}
		mean, low, high := meanCI(pt.ForkMeans)
		s.means = append(s.means, plotter.XY{X: pt.N, Y: mean})
		s.xs = append(s.xs, pt.N)
		s.ys = append(s.ys, mean)
		if !math.IsNaN(low) {
			s.bars = append(s.bars, errPoint{x: pt.N, y: mean, lo: low, hi: high})
		}
	}
	return s
}

// add plots the fork means as dots, the means as triangles and their
// intervals as bars.
func (s costSeries) add(p *plot.Plot) error {
	sc, err := plotter.NewScatter(s.dots)
	if err != nil {
		return fmt.Errorf("fork means: %w", err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: withAlpha(leftColor, 0x90), Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	ms, err := plotter.NewScatter(s.means)
	if err != nil {
		return fmt.Errorf("means: %w", err)
	}
	ms.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.PyramidGlyph{}}
	p.Add(ms)
	if len(s.bars) > 0 {
		eb, err := plotter.NewYErrorBars(s.bars)
		if err != nil {
			return fmt.Errorf("intervals: %w", err)
		}
		eb.LineStyle.Width = vg.Points(1.2)
		eb.CapWidth = vg.Points(8)
		p.Add(eb)
	}
	return nil
}

// addFit draws the best fitted model between lo and hi, when there is one.
func addFit(p *plot.Plot, fit *stats.CostModels, lo, hi float64, logX bool) error {
	if fit == nil || fit.Best == "" {
		return nil
	}
	for _, f := range fit.Fits {
		if f.Model != fit.Best || !f.Valid {
			continue
		}
		line, err := modelLine(f, lo, hi, logX)
		if err != nil {
			return err
		}
		line.Color = fitColor
		line.Width = vg.Points(1.5)
		p.Add(line)
	}
	return nil
}

// modelLine samples a fitted model between lo and hi.
func modelLine(f stats.CostFit, lo, hi float64, logX bool) (*plotter.Line, error) {
	const steps = 48
	var pts plotter.XYs
	for i := 0; i <= steps; i++ {
		t := float64(i) / steps
		n := lo + t*(hi-lo)
		if logX {
			n = lo * math.Pow(hi/lo, t)
		}
		if y := f.Predict(n); y > 0 && !math.IsInf(y, 0) {
			pts = append(pts, plotter.XY{X: n, Y: y})
		}
	}
	if len(pts) < 2 {
		return nil, fmt.Errorf("model %s predicts no positive time between n=%g and n=%g", f.Model, lo, hi)
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", f.Model, err)
	}
	return line, nil
}

// writeSVG renders p into an SVG document without the XML prolog, ready to
// be inlined into HTML.
func writeSVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("svg: %w", err)
	}
	b := buf.Bytes()
	i := bytes.Index(b, []byte("<svg"))
	if i < 0 {
		return nil, errors.New("svg: the canvas wrote no <svg> element")
	}
	return b[i:], nil
}

// recoverPlot turns a panic inside gonum/plot (it panics on some degenerate
// data, e.g. a log scale over non-positive values) into an error.
func recoverPlot(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("plot: %v", r)
	}
}

// styleSans switches the plot's text to the sans-serif face.
func styleSans(p *plot.Plot) {
	p.Title.TextStyle.Font.Variant = "Sans"
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Variant = "Sans"
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Variant = "Sans"
		ax.Tick.Label.Font.Variant = "Sans"
	}
}

func withAlpha(c color.RGBA, a uint8) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a}
}

// useLog says whether values spread over more than a decade and can all be
// drawn on a log scale.
func useLog(xs []float64) bool { return allPositive(xs) && spread(xs) > 10 }

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return false
		}
	}
	return len(xs) > 0
}

func spread(xs []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return hi / lo
}

// errPoint is a point with asymmetric vertical error.
type errPoint struct{ x, y, lo, hi float64 }

type errPoints []errPoint

func (e errPoints) Len() int                         { return len(e) }
func (e errPoints) XY(i int) (float64, float64)      { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (low, high float64) { return e[i].lo, e[i].hi }

// durationTicks labels a linear time axis in readable units.
type durationTicks struct{}

func (durationTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = report.Duration(ts[i].Value)
		}
	}
	return ts
}

// logDurationTicks labels a log time axis in readable units.
type logDurationTicks struct{}

func (logDurationTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
	labelled := 0
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = report.Duration(ts[i].Value)
			if ts[i].Value >= min && ts[i].Value <= max {
				labelled++
			}
		}
	}
	if labelled < 2 {
		// Less than a decade: label with the linear ticks' values instead.
		var pos []plot.Tick
		for _, t := range (durationTicks{}).Ticks(min, max) {
			if t.Value > 0 {
				pos = append(pos, t)
			}
		}
		return pos
	}
	return ts
}
