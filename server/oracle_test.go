package server_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/server"
)

// oracleKey is the calibrated workload of demo.Demo#fast in lensSource, as
// the measurement service spells it.
var oracleKey = cache.OracleKey{Method: "demo.Demo#fast(int[])", Workload: "demo.Demo#gen(int)", Args: "10"}

// syntheticRun is one fork of 30 samples: time per operation around ns
// with a little fork-to-fork jitter, a constant allocation of alloc bytes,
// on JVM version java.
func syntheticRun(i int, ns, alloc float64, java string) oracle.Run {
	t, a := make([]float64, 30), make([]float64, 30)
	for j := range t {
		t[j] = ns * (1 + 0.01*float64((i*7+j*3)%5-2))
		a[j] = alloc
	}
	return oracle.Run{
		Series: map[string][]float64{"ns_per_op": t, "alloc_bytes_per_op": a},
		Env:    map[string]string{"java.version": java, "os.arch": "amd64", "pid": fmt.Sprint(1000 + i)},
	}
}

func calibrate(t *testing.T, store *cache.Store, k cache.OracleKey, n int) {
	t.Helper()
	runs := make([]*cache.OracleRun, n)
	for i := range runs {
		runs[i] = &cache.OracleRun{Run: syntheticRun(i, 1000, 64, "17")}
	}
	if _, err := store.Calibrate(context.Background(), k, runs, oracle.Config{Policy: oracle.DefaultPolicy(), EnvFilter: oracle.DefaultEnvFilter}, nil); err != nil {
		t.Fatal(err)
	}
}

// calibratingActions is a fakeActions that calibrates with synthetic runs.
type calibratingActions struct {
	*fakeActions
	store *cache.Store
	mu    sync.Mutex
	reqs  []calibration
}

// calibration is one CalibrateMethod call.
type calibration struct {
	engine.MethodRequest
	Forks int
}

func (c *calibratingActions) CalibrateMethod(ctx context.Context, req engine.MethodRequest, forks int, report func(string)) ([]cache.OracleKey, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, calibration{req, forks})
	c.mu.Unlock()
	report(fmt.Sprintf("fork 1/%d", forks))
	runs := make([]*cache.OracleRun, forks)
	for i := range runs {
		runs[i] = &cache.OracleRun{Run: syntheticRun(i, 1000, 64, "17")}
	}
	if _, err := c.store.Calibrate(ctx, oracleKey, runs, oracle.Config{Policy: oracle.DefaultPolicy(), EnvFilter: oracle.DefaultEnvFilter}, nil); err != nil {
		return nil, err
	}
	return []cache.OracleKey{oracleKey}, nil
}

func (c *calibratingActions) calibrations() []calibration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]calibration(nil), c.reqs...)
}

func (ss *session) hoverAt(t *testing.T, src, needle string) string {
	t.Helper()
	line, col := -1, 0
	for i, l := range strings.Split(src, "\n") {
		if c := strings.Index(l, needle); c >= 0 {
			line, col = i, c
			break
		}
	}
	if line < 0 {
		t.Fatalf("%q not in the source", needle)
	}
	var h protocol.Hover
	ss.Call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: ss.u},
		Position:     protocol.Position{Line: uint32(line), Character: uint32(col + 1)},
	}}, &h)
	return h.Contents.Value
}

func lensTitles(ls []protocol.CodeLens) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Command.Title)
	}
	return out
}

func findLens(ls []protocol.CodeLens, prefix string) *protocol.CodeLens {
	for i := range ls {
		if strings.HasPrefix(ls[i].Command.Title, prefix) {
			return &ls[i]
		}
	}
	return nil
}

func oracleDiagnostic(ds []protocol.Diagnostic) *protocol.Diagnostic {
	for i := range ds {
		if c, _ := ds[i].Code.(string); strings.HasPrefix(c, "oracle-") {
			return &ds[i]
		}
	}
	return nil
}

// A calibrated method whose latest run failed: the hover shows the oracle
// per metric, a warning sits on the method name, and the lenses offer to
// recalibrate and to accept the run; accepting updates the model and
// clears the warning.
func TestOracleFailureHoverDiagnosticLensesAndAccept(t *testing.T) {
	ctx := context.Background()
	store, _, err := cache.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	calibrate(t, store, oracleKey, 20)
	// Four times the allocation: a change the oracle must flag.
	if _, v, err := store.ClassifyAndRecord(ctx, oracleKey, []oracle.Run{syntheticRun(99, 1000, 256, "17")}, "check"); err != nil || v != oracle.Fail {
		t.Fatalf("classify: %v %v", v, err)
	}
	checker := &calibratingActions{fakeActions: &fakeActions{}, store: store}
	ss := openSession(t, server.Options{Verdicts: store, Actions: checker}, nil, lensSource)

	d := oracleDiagnostic(ss.AwaitDiagnostics(t, ss.u, 1))
	if d == nil {
		t.Fatalf("no oracle diagnostic in %+v", ss.LastDiagnostics(ss.u))
	}
	if d.Code != "oracle-fail" || d.Severity != protocol.DiagnosticSeverityWarning ||
		!strings.Contains(d.Message, "bounds oracle: the latest run of gen(10) (check,") ||
		!strings.Contains(d.Message, "alloc_bytes_per_op outside its band at 22/22 points") ||
		strings.Contains(d.Message, "ns_per_op outside") {
		t.Errorf("oracle diagnostic %+v", d)
	}
	if d.Range.Start.Line != 4 {
		t.Errorf("diagnostic not on fast's name: %+v", d.Range)
	}

	hover := ss.hoverAt(t, lensSource, "fast(")
	for _, want := range []string{
		"**Bounds oracle** `gen(10)`: **fail** — model of 20 runs, calibrated ",
		"| metric | typical | band ± | latest run |\n|---|---|---|---|\n",
		"| alloc_bytes_per_op | 64 B | 0.64 B (1.0 %) | **fail**: 22/22 points outside (first #0: 256 B above [63.36 B, 64.64 B]) |",
		"| ns_per_op | 1.00 µs |",
		"| pass, within at all 22 points |",
	} {
		if !strings.Contains(hover, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover)
		}
	}
	if strings.Contains(hover, "provisional") {
		t.Errorf("a model of 20 runs is not provisional:\n%s", hover)
	}

	lenses := ss.lenses(t)
	cal := findLens(lenses, "▶ Recalibrate · oracle: fail (20 runs)")
	accept := findLens(lenses, "Accept latest run as baseline")
	if cal == nil || accept == nil || cal.Command.Command != server.CommandCalibrate || accept.Command.Command != server.CommandAcceptBaseline {
		t.Fatalf("lenses %q", lensTitles(lenses))
	}

	before := ss.Publications(ss.u)
	reply, err := ss.execute(t, accept.Command.Command, accept.Command.Arguments[0])
	if err != nil || !strings.Contains(fmt.Sprint(reply), "as baseline (model of 21 runs)") {
		t.Fatalf("accept: %v %v", reply, err)
	}
	m, err := store.OracleModel(ctx, oracleKey)
	if err != nil || len(m.Model.Runs) != 21 {
		t.Fatalf("model after accepting: %v %v", m, err)
	}
	// Awaited: a publication without the oracle's diagnostic (another one,
	// the index's first build ending, may come between).
	ss.Await(t, "diagnostics republished without the oracle's", func() bool {
		return ss.Publications(ss.u) > before && oracleDiagnostic(ss.LastDiagnostics(ss.u)) == nil
	})
	lenses = ss.lenses(t)
	if findLens(lenses, "▶ Recalibrate · oracle: accepted (21 runs)") == nil || findLens(lenses, "Accept") != nil {
		t.Errorf("lenses after accepting %q", lensTitles(lenses))
	}
	if !strings.Contains(ss.hoverAt(t, lensSource, "fast("), "`gen(10)`: **accepted** — model of 21 runs") {
		t.Errorf("hover after accepting:\n%s", ss.hoverAt(t, lensSource, "fast("))
	}
	// Nothing left to accept.
	if _, err := ss.execute(t, server.CommandAcceptBaseline, server.OracleArgs{MethodArgs: server.MethodArgs{URI: ss.u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}}}); err == nil ||
		!strings.Contains(err.Error(), "no failed oracle run to accept") {
		t.Errorf("accept with nothing failed: %v", err)
	}
}

// A run from another JVM is not judged: information, not a warning, with
// the difference; no accept lens.
func TestOracleNotApplicableIsInformation(t *testing.T) {
	ctx := context.Background()
	store, _, err := cache.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	calibrate(t, store, oracleKey, 10)
	if _, v, err := store.ClassifyAndRecord(ctx, oracleKey, []oracle.Run{syntheticRun(99, 2000, 256, "21")}, "verify"); err != nil || v != oracle.NotApplicable {
		t.Fatalf("classify: %v %v", v, err)
	}
	ss := openSession(t, server.Options{Verdicts: store}, nil, lensSource)
	d := oracleDiagnostic(ss.AwaitDiagnostics(t, ss.u, 1))
	if d == nil || d.Code != "oracle-not-applicable" || d.Severity != protocol.DiagnosticSeverityInformation ||
		!strings.Contains(d.Message, `java.version is "21", calibrated with "17"`) {
		t.Fatalf("diagnostic %+v", d)
	}
	hover := ss.hoverAt(t, lensSource, "fast(")
	if !strings.Contains(hover, "**not applicable** — model of 10 runs (provisional: fewer than 20)") ||
		!strings.Contains(hover, "- java.version is \"21\", calibrated with \"17\"") {
		t.Errorf("hover:\n%s", hover)
	}
	// Without a calibrating checker the lens only shows the state.
	lenses := ss.lenses(t)
	if findLens(lenses, "▶ Recalibrate · oracle: not applicable (10 runs, provisional)") == nil || findLens(lenses, "Accept") != nil {
		t.Errorf("lenses %q", lensTitles(lenses))
	}
}

// The Calibrate lens runs the checker's calibration in the background with
// $/progress and refreshes the lenses; calibrating and accepting are
// refused when measuring is not allowed.
func TestCalibrateLens(t *testing.T) {
	ctx := context.Background()
	store, _, err := cache.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	checker := &calibratingActions{fakeActions: &fakeActions{}, store: store}
	ss := openSession(t, server.Options{Verdicts: store, Actions: checker}, map[string]any{"jvmArgs": []string{"-Xint"}, "lenses": []string{"measure", "check", "calibrate"}}, lensSource)
	lenses := ss.lenses(t)
	cal := findLens(lenses, "▶ Calibrate (30 forks)")
	if cal == nil || findLens(lenses, "Accept") != nil {
		t.Fatalf("lenses %q", lensTitles(lenses))
	}
	arg := cal.Command.Arguments[0].(map[string]any)
	arg["forks"] = 5
	if reply, err := ss.execute(t, cal.Command.Command, arg); err != nil || reply != "started" {
		t.Fatalf("calibrate: %v %v", reply, err)
	}
	ss.Await(t, "the calibration's end", func() bool {
		k := progressKinds(ss.Client, "calibrating demo.Demo#fast (5 forks)")
		return len(k) > 0 && strings.HasPrefix(k[len(k)-1], "end:")
	})
	kinds := progressKinds(ss.Client, "calibrating demo.Demo#fast")
	if want := []string{"begin:", "report:fork 1/5", "end:calibrated gen(10): 5 runs, provisional"}; strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Errorf("progress %q, want %q", kinds, want)
	}
	reqs := checker.calibrations()
	if len(reqs) != 1 || reqs[0].Forks != 5 || reqs[0].Method != "fast" || reqs[0].File != ss.path || strings.Join(reqs[0].JVMArgs, " ") != "-Xint" {
		t.Errorf("calibration requests %+v", reqs)
	}
	ss.Await(t, "codeLens/refresh", func() bool {
		for _, m := range ss.Methods() {
			if m == protocol.MethodCodeLensRefresh {
				return true
			}
		}
		return false
	})
	if findLens(ss.lenses(t), "▶ Recalibrate · oracle: calibrated (5 runs, provisional)") == nil {
		t.Errorf("lenses after calibrating %q", lensTitles(ss.lenses(t)))
	}
	if _, err := ss.execute(t, server.CommandCalibrate, map[string]any{"uri": string(ss.u), "class": "demo.Demo", "method": "fast", "forks": 1}); err == nil || !strings.Contains(err.Error(), "forks must be ≥ 2") {
		t.Errorf("one fork: %v", err)
	}

	// An untrusted workspace: the lens shows no action and the command is
	// refused without calling the checker.
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"allowMeasuring": false}})
	ss.Await(t, "the lens to lose its action", func() bool {
		l := findLens(ss.lenses(t), "Recalibrate")
		return l != nil && l.Command.Command == ""
	})
	if _, err := ss.execute(t, server.CommandCalibrate, arg); err == nil || !strings.Contains(err.Error(), "allowMeasuring is false") {
		t.Errorf("calibrate while measuring is disabled: %v", err)
	}
	if _, err := ss.execute(t, server.CommandAcceptBaseline, arg); err == nil || !strings.Contains(err.Error(), "allowMeasuring is false") {
		t.Errorf("accept while measuring is disabled: %v", err)
	}
	if n := len(checker.calibrations()); n != 1 {
		t.Errorf("%d calibrations, want 1", n)
	}
}

// TestOracleOnMethodWithoutAnnotations: a method calibrated from the
// command line, on a workload its source does not name, shows the oracle's
// state in a lens and its bands in the hover.
func TestOracleOnMethodWithoutAnnotations(t *testing.T) {
	ctx := context.Background()
	store, _, err := cache.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	key := cache.OracleKey{Method: "demo.Demo#slow(int[])", Workload: "demo.Demo#gen(int)", Args: "20"}
	calibrate(t, store, key, 20)
	ss := openSession(t, server.Options{Verdicts: store, Actions: &calibratingActions{fakeActions: &fakeActions{}, store: store}}, nil, lensSource)

	lens := findLens(ss.lenses(t), "oracle: gen(20) calibrated (20 runs)")
	if lens == nil {
		t.Fatalf("no oracle lens on slow: %q", lensTitles(ss.lenses(t)))
	}
	if lens.Command.Command != "" || !strings.Contains(lens.Command.Title, "recalibrate with perfls calibrate") {
		t.Errorf("lens %+v: want a title without an action", lens.Command)
	}
	hover := ss.hoverAt(t, lensSource, "slow(int[] a)")
	if !strings.Contains(hover, "**Bounds oracle** `gen(20)`") || !strings.Contains(hover, "| ns_per_op | 1.00 µs |") {
		t.Errorf("hover on slow:\n%s", hover)
	}
	// gen has no oracle and no annotations: no hover beyond its own.
	if h := ss.hoverAt(t, lensSource, "gen(int n)"); strings.Contains(h, "Bounds oracle") {
		t.Errorf("hover on gen:\n%s", h)
	}
}
