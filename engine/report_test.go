package engine

import (
	"math"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

func TestFitCostsFindsQuadraticGrowth(t *testing.T) {
	var reqs []workspace.Request
	results := map[string]service.ItemResult{}
	for i, n := range []int64{10, 100, 1000, 10000} {
		r := workspace.Request{
			Method:    workspace.Target{Class: "p.C", Method: "sort"},
			Generator: workspace.Target{Class: "p.C", Method: "gen"},
			Args:      []spl.Value{{Kind: spl.Int, Int: n}},
		}
		reqs = append(reqs, r)
		var forks []measure.Fork
		for f := 0; f < 3; f++ {
			noise := 1 + 0.01*float64((i+f)%3-1)
			y := 2 * float64(n) * float64(n) * noise
			forks = append(forks, measure.Fork{NsPerOp: []float64{y, y}, WarmupSettled: 1})
		}
		results[r.Key()] = service.ItemResult{Forks: forks}
	}
	// A failed measurement and a string argument are left out, not fitted.
	bad := workspace.Request{Method: workspace.Target{Class: "p.C", Method: "x"}, Args: []spl.Value{{Kind: spl.String, Str: "a"}}}
	reqs = append(reqs, bad)
	costs := (&CheckResult{plan: &workspace.Plan{Requests: reqs}, results: results}).costs()
	if len(costs) != 1 || costs[0].Fit == nil {
		t.Fatalf("costs %+v", costs)
	}
	c := costs[0]
	if c.Subject != "p.C#sort[gen]" || len(c.Points) != 4 || math.Abs(c.Decades()-3) > 1e-9 {
		t.Errorf("cost %+v", c)
	}
	if c.Fit.Best != "n^2" && c.Fit.Best != "n^k" {
		t.Errorf("best %q, want quadratic growth; fits %+v", c.Fit.Best, c.Fit.Fits)
	}
	for _, m := range c.Fit.Indistinct {
		switch m {
		case "1", "log n", "n", "n log n":
			t.Errorf("%q reported indistinguishable from quadratic growth over 3 decades", m)
		}
	}
}
