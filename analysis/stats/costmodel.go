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
// n²} is fitted as y = a + b·g(n) by least squares weighted with 1/ŷ² (relative
// error of the fitted mean, iterated), rejecting b < 0; the power law
// y = a·n^k likewise, with a log link (fitPowerLaw).
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
	// Disp is the estimated dispersion: the squared relative deviation of
	// a point from the curve (Pearson's estimate, the σ̂² in Cov). A new
	// point's own deviation adds it to the fitted mean's variance
	// (PredictionInterval). Set when DF ≥ 1.
	Disp float64
}

// Interval is the confidence interval of the fitted mean at n at the
// given level (0.95): a Student-t interval with DF degrees of freedom on
// the fit's scale (the log scale for "n^k", transformed back). ok is
// false without residual degrees of freedom.
func (f CostFit) Interval(n, level float64) (lo, hi float64, ok bool) {
	return f.interval(n, level, 0)
}

// interval is Interval with a new point's relative variance disp added.
func (f CostFit) interval(n, level, disp float64) (lo, hi float64, ok bool) {
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
	if f.Model == "n^k" {
		se := math.Sqrt(math.Max(v, 0) + disp)
		c := math.Log(f.A) + f.B*math.Log(n)
		return math.Exp(c - t*se), math.Exp(c + t*se), true
	}
	y := f.Predict(n)
	se := math.Sqrt(math.Max(v, 0) + disp*y*y)
	return y - t*se, y + t*se, true
}

// PredictionInterval is the interval at the given level (0.95) for a new
// point at n — the fitted mean's uncertainty and the point's own deviation
// from the curve (Disp) together: y ± t·√(se² + Disp·ŷ²), for "n^k" on the
// log scale, where a relative deviation is a deviation of log y. ok is
// false without residual degrees of freedom.
func (f CostFit) PredictionInterval(n, level float64) (lo, hi float64, ok bool) {
	return f.interval(n, level, f.Disp)
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

// The fits estimate the mean time at n under timing noise proportional to
// the time (a constant coefficient of variation): the quasi-likelihood of a
// Gamma GLM, fitted by iteratively reweighted least squares. Weights from
// the fitted curve, 1/ŷ², not from the observations, 1/y²: a figure that
// came out low by chance (another JVM's JIT choices) would otherwise weigh
// more than one that came out high, and the curve would sit below the
// points' mean by about 2·CV² (8 % at a CV of 20 %). irlsIterations bounds
// the iterations; the fits converge in a few.
const irlsIterations = 100

// fitClass fits a + b·g(n) of one complexity class by least squares with
// weights 1/ŷ² (relative errors of the fitted mean), iterated; the
// constant class is the mean.
func fitClass(c string, pts []CostPoint) CostFit {
	f := CostFit{Model: c, K: 2, Valid: true}
	g := func(n float64) float64 { return costG(c, n) }
	if c == "1" {
		f.K = 1
		g = func(float64) float64 { return 0 }
	}
	// The start is statsmodels' for the Gamma family, ŷ = (y + ȳ)/2.
	var ybar float64
	for _, p := range pts {
		ybar += p.Y / float64(len(pts))
	}
	w := make([]float64, len(pts))
	for i, p := range pts {
		w[i] = 4 / ((p.Y + ybar) * (p.Y + ybar))
	}
	var sw, sx, sxx, den float64
	for it := 0; it < irlsIterations; it++ {
		var sy, sxy float64
		sw, sx, sxx = 0, 0, 0
		for i, p := range pts {
			x := g(p.N)
			sw += w[i]
			sx += w[i] * x
			sy += w[i] * p.Y
			sxx += w[i] * x * x
			sxy += w[i] * x * p.Y
		}
		a, b := sy/sw, 0.0
		if f.K == 2 {
			den = sw*sxx - sx*sx
			if den <= 0 || math.Abs(den) < 1e-12*sw*sxx {
				f.Valid, f.Why = false, "the parameter values do not vary this term"
				return f
			}
			b = (sw*sxy - sx*sy) / den
			a = (sy - b*sx) / sw
		}
		done := it > 0 && math.Abs(a-f.A) <= 1e-13*math.Abs(a)+1e-300 && math.Abs(b-f.B) <= 1e-13*math.Abs(b)
		f.A, f.B = a, b
		if done {
			break
		}
		// The next weights, 1/ŷ². A curve that is not positive at every
		// point does not fit (the scorer rejects it); the iteration goes on
		// as statsmodels' does, so that it can come back, and stops at zero.
		for i, p := range pts {
			yh := a + b*g(p.N)
			if yh == 0 {
				f.Valid, f.Why = false, fmt.Sprintf("predicts a zero time at n=%g", p.N)
				return f
			}
			w[i] = 1 / (yh * yh)
		}
	}
	var swr float64
	for i, p := range pts {
		r := p.Y - f.A - f.B*g(p.N)
		swr += w[i] * r * r
	}
	if f.DF = len(pts) - f.K; f.DF >= 1 {
		s2 := swr / float64(f.DF)
		f.Disp = s2
		if f.K == 1 {
			f.Cov[0][0] = s2 / sw
		} else {
			f.Cov = [2][2]float64{{s2 * sxx / den, -s2 * sx / den}, {-s2 * sx / den, s2 * sw / den}}
		}
	}
	if f.B < 0 {
		f.Valid, f.Why = false, "the fitted coefficient is negative (time would fall with n)"
	}
	return f
}

// fitPowerLaw fits the mean a·n^k like the classes (a Gamma GLM, here with
// the log link: iteratively reweighted least squares of the working
// response log ŷ + (y − ŷ)/ŷ on log n, with unit weights), starting from
// least squares of log y. Cov is of (ln a, k), scaled by the Pearson
// estimate Σ((y − ŷ)/ŷ)²/(m − 2).
func fitPowerLaw(pts []CostPoint) CostFit {
	f := CostFit{Model: "n^k", K: 2, Valid: true}
	m := float64(len(pts))
	var sx, sxx float64
	for _, p := range pts {
		x := math.Log(p.N)
		sx += x
		sxx += x * x
	}
	den := m*sxx - sx*sx
	if den <= 0 {
		f.Valid, f.Why = false, "the parameter values do not vary"
		return f
	}
	z := make([]float64, len(pts))
	for i, p := range pts {
		z[i] = math.Log(p.Y)
	}
	var la float64
	for it := 0; it < irlsIterations; it++ {
		var sy, sxy float64
		for i, p := range pts {
			x := math.Log(p.N)
			sy += z[i]
			sxy += x * z[i]
		}
		b := (m*sxy - sx*sy) / den
		a := (sy - b*sx) / m
		done := it > 0 && math.Abs(a-la) <= 1e-13*math.Max(math.Abs(a), 1) && math.Abs(b-f.B) <= 1e-13*math.Max(math.Abs(b), 1)
		la, f.B = a, b
		if done {
			break
		}
		for i, p := range pts {
			eta := la + f.B*math.Log(p.N)
			z[i] = eta + (p.Y-math.Exp(eta))/math.Exp(eta)
		}
	}
	f.A = math.Exp(la)
	var x2 float64
	for _, p := range pts {
		yh := f.Predict(p.N)
		x2 += (p.Y - yh) * (p.Y - yh) / (yh * yh)
	}
	if f.DF = len(pts) - 2; f.DF >= 1 {
		s2 := x2 / float64(f.DF)
		f.Disp = s2
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
