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
// statsmodels' WLS (weights 1/y²) and, for the power law, OLS on the log
// scale (testdata/gen_costfit.py).
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
			A, B   float64
			Cov    [2][2]float64
			Lo, Hi []float64
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
