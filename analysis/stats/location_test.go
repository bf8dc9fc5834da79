package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestMedianAndTIntervalMatchSciPy compares Median and TInterval with the
// values NumPy and SciPy computed (testdata/gen_location.py).
func TestMedianAndTIntervalMatchSciPy(t *testing.T) {
	b, err := os.ReadFile("testdata/location.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name           string
		X              []float64
		Level          float64
		Median, Lo, Hi float64
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	// The centre is the mean; gonum's t quantile, which sets the width,
	// agrees with SciPy's to about 1e-9.
	near := func(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }
	for _, c := range cases {
		before := append([]float64(nil), c.X...)
		if got := Median(c.X); got != c.Median {
			t.Errorf("%s: median %g, want %g", c.Name, got, c.Median)
		}
		lo, hi, ok := TInterval(c.X, c.Level)
		if !ok || !near((lo+hi)/2, (c.Lo+c.Hi)/2, 1e-12) || !near(hi-lo, c.Hi-c.Lo, 1e-8) {
			t.Errorf("%s: interval [%g, %g] %v, want [%g, %g]", c.Name, lo, hi, ok, c.Lo, c.Hi)
		}
		for i := range before {
			if before[i] != c.X[i] {
				t.Fatalf("%s: the sample was modified", c.Name)
			}
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing is not NaN")
	}
	if _, _, ok := TInterval([]float64{1}, 0.95); ok {
		t.Error("an interval from one value")
	}
}
