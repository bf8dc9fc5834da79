package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

type welchFixture struct {
	Name      string
	X, Y      []float64
	T, DF     float64
	PGreater  float64 `json:"p_greater"`
	PLess     float64 `json:"p_less"`
	PTwoSided float64 `json:"p_two_sided"`
}

// TestWelchMatchesSciPy compares against scipy.stats.ttest_ind(equal_var=False)
// values stored by testdata/gen_welch.py.
func TestWelchMatchesSciPy(t *testing.T) {
	b, err := os.ReadFile("testdata/welch.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []welchFixture
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 5 {
		t.Fatalf("only %d fixtures", len(cases))
	}
	for _, c := range cases {
		r, err := Welch(Summarize(c.X), Summarize(c.Y))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		check := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %s = %.12g, scipy %.12g", c.Name, what, got, want)
			}
		}
		check("t", r.T, c.T)
		check("df", r.DF, c.DF)
		check("p(greater)", r.PGreater, c.PGreater)
		check("p(less)", r.PLess, c.PLess)
		check("p(two-sided)", r.PTwoSided, c.PTwoSided)
	}
}

func TestWelchDegenerateInputs(t *testing.T) {
	if _, err := Welch(Summarize([]float64{1}), Summarize([]float64{1, 2})); err != ErrTooFewSamples {
		t.Errorf("n=1: err = %v", err)
	}
	r, err := Welch(Summarize([]float64{5, 5, 5}), Summarize([]float64{3, 3, 3}))
	if err != nil || r.PGreater != 0 || r.PLess != 1 {
		t.Errorf("constant samples, x > y: %+v %v", r, err)
	}
	r, _ = Welch(Summarize([]float64{3, 3}), Summarize([]float64{3, 3, 3}))
	if r.PGreater < 0.5 || r.PTwoSided < 0.5 {
		t.Errorf("identical constant samples must not reject: %+v", r)
	}
}

// TestWelchFalseAlarmAndPower checks by simulation that the one-sided test
// rejects a true H0 (equal means) at about α and detects a 20 % shift
// with high power at the sample sizes perfls uses.
func TestWelchFalseAlarmAndPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const runs, n, alpha = 4000, 30, 0.05
	sample := func(mean float64) Summary {
		xs := make([]float64, n)
		for i := range xs {
			// Log-normal noise: skewed like timings.
			xs[i] = mean * math.Exp(0.1*rng.NormFloat64())
		}
		return Summarize(xs)
	}
	var falseAlarms, detections int
	for i := 0; i < runs; i++ {
		r, _ := Welch(sample(100), sample(100))
		if r.PGreater < alpha {
			falseAlarms++
		}
		r, _ = Welch(sample(120), sample(100))
		if r.PGreater < alpha {
			detections++
		}
	}
	fa := float64(falseAlarms) / runs
	power := float64(detections) / runs
	t.Logf("false-alarm rate %.4f (α=%.2f), power at +20%% %.4f", fa, alpha, power)
	// 4000 runs: the standard error of a 5 % rate is 0.34 %; ±2 points is > 5 SE.
	if fa < 0.03 || fa > 0.07 {
		t.Errorf("false-alarm rate %.4f, want about %.2f", fa, alpha)
	}
	if power < 0.99 {
		t.Errorf("power %.4f at a 20%% shift, want ≥ 0.99", power)
	}
}

func TestScaleTransformsMeanAndVariance(t *testing.T) {
	s := Summarize([]float64{1, 2, 3, 4})
	d := s.Scale(2)
	if d.Mean != 2*s.Mean || math.Abs(d.Variance-4*s.Variance) > 1e-12 || d.Median != 2*s.Median {
		t.Errorf("Scale(2) = %+v from %+v", d, s)
	}
}

func TestRatioCICoversTrueRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	covered := 0
	const runs = 2000
	for i := 0; i < runs; i++ {
		x := make([]float64, 40)
		y := make([]float64, 40)
		for j := range x {
			x[j] = 50 + 5*rng.NormFloat64()
			y[j] = 100 + 10*rng.NormFloat64()
		}
		_, lo, hi := RatioCI(Summarize(x), Summarize(y), 0.95)
		if lo <= 0.5 && 0.5 <= hi {
			covered++
		}
	}
	cov := float64(covered) / runs
	t.Logf("95%% ratio CI coverage %.4f", cov)
	if cov < 0.93 || cov > 0.97 {
		t.Errorf("coverage %.4f, want about 0.95", cov)
	}
}
