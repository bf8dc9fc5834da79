package server_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

func (f *fakeActions) checkRequests() []engine.MethodRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]engine.MethodRequest(nil), f.requests...)
}

// session opens lensSource (or src) in a fresh session with the given
// initialization options and client capabilities.
type session struct {
	*lsptest.Client
	dir, path string
	u         protocol.DocumentURI
}

func openSession(t *testing.T, opts server.Options, initOpts any, src string) *session {
	t.Helper()
	dir := fixture.Project(t, map[string]string{"Demo.java": src})
	path := filepath.Join(dir, "Demo.java")
	fc := lsptest.Start(t, opts)
	fc.Initialize(t, dir, initOpts, protocol.ClientCapabilities{
		Window:    &protocol.WindowClientCapabilities{WorkDoneProgress: true},
		Workspace: &protocol.WorkspaceClientCapabilities{CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: true}},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{RelatedInformation: true},
		},
	})
	return &session{fc, dir, path, fc.Open(t, path, src)}
}

func (ss *session) lenses(t *testing.T) []protocol.CodeLens {
	t.Helper()
	return ss.Lenses(t, ss.u)
}

func (ss *session) execute(t *testing.T, command string, arg any) (any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var reply any
	_, err := ss.Conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: command, Arguments: []any{arg}}, &reply)
	return reply, err
}

// statuses lists the perfls/status notifications received.
func statuses(fc *lsptest.Client) []server.StatusParams {
	var out []server.StatusParams
	for _, params := range fc.Received(server.MethodStatus) {
		var p server.StatusParams
		json.Unmarshal(params, &p)
		out = append(out, p)
	}
	return out
}

// messages lists the window/showMessage texts received.
func messages(fc *lsptest.Client) []string {
	var out []string
	for _, params := range fc.Received(protocol.MethodWindowShowMessage) {
		var p protocol.ShowMessageParams
		json.Unmarshal(params, &p)
		out = append(out, p.Message)
	}
	return out
}

const formulaText = "for n in {10, 20} SELF[gen](n) <= demo.Demo#slow[gen](n)"

func violatedResult(path, source string) []verdict.MethodResult {
	return []verdict.MethodResult{{
		File: path, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}, CheckedAt: time.Now(), Source: source,
		Instances: []verdict.InstanceResult{
			{Formula: formulaText, Instance: "n=20", Outcome: verdict.Violated,
				Comparisons: []verdict.ComparisonResult{{Text: "SELF[gen](20) <= demo.Demo#slow[gen](20)", Outcome: verdict.Violated,
					Evidence: verdict.Evidence{Left: verdict.SideEvidence{MeanNs: 900, Samples: 90}, Right: verdict.SideEvidence{MeanNs: 300, Samples: 90}, Ratio: 3, P: 1e-9}}}},
		},
	}}
}

// Settings from initializationOptions reach the checker; violationSeverity
// from didChangeConfiguration republishes; related information points at
// the other side of the comparison; perfls/status follows the job.
func TestSettingsSeverityRelatedInformationAndStatus(t *testing.T) {
	checker := &fakeActions{}
	dir0 := t.TempDir()
	checker.result = violatedResult("", "")
	ss := openSession(t, server.Options{Actions: checker}, map[string]any{
		"alpha": 0.01, "interpretation": "rank", "semantics": "classic", "budgetSeconds": 2.5, "javaHome": dir0, "jvmArgs": []string{"-Xint"},
		"violationSeverity": "error", "remote": true, "remoteLabel": "quiet-x86", "cpus": " 1 ",
	}, lensSource)
	checker.mu.Lock()
	checker.result[0].File = ss.path
	checker.result[0].Source = sourceHash(t, ss.path, "fast")
	checker.mu.Unlock()

	args := server.MethodArgs{URI: ss.u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}}
	if reply, err := ss.execute(t, server.CommandCheck, args); err != nil || reply != "started" {
		t.Fatalf("check: %v %v", reply, err)
	}
	ss.Await(t, "a violated diagnostic", func() bool {
		ds := ss.LastDiagnostics(ss.u)
		return len(ds) > 0 && ds[0].Code == "formula-violated"
	})
	d := ss.LastDiagnostics(ss.u)[0]
	if d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("violationSeverity error: got severity %v", d.Severity)
	}
	// The other side: demo.Demo#slow, declared on line 7 (0-based 6).
	if len(d.RelatedInformation) != 1 || d.RelatedInformation[0].Location.URI != ss.u || d.RelatedInformation[0].Location.Range.Start.Line != 6 ||
		!strings.Contains(d.RelatedInformation[0].Message, "demo.Demo#slow") {
		t.Errorf("related information %+v", d.RelatedInformation)
	}
	req := checker.checkRequests()[0]
	if req.Alpha != 0.01 || req.Interpretation != "rank" || req.Semantics != "classic" || req.Budget != 2500*time.Millisecond || req.JavaHome != dir0 || len(req.JVMArgs) != 1 || req.JVMArgs[0] != "-Xint" ||
		!req.Remote || req.Label != "quiet-x86" || req.CPUs != "1" {
		t.Errorf("settings not passed: %+v", req)
	}
	// perfls/status: queued, running, then idle.
	ss.Await(t, "idle status", func() bool {
		st := statuses(ss.Client)
		return len(st) > 0 && st[len(st)-1].Message == "idle"
	})
	st := statuses(ss.Client)
	sawRunning := false
	for _, s := range st {
		sawRunning = sawRunning || (s.Running == 1 && strings.Contains(s.Message, "checking demo.Demo#fast"))
	}
	if !sawRunning || st[0].Queued != 1 || st[len(st)-1].Running != 0 || st[len(st)-1].Queued != 0 {
		t.Errorf("status sequence %+v", st)
	}

	// Back to warning through didChangeConfiguration (nested form). The
	// awaited publication is the one with the new severity: the index's
	// first build, ending at any time, republishes too.
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{
		Settings: map[string]any{"perfls": map[string]any{"violationSeverity": "warning"}},
	})
	ss.Await(t, "a republication as a warning", func() bool {
		d := ss.LastDiagnostics(ss.u)
		return len(d) > 0 && d[0].Code == "formula-violated" && d[0].Severity == protocol.DiagnosticSeverityWarning
	})
	// A bad value is reported and keeps the others.
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{
		Settings: map[string]any{"alpha": 3, "interpretation": "quick", "remoteLabel": "Quiet x86", "cpus": "1-", "semantics": "lenient"},
	})
	ss.Await(t, "a settings warning", func() bool {
		for _, m := range messages(ss.Client) {
			if strings.Contains(m, "alpha: 3 is outside (0, 0.5]") && strings.Contains(m, `remoteLabel: worker label "Quiet x86"`) &&
				strings.Contains(m, `cpus: processor list "1-"`) && strings.Contains(m, `semantics: "lenient" is not auto, shown or classic`) {
				return true
			}
		}
		return false
	})
	ss.execute(t, server.CommandCheck, args)
	ss.Await(t, "a second check", func() bool { return len(checker.checkRequests()) == 2 })
	if req := checker.checkRequests()[1]; req.Alpha != 0.01 || req.Interpretation != "quick" || req.Semantics != "classic" || req.Label != "quiet-x86" || req.CPUs != "1" {
		t.Errorf("after a bad alpha: %+v", req)
	}
}

// allowMeasuring=false refuses every measuring command with a clear error
// and leaves the lenses without actions.
func TestAllowMeasuringFalseRefuses(t *testing.T) {
	checker := &fakeActions{}
	ss := openSession(t, server.Options{Actions: checker}, map[string]any{"allowMeasuring": false}, lensSource)
	args := server.MethodArgs{URI: ss.u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}}
	for _, c := range []struct {
		cmd string
		arg any
	}{{server.CommandCheck, args}, {server.CommandMeasure, args}, {server.CommandProfile, args}, {server.CommandCheckFile, server.FileArgs{URI: ss.u}}} {
		if _, err := ss.execute(t, c.cmd, c.arg); err == nil || !strings.Contains(err.Error(), "allowMeasuring is false") {
			t.Errorf("%s: err = %v", c.cmd, err)
		}
	}
	for _, l := range ss.lenses(t) {
		if l.Command == nil || l.Command.Command != "" || !strings.Contains(l.Command.Title, "measuring disabled") {
			t.Errorf("lens with an action: %+v", l.Command)
		}
	}
	if n := len(checker.checkRequests()); n != 0 {
		t.Errorf("%d checks ran", n)
	}
	// Allowed again: the command runs.
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"allowMeasuring": true}})
	ss.Await(t, "the check", func() bool {
		_, err := ss.execute(t, server.CommandCheckFile, server.FileArgs{URI: ss.u})
		return err == nil && len(checker.checkRequests()) > 0
	})
}

// Measure runs in the background; its result shows in the Measure lens's
// title, refreshed; checkFile checks every method with formulas.
func TestMeasureLensAndCheckFile(t *testing.T) {
	checker := &fakeActions{}
	ss := openSession(t, server.Options{Actions: checker}, allLenses, lensSource)
	checker.mu.Lock()
	checker.measured = []verdict.MethodResult{{
		File: ss.path, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}, Source: sourceHash(t, ss.path, "fast"),
		Measurements: []verdict.Measurement{{Workload: "demo.Demo#gen", Args: "10", MeanNs: 12300, CILowNs: 12165, CIHighNs: 12435, Forks: 3, Samples: 30}},
	}}
	checker.mu.Unlock()
	lenses := ss.lenses(t)
	if len(lenses) != 3 || lenses[0].Command.Title != "▶ Measure" || lenses[1].Command.Title != "▶ Profile" {
		t.Fatalf("lenses before measuring: %+v", lenses)
	}
	if reply, err := ss.execute(t, lenses[0].Command.Command, lenses[0].Command.Arguments[0]); err != nil || reply != "started" {
		t.Fatalf("measure: %v %v", reply, err)
	}
	ss.Await(t, "codeLens/refresh", func() bool {
		for _, m := range ss.Methods() {
			if m == protocol.MethodCodeLensRefresh {
				return true
			}
		}
		return false
	})
	if got := ss.lenses(t)[0].Command.Title; got != "▶ Measure · 12.3 µs/op ±1.1 %" {
		t.Errorf("measure lens title %q", got)
	}
	if kinds := progressKinds(ss.Client, "measuring demo.Demo#fast"); len(kinds) < 2 || kinds[len(kinds)-1] != "end:gen(10): 12.3 µs/op ±1.1 %" {
		t.Errorf("progress %v", kinds)
	}

	reply, err := ss.execute(t, server.CommandCheckFile, server.FileArgs{URI: ss.u})
	if err != nil || reply != "started 1 check" {
		t.Fatalf("checkFile: %v %v", reply, err)
	}
	ss.Await(t, "the file's check", func() bool { return len(checker.checkRequests()) == 1 })
	if r := checker.checkRequests()[0]; r.Method != "fast" || r.File != ss.path {
		t.Errorf("checkFile request %+v", r)
	}
	if _, err := ss.execute(t, server.CommandCheckFile, server.FileArgs{URI: "file:///nowhere/X.java"}); err == nil || !strings.Contains(err.Error(), "not an open Java document") {
		t.Errorf("checkFile of an unknown document: %v", err)
	}
	if _, err := ss.execute(t, server.CommandMeasure, map[string]any{"uri": string(ss.u)}); err == nil || !strings.Contains(err.Error(), "needs uri, class and method") {
		t.Errorf("measure without a method: %v", err)
	}
}

// Jobs queue behind the running one and can be cancelled while queued.
func TestJobsQueueOneAtATime(t *testing.T) {
	checker := &fakeActions{release: make(chan struct{})}
	ss := openSession(t, server.Options{Actions: checker}, nil, lensSource)
	args := server.MethodArgs{URI: ss.u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}}
	ss.execute(t, server.CommandCheck, args)
	ss.execute(t, server.CommandMeasure, args)
	if reply, _ := ss.execute(t, server.CommandCheck, args); reply != "already queued" {
		t.Errorf("the same check twice: %v", reply)
	}
	ss.Await(t, "one running, one queued", func() bool {
		st := statuses(ss.Client)
		return len(st) > 0 && st[len(st)-1].Running == 1 && st[len(st)-1].Queued == 1
	})
	close(checker.release)
	ss.Await(t, "idle", func() bool {
		st := statuses(ss.Client)
		return len(st) > 0 && st[len(st)-1].Message == "idle" && len(checker.checkRequests()) == 1
	})
	for _, s := range statuses(ss.Client) {
		if s.Running > 1 {
			t.Errorf("two jobs ran at once: %+v", s)
		}
	}
}

// measureOnSave re-checks, on save, the methods changed since their
// verdicts, and only when enabled.
func TestMeasureOnSave(t *testing.T) {
	checker := &fakeActions{}
	ss := openSession(t, server.Options{Actions: checker}, map[string]any{"measureOnSave": true}, lensSource)
	checker.mu.Lock()
	checker.result = violatedResult(ss.path, sourceHash(t, ss.path, "fast"))
	checker.mu.Unlock()
	args := server.MethodArgs{URI: ss.u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}}
	ss.execute(t, server.CommandCheck, args)
	ss.Await(t, "the verdicts", func() bool {
		ds := ss.LastDiagnostics(ss.u)
		return len(ds) > 0 && ds[0].Code == "formula-violated"
	})
	save := func() {
		ss.Notify(t, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: ss.u}})
	}
	// Saving unchanged code measures nothing.
	save()
	edited := strings.Replace(lensSource, "{ return a.length; }\n\n    public static int slow", "{ return a.length + 1; }\n\n    public static int slow", 1)
	ss.Replace(t, ss.u, 2, edited)
	ss.AwaitDiagnostics(t, ss.u, 2)
	if n := len(checker.checkRequests()); n != 1 {
		t.Fatalf("%d checks before the save of the change, want 1", n)
	}
	save()
	ss.Await(t, "the re-check on save", func() bool { return len(checker.checkRequests()) == 2 })
	if r := checker.checkRequests()[1]; r.Method != "fast" {
		t.Errorf("re-checked %+v", r)
	}

	// Off (the default): saving a changed method measures nothing.
	checker2 := &fakeActions{}
	ss2 := openSession(t, server.Options{Actions: checker2}, nil, lensSource)
	checker2.mu.Lock()
	checker2.result = violatedResult(ss2.path, "0123456789abcdef") // recorded for other code
	checker2.mu.Unlock()
	ss2.execute(t, server.CommandCheck, server.MethodArgs{URI: ss2.u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}})
	ss2.Await(t, "a stale hint", func() bool {
		ds := ss2.LastDiagnostics(ss2.u)
		return len(ds) > 0 && ds[0].Code == "stale-verdict"
	})
	ss2.Notify(t, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: ss2.u}})
	// A request after the notification is handled after it (in order).
	ss2.lenses(t)
	if n := len(checker2.checkRequests()); n != 1 {
		t.Errorf("measureOnSave off: %d checks, want only the explicit one", n)
	}
}

// A client that goes away without shutdown leaves no measurement running.
func TestJobsEndWithTheConnection(t *testing.T) {
	checker := &fakeActions{release: make(chan struct{}), stopped: make(chan struct{}, 1)}
	ss := openSession(t, server.Options{Actions: checker}, nil, lensSource)
	ss.execute(t, server.CommandCheck, server.MethodArgs{URI: ss.u, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"}})
	ss.Await(t, "the running check", func() bool { return len(checker.checkRequests()) == 1 })
	ss.Conn.Close()
	select {
	case <-checker.stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("the check still runs after the connection closed")
	}
}

// Verdicts another process records (a `perfls check` in a terminal) reach
// the open document and its lenses without any request from the editor.
func TestVerdictsOfOtherProcessesArePushed(t *testing.T) {
	cacheDir := t.TempDir()
	mine, _, err := cache.OpenStore(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	ss := openSession(t, server.Options{Verdicts: mine, VerdictPoll: 20 * time.Millisecond}, nil, lensSource)
	other, _, err := cache.OpenStore(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.ReplaceVerdicts(context.Background(), violatedResult(ss.path, sourceHash(t, ss.path, "fast"))); err != nil {
		t.Fatal(err)
	}
	ss.Await(t, "the other process's verdict", func() bool {
		ds := ss.LastDiagnostics(ss.u)
		return len(ds) > 0 && ds[0].Code == "formula-violated"
	})
	ss.Await(t, "codeLens/refresh", func() bool {
		for _, m := range ss.Methods() {
			if m == protocol.MethodCodeLensRefresh {
				return true
			}
		}
		return false
	})
}

// An empty list as settings is how Neovim encodes an empty Lua table
// (`settings = {}`): it means "no settings", not a malformed object, so
// no warning is shown.
func TestEmptyListSettingsAreNoSettings(t *testing.T) {
	ss := openSession(t, server.Options{Actions: &fakeActions{}}, []any{}, lensSource)
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: []any{}})
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"perfls": []any{}}})
	// A bad value last: its warning shows that the notifications before it
	// were handled.
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"alpha": 3}})
	ss.Await(t, "the alpha warning", func() bool {
		for _, m := range messages(ss.Client) {
			if strings.Contains(m, "alpha: 3") {
				return true
			}
		}
		return false
	})
	for _, m := range messages(ss.Client) {
		if strings.Contains(m, "settings") && !strings.Contains(m, "alpha: 3") {
			t.Errorf("warning for empty settings: %q", m)
		}
	}
}

// Issue 40: five lenses stood above every method. By default Measure and
// Check; the "lenses" setting lists others, a change refreshes the lenses,
// and a name that is no lens is reported and changes nothing.
func TestLensesSetting(t *testing.T) {
	ss := openSession(t, server.Options{Actions: &fakeActions{}}, nil, lensSource)
	if got := lensTitles(ss.lenses(t)); len(got) != 2 || got[0] != "▶ Measure" || !strings.HasPrefix(got[1], "▶ Check 1 formula") {
		t.Fatalf("default lenses %q, want Measure and Check", got)
	}
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"perfls": map[string]any{"lenses": []string{"check", "profile"}}}})
	ss.Await(t, "the new lens set", func() bool {
		got := lensTitles(ss.lenses(t))
		return len(got) == 2 && got[0] == "▶ Profile" && strings.HasPrefix(got[1], "▶ Check")
	})
	ss.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"lenses": []string{"check", "flamegraph"}}})
	ss.Await(t, "the warning", func() bool {
		for _, m := range ss.Received(protocol.MethodWindowShowMessage) {
			if strings.Contains(string(m), `lenses: \"flamegraph\" is not one of measure, check, profile, compare, calibrate`) {
				return true
			}
		}
		return false
	})
	if got := lensTitles(ss.lenses(t)); len(got) != 2 || got[0] != "▶ Profile" {
		t.Errorf("a bad lens name changed the lenses: %q", got)
	}
}
