package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

// TestProfile profiles examples/profiling's boxing loop in a real
// profiled fork: the finding is at the marked line, the second request is
// answered from the cache, the profile is no measurement, and the stored
// profile is found by method.
func TestProfile(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, measure.Options{})
	dir, req, line := profilingRequest(t, "Totals", "sum", "values", 1000, "excessive-allocation")
	p, err := e.Profile(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Report
	if p.Cached || p.Method != "profiling.Totals#sum(int[])" || r.Iterations != 12 {
		t.Errorf("cached %v, method %s, %d iterations", p.Cached, p.Method, r.Iterations)
	}
	// The seeded cause must be found; others (a loaded machine can fire a
	// ramp) are the validation's business (measure, bench profile).
	if !hasFinding(r, profile.FindingAllocation, "src/main/java/profiling/Totals.java", line) {
		t.Errorf("findings %+v\n%s", r.Findings, r.Text(5))
	}
	if len(r.Hot) == 0 || r.Hot[0].File != "src/main/java/profiling/Totals.java" || len(r.Allocations) == 0 || r.Allocations[0].Line != line {
		t.Errorf("hot %+v allocations %+v", r.Hot, r.Allocations)
	}
	again, err := e.Profile(ctx, req)
	if err != nil || !again.Cached || len(again.Report.Findings) != len(r.Findings) {
		t.Fatalf("again: cached %v, %v", again != nil && again.Cached, err)
	}
	store, _ := e.Store()
	if ms, _ := store.List(ctx); len(ms) != 0 {
		t.Errorf("a profile was stored as a measurement: %+v", ms)
	}
	stored, err := e.StoredProfiles(ctx, MethodRequest{Root: dir, File: filepath.Join(dir, "src/main/java/profiling/Totals.java"),
		Class: "profiling.Totals", Method: "sum", Params: []string{"int[]"}})
	if err != nil || len(stored) != 1 || stored[0].Args[0].Int != 1000 || len(stored[0].Report.Findings) != len(r.Findings) {
		t.Fatalf("stored: %d %v", len(stored), err)
	}
	if ps, _ := store.ProfilesOf(ctx, cache.KindProfile, func(string) bool { return true }); len(ps) != 1 {
		t.Errorf("%d profiles stored", len(ps))
	}
}

// profilingRequest is a short profile of examples/profiling's
// class#method with the generator gen of the same class at n, and the line
// marked "// cause: <cause>" in the class's source.
func profilingRequest(t *testing.T, class, method, gen string, n int64, cause string) (dir string, req ProfileRequest, line int) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "examples", "profiling"))
	if err != nil {
		t.Fatal(err)
	}
	g := methodspec.Spec{Class: "profiling." + class, Name: gen}
	req = ProfileRequest{Dir: dir, Workload: Workload{Method: methodspec.Spec{Class: "profiling." + class, Name: method}, Generator: &g,
		Args: []measured.Arg{measured.IntArg(n)}}, Options: measure.Options{SamplesPerFork: 12, Warmup: 300 * time.Millisecond}}
	src, err := os.ReadFile(filepath.Join(dir, "src/main/java/profiling", class+".java"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(src), "// cause: "+cause)
	if i < 0 {
		t.Fatalf("%s.java: no line marked // cause: %s", class, cause)
	}
	return dir, req, 1 + strings.Count(string(src[:i]), "\n")
}

// hasFinding tells whether r has a finding of kind at file:line.
func hasFinding(r *profile.Report, kind, file string, line int) bool {
	for _, f := range r.Findings {
		if f.Kind == kind && f.File == file && f.Line == line {
			return true
		}
	}
	return false
}

// TestProfileDecidesTreasureHuntOnCounts: a call in a loop whose callee
// searches again (Duplicates#countRepeats) is a treasure hunt only on the
// counting forks' evidence, counted at n and n/4: the loop passes of
// firstIndexOf per element grow with n. Below n = 40 nothing is counted
// and a note says why.
func TestProfileDecidesTreasureHuntOnCounts(t *testing.T) {
	ctx := context.Background()
	e := openReplayed(t, "profile-treasure-hunt-counts", measure.Options{})
	_, req, line := profilingRequest(t, "Duplicates", "countRepeats", "values", 2000, "circuitous-treasure-hunt")
	p, err := e.Profile(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !hasFinding(p.Report, profile.FindingTreasureHunt, "src/main/java/profiling/Duplicates.java", line) {
		t.Errorf("findings %+v\nnotes %q", p.Report.Findings, p.Report.Notes)
	}
	if sc := p.Scaling; sc == nil || len(sc.Sizes) != 2 || sc.Sizes[0].N != 500 || sc.Sizes[1].N != 2000 {
		t.Errorf("counts %+v", p.Scaling)
	}
	req.Workload.Args = []measured.Arg{measured.IntArg(30)}
	if p, err = e.Profile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if p.Scaling == nil || !strings.Contains(p.Scaling.Problem, "below 40") || hasFinding(p.Report, profile.FindingTreasureHunt, "src/main/java/profiling/Duplicates.java", line) {
		t.Errorf("n = 30: counts %+v, findings %+v", p.Scaling, p.Report.Findings)
	}
}
