package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// TestCostFitsMatchStatsmodels compares every cost model's coefficients,
// their covariance and the 95 % interval of the fitted mean with
// statsmodels' Gamma GLMs (identity link for the classes, log link for the
// power law; testdata/gen_costfit.py); a fit whose mean is not positive at
// every point there must be rejected here.
func TestCostFitsMatchStatsmodels(t *testing.T) {
	data, err := os.ReadFile("testdata/costfit.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name string
		N, Y []float64
		At   []float64
		Fits map[string]struct {
			A, B     float64
			Cov      [2][2]float64
			Lo, Hi   []float64
			Positive bool
		}
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	close := func(got, want float64) bool {
		return math.Abs(got-want) <= 1e-6*math.Max(math.Abs(want), 1e-12) || math.Abs(got-want) < 1e-12
	}
	for _, c := range cases {
		pts := make([]CostPoint, len(c.N))
		for i := range c.N {
			pts[i] = CostPoint{N: c.N[i], Y: c.Y[i]}
		}
		res, err := FitCostModels(pts)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, f := range res.Fits {
			want, ok := c.Fits[f.Model]
			if !ok {
				continue
			}
			seen++
			if !want.Positive {
				if f.Valid {
					t.Errorf("%s %s: accepted a fit whose mean is not positive at every point: %+v", c.Name, f.Model, f)
				}
				continue
			}
			if !close(f.A, want.A) || !close(f.B, want.B) {
				t.Errorf("%s %s: a, b = %g, %g; statsmodels %g, %g", c.Name, f.Model, f.A, f.B, want.A, want.B)
			}
			for i := 0; i < 2; i++ {
				for j := 0; j < 2; j++ {
					if !close(f.Cov[i][j], want.Cov[i][j]) {
						t.Errorf("%s %s: cov[%d][%d] = %g; statsmodels %g", c.Name, f.Model, i, j, f.Cov[i][j], want.Cov[i][j])
					}
				}
			}
			for i, n := range c.At {
				lo, hi, ok := f.Interval(n, 0.95)
				if f.Valid && (!ok || !close(lo, want.Lo[i]) || !close(hi, want.Hi[i])) {
					t.Errorf("%s %s at n=%g: interval %g … %g; statsmodels %g … %g", c.Name, f.Model, n, lo, hi, want.Lo[i], want.Hi[i])
				}
			}
		}
		if seen != 6 {
			t.Errorf("%s: compared %d models, want 6", c.Name, seen)
		}
	}
}

// TestCostIntervalCoversTheTruth: by simulation with a known curve, the 95 %
// interval of the selected model's mean covers the true value at a point
// inside the range about 95 % of the time.
func TestCostIntervalCoversTheTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	truth := func(n float64) float64 { return 20 + 0.01*n*n }
	ns := []float64{10, 30, 100, 300, 1000, 3000}
	covered, runs := 0, 400
	for r := 0; r < runs; r++ {
		res, err := FitCostModels(costPoints(rng, truth, ns, 0.05))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Fits {
			if f.Model == "n^2" {
				if lo, hi, ok := f.Interval(500, 0.95); ok && lo <= truth(500) && truth(500) <= hi {
					covered++
				}
			}
		}
	}
	if rate := float64(covered) / float64(runs); rate < 0.9 || rate > 0.99 {
		t.Errorf("coverage %.3f of the nominal 95 %% interval", rate)
	}
}

// TestCostFitsEstimateTheMean: by simulation with a known curve and noise
// proportional to the time with mean 1 (CV 30 %, like fork means of JVMs
// whose JIT chose differently), the fitted curve is an unbiased estimate of
// the mean time: averaged over many data sets, the prediction inside the
// range is within 2 % of the truth. Weights from the observations (1/y²)
// put the linear fit 13.5 % below and least squares of log y the power law
// 4.4 % below (the geometric mean).
func TestCostFitsEstimateTheMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const cv, runs = 0.3, 400
	s := math.Sqrt(math.Log(1 + cv*cv)) // log-normal with mean 1 and this CV
	ns := []float64{1000, 2000, 4000, 8000, 16000, 32000}
	for _, c := range []struct {
		model string
		truth func(n float64) float64
	}{
		{"n", func(n float64) float64 { return 40 + 0.09*n }},
		{"n^k", func(n float64) float64 { return 0.3 * math.Pow(n, 0.9) }},
	} {
		var sum float64
		for r := 0; r < runs; r++ {
			var pts []CostPoint
			for _, n := range ns {
				for k := 0; k < 3; k++ {
					pts = append(pts, CostPoint{N: n, Y: c.truth(n) * math.Exp(s*rng.NormFloat64()-s*s/2)})
				}
			}
			res, err := FitCostModels(pts)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Fits {
				if f.Model == c.model {
					sum += f.Predict(5657)/c.truth(5657) - 1
				}
			}
		}
		t.Logf("%s: bias %+.2f %%", c.model, 100*sum/runs)
		if bias := sum / runs; math.Abs(bias) > 0.02 {
			t.Errorf("%s: the fitted mean at n = 5657 is off by %+.1f %% on average", c.model, 100*bias)
		}
	}
}
