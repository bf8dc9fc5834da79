package server_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/measure"
)

const remoteSource = `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](100) <= p.A#slow[gen](100)")
    public static long fast(int n) { return n; }
    public static long slow(int n) { long s = 0; for (int i = 0; i < n * 50; i++) s += i ^ s; return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`

// With the editor's remote setting the Check and Measure lenses enqueue
// their measurements on the shared store's queue, a worker (another engine
// with its own cache directory, as on another machine; the same real
// PostgreSQL) measures them, and the progress streams the job's states
// until the verdicts arrive; nothing is measured by the editor's engine.
// Without a shared store the lens says what to set.
func TestRemoteSettingMeasuresOnAWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	url := pgtest.NewTestDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Forks whose warm-up hits the cap do not decide a formula: a cap the
	// JIT settles within on a busy machine.
	small := measure.Options{Forks: 2, SamplesPerFork: 5, Warmup: 50 * time.Millisecond, MaxWarmup: 3 * time.Second}
	open := func(store string) *engine.Engine {
		e, err := engine.Open(ctx, engine.Config{CacheDir: t.TempDir(), Service: engine.InProcess, Logf: t.Logf, Base: small, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	dir := fixture.Project(t, map[string]string{"p/A.java": remoteSource})
	p := &engineProject{eng: open(url), dir: dir, src: filepath.Join(dir, "p", "A.java"), text: remoteSource}
	fc, u := p.session(t)
	setRemote := func(on bool) {
		fc.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{
			Settings: map[string]any{"perfls": map[string]any{"remote": on, "remoteLabel": "editor-t"}}})
	}
	start := func(prefix string) {
		t.Helper()
		lens := lensTitled(t, fc, u, prefix)
		if lens == nil {
			t.Fatalf("no %q lens", prefix)
		}
		var reply any
		fc.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lens.Command.Command, Arguments: lens.Command.Arguments}, &reply)
		if reply != "started" {
			t.Fatalf("%s: %v", prefix, reply)
		}
	}
	await := func(title string) []string {
		t.Helper()
		fc.AwaitFor(t, 2*time.Minute, title+" to end", func() bool { return progressEnded(fc, title) })
		return progressKinds(fc, title)
	}
	run := func(prefix, title string) []string {
		t.Helper()
		start(prefix)
		return await(title)
	}

	// A check sent to the workers while none runs waits on the queue, and
	// does not hold the local measuring slot: a local measurement started
	// meanwhile runs at once and ends first.
	setRemote(true)
	start("▶ Check 1 formula")
	setRemote(false)
	local := run("▶ Measure", "measuring p.A#fast")
	for _, k := range local {
		if strings.Contains(k, "waiting for other measurements") {
			t.Errorf("the local measurement waited for the remote check: %q", local)
		}
	}
	if progressEnded(fc, "checking p.A#fast on the workers labelled editor-t") {
		t.Fatalf("the remote check ended without a worker")
	}

	worker := open(url)
	fixture.Background(t, ctx, func(ctx context.Context) error { return worker.RunWorker(ctx, "editor-t") })
	check := await("checking p.A#fast on the workers labelled editor-t")
	setRemote(true)
	saidOnWorker := func(kinds []string) bool {
		for _, k := range kinds {
			if strings.Contains(k, "on queue perfls_editor-t: running on worker") {
				return true
			}
		}
		return false
	}
	if !saidOnWorker(check) || check[len(check)-1] != "end:1 satisfied, 0 violated, 0 undecided" {
		t.Errorf("check progress %q", check)
	}
	if lensTitled(t, fc, u, "▶ Check 1 formula · 1 satisfied") == nil {
		t.Errorf("the lens does not show the remote verdict: %s", fc.Log())
	}
	measured := run("▶ Measure", "measuring p.A#fast on the workers labelled editor-t")
	if last := measured[len(measured)-1]; !strings.HasPrefix(last, "end:") || strings.Contains(last, "failed") {
		t.Errorf("measure progress %q", measured)
	}
	store, _ := p.eng.Store()
	if entries, _ := store.List(ctx); len(entries) < 2 {
		t.Errorf("%d measurements in the shared store, want the worker's 2", len(entries))
	}

	// No shared store: the lens fails saying what to set.
	lone := newEngineProject(t, small, "p/A.java", remoteSource)
	fc2, u2 := lone.session(t)
	fc2.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"remote": true}})
	lens := lensTitled(t, fc2, u2, "▶ Check 1 formula")
	var reply any
	fc2.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lens.Command.Command, Arguments: lens.Command.Arguments}, &reply)
	fc2.Await(t, "the error message", func() bool {
		return fc2.Seen(protocol.MethodWindowShowMessage, func(m json.RawMessage) bool {
			return strings.Contains(string(m), "needs a shared store: set PERFLS_STORE") && strings.Contains(string(m), "remote setting off")
		})
	})
}

// progressEnded tells whether the job titled title ended its progress.
func progressEnded(fc *lsptest.Client, title string) bool {
	kinds := progressKinds(fc, title)
	return len(kinds) > 0 && strings.HasPrefix(kinds[len(kinds)-1], "end:")
}
