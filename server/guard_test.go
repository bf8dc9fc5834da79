package server_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// profiledActions answers StoredProfiles with fixed profiles.
type profiledActions struct {
	*fakeActions
	profiles []*engine.Profiled
}

func (a *profiledActions) StoredProfiles(_ context.Context, req engine.MethodRequest) ([]*engine.Profiled, error) {
	var out []*engine.Profiled
	for _, p := range a.profiles {
		if strings.Contains(p.Method, "#"+req.Method+"(") {
			out = append(out, p)
		}
	}
	return out, nil
}

// In a git work tree (boxingSource: profile_test.go) the guards compare with HEAD: "Add an @SPL guard
// from this measurement" on the measured method, "Guard this" on a stored
// profile's excessive-allocation finding; each inserts a new @SPL.
func TestGuardCodeActionsInGitTree(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	fixture.WriteFiles(t, dir, map[string]string{"pom.xml": "<project/>", "src/p/T.java": boxingSource})
	path := filepath.Join(dir, "src", "p", "T.java")
	store, _, err := cache.OpenStore(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	if err := store.ReplaceVerdicts(context.Background(), []verdict.MethodResult{{File: path, Class: "p.T", Method: "sum", Params: []string{"int[]"}, CheckedAt: at,
		Measurements: []verdict.Measurement{{Workload: "values", Args: "1000", MeanNs: 2000, CILowNs: 1950, CIHighNs: 2050, Forks: 3, MeasuredAt: at}}}}); err != nil {
		t.Fatal(err)
	}
	actions := &profiledActions{fakeActions: &fakeActions{}, profiles: []*engine.Profiled{{
		Dir: dir, Method: "p.T#sum(int[])", Workload: "p.T#values(int)", Args: []measured.Arg{measured.IntArg(1000)}, MeasuredAt: at,
		Report: &profile.Report{Findings: []profile.Finding{{Kind: profile.FindingAllocation,
			Location: profile.Location{Method: "p.T#sum", File: "src/p/T.java", Line: 8},
			Message:  "excessive allocation: 16 kB of boxed values (java.lang.Long) per operation",
			Evidence: map[string]any{"bytes_per_op": 16000.0, "object_bytes_per_op": 15800.0}}}},
	}}}
	fc := lsptest.Start(t, server.Options{Verdicts: store, Actions: actions})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	u := fc.Open(t, path, boxingSource)
	fc.AwaitMatch(t, u, "the stored profile's finding", func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == profile.FindingAllocation {
				return true
			}
		}
		return false
	})
	actionsAt := func(line, char uint32, only ...protocol.CodeActionKind) []protocol.CodeAction {
		var acts []protocol.CodeAction
		pos := protocol.Position{Line: line, Character: char}
		fc.Call(t, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range: protocol.Range{Start: pos, End: pos}, Context: protocol.CodeActionContext{Only: only}}, &acts)
		return acts
	}
	insertion := func(a protocol.CodeAction) string {
		if a.Edit == nil || len(a.Edit.Changes[u]) != 1 {
			t.Fatalf("%s: edit %+v", a.Title, a.Edit)
		}
		e := a.Edit.Changes[u][0]
		if e.Range.Start != (protocol.Position{Line: 3}) || e.Range.End != e.Range.Start {
			t.Errorf("%s: inserted at %+v, want the start of the @Workload line", a.Title, e.Range)
		}
		return e.NewText
	}

	// On the signature, only refactor.rewrite asked for.
	acts := actionsAt(4, 25, protocol.RefactorRewrite)
	if len(acts) != 1 || acts[0].Kind != protocol.RefactorRewrite ||
		acts[0].Title != "Add an @SPL guard from this measurement (≤ 1.2 × HEAD on values(1000), measured 2.00 µs ± 2.5 %)" {
		t.Fatalf("actions on the measured method: %+v", acts)
	}
	if got, want := insertion(acts[0]), "    @SPL(\"SELF[values](1000) <= 1.2 * SELF@HEAD[values](1000)\")\n"; got != want {
		t.Errorf("measurement guard inserts %q, want %q", got, want)
	}
	// On the finding's line: "Guard this", for the finding's diagnostic.
	acts = actionsAt(7, 12)
	var guard *protocol.CodeAction
	for i := range acts {
		if strings.HasPrefix(acts[i].Title, "Guard this") {
			guard = &acts[i]
		}
	}
	if guard == nil {
		t.Fatalf("no Guard this on the finding: %+v", acts)
	}
	if want := "Guard this: alloc ≤ 1.2 × HEAD on values(1000) (profiled 15.6 KiB/op, 15.4 KiB/op of it small objects)"; guard.Title != want || guard.Kind != protocol.QuickFix ||
		len(guard.Diagnostics) != 1 || guard.Diagnostics[0].Code != profile.FindingAllocation {
		t.Errorf("Guard this: %q %s %+v, want %q for the finding", guard.Title, guard.Kind, guard.Diagnostics, want)
	}
	if got, want := insertion(*guard), "    @SPL(\"alloc(SELF)[values](1000) <= 1.2 * alloc(SELF@HEAD)[values](1000)\")\n"; got != want {
		t.Errorf("Guard this inserts %q, want %q", got, want)
	}
	// Quick fixes only: no measurement guard.
	for _, a := range actionsAt(4, 25, protocol.QuickFix) {
		if strings.HasPrefix(a.Title, "Add an @SPL guard") {
			t.Errorf("a guard offered for only=quickfix: %q", a.Title)
		}
	}
}
