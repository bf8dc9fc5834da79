package cpsim

import (
	"testing"

	"github.com/perfls/perfls/analysis/changepoint"
)

// At a fixed seed, steps of 5–30 % in 2 % noise are found with F1 ≥ 0.9.
func TestDetectsInjectedSteps(t *testing.T) {
	s := DefaultSetting
	s.Series = 60
	r, err := Evaluate(1, s, changepoint.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d true, %d detected, %d matched: P %.3f R %.3f F1 %.3f, recall by size %.2f", r.True, r.Detected, r.Matched, r.Precision(), r.Recall(), r.F1(), r.RecallBySize)
	if r.F1() < 0.9 || r.Precision() < 0.9 {
		t.Errorf("F1 %.3f, precision %.3f: want both ≥ 0.9", r.F1(), r.Precision())
	}
}

func TestScoreDefinitions(t *testing.T) {
	r := Result{True: 4, Detected: 5, Matched: 3}
	if r.Precision() != 0.6 || r.Recall() != 0.75 || r.F1() < 0.6666 || r.F1() > 0.6667 {
		t.Errorf("P %v R %v F1 %v", r.Precision(), r.Recall(), r.F1())
	}
	if (Result{}).F1() != 1 {
		t.Error("nothing to find and nothing found is perfect")
	}
}

// On noise alone the default detector flags at most about its series α
// (1 %) of series, whatever their length; Otava's rule (p ≤ 0.001 at the
// maximising split) flags a share that grows with the length. The bound
// checked is the 99 % binomial upper limit for 1,000 series at 1 %: 19.
func TestSeriesAlphaHoldsOnNoise(t *testing.T) {
	otava := changepoint.DefaultConfig()
	otava.SeriesAlpha = 0
	for _, points := range []int{33, 100, 300} {
		s := DefaultSetting
		s.MaxSteps, s.Series, s.Points = 0, 1000, points
		r, err := Evaluate(3, s, changepoint.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		o, err := Evaluate(3, s, otava)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d points: %d of 1000 series flagged (Otava's rule: %d)", points, r.FalseSeries, o.FalseSeries)
		if r.FalseSeries > 19 {
			t.Errorf("%d points: %d of 1000 series of noise flagged, want at most 19 (series α 0.01)", points, r.FalseSeries)
		}
		if points == 300 && o.FalseSeries <= 50 {
			t.Errorf("Otava's rule flagged %d of 1000 300-point series: the check no longer tells the rules apart", o.FalseSeries)
		}
	}
}
