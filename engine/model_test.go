package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	forks := []measure.Fork{{NsPerOp: []float64{100, 100}, CPUNsPerOp: []float64{40, 60}}, {NsPerOp: []float64{90, 110}, CPUNsPerOp: []float64{50, 50}}}
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
