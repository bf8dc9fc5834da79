package changepoint

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/perfls/perfls/analysis/stats"
)

// Hand-computed: x = 1,2,3 and y = 4,5,6: pooled variance 1, t = −3/√(2/3)
// = −3.674, df 4; SciPy's ttest_ind gives p = 0.021311641128756727.
func TestStudentTHand(t *testing.T) {
	tt, p := StudentT(3, 2, 1, 3, 5, 1)
	if math.Abs(tt+3.6742346141747673) > 1e-12 || math.Abs(p-0.021311641128756727) > 1e-9 {
		t.Errorf("t = %v, p = %v", tt, p)
	}
	if _, p := StudentT(1, 1, 0, 1, 2, 0); p != 1 {
		t.Errorf("two points: p = %v, want 1 (no degrees of freedom)", p)
	}
	if _, p := StudentT(3, 1, 0, 3, 2, 0); p != 0 {
		t.Errorf("constant sides with different means: p = %v, want 0", p)
	}
}

// With equal sizes the pooled t equals Welch's t; check the statistic
// against the SciPy fixtures of analysis/stats.
func TestStudentTEqualSizesMatchesWelchFixture(t *testing.T) {
	b, err := os.ReadFile("../stats/testdata/welch.json")
	if err != nil {
		t.Skip(err)
	}
	var cases []struct {
		Name string
		X, Y []float64
		T    float64
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cases {
		if len(c.X) != len(c.Y) || len(c.X) < 2 {
			continue
		}
		x, y := stats.Summarize(c.X), stats.Summarize(c.Y)
		got, _ := StudentT(x.N, x.Mean, x.Variance, y.N, y.Mean, y.Variance)
		if math.Abs(got-c.T) > 1e-9*math.Max(1, math.Abs(c.T)) {
			t.Errorf("%s: t = %v, SciPy's Welch t = %v", c.Name, got, c.T)
		}
		checked++
	}
	t.Logf("%d equal-size cases", checked)
}

// steps is a series of n points around level 100 with 2 % noise and
// relative steps at the given indexes.
func steps(rng *rand.Rand, n int, at map[int]float64) []float64 {
	level := 100.0
	xs := make([]float64, n)
	for i := range xs {
		if f, ok := at[i]; ok {
			level *= 1 + f
		}
		xs[i] = level * (1 + 0.02*rng.NormFloat64())
	}
	return xs
}

func TestDetectSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	xs := steps(rng, 300, map[int]float64{80: 0.18, 200: -0.10})
	cps, err := Detect(xs, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 2 || abs(cps[0].Index-80) > 2 || abs(cps[1].Index-200) > 2 {
		t.Fatalf("change points %+v, want about 80 (+18 %%) and 200 (−10 %%)", cps)
	}
	if cps[0].Direction() != "increase" || math.Abs(cps[0].Magnitude-0.18) > 0.02 || cps[0].PValue > 0.001 {
		t.Errorf("first %+v", cps[0])
	}
	if cps[1].Direction() != "decrease" || math.Abs(cps[1].Magnitude+0.10) > 0.02 {
		t.Errorf("second %+v", cps[1])
	}
	// Noise alone: nothing.
	if cps, _ := Detect(steps(rng, 300, nil), DefaultConfig()); len(cps) != 0 {
		t.Errorf("flat series: %+v", cps)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Appending one point at a time gives exactly what a batch run gives.
func TestIncrementalEqualsBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	xs := steps(rng, 260, map[int]float64{40: 0.1, 41: 0.05, 130: -0.2, 190: 0.3})
	d, _ := New(DefaultConfig())
	for i, x := range xs {
		inc, err := d.Append(x)
		if err != nil {
			t.Fatal(err)
		}
		if i%37 == 0 || i == len(xs)-1 {
			batch, _ := Detect(xs[:i+1], DefaultConfig())
			if !reflect.DeepEqual(inc, batch) {
				t.Fatalf("after %d points: incremental %+v, batch %+v", i+1, inc, batch)
			}
		}
	}
}

func TestCommits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	xs := steps(rng, 120, map[int]float64{60: 0.18})
	var pts []CommitSamples
	for i, x := range xs {
		pts = append(pts, CommitSamples{Commit: string(rune('a'+i%26)) + string(rune('0'+i/26)), Samples: []float64{x * 0.99, x * 1.01}})
	}
	cs, err := DetectCommits(pts, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Commit != pts[cs[0].Index].Commit || abs(cs[0].Index-60) > 2 {
		t.Errorf("commit changes %+v", cs)
	}
	if _, err := DetectCommits([]CommitSamples{{Commit: "abc"}}, DefaultConfig()); err == nil {
		t.Error("a commit without samples is accepted")
	}
	if _, err := Detect([]float64{1, math.NaN()}, DefaultConfig()); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := New(Config{WindowLen: 2, MaxPValue: 0.001}); err == nil {
		t.Error("window of 2 accepted")
	}
	// Tiny series never fail.
	for n := 0; n < 5; n++ {
		if _, err := Detect(make([]float64, n), DefaultConfig()); err != nil {
			t.Errorf("%d zeros: %v", n, err)
		}
	}
}

// BenchmarkAppend1000 is the time to append one point to a 1,000-point
// series (issue 23's figure: ≤ 1 ms).
func BenchmarkAppend1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 11))
	xs := steps(rng, 1000+b.N, map[int]float64{150: 0.1, 400: -0.15, 700: 0.2, 950: 0.05})
	d, _ := New(DefaultConfig())
	d.Append(xs[:1000]...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Append(xs[1000+i])
	}
}

// BenchmarkBatch1000 is a whole 1,000-point series at once, for comparison.
func BenchmarkBatch1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 11))
	xs := steps(rng, 1000, map[int]float64{150: 0.1, 400: -0.15, 700: 0.2, 950: 0.05})
	for i := 0; i < b.N; i++ {
		Detect(xs, DefaultConfig())
	}
}

// MinMagnitude drops changes smaller than it, however significant.
func TestMinMagnitude(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	xs := steps(rng, 200, map[int]float64{60: 0.04, 140: 0.25})
	all, _ := Detect(xs, DefaultConfig())
	cfg := DefaultConfig()
	cfg.MinMagnitude = 0.1
	big, _ := Detect(xs, cfg)
	if len(all) != 2 || len(big) != 1 || abs(big[0].Index-140) > 2 {
		t.Errorf("without minimum %+v; with 10 %% %+v, want only the 25 %% step", all, big)
	}
}
