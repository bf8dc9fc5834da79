package server_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/fixture/replay"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
	"github.com/perfls/perfls/server"
)

// From the lens to the hover with the real engine on recorded forks: the
// Calibrate lens of a method calibrates its workloads in the background,
// then the lens and the hover show the models.
func TestCalibrateLensEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	text := `package p;
import dev.perfls.*;
public class B {
    @Workload("p.B#sizes")
    public static long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i ^ s; return s; }
    @Generator("one call with n")
    public static Iterable<Object[]> sizes(@Param(value = "n", min = 500) int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
	p := newReplayedProject(t, "calibrate-lens", measure.Options{SamplesPerFork: 12, Warmup: 50 * time.Millisecond, MaxWarmup: 200 * time.Millisecond}, "p/B.java", text)
	fc, u := p.session(t)
	lensTitled := func(prefix string) *protocol.CodeLens { return lensTitled(t, fc, u, prefix) }
	lens := lensTitled("▶ Calibrate (30 forks)")
	if lens == nil {
		t.Fatal("no Calibrate lens")
	}
	arg := lens.Command.Arguments[0].(map[string]any)
	arg["forks"] = 3
	var reply any
	fc.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lens.Command.Command, Arguments: []any{arg}}, &reply)
	if reply != "started" {
		t.Fatalf("calibrate: %v", reply)
	}
	fc.AwaitFor(t, 2*time.Minute, "the calibration to end", func() bool { return fc.Seen(protocol.MethodProgress, jobEnded) })
	if !fc.Seen(protocol.MethodProgress, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"message":"calibrated sizes(500): 3 runs, provisional"`)
	}) {
		t.Fatalf("the calibration did not succeed: %s", fc.Log())
	}
	if lensTitled("▶ Recalibrate · oracle: calibrated (3 runs, provisional)") == nil {
		t.Error("the lens does not show the model")
	}
	var h protocol.Hover
	fc.Call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 4, Character: 25}}}, &h)
	for _, want := range []string{"**Bounds oracle** `sizes(500)`: **calibrated** — model of 3 runs (provisional: fewer than 20)", "| ns_per_op |", "| classes |"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
}

// engineProject is a project of one source file served with the real
// engine, measuring in this process with base options.
type engineProject struct {
	eng            *engine.Engine
	dir, src, text string
}

func newEngineProject(t *testing.T, base measure.Options, rel, text string) *engineProject {
	t.Helper()
	return openProject(t, base, nil, rel, text)
}

// newReplayedProject is newEngineProject whose measurements answer from the
// recording called name (testdata/replay/NAME.json): for tests of what the
// editor shows, whose JVM work is tested in engine and measure. With
// -record the engine measures for real and the recording is rewritten.
func newReplayedProject(t *testing.T, name string, base measure.Options, rel, text string) *engineProject {
	t.Helper()
	return openProject(t, base, replayed(t, name), rel, text)
}

// replayed gives an engine's Config.Given: the recording called name, or,
// with -record, the real service measuring in the engine's cache directory.
func replayed(t *testing.T, name string) func(cacheDir string) service.Service {
	return func(cacheDir string) service.Service { return replay.InCache(t, name, cacheDir) }
}

func openProject(t *testing.T, base measure.Options, given func(cacheDir string) service.Service, rel, text string) *engineProject {
	t.Helper()
	dir := fixture.Project(t, map[string]string{rel: text})
	cfg := engine.Config{CacheDir: t.TempDir(), Service: engine.InProcess, Logf: t.Logf, Base: base}
	if given != nil {
		cfg.Given = given(cfg.CacheDir)
	}
	eng, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &engineProject{eng: eng, dir: dir, src: filepath.Join(dir, filepath.FromSlash(rel)), text: text}
}

// session starts an editor session on the project's engine (progress and
// related information supported) with the source file open.
func (p *engineProject) session(t *testing.T) (*lsptest.Client, protocol.DocumentURI) {
	t.Helper()
	store, err := p.eng.Store()
	if err != nil {
		t.Fatal(err)
	}
	fc := lsptest.Start(t, server.Options{Verdicts: store, Actions: p.eng, CacheDir: p.eng.CacheDir()})
	// Every lens: these tests drive Calibrate, Profile and Compare.
	fc.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(p.dir), InitializationOptions: allLenses, Capabilities: protocol.ClientCapabilities{
		Window:       &protocol.WindowClientCapabilities{WorkDoneProgress: true},
		TextDocument: &protocol.TextDocumentClientCapabilities{PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{RelatedInformation: true}},
	}}, nil)
	fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File(p.src)
	fc.Notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: p.text}})
	fc.AwaitDiagnostics(t, u, 1)
	return fc, u
}

// lensTitled is u's lens whose title starts with prefix; nil when none.
// allLenses are initialization options that show every lens, not just
// server.DefaultLenses.
var allLenses = map[string]any{"lenses": server.LensNames}

func lensTitled(t *testing.T, fc *lsptest.Client, u protocol.DocumentURI, prefix string) *protocol.CodeLens {
	for _, l := range fc.Lenses(t, u) {
		if l.Command != nil && strings.HasPrefix(l.Command.Title, prefix) {
			return &l
		}
	}
	return nil
}

// jobEnded tells whether a $/progress notification ends a measuring job.
func jobEnded(p json.RawMessage) bool {
	return strings.Contains(string(p), `"kind":"end"`) && !strings.Contains(string(p), "perfls/index")
}
