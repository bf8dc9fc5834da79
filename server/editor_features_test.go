package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsp317"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

const editorSrc = `package demo;

public class Demo {
    @SPL("for n in {10} SELF[gen](n) <= 2 * slow[gen](n)")
    public static int fast(int[] a) { return 0; }

    public static int slow(int[] a) { return 0; }

    @SPL("for n in {10} SELF[gen](n) <= slow[gen](n)")
    public static int other(int[] a) { return 0; }

    public static Iterable<Object[]> gen(int n) { return null; }
}
`

// TestEditorCapabilities: initialize advertises every editor feature
// (inlayHintProvider through the 3.17 routing), semanticTokens/range
// keeps the lines asked for, the inlayHints setting turns the hints off,
// and a client declaring workspace.inlayHint.refreshSupport is asked to
// refresh when the setting changes.
func TestEditorCapabilities(t *testing.T) {
	dir := t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{"pom.xml": "<project/>", "src/demo/Demo.java": editorSrc})
	path := filepath.Join(dir, "src/demo/Demo.java")
	store, _, err := cache.OpenStore(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.ReplaceVerdicts(context.Background(), []verdict.MethodResult{{File: path, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"},
		Measurements: []verdict.Measurement{{Workload: "gen", Args: "10", MeanNs: 1430, CILowNs: 1400, CIHighNs: 1460}}}}); err != nil {
		t.Fatal(err)
	}
	fc := lsptest.Start(t, server.Options{Verdicts: store})
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	params := map[string]any{"rootUri": uri.File(dir), "capabilities": map[string]any{"workspace": map[string]any{"inlayHint": map[string]any{"refreshSupport": true}}}}
	fc.Call(t, protocol.MethodInitialize, params, &res)
	fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	for _, c := range []string{"semanticTokensProvider", "documentSymbolProvider", "codeActionProvider", "renameProvider",
		"referencesProvider", "inlayHintProvider", "signatureHelpProvider"} {
		if _, ok := res.Capabilities[c]; !ok {
			t.Errorf("initialize does not advertise %s: %v", c, res.Capabilities)
		}
	}
	if !strings.Contains(string(res.Capabilities["semanticTokensProvider"]), `"range":true,"full":{"delta":true}`) ||
		!strings.Contains(string(res.Capabilities["semanticTokensProvider"]), `"tokenTypes":["keyword"`) {
		t.Errorf("semanticTokensProvider = %s", res.Capabilities["semanticTokensProvider"])
	}
	u := fc.Open(t, path, editorSrc)
	td := protocol.TextDocumentIdentifier{URI: u}

	var full, part protocol.SemanticTokens
	fc.Call(t, protocol.MethodSemanticTokensFull, &protocol.SemanticTokensParams{TextDocument: td}, &full)
	fc.Call(t, protocol.MethodSemanticTokensRange, &protocol.SemanticTokensRangeParams{TextDocument: td,
		Range: protocol.Range{Start: protocol.Position{Line: 8}, End: protocol.Position{Line: 9}}}, &part)
	if len(full.Data) == 0 || len(part.Data) == 0 || len(part.Data) >= len(full.Data) || part.Data[0] != 8 {
		t.Errorf("tokens: full %d values, range %d starting on line %v", len(full.Data), len(part.Data), part.Data[:min(1, len(part.Data))])
	}

	// After an edit, the delta from the full answer's result applied to
	// it gives the tokens a new full request gives.
	if full.ResultID == "" {
		t.Fatal("semanticTokens/full without a resultId")
	}
	at := strings.Index(editorSrc, "slow[gen](n)\")\n    public static int other")
	pos := fixture.PositionAt(editorSrc, at)
	fc.Notify(t, protocol.MethodTextDocumentDidChange, lsptest.ChangeParams(u, 2, lsptest.Change{Range: &protocol.Range{Start: pos, End: pos}, Text: "3 * "}))
	fc.AwaitDiagnostics(t, u, 2)
	var delta struct {
		ResultID string                        `json:"resultId"`
		Edits    []protocol.SemanticTokensEdit `json:"edits"`
		Data     []uint32                      `json:"data"`
	}
	fc.Call(t, protocol.MethodSemanticTokensFullDelta, &protocol.SemanticTokensDeltaParams{TextDocument: td, PreviousResultID: full.ResultID}, &delta)
	var again protocol.SemanticTokens
	fc.Call(t, protocol.MethodSemanticTokensFull, &protocol.SemanticTokensParams{TextDocument: td}, &again)
	if delta.Data != nil || len(delta.Edits) != 1 || delta.ResultID == "" {
		t.Fatalf("delta = %+v, want one edit", delta)
	}
	e := delta.Edits[0]
	applied := append(append(append([]uint32{}, full.Data[:e.Start]...), e.Data...), full.Data[e.Start+e.DeleteCount:]...)
	if fmt.Sprint(applied) != fmt.Sprint(again.Data) || len(e.Data) > 20 {
		t.Errorf("delta %+v applied gives\n%v, want\n%v", e, applied, again.Data)
	}
	var stale protocol.SemanticTokens
	fc.Call(t, protocol.MethodSemanticTokensFullDelta, &protocol.SemanticTokensDeltaParams{TextDocument: td, PreviousResultID: "unknown"}, &stale)
	if fmt.Sprint(stale.Data) != fmt.Sprint(again.Data) {
		t.Errorf("delta from an unknown result: want all the tokens, got %d values", len(stale.Data))
	}

	hints := func() []lsp317.InlayHint {
		var hs []lsp317.InlayHint
		fc.Call(t, lsp317.MethodInlayHint, &lsp317.InlayHintParams{TextDocument: td, Range: protocol.Range{End: protocol.Position{Line: 100}}}, &hs)
		return hs
	}
	if hs := hints(); len(hs) != 1 || hs[0].Label != "≈ 1.43 µs ± 2 %" || hs[0].Position.Line != 4 {
		t.Errorf("hints = %+v, want the figure after fast's signature", hs)
	}
	fc.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"inlayHints": false}})
	fc.Await(t, "workspace/inlayHint/refresh", func() bool { return len(fc.Received(lsp317.MethodInlayHintRefresh)) > 0 })
	if hs := hints(); len(hs) != 0 {
		t.Errorf("hints with inlayHints off = %+v", hs)
	}
}
