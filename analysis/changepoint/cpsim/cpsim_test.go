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
