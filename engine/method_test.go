package engine

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// small are measurement options that keep the editor's actions quick in
// tests.
var small = measure.Options{Forks: 2, SamplesPerFork: 5, Warmup: 50 * time.Millisecond, MaxWarmup: 200 * time.Millisecond}

// openEngine opens an engine that measures in this process, on a cache
// directory of the test's own.
func openEngine(t *testing.T, base measure.Options) *Engine {
	t.Helper()
	e, err := Open(context.Background(), Config{CacheDir: t.TempDir(), Service: InProcess, Logf: t.Logf, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// writeProject writes one source file, text, at rel in a new project
// directory and returns the directory and the file's path.
func writeProject(t *testing.T, rel, text string) (dir, src string) {
	t.Helper()
	dir = fixture.Project(t, map[string]string{rel: text})
	return dir, filepath.Join(dir, filepath.FromSlash(rel))
}

// classA is the editor actions' class: fast (whose body is given) is
// compared with slow on gen and has sizes as its @Workload; idle has no
// workload.
func classA(fastBody string) string {
	return `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](100) <= p.A#slow[gen](100)")
    @Workload("p.A#sizes")
    public static long fast(int n) { ` + fastBody + ` }
    public static long slow(int n) { long s = 0; for (int i = 0; i < n * 50; i++) s += i ^ s; return s; }
    public static long idle(int n) { return 0; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
    @Generator("one call with n")
    public static Iterable<Object[]> sizes(@Param(value = "n", min = 50) int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
}

// The editor's actions with real javac and forked JVMs: MeasureMethod runs
// the method on the workloads its formulas use and on its @Workload
// generator (with the parameter's documented minimum) and records the
// figures; CheckMethod takes α and the interpretation from the editor.
func TestMeasureAndCheckMethod(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	e := openReplayed(t, "measure-and-check-method", small)
	dir, src := writeProject(t, "p/A.java", classA("return n;"))
	ctx := context.Background()
	req := MethodRequest{Root: dir, File: src, Class: "p.A", Method: "fast", Params: []string{"int"}}
	var reports []string
	recs, err := e.MeasureMethod(ctx, req, func(m string) { reports = append(reports, m) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || len(recs[0].Measurements) != 2 {
		t.Fatalf("measured %+v", recs)
	}
	// The quick phase's figure comes first, then the forks'.
	if len(reports) == 0 || !strings.HasPrefix(reports[0], "preliminary figure of ") {
		t.Errorf("first progress %q, want the preliminary figure", reports)
	}
	got := map[string]bool{}
	for _, m := range recs[0].Measurements {
		got[m.Workload+"("+m.Args+")"] = m.MeanNs > 0 && m.Forks == 2
	}
	if !got["gen(100)"] || !got["sizes(50)"] {
		t.Errorf("measurements %+v", recs[0].Measurements)
	}
	store, _ := e.Store()
	stored, err := store.Verdicts(ctx)
	if err != nil || len(stored) != 1 || len(stored[0].Measurements) != 2 || stored[0].Source == "" {
		t.Errorf("recorded %+v, %v", stored, err)
	}

	req.Alpha, req.Interpretation = 0.01, "rank"
	res, err := e.CheckMethod(ctx, req, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Instances) != 1 {
		t.Fatalf("check %+v", res)
	}
	ev := res[0].Instances[0].Comparisons[0].Evidence
	// Two forks, up to 6 with forks added: α is spread over three looks.
	if ev.Interpretation != string(stats.Rank) || math.Abs(ev.Alpha-0.01/3) > 1e-12 {
		t.Errorf("settings not applied: interpretation %q, α %g", ev.Interpretation, ev.Alpha)
	}

	// Bad input: a javaHome without java, a method without workloads.
	req.JavaHome = t.TempDir()
	if _, err := e.CheckMethod(ctx, req, func(string) {}); err == nil || !strings.Contains(err.Error(), "no bin/java") {
		t.Errorf("bad javaHome: %v", err)
	}
	if _, err := e.MeasureMethod(ctx, MethodRequest{Root: dir, File: src, Class: "p.A", Method: "idle", Params: []string{"int"}}, func(string) {}); err == nil || !strings.Contains(err.Error(), "no workload to measure it on") {
		t.Errorf("method without workloads: %v", err)
	}
}

// CalibrateMethod with real javac and forked JVMs: every workload of the
// method (its formula's and its @Workload generator's) is measured in fresh
// forks and gets a stored model, measured with the editor's JVM flags; a
// method without workloads is refused.
func TestCalibrateMethod(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	e := openReplayed(t, "calibrate-method", measure.Options{SamplesPerFork: 12, Warmup: 50 * time.Millisecond, MaxWarmup: 200 * time.Millisecond})
	dir, src := writeProject(t, "p/A.java", classA("long s = 0; for (int i = 0; i < n; i++) s += i ^ s; return s;"))
	ctx := context.Background()
	req := MethodRequest{Root: dir, File: src, Class: "p.A", Method: "fast", Params: []string{"int"}, JVMArgs: []string{"-XX:+UseSerialGC"}}
	var reports []string
	keys, err := e.CalibrateMethod(ctx, req, 3, func(m string) { reports = append(reports, m) })
	if err != nil {
		t.Fatal(err)
	}
	want := map[cache.OracleKey]bool{
		{Method: "p.A#fast(int)", Workload: "p.A#gen(int)", Args: "100"}:  true,
		{Method: "p.A#fast(int)", Workload: "p.A#sizes(int)", Args: "50"}: true,
	}
	if len(keys) != 2 || !want[keys[0]] || !want[keys[1]] {
		t.Fatalf("calibrated %+v", keys)
	}
	store, _ := e.Store()
	for _, k := range keys {
		m, err := store.OracleModel(ctx, k)
		if err != nil || m == nil {
			t.Fatalf("model of %s: %v %v", k, m, err)
		}
		if len(m.Model.Runs) != 3 || !m.Model.Provisional || len(m.Model.Metrics) == 0 {
			t.Errorf("model of %s: %d runs, provisional %v, %d metrics", k, len(m.Model.Runs), m.Model.Provisional, len(m.Model.Metrics))
		}
		if !strings.Contains(m.Model.Measure["jvm_args"], "-XX:+UseSerialGC") || !strings.Contains(m.Model.Env["jvm.args"], "-XX:+UseSerialGC") {
			t.Errorf("the editor's JVM flags are not in the model of %s: measure %v env %v", k, m.Model.Measure, m.Model.Env)
		}
	}
	if len(reports) == 0 || !strings.HasPrefix(reports[0], "1/2 ") {
		t.Errorf("progress %q", reports)
	}
	req.Method = "idle"
	if _, err := e.CalibrateMethod(ctx, req, 3, func(string) {}); err == nil || !strings.Contains(err.Error(), "no workload to measure it on") {
		t.Errorf("method without workloads: %v", err)
	}
}

// recordingService is a measurement service that records its requests.
type recordingService struct{ got []service.Params }

func (r *recordingService) Measure(_ context.Context, p service.Params, _ func(service.Progress)) (*service.Response, error) {
	r.got = append(r.got, p)
	return &service.Response{Items: make([]service.ItemResult, len(p.Items))}, nil
}
func (r *recordingService) Status(context.Context) (*service.Status, error) {
	return &service.Status{}, nil
}
func (r *recordingService) Close() error { return nil }

// The editor's budget is one request's: its measurements share it.
func TestBudgetIsShared(t *testing.T) {
	rec := &recordingService{}
	svc := func(context.Context) service.Service { return rec }
	ctx := context.Background()
	budgeted{svc, 10 * time.Second}.Measure(ctx, service.Params{Items: make([]service.Item, 4)}, nil)
	budgeted{svc, 10 * time.Second}.Measure(ctx, service.Params{Items: make([]service.Item, 1), Budget: time.Second}, nil)
	budgeted{svc, 0}.Measure(ctx, service.Params{Items: make([]service.Item, 2)}, nil)
	if len(rec.got) != 3 || rec.got[0].Budget != 2500*time.Millisecond || rec.got[1].Budget != time.Second || rec.got[2].Budget != 0 {
		t.Errorf("budgets %v", []time.Duration{rec.got[0].Budget, rec.got[1].Budget, rec.got[2].Budget})
	}
}
