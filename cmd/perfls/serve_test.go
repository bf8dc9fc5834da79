package main

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
	"github.com/perfls/perfls/server"
)

// The language server's checker, with real javac and forked JVMs: Measure
// runs the method on the workloads its formulas use and on its @Workload
// generator (with the parameter's documented minimum) and records the
// figures; Check takes α and the interpretation from the editor.
func TestLSPCheckerMeasureAndSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	cacheDir, dir, src := writeJavaProject(t, "p/A.java", classA("return n;"))
	c := &lspChecker{cacheDir: cacheDir, logf: log.New(os.Stderr, "", 0).Printf, inProcess: true,
		base: measure.Options{Forks: 2, SamplesPerFork: 5, Warmup: 50 * time.Millisecond, MaxWarmup: 200 * time.Millisecond}}
	defer c.close()
	ctx := context.Background()
	req := server.CheckRequest{Root: dir, File: src, Class: "p.A", Method: "fast", Params: []string{"int"}}
	var reports []string
	recs, err := c.Measure(ctx, req, func(m string) { reports = append(reports, m) })
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
	store, _, err := cache.OpenStore(ctx, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	stored, err := store.Verdicts(ctx)
	if err != nil || len(stored) != 1 || len(stored[0].Measurements) != 2 || stored[0].Source == "" {
		t.Errorf("recorded %+v, %v", stored, err)
	}

	req.Alpha, req.Interpretation = 0.01, "rank"
	res, err := c.Check(ctx, req, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Instances) != 1 {
		t.Fatalf("check %+v", res)
	}
	ev := res[0].Instances[0].Comparisons[0].Evidence
	if ev.Interpretation != string(stats.Rank) || ev.Alpha != 0.01 {
		t.Errorf("settings not applied: interpretation %q, α %g", ev.Interpretation, ev.Alpha)
	}

	// Bad input: a javaHome without java, a method without workloads.
	req.JavaHome = t.TempDir()
	if _, err := c.Check(ctx, req, func(string) {}); err == nil || !strings.Contains(err.Error(), "no bin/java") {
		t.Errorf("bad javaHome: %v", err)
	}
	if _, err := c.Measure(ctx, server.CheckRequest{Root: dir, File: src, Class: "p.A", Method: "idle", Params: []string{"int"}}, func(string) {}); err == nil || !strings.Contains(err.Error(), "no workload to measure it on") {
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

// The editor's budget is one command's: its measurements share it.
func TestLSPCheckerSharesTheBudget(t *testing.T) {
	rec := &recordingService{}
	c := &lspChecker{inProcess: true, local: rec}
	svc := lazyService{c, 10 * time.Second}
	svc.Measure(context.Background(), service.Params{Items: make([]service.Item, 4)}, nil)
	svc.Measure(context.Background(), service.Params{Items: make([]service.Item, 1), Budget: time.Second}, nil)
	lazyService{c, 0}.Measure(context.Background(), service.Params{Items: make([]service.Item, 2)}, nil)
	if len(rec.got) != 3 || rec.got[0].Budget != 2500*time.Millisecond || rec.got[1].Budget != time.Second || rec.got[2].Budget != 0 {
		t.Errorf("budgets %v", []time.Duration{rec.got[0].Budget, rec.got[1].Budget, rec.got[2].Budget})
	}
}

// writeJavaProject writes one source file, text, at rel in a new project
// directory, gives the test a cache directory of its own
// (PERFLS_CACHE_DIR) and returns both and the file's path.
func writeJavaProject(t *testing.T, rel, text string) (cacheDir, dir, src string) {
	t.Helper()
	cacheDir = t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", cacheDir)
	dir = t.TempDir()
	src = filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return cacheDir, dir, src
}

// classA is the checker tests' class: fast (whose body is given) is
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
