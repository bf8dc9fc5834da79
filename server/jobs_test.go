package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// fakeActions stands in for the measurement service: this test is about the
// wire layer (lenses, commands, progress, diagnostics), not about JVMs.
type fakeActions struct {
	mu       sync.Mutex
	requests []engine.MethodRequest
	measures []engine.MethodRequest
	result   []verdict.MethodResult
	measured []verdict.MethodResult
	err      error
	release  chan struct{}  // when set, Check waits for it (or cancellation)
	stopped  chan struct{}  // when set, receives one value per cancelled Check
	models   []*model.Model // what StoredModels returns
}

func (f *fakeActions) CheckMethod(ctx context.Context, req engine.MethodRequest, report func(string)) ([]verdict.MethodResult, error) {
	return f.run(ctx, &f.requests, req, report, func() []verdict.MethodResult { return f.result })
}

// MeasureMethod is the Measure lens's action.
func (f *fakeActions) MeasureMethod(ctx context.Context, req engine.MethodRequest, report func(string)) ([]verdict.MethodResult, error) {
	return f.run(ctx, &f.measures, req, report, func() []verdict.MethodResult { return f.measured })
}

// run records req in reqs, reports progress, waits for release (or
// cancellation) when set, and returns result().
func (f *fakeActions) run(ctx context.Context, reqs *[]engine.MethodRequest, req engine.MethodRequest, report func(string), result func() []verdict.MethodResult) ([]verdict.MethodResult, error) {
	f.mu.Lock()
	*reqs = append(*reqs, req)
	f.mu.Unlock()
	report("fork 1/3 of demo.Demo#fast")
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			if f.stopped != nil {
				f.stopped <- struct{}{}
			}
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return result(), f.err
}

// CalibrateMethod is refused: this fake does not calibrate.
func (f *fakeActions) CalibrateMethod(context.Context, engine.MethodRequest, int, func(string)) ([]cache.OracleKey, error) {
	return nil, errors.New("the fake does not calibrate")
}

// ProfileMethod is refused and StoredProfiles finds none: this fake does
// not profile (profile_test.go drives the real engine).
func (f *fakeActions) ProfileMethod(context.Context, engine.MethodRequest, func(string)) ([]*engine.Profiled, error) {
	return nil, errors.New("the fake does not profile")
}

func (f *fakeActions) StoredProfiles(context.Context, engine.MethodRequest) ([]*engine.Profiled, error) {
	return nil, nil
}

func (f *fakeActions) StoredModels(_ context.Context, req engine.MethodRequest) ([]*model.Model, error) {
	var out []*model.Model
	for _, m := range f.models {
		if strings.Contains(m.Operations[0].Method, "#"+req.Method+"(") {
			out = append(out, m)
		}
	}
	return out, nil
}

// DiffMethod and Revision are refused: revisions_test.go drives the real
// engine.
func (f *fakeActions) DiffMethod(context.Context, engine.MethodRequest, func(string)) (*report.Diff, error) {
	return nil, errors.New("the fake does not compare")
}

func (f *fakeActions) Revision(_ context.Context, _, name string) (engine.RevisionInfo, error) {
	return engine.RevisionInfo{}, errors.New("the fake knows no revisions")
}

const lensSource = `package demo;

public class Demo {
    @SPL("for n in {10, 20} SELF[gen](n) <= demo.Demo#slow[gen](n)")
    public static int fast(int[] a) { return a.length; }

    public static int slow(int[] a) { return a.length; }

    public static Iterable<Object[]> gen(int n) { return null; }
}
`

// progressKinds lists "kind:message" of the $/progress messages whose token
// began with a title containing title.
func progressKinds(fc *lsptest.Client, title string) []string {
	var kinds []string
	var token string
	for _, params := range fc.Received(protocol.MethodProgress) {
		var p struct {
			Token json.RawMessage
			Value struct{ Kind, Message, Title string }
		}
		json.Unmarshal(params, &p)
		if p.Value.Kind == "begin" && strings.Contains(p.Value.Title, title) {
			token = string(p.Token)
		}
		if token != "" && string(p.Token) == token {
			kinds = append(kinds, p.Value.Kind+":"+p.Value.Message)
		}
	}
	return kinds
}

func TestCheckLensRunsCommandWithProgressAndDiagnostics(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Demo.java")
	checker := &fakeActions{release: make(chan struct{})}
	checker.result = []verdict.MethodResult{{
		File: path, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}, CheckedAt: time.Now(), Source: sourceHash(t, path, "fast"),
		Instances: []verdict.InstanceResult{
			{Formula: "for n in {10, 20} SELF[gen](n) <= demo.Demo#slow[gen](n)", Instance: "n=10", Outcome: verdict.Satisfied},
			{Formula: "for n in {10, 20} SELF[gen](n) <= demo.Demo#slow[gen](n)", Instance: "n=20", Outcome: verdict.Violated,
				Comparisons: []verdict.ComparisonResult{{Text: "SELF[gen](20) <= demo.Demo#slow[gen](20)", Outcome: verdict.Violated,
					Evidence: verdict.Evidence{Left: verdict.SideEvidence{MeanNs: 900, Samples: 90}, Right: verdict.SideEvidence{MeanNs: 300, Samples: 90}, Ratio: 3, P: 1e-9}}}},
		},
	}}
	fc := lsptest.Start(t, server.Options{Actions: checker})
	var init protocol.InitializeResult
	fc.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{
		RootURI: uri.File(dir), InitializationOptions: allLenses,
		Capabilities: protocol.ClientCapabilities{
			Window:    &protocol.WindowClientCapabilities{WorkDoneProgress: true},
			Workspace: &protocol.WorkspaceClientCapabilities{CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: true}},
		},
	}, &init)
	if init.Capabilities.ExecuteCommandProvider == nil || len(init.Capabilities.ExecuteCommandProvider.Commands) == 0 || init.Capabilities.CodeLensProvider == nil {
		t.Fatalf("lenses and commands not advertised: %+v", init.Capabilities)
	}
	fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File(path)
	fc.Notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: lensSource},
	})
	fc.AwaitDiagnostics(t, u, 1)

	var lenses []protocol.CodeLens
	fc.Call(t, protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &lenses)
	// SELF is measured on a generator: a Measure lens, a Profile lens, then the Check lens.
	if len(lenses) != 3 || lenses[0].Command == nil || lenses[0].Command.Command != server.CommandMeasure ||
		lenses[1].Command == nil || lenses[1].Command.Command != server.CommandProfile ||
		lenses[2].Command == nil || lenses[2].Command.Command != server.CommandCheck || lenses[2].Range.Start.Line != 4 {
		t.Fatalf("lenses %+v, want Measure, Profile and Check lenses on line 5", lenses)
	}
	lenses = lenses[2:]
	if !strings.Contains(lenses[0].Command.Title, "Check 1 formula") {
		t.Errorf("title %q", lenses[0].Command.Title)
	}

	// Running the lens's command replies at once; the work goes on in the background.
	var reply any
	fc.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: lenses[0].Command.Command, Arguments: lenses[0].Command.Arguments,
	}, &reply)
	if reply != "started" {
		t.Errorf("reply %v", reply)
	}
	fc.Await(t, "progress begin and report", func() bool { return len(progressKinds(fc, "checking demo.Demo#fast")) >= 2 })
	// Other requests are answered while the check runs.
	var hover *protocol.Hover
	fc.Call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 4, Character: 23}}}, &hover)
	if hover == nil {
		t.Error("no hover while a check runs")
	}
	close(checker.release)

	fc.Await(t, "a verdict diagnostic", func() bool { return len(fc.LastDiagnostics(u)) > 0 })
	d := fc.LastDiagnostics(u)[0]
	if d.Severity != protocol.DiagnosticSeverityWarning || d.Range.Start.Line != 3 || !strings.Contains(d.Message, "violated for n=20") || !strings.Contains(d.Message, "900 ns/op vs 300 ns/op") {
		t.Errorf("verdict diagnostic %+v", d)
	}
	fc.Await(t, "codeLens/refresh", func() bool {
		for _, m := range fc.Methods() {
			if m == protocol.MethodCodeLensRefresh {
				return true
			}
		}
		return false
	})
	kinds := progressKinds(fc, "checking demo.Demo#fast")
	if kinds[0] != "begin:" || !strings.HasPrefix(kinds[1], "report:fork 1/3") || kinds[len(kinds)-1] != "end:1 satisfied, 1 violated, 0 undecided" {
		t.Errorf("progress %v", kinds)
	}
	checker.mu.Lock()
	req := checker.requests[0]
	checker.mu.Unlock()
	if req.Class != "demo.Demo" || req.Method != "fast" || req.File != path || req.Root != dir || len(req.Params) != 1 || req.Params[0] != "int[]" {
		t.Errorf("check request %+v", req)
	}
	// Editing the method makes the verdicts stale: a hint replaces the warning.
	fc.Replace(t, u, 2, strings.Replace(lensSource, "return a.length; }\n\n    public static int slow", "return a.length + 1; }\n\n    public static int slow", 1))
	stale := fc.AwaitDiagnostics(t, u, 2)
	if len(stale) != 1 || stale[0].Severity != protocol.DiagnosticSeverityHint || !strings.Contains(stale[0].Message, "changed since") {
		t.Errorf("after editing the method: %+v", stale)
	}

	// The lens title now shows the verdicts.
	fc.Call(t, protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &lenses)
	lenses = lenses[2:]
	if !strings.Contains(lenses[0].Command.Title, "1 satisfied, 1 violated") {
		t.Errorf("title after the check %q", lenses[0].Command.Title)
	}
}

func TestCheckFailureIsShownAndShutdownCancelsWork(t *testing.T) {
	dir := t.TempDir()
	checker := &fakeActions{err: errors.New("the project does not compile: Demo.java:3: ';' expected")}
	fc := lsptest.Start(t, server.Options{Actions: checker})
	fc.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir)}, nil)
	u := uri.File(filepath.Join(dir, "Demo.java"))
	args := server.MethodArgs{URI: u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}}
	fc.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: server.CommandCheck, Arguments: []any{args}}, nil)
	fc.Await(t, "an error message", func() bool {
		for _, m := range fc.Methods() {
			if m == protocol.MethodWindowShowMessage {
				return true
			}
		}
		return false
	})

	// A check still running at shutdown is cancelled, and shutdown waits for it.
	blocked := &fakeActions{release: make(chan struct{})}
	fc2 := lsptest.Start(t, server.Options{Actions: blocked})
	fc2.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir)}, nil)
	fc2.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: server.CommandCheck, Arguments: []any{args}}, nil)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		blocked.mu.Lock()
		n := len(blocked.requests)
		blocked.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("check never started")
		}
	}
	fc2.Call(t, protocol.MethodShutdown, nil, nil) // returns only once the job ended

	var bad any
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := fc.Conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "perfls.nope"}, &bad); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("unknown command: %v", err)
	}
}

// sourceHash is the hash a check of method name in lensSource records.
func sourceHash(t *testing.T, path, name string) string {
	f, err := javasrc.Parse(path, []byte(lensSource))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range f.Methods {
		if m.Name == name {
			return m.SourceHash(f)
		}
	}
	t.Fatalf("no method %s", name)
	return ""
}
