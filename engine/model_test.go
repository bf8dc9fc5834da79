package engine

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// The workload comes from the method's only @Workload, the parameter's name
// from the generator, the values from a range as a geometric grid; without
// values and without a documented maximum the user is told what to give.
func TestModelPlan(t *testing.T) {
	dir, _ := filepath.Abs("../examples/profiling")
	w, err := ParseWorkload("profiling.Duplicates#countRepeats", "", "")
	if err != nil {
		t.Fatal(err)
	}
	got, param, values, err := modelPlan(context.Background(), ModelRequest{Dir: dir, Workload: w, Values: "100..100000:4"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Generator == nil || got.Generator.String() != "profiling.Duplicates#values(int)" || param != "n" {
		t.Errorf("workload %v, parameter %q", got, param)
	}
	if len(values) != 4 || values[0] != 100 || values[1] != 1000 || values[3] != 100000 {
		t.Errorf("values %v", values)
	}
	_, _, _, err = modelPlan(context.Background(), ModelRequest{Dir: dir, Workload: w})
	if err == nil || !strings.Contains(err.Error(), "--values") {
		t.Errorf("no values: %v", err)
	}
	for _, bad := range []string{"10..5", "0,10", "a,b", "10", "1..10:2", "1,2,3:4", "1..10:x"} {
		if _, _, _, err := modelPlan(context.Background(), ModelRequest{Dir: dir, Workload: w, Values: bad}); err == nil {
			t.Errorf("--values %s accepted", bad)
		}
	}
}

// A formula's cpu(m) side reads the forks' CPU times, not their wall
// times, and fails clearly when a fork lacks them.
func TestSideOfAMetric(t *testing.T) {
	req := workspace.Request{Method: workspace.Target{Class: "p.C", Method: "m"}}
	forks := []measured.Fork{{NsPerOp: []float64{100, 100}, CPUNsPerOp: []float64{40, 60}}, {NsPerOp: []float64{90, 110}, CPUNsPerOp: []float64{50, 50}}}
	results := map[string]service.ItemResult{req.Key(): {Forks: forks, History: []float64{100, 101}}}
	s := side(workspace.Operand{Request: req, Metric: "cpu", Scale: 2}, results)
	if s.Err != nil || s.Metric != "cpu" || s.Scale != 2 || len(s.Runs) != 2 || s.Runs[0][1] != 60 || s.History != nil {
		t.Errorf("cpu side %+v", s)
	}
	if w := side(workspace.Operand{Request: req}, results); w.Runs[0][0] != 100 || len(w.History) != 2 {
		t.Errorf("wall side %+v", w)
	}
	if p := side(workspace.Operand{Request: req, Metric: "process_cpu"}, results); p.Err == nil {
		t.Error("process CPU side without process CPU times")
	}
}

// TestStoredModels: a model kept by ExtractModel (storeModel) is read back
// for its method, newest first, and only for its method; a model of
// another machine in a shared store is not shown.
func TestStoredModels(t *testing.T) {
	e := openEngine(t, measure.Options{})
	ctx := context.Background()
	mk := func(n float64, machine string) *model.Model {
		return &model.Model{Format: model.FormatVersion, CreatedAt: time.Unix(int64(n), 0),
			Environment: model.Environment{Machine: machine, JVM: "j"},
			Operations:  []model.Operation{{Method: "p.C#compute(int[])", Workload: "p.C#gen(int)", Parameter: "n", Points: []model.PointFigs{{N: n}}}}}
	}
	for _, m := range []*model.Model{mk(100, measure.MachineIdentity()), mk(200, measure.MachineIdentity())} {
		if err := e.storeModel(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.StoredModels(ctx, MethodRequest{Class: "p.C", Method: "compute", Params: []string{"int[]"}})
	if err != nil || len(got) != 1 || got[0].Operations[0].Points[0].N != 200 {
		t.Fatalf("stored models %+v, %v: want the newest of the series only", got, err)
	}
	if got, _ := e.StoredModels(ctx, MethodRequest{Class: "p.C", Method: "other"}); len(got) != 0 {
		t.Errorf("another method's: %+v", got)
	}
	if err := e.storeModel(ctx, mk(300, "another machine")); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.StoredModels(ctx, MethodRequest{Class: "p.C", Method: "compute", Params: []string{"int[]"}}); len(got) != 1 || got[0].Operations[0].Points[0].N != 200 {
		t.Errorf("with another machine's model stored: %+v", got)
	}
}

// Widest: the wall or cpu figure whose 95 % interval over the forks is the
// widest relative to its mean; one fork has no such interval.
func TestWidest(t *testing.T) {
	one := []measured.Fork{{NsPerOp: []float64{10, 10}, CPUNsPerOp: []float64{10, 10}}}
	if _, w := Widest(one); !math.IsInf(w, 1) {
		t.Errorf("one fork: %g", w)
	}
	// wall fork means 10 and 12: mean 11, half-width t(1)·1 = 12.706;
	// cpu 10 and 10.5.
	two := append(one, measured.Fork{NsPerOp: []float64{12, 12}, CPUNsPerOp: []float64{10.5, 10.5}})
	if m, w := Widest(two); m != model.Wall || math.Abs(w-12.7062/11) > 1e-3 {
		t.Errorf("two forks: %s %g", m, w)
	}
}

// MeasurePrecise adds forks while a figure is wider than ModelPrecision,
// up to the maximum, and stops as soon as it is not; measuring again reads
// stored forks back from the cache (newest first, by the same rule)
// instead of measuring.
func TestMeasurePrecise(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	e := openReplayed(t, "measure-precise", measure.Options{})
	dir, _ := writeProject(t, "p/A.java", classA("long s = 0; for (int i = 0; i < n; i++) s += i ^ s; return s;"))
	w, err := ParseWorkload("p.A#fast", "p.A#gen", "1000")
	if err != nil {
		t.Fatal(err)
	}
	req := MeasureRequest{Dir: dir, Workload: w, Phase: service.PhaseFull,
		Options: measure.Options{Forks: 1, SamplesPerFork: 3, Warmup: 20 * time.Millisecond, MaxWarmup: 200 * time.Millisecond}}
	ctx := context.Background()
	m, err := e.MeasurePrecise(ctx, req, 3)
	if err != nil {
		t.Fatal(err)
	}
	rule := func(forks []measured.Fork) {
		t.Helper()
		_, w2 := Widest(forks[:min(2, len(forks))])
		if len(forks) < 2 || len(forks) > 3 || len(forks) == 2 && w2 > ModelPrecision || len(forks) == 3 && w2 <= ModelPrecision {
			t.Fatalf("%d forks (±%.1f %% after two): one fork is never precise; a third only while two are wider than ±%.0f %%", len(forks), 100*w2, 100*ModelPrecision)
		}
	}
	forks := m.Result.Forks
	rule(forks)
	again, err := e.MeasurePrecise(ctx, req, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached {
		t.Fatalf("measured again instead of reading the %d stored forks", len(forks))
	}
	rule(again.Result.Forks)
	seen := map[float64]bool{}
	for _, f := range forks {
		seen[f.NsPerOp[0]] = true
	}
	for _, f := range again.Result.Forks {
		if !seen[f.NsPerOp[0]] {
			t.Errorf("a fork that was not stored: %v", f.NsPerOp)
		}
		delete(seen, f.NsPerOp[0])
	}
}

// ExtractModel measures its values together: the first fork of every value
// runs before the second fork of any, so a slow period of the machine
// touches all values alike.
func TestExtractModelInterleavesValues(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	e := openEngine(t, measure.Options{})
	dir, _ := writeProject(t, "p/A.java", classA("long s = 0; for (int i = 0; i < n; i++) s += i ^ s; return s;"))
	w, err := ParseWorkload("p.A#fast", "p.A#gen", "")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var starts []string
	req := ModelRequest{Dir: dir, Workload: w, Values: "100,1000,10000", NoCallees: true, MaxForks: 2,
		Options: measure.Options{Forks: 2, SamplesPerFork: 3, Warmup: 20 * time.Millisecond, MaxWarmup: 200 * time.Millisecond},
		Progress: func(p service.Progress) {
			if p.Fork > 0 && !strings.Contains(p.Message, ":") && !strings.HasSuffix(p.Message, "done") {
				mu.Lock()
				starts = append(starts, p.Message)
				mu.Unlock()
			}
		}}
	m, err := e.ExtractModel(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Operations) != 1 || len(m.Operations[0].Points) != 3 {
		t.Fatalf("model %+v", m.Operations)
	}
	if len(starts) != 6 {
		t.Fatalf("fork starts %q, want 2 forks of 3 values", starts)
	}
	for i, s := range starts {
		if first := strings.HasPrefix(s, "fork 1/"); first != (i < 3) {
			t.Fatalf("fork starts %q: every value's first fork must come before any second fork", starts)
		}
	}
}
