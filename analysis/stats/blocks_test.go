package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestBlockANOVAMatchesStatsmodels compares with statsmodels' anova_lm of
// y ~ C(block) + C(treatment) (testdata/gen_blocks.py).
func TestBlockANOVAMatchesStatsmodels(t *testing.T) {
	b, err := os.ReadFile("testdata/blocks.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name string
		Rows [][]float64
		F, P float64
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		f, p, err := BlockANOVA(c.Rows)
		if err != nil || math.Abs(f-c.F) > 1e-9*math.Max(1, c.F) || math.Abs(p-c.P) > 1e-9 {
			t.Errorf("%s: F %v p %v (%v), statsmodels %v %v", c.Name, f, p, err, c.F, c.P)
		}
	}
	for _, bad := range [][][]float64{{{1, 2, 3}}, {{1}, {2}}, {{1, 2, 3}, {1, 2}}, {{1, 2}, {2, 3}}} {
		if _, _, err := BlockANOVA(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
