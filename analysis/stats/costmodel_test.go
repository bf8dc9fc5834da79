package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func costPoints(rng *rand.Rand, f func(n float64) float64, ns []float64, noise float64) []CostPoint {
	var pts []CostPoint
	for _, n := range ns {
		for k := 0; k < 3; k++ {
			pts = append(pts, CostPoint{N: n, Y: f(n) * math.Exp(noise*rng.NormFloat64())})
		}
	}
	return pts
}

func TestCostModelsRecoverTheClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	wide := []float64{10, 100, 1000, 10000, 100000, 1000000}
	cases := []struct {
		want string
		f    func(n float64) float64
	}{
		{"1", func(n float64) float64 { return 40 }},
		{"log n", func(n float64) float64 { return 5 + 3*math.Log(n) }},
		{"n", func(n float64) float64 { return 20 + 0.5*n }},
		{"n log n", func(n float64) float64 { return 20 + 0.5*n*math.Log(n) }},
		{"n^2", func(n float64) float64 { return 20 + 0.01*n*n }},
	}
	for _, c := range cases {
		res, err := FitCostModels(costPoints(rng, c.f, wide, 0.02))
		if err != nil {
			t.Fatal(err)
		}
		if res.Best != c.want && !slices.Contains(res.Indistinct, c.want) {
			t.Errorf("%s: best %s, indistinct %v; fits %+v", c.want, res.Best, res.Indistinct, res.Fits)
		}
		if res.Best == "" || res.Fits[0].AdjR2 < 0.9 && c.want != "1" {
			t.Errorf("%s: poor best fit %+v", c.want, res.Fits[0])
		}
	}
	// The power law's exponent is recovered.
	res, _ := FitCostModels(costPoints(rng, func(n float64) float64 { return 3 * math.Pow(n, 1.5) }, wide, 0.02))
	for _, f := range res.Fits {
		if f.Model == "n^k" && math.Abs(f.B-1.5) > 0.02 {
			t.Errorf("power law exponent %.3f, want 1.5", f.B)
		}
	}
}

// TestCostModelsSayWhenTheyCannotTell: over one decade with 10 % noise, n, n log n and n^k fit
// equally well and the result must say so.
func TestCostModelsSayWhenTheyCannotTell(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	pts := costPoints(rng, func(n float64) float64 { return 0.5 * n * math.Log(n) }, []float64{1000, 2000, 5000, 10000}, 0.10)
	res, err := FitCostModels(pts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Indistinct) < 2 || res.Note == "" {
		t.Errorf("one decade of noisy n log n data: indistinct %v, note %q", res.Indistinct, res.Note)
	}
	t.Logf("note: %s", res.Note)
}

func TestCostModelsRejectBadInput(t *testing.T) {
	if _, err := FitCostModels([]CostPoint{{N: 10, Y: 1}, {N: 10, Y: 2}}); err == nil {
		t.Error("one distinct n accepted")
	}
	if _, err := FitCostModels([]CostPoint{{N: 10, Y: -1}, {N: 20, Y: 2}}); err == nil {
		t.Error("negative time accepted")
	}
	// A falling time rejects the increasing classes instead of fitting b < 0.
	res, err := FitCostModels([]CostPoint{{1, 100}, {10, 50}, {100, 25}, {1000, 12}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Fits {
		if f.Model == "n" && f.Valid {
			t.Errorf("decreasing data: model n accepted with b = %g", f.B)
		}
	}
}
