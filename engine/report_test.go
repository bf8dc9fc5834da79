package engine

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
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
		var forks []measured.Fork
		for f := 0; f < 3; f++ {
			noise := 1 + 0.01*float64((i+f)%3-1)
			y := 2 * float64(n) * float64(n) * noise
			forks = append(forks, measured.Fork{NsPerOp: []float64{y, y}, WarmupSettled: 1})
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

// Two argument values fit every two-parameter model exactly: the curve
// is kept (the report plots it) but no model is fitted.
func TestFitCostsNeedsThreeValues(t *testing.T) {
	var reqs []workspace.Request
	results := map[string]service.ItemResult{}
	for _, n := range []int64{10000, 100000} {
		r := workspace.Request{Method: workspace.Target{Class: "p.C", Method: "linearSearch"}, Generator: workspace.Target{Class: "p.C", Method: "lookups"},
			Args: []spl.Value{{Kind: spl.Int, Int: n}}}
		reqs = append(reqs, r)
		y := float64(n)
		results[r.Key()] = service.ItemResult{Forks: []measured.Fork{{NsPerOp: []float64{y, y}, WarmupSettled: 1}, {NsPerOp: []float64{1.01 * y, 1.01 * y}, WarmupSettled: 1}}}
	}
	costs := (&CheckResult{plan: &workspace.Plan{Requests: reqs}, results: results}).costs()
	if len(costs) != 1 || len(costs[0].Points) != 2 || costs[0].Fit != nil {
		t.Fatalf("costs %+v", costs)
	}
}

// A method measured in the working tree and at a revision is two curves,
// each with its own values of n: measurements at v1 are other code, and
// the same n at two revisions is not two values.
func TestCostsGroupByRevision(t *testing.T) {
	var reqs []workspace.Request
	results := map[string]service.ItemResult{}
	for _, rev := range []string{"", "v1"} {
		for _, n := range []int64{1000, 10000} {
			r := workspace.Request{
				Method:    workspace.Target{Class: "p.C", Method: "sort", Revision: rev},
				Generator: workspace.Target{Class: "p.C", Method: "gen", Revision: rev},
				Args:      []spl.Value{{Kind: spl.Int, Int: n}},
			}
			reqs = append(reqs, r)
			y := float64(n)
			results[r.Key()] = service.ItemResult{Forks: []measured.Fork{{NsPerOp: []float64{y, y}}, {NsPerOp: []float64{y * 1.01, y}}}}
		}
	}
	costs := (&CheckResult{plan: &workspace.Plan{Requests: reqs}, results: results}).costs()
	if len(costs) != 2 || costs[0].Subject != "p.C#sort[gen]" || costs[1].Subject != "p.C#sort[gen]@v1" {
		t.Fatalf("costs %+v, want one curve per revision", costs)
	}
	for _, c := range costs {
		if len(c.Points) != 2 || len(c.Demands) != 0 {
			t.Errorf("%s: %d points, demands %v; want 2 values and no demand model from 2 values", c.Subject, len(c.Points), c.Demands)
		}
	}
}

// Both sides one measurement (m at a commit whose code is v1's, and
// m@v1): the comparison is decided by its factors, however noisy the
// forks; other data is decided by the tests as before.
func TestSameMeasurementDecidedByFactors(t *testing.T) {
	dir, _ := writeProject(t, "src/p/A.java", `package p;
import dev.perfls.*;
public class A {
    @SPL({"SELF[gen](10) <= 1.2 * SELF@v1[gen](10)", "1.3 * SELF[gen](10) <= SELF@v1[gen](10)", "SELF[gen](10) < SELF@v1[gen](10)", "SELF[gen](10) = SELF@v1[gen](10)"})
    public static int work(int n) { return n; }
    public static Iterable<Object[]> gen(int n) { return null; }
}
`)
	src, err := readSources(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := workspace.PlanCheck(workspace.NewIndex(src.files), src.formulas)
	noisy := []measured.Fork{{NsPerOp: []float64{10, 90}}, {NsPerOp: []float64{400, 20}}, {NsPerOp: []float64{5, 700}}}
	results := map[string]service.ItemResult{}
	for _, r := range plan.Requests {
		results[r.Key()] = service.ItemResult{Forks: noisy}
	}
	outcomes := func() string {
		methods, _, err := decide(plan, results, verdict.Options{Alpha: 0.05}, func(*workspace.Formula) (stats.Interpretation, error) { return stats.Auto, nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, in := range methods[0].Instances {
			out = append(out, in.Outcome.String())
		}
		return strings.Join(out, " ")
	}
	if got := outcomes(); got != "satisfied violated violated satisfied" {
		t.Errorf("one measurement on both sides: %s", got)
	}
	other := []measured.Fork{{NsPerOp: []float64{11, 90}}, {NsPerOp: []float64{400, 20}}, {NsPerOp: []float64{5, 700}}}
	results[plan.Requests[1].Key()] = service.ItemResult{Forks: other}
	if got := outcomes(); strings.Contains(got, "violated") {
		t.Errorf("two noisy measurements: %s, want nothing violated", got)
	}
}
