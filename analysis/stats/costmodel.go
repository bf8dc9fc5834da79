package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Cost models: time per operation as a function of one workload parameter n
// (reference 002-pcm-extraction §3.2). Each class g ∈ {1, log n, n, n log n,
// n²} is fitted as y = a + b·g(n) by least squares weighted with 1/y² (relative
// error), rejecting b < 0; the power law y = a·n^k is fitted on the log scale.
// All models are scored on the same footing: the residuals log y − log ŷ,
// with AICc and adjusted R² computed from them. A model whose evidence ratio
// against the best, exp(ΔAICc/2), is below 8 (ΔAICc < 2·ln 8 ≈ 4.16, Royall's
// 1/8 likelihood rule) cannot be told apart from it by the data.

// CostPoint is one measured point: the parameter value and a time per op
// (use the median of a measurement; repeat N for several measurements).
type CostPoint struct {
	N float64
	Y float64
}

// CostFit is one fitted model.
type CostFit struct {
	Model string  // "1", "log n", "n", "n log n", "n^2", "n^k"
	A, B  float64 // y = A + B·g(n); for "n^k": y = A·n^B
	K     int     // parameters
	RSS   float64 // residual sum of squares of log y
	AICc  float64
	AdjR2 float64 // adjusted R² of log y (NaN when undefined)
	Valid bool    // false when the fit is impossible (b < 0, ŷ ≤ 0, too few points)
	Why   string  // why not valid
	// Cov is the covariance of (A, B) of the weighted least-squares fit,
	// σ̂²·(XᵀWX)⁻¹, on the scale the model is fitted on (for "n^k": of
	// (ln A, B) on the log scale); DF its residual degrees of freedom. Set
	// when DF ≥ 1.
	Cov [2][2]float64
	DF  int
}

// Interval is the confidence interval of the fitted mean at n at the
// given level (0.95): a Student-t interval with DF degrees of freedom on
// the fit's scale (the log scale for "n^k", transformed back). ok is
// false without residual degrees of freedom.
func (f CostFit) Interval(n, level float64) (lo, hi float64, ok bool) {
	if f.DF < 1 || !f.Valid {
		return math.NaN(), math.NaN(), false
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.DF)}.Quantile(1 - (1-level)/2)
	x := []float64{1, costG(f.Model, n)}
	if f.Model == "n^k" {
		x[1] = math.Log(n)
	}
	if f.K == 1 {
		x[1] = 0
	}
	v := x[0]*x[0]*f.Cov[0][0] + 2*x[0]*x[1]*f.Cov[0][1] + x[1]*x[1]*f.Cov[1][1]
	se := math.Sqrt(math.Max(v, 0))
	if f.Model == "n^k" {
		c := math.Log(f.A) + f.B*math.Log(n)
		return math.Exp(c - t*se), math.Exp(c + t*se), true
	}
	y := f.Predict(n)
	return y - t*se, y + t*se, true
}

// Predict evaluates the model at n.
func (f CostFit) Predict(n float64) float64 {
	if f.Model == "n^k" {
		return f.A * math.Pow(n, f.B)
	}
	return f.A + f.B*costG(f.Model, n)
}

// String renders e.g. "12.3 + 0.041·n log n".
func (f CostFit) String() string {
	switch f.Model {
	case "1":
		return fmt.Sprintf("%.4g", f.A)
	case "n^k":
		return fmt.Sprintf("%.4g·n^%.3f", f.A, f.B)
	}
	return fmt.Sprintf("%.4g + %.4g·%s", f.A, f.B, f.Model)
}

// CostModels is the result of FitCostModels.
type CostModels struct {
	Fits []CostFit // valid fits, best (lowest AICc) first, then invalid ones
	Best string    // best model; "" when none is valid
	// Indistinct lists the valid models with ΔAICc < IndistinctAICc,
	// including the best; more than one means the data cannot tell them apart.
	Indistinct []string
	Note       string // a caveat, e.g. too few distinct n
}

// IndistinctAICc is the ΔAICc below which two models are reported as
// indistinguishable: an evidence ratio below 8.
const IndistinctAICc = 4.1588830833596715 // 2·ln 8

var costClasses = []string{"1", "log n", "n", "n log n", "n^2"}

func costG(model string, n float64) float64 {
	switch model {
	case "log n":
		return math.Log(n)
	case "n":
		return n
	case "n log n":
		return n * math.Log(n)
	case "n^2":
		return n * n
	}
	return 1
}

// FitCostModels fits every model. Points need n ≥ 1 and y > 0.
func FitCostModels(pts []CostPoint) (CostModels, error) {
	var res CostModels
	distinct := map[float64]bool{}
	for _, p := range pts {
		if !(p.N >= 1) || !(p.Y > 0) || math.IsInf(p.N, 0) || math.IsInf(p.Y, 0) {
			return res, fmt.Errorf("cost point (n=%g, y=%g): need n ≥ 1 and a positive finite time", p.N, p.Y)
		}
		distinct[p.N] = true
	}
	if len(distinct) < 2 {
		return res, errors.New("cost models need at least 2 distinct parameter values")
	}
	sc := newCostScorer(pts)
	for _, c := range costClasses {
		f := fitClass(c, pts)
		if f.Valid {
			sc.score(&f)
		}
		res.Fits = append(res.Fits, f)
	}
	// The power law, fitted on the log scale.
	f := fitPowerLaw(pts)
	if f.Valid {
		sc.score(&f)
	}
	res.Fits = append(res.Fits, f)
	sort.SliceStable(res.Fits, func(i, j int) bool {
		a, b := res.Fits[i], res.Fits[j]
		if a.Valid != b.Valid {
			return a.Valid
		}
		return a.AICc < b.AICc
	})
	// With fewer than 4 points a two-parameter model's AICc is undefined
	// (infinite), so the constant would win by default: no model is named.
	if len(res.Fits) > 0 && res.Fits[0].Valid && sc.m >= 4 {
		best := res.Fits[0]
		res.Best = best.Model
		for _, f := range res.Fits {
			if f.Valid && f.AICc-best.AICc < IndistinctAICc {
				res.Indistinct = append(res.Indistinct, f.Model)
			}
		}
	}
	res.Note = costNote(distinct, res.Indistinct)
	return res, nil
}

// costScorer scores fits against the points on the log scale: residual sum
// of squares, AICc and adjusted R².
type costScorer struct {
	pts    []CostPoint
	m, tss float64
}

func newCostScorer(pts []CostPoint) costScorer {
	sc := costScorer{pts: pts, m: float64(len(pts))}
	var meanLog float64
	for _, p := range pts {
		meanLog += math.Log(p.Y)
	}
	meanLog /= sc.m
	for _, p := range pts {
		d := math.Log(p.Y) - meanLog
		sc.tss += d * d
	}
	return sc
}

func (sc costScorer) score(f *CostFit) {
	m := sc.m
	for _, p := range sc.pts {
		yh := f.Predict(p.N)
		if !(yh > 0) {
			f.Valid, f.Why = false, fmt.Sprintf("predicts a non-positive time at n=%g", p.N)
			return
		}
		d := math.Log(p.Y) - math.Log(yh)
		f.RSS += d * d
	}
	k := float64(f.K)
	rss := math.Max(f.RSS, 1e-300*m) // a perfect fit still ranks
	f.AICc = m*math.Log(rss/m) + 2*k
	if m-k-1 > 0 {
		f.AICc += 2 * k * (k + 1) / (m - k - 1)
	} else {
		f.AICc = math.Inf(1)
	}
	f.AdjR2 = math.NaN()
	if sc.tss > 0 && m-k > 0 {
		f.AdjR2 = 1 - (f.RSS/(m-k))/(sc.tss/(m-1))
	}
}

// fitClass fits a + b·g(n) of one complexity class by least squares with
// weights 1/y² (relative errors); the constant class is a weighted mean.
func fitClass(c string, pts []CostPoint) CostFit {
	f := CostFit{Model: c, K: 2, Valid: true}
	if c == "1" {
		f.K = 1
		var sw, swy float64
		for _, p := range pts {
			w := 1 / (p.Y * p.Y)
			sw += w
			swy += w * p.Y
		}
		f.A = swy / sw
		var swr float64
		for _, p := range pts {
			r := p.Y - f.A
			swr += r * r / (p.Y * p.Y)
		}
		if f.DF = len(pts) - 1; f.DF >= 1 {
			f.Cov[0][0] = swr / float64(f.DF) / sw
		}
		return f
	}
	var sw, sx, sy, sxx, sxy float64
	for _, p := range pts {
		w, g := 1/(p.Y*p.Y), costG(c, p.N)
		sw += w
		sx += w * g
		sy += w * p.Y
		sxx += w * g * g
		sxy += w * g * p.Y
	}
	den := sw*sxx - sx*sx
	if den <= 0 || math.Abs(den) < 1e-12*sw*sxx {
		f.Valid, f.Why = false, "the parameter values do not vary this term"
		return f
	}
	f.B = (sw*sxy - sx*sy) / den
	f.A = (sy - f.B*sx) / sw
	var swr float64
	for _, p := range pts {
		r := p.Y - f.A - f.B*costG(c, p.N)
		swr += r * r / (p.Y * p.Y)
	}
	if f.DF = len(pts) - 2; f.DF >= 1 {
		s2 := swr / float64(f.DF)
		f.Cov = [2][2]float64{{s2 * sxx / den, -s2 * sx / den}, {-s2 * sx / den, s2 * sw / den}}
	}
	if f.B < 0 {
		f.Valid, f.Why = false, "the fitted coefficient is negative (time would fall with n)"
	}
	return f
}

// fitPowerLaw fits a·n^k on the log scale.
func fitPowerLaw(pts []CostPoint) CostFit {
	f := CostFit{Model: "n^k", K: 2, Valid: true}
	m := float64(len(pts))
	var sx, sy, sxx, sxy float64
	for _, p := range pts {
		x, y := math.Log(p.N), math.Log(p.Y)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := m*sxx - sx*sx
	if den <= 0 {
		f.Valid, f.Why = false, "the parameter values do not vary"
		return f
	}
	f.B = (m*sxy - sx*sy) / den
	la := (sy - f.B*sx) / m
	f.A = math.Exp(la)
	var rss float64
	for _, p := range pts {
		r := math.Log(p.Y) - la - f.B*math.Log(p.N)
		rss += r * r
	}
	if f.DF = len(pts) - 2; f.DF >= 1 {
		s2 := rss / float64(f.DF)
		f.Cov = [2][2]float64{{s2 * sxx / den, -s2 * sx / den}, {-s2 * sx / den, s2 * m / den}}
	}
	return f
}

// costNote says what limits a fit: few distinct values, a narrow range, or
// models the data cannot tell apart.
func costNote(distinct map[float64]bool, indistinct []string) string {
	var notes []string
	if len(distinct) < 4 {
		notes = append(notes, fmt.Sprintf("only %d distinct parameter values: two-parameter models are barely constrained", len(distinct)))
	}
	lo, hi := math.Inf(1), 0.0
	for n := range distinct {
		lo, hi = math.Min(lo, n), math.Max(hi, n)
	}
	if hi/lo < 1000 {
		notes = append(notes, fmt.Sprintf("n spans %.2g decades; separating n from n log n needs about 3", math.Log10(hi/lo)))
	}
	if len(indistinct) > 1 {
		notes = append(notes, "the data cannot tell apart: "+strings.Join(indistinct, ", "))
	}
	return strings.Join(notes, "; ")
}
