package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/stats"
)

// Fit is one fitted dependency y(n) = A + B·g(n) (for "n^k": A·n^B), with
// the covariance of its coefficients (stats.CostFit.Cov) so that a model
// file alone can give a prediction's interval.
type Fit struct {
	Model string  `json:"model"` // "1", "log n", "n", "n log n", "n^2", "n^k"
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	K     int     `json:"k"`
	// Poly are the coefficients of an exact polynomial (Model "exact",
	// invocation counts), constant term first.
	Poly []float64     `json:"poly,omitempty"`
	Cov  [2][2]float64 `json:"cov"`
	DF   int           `json:"df"`
	// Disp is the values' squared relative deviation from the curve
	// (stats.CostFit.Disp): what a prediction interval adds for a value's
	// own deviation. 0 in models written before it was recorded.
	Disp  float64 `json:"dispersion,omitempty"`
	AICc  float64 `json:"aicc"`
	AdjR2 float64 `json:"adj_r2"`
}

func (f Fit) cost() stats.CostFit {
	return stats.CostFit{Model: f.Model, A: f.A, B: f.B, K: f.K, Cov: f.Cov, DF: f.DF, Disp: f.Disp, Valid: true}
}

// Dependency is how one metric depends on the workload parameter: the
// selected model (lowest AICc), the models the data cannot tell apart from
// it (their fits too: a prediction's interval covers them all), and the
// range of parameter values it was fitted on.
type Dependency struct {
	Metric Metric `json:"metric"`
	// Callee is the callee whose demand this is; "" for the operation's.
	Callee string `json:"callee,omitempty"`
	Unit   string `json:"unit"`
	// Text reads e.g. "≈ 0.9·n² + 12 ns".
	Text       string     `json:"text"`
	Best       Fit        `json:"best"`
	Indistinct []Fit      `json:"indistinct,omitempty"` // other models within ΔAICc < 2·ln 8
	Range      [2]float64 `json:"fitted_range"`
	Points     int        `json:"points"` // fork figures (the fit is on their mean per value)
	Note       string     `json:"note,omitempty"`
}

// Point is a metric's per-fork figures at one parameter value.
type Point struct {
	N       float64
	Figures []float64
}

// FitDependency selects and fits a model of y(n) over the points
// (stats.FitCostModels: weighted least squares with weights 1/ŷ², AICc on
// the log scale). From MinValuesForMeans values on, the fit is on one
// point per value, the mean of its figures: the forks of one value share
// that value's own deviation from any smooth curve (its data's place in
// the caches, its branch pattern), and fitted one by one they would count
// as independent, so that the intervals would claim a precision the values
// do not have. With fewer values the figures are fitted one by one (the
// model selection needs 4 points) and the note says that the intervals
// leave the values' own deviations out. Every figure must be positive,
// except that all-zero figures give the constant 0 (a method that never
// collects garbage).
func FitDependency(m Metric, pts []Point) (Dependency, error) {
	d := Dependency{Metric: m, Unit: m.Unit(), Range: [2]float64{math.Inf(1), math.Inf(-1)}}
	var cps, means []stats.CostPoint
	zeros, figures := 0, 0
	for _, p := range pts {
		if len(p.Figures) == 0 {
			continue
		}
		d.Range[0], d.Range[1] = math.Min(d.Range[0], p.N), math.Max(d.Range[1], p.N)
		for _, y := range p.Figures {
			if y == 0 {
				zeros++
			}
			cps = append(cps, stats.CostPoint{N: p.N, Y: y})
		}
		figures += len(p.Figures)
		means = append(means, stats.CostPoint{N: p.N, Y: mean(p.Figures)})
	}
	byValue := len(means) >= MinValuesForMeans
	if byValue {
		cps = means
	}
	d.Points = figures
	if figures == 0 {
		return d, fmt.Errorf("%s: nothing measured", m)
	}
	if zeros == figures {
		d.Best = Fit{Model: "1", K: 1, DF: len(cps) - 1}
		d.Text = "= 0" + unitText(d.Unit)
		return d, nil
	}
	if zeros > 0 {
		return d, fmt.Errorf("%s: zero at some parameter values and not at others, which the models (positive, with relative errors) cannot fit", m)
	}
	res, err := stats.FitCostModels(cps)
	if err != nil {
		return d, fmt.Errorf("%s: %w", m, err)
	}
	if res.Best == "" {
		return d, fmt.Errorf("%s: no model fits (%d figures at %d values; 4 or more figures are needed)", m, figures, len(means))
	}
	for _, f := range res.Fits {
		if !f.Valid {
			continue
		}
		fit := Fit{Model: f.Model, A: f.A, B: f.B, K: f.K, Cov: f.Cov, DF: f.DF, Disp: f.Disp, AICc: f.AICc, AdjR2: f.AdjR2}
		if math.IsNaN(fit.AdjR2) {
			fit.AdjR2 = 0
		}
		switch {
		case f.Model == res.Best:
			d.Best = fit
		case contains(res.Indistinct, f.Model):
			d.Indistinct = append(d.Indistinct, fit)
		}
	}
	d.Text = "≈ " + Formula(d.Best, d.Unit)
	d.Note = res.Note
	if !byValue && figures > len(means) {
		d.Note = strings.TrimPrefix(d.Note+"; ", "; ") + fmt.Sprintf("fitted fork by fork (fewer than %d values): the intervals leave out how far each value itself departs from the curve", MinValuesForMeans)
	}
	return d, nil
}

// MinValuesForMeans is how many parameter values FitDependency needs to
// fit one point per value: the model selection's AICc needs 4 points.
const MinValuesForMeans = 4

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// Formula renders a fit for people: "0.9·n² + 12 ns", "3.1·n^1.52 ns".
func Formula(f Fit, unit string) string {
	u := unitText(unit)
	switch f.Model {
	case "1":
		return num(f.A) + u
	case "n^k":
		return num(f.A) + "·n^" + strconv.FormatFloat(f.B, 'f', 2, 64) + u
	case ExactModel:
		return polyText(f.Poly) + u
	}
	term := num(f.B) + "·" + strings.NewReplacer("n^2", "n²").Replace(f.Model)
	switch {
	case num(f.A) == "0":
		return term + u
	case f.A < 0:
		return term + " − " + num(-f.A) + u
	}
	return term + " + " + num(f.A) + u
}

func unitText(unit string) string {
	if unit == "1" {
		return ""
	}
	return " " + unit
}

// num renders with three significant digits, without an exponent for
// ordinary magnitudes ("1.23e+04" reads 12300).
func num(x float64) string {
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if a := math.Abs(x); strings.Contains(s, "e") && a >= 1e-3 && a < 1e9 {
		f, _ := strconv.ParseFloat(s, 64)
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

// Prediction is a metric's predicted value at one parameter value.
type Prediction struct {
	Metric Metric   `json:"metric"`
	Unit   string   `json:"unit"`
	N      float64  `json:"n"`
	Value  float64  `json:"value"`
	CI95   Interval `json:"ci95"`
	// PI95 is where a measurement at N is expected (95 %): CI95 widened by
	// the values' own deviation from the curve (Fit.Disp) — the interval
	// to compare a measurement with.
	PI95  Interval `json:"pi95"`
	Model string   `json:"model"`
	// Extrapolated is true outside the fitted range: the interval then
	// only says what the chosen models agree on, not that they hold there.
	Extrapolated bool `json:"extrapolated"`
}

// Predict evaluates the dependency at n: the best model's value, and the
// 95 % confidence interval of the fitted mean widened to cover the models
// the data cannot tell apart from it.
func (d Dependency) Predict(n float64) Prediction {
	p := Prediction{Metric: d.Metric, Unit: d.Unit, N: n, Model: d.Best.Model,
		Value: d.Best.cost().Predict(n), CI95: Interval{math.NaN(), math.NaN()}, PI95: Interval{math.NaN(), math.NaN()},
		Extrapolated: n < d.Range[0] || n > d.Range[1]}
	if d.Best.Model == ExactModel {
		p.Value = polyAt(d.Best.Poly, n)
		p.CI95, p.PI95 = Interval{p.Value, p.Value}, Interval{p.Value, p.Value}
		return p
	}
	if d.Best.Model == "1" && d.Best.A == 0 {
		p.CI95, p.PI95 = Interval{0, 0}, Interval{0, 0}
		return p
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	plo, phi := math.Inf(1), math.Inf(-1)
	for _, f := range append([]Fit{d.Best}, d.Indistinct...) {
		l, h, ok := f.cost().Interval(n, 0.95)
		pl, ph, _ := f.cost().PredictionInterval(n, 0.95)
		if !ok {
			return p
		}
		lo, hi = math.Min(lo, l), math.Max(hi, h)
		plo, phi = math.Min(plo, pl), math.Max(phi, ph)
	}
	// Every metric is non-negative: a linear model's interval may reach
	// below zero, the demand cannot.
	p.CI95, p.PI95 = Interval{math.Max(lo, 0), hi}, Interval{math.Max(plo, 0), phi}
	return p
}
