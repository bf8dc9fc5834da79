package changepoint

import (
	"math"
	"testing"
)

// The hand case of TestStudentTHand, as two lists: 1,2,3 against 4,5,6
// gives p = 0.0213 (SciPy), a shift at α = 0.05 but not at Otava's 0.001.
func TestShift(t *testing.T) {
	cfg := Config{WindowLen: 50, MaxPValue: 0.05}
	cp, ok, err := Shift([]float64{1, 2, 3}, []float64{4, 5, 6}, cfg)
	if err != nil || !ok {
		t.Fatalf("shift = %+v, %v, %v; want a shift", cp, ok, err)
	}
	if cp.Index != 3 || cp.Before != 2 || cp.After != 5 || math.Abs(cp.Magnitude-1.5) > 1e-12 || math.Abs(cp.PValue-0.021311641128756727) > 1e-9 {
		t.Errorf("shift = %+v", cp)
	}
	if _, ok, _ := Shift([]float64{1, 2, 3}, []float64{4, 5, 6}, DefaultConfig()); ok {
		t.Error("p = 0.021 passed at MaxPValue 0.001")
	}
	cfg.MinMagnitude = 2
	if _, ok, _ := Shift([]float64{1, 2, 3}, []float64{4, 5, 6}, cfg); ok {
		t.Error("a change of +150 % passed MinMagnitude 2 (Otava's both-ways magnitude is 1.5)")
	}
	if _, _, err := Shift(nil, []float64{1}, cfg); err == nil {
		t.Error("no points before: no error")
	}
	if _, _, err := Shift([]float64{1, math.NaN()}, []float64{1}, cfg); err == nil {
		t.Error("NaN: no error")
	}
	// One point after a steady level: the level's variance carries the test.
	if cp, ok, _ := Shift([]float64{100, 101, 99, 100, 100.5, 99.5}, []float64{130}, DefaultConfig()); !ok || cp.Magnitude < 0.29 {
		t.Errorf("one point +30 %% after a steady level: %+v, %v", cp, ok)
	}
}
