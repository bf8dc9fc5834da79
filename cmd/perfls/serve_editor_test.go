package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsp317"
	"github.com/perfls/perfls/internal/lsptest"
)

// editorFixture has something for every editor feature: SPL to highlight,
// methods and a generator to outline, a misspelt method to fix, names to
// rename and find, a generator's arguments, and (without recorded results)
// no hints.
const editorFixture = `package demo;

public class Search {
    @SPL("for n in {10, 100} SELF[sizes](n) <= 2 * linearSerch[sizes](n)")
    public static int fast(int[] a) { return 0; }

    public static int linearSearch(int[] a) { return 0; }

    public static Iterable<Object[]> sizes(int n) { return null; }
}
`

// TestServeEditorFeatures starts the built perfls serve as an editor does
// and checks, from outside the process, that initialize advertises every
// editor feature of issue 38 and that each request answers on a fixture
// file: semantic tokens (full, delta and range), document symbols, a quick fix,
// prepareRename and rename, references, inlay hints and signature help.
func TestServeEditorFeatures(t *testing.T) {
	p := startServe(t)
	c := lsptest.Connect(t, pipe{p.stdout, keepOpen{p.stdin}})
	dir := t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{"pom.xml": "<project/>", "src/demo/Search.java": editorFixture})
	path := filepath.Join(dir, "src/demo/Search.java")

	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	c.Call(t, protocol.MethodInitialize, map[string]any{"rootUri": uri.File(dir), "capabilities": map[string]any{}}, &res)
	c.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	for _, name := range []string{"semanticTokensProvider", "documentSymbolProvider", "codeActionProvider", "renameProvider",
		"referencesProvider", "inlayHintProvider", "signatureHelpProvider"} {
		if v, ok := res.Capabilities[name]; !ok || string(v) == "false" || string(v) == "null" {
			t.Errorf("initialize does not advertise %s", name)
		}
	}
	u := c.Open(t, path, editorFixture)
	td := protocol.TextDocumentIdentifier{URI: u}
	line := func(s string) uint32 {
		return uint32(strings.Count(editorFixture[:strings.Index(editorFixture, s)], "\n"))
	}
	at := func(s string, plus int) protocol.TextDocumentPositionParams {
		i := strings.Index(editorFixture, s) + plus
		return protocol.TextDocumentPositionParams{TextDocument: td, Position: fixture.PositionAt(editorFixture, i)}
	}

	var full, rng protocol.SemanticTokens
	c.Call(t, protocol.MethodSemanticTokensFull, &protocol.SemanticTokensParams{TextDocument: td}, &full)
	c.Call(t, protocol.MethodSemanticTokensRange, &protocol.SemanticTokensRangeParams{TextDocument: td,
		Range: protocol.Range{End: protocol.Position{Line: 10}}}, &rng)
	if len(full.Data) < 5*10 || len(rng.Data) != len(full.Data) || full.Data[0] != line("@SPL") {
		t.Errorf("semantic tokens: full %d values starting on line %v, range %d", len(full.Data), full.Data[:min(1, len(full.Data))], len(rng.Data))
	}

	var delta protocol.SemanticTokensDelta
	c.Call(t, protocol.MethodSemanticTokensFullDelta, &protocol.SemanticTokensDeltaParams{TextDocument: td, PreviousResultID: full.ResultID}, &delta)
	if full.ResultID == "" || delta.ResultID == "" || delta.Edits == nil || len(delta.Edits) != 0 {
		t.Errorf("semantic tokens delta of an unchanged file = %+v (full result %q), want no edit", delta, full.ResultID)
	}

	var syms []struct {
		Name     string
		Children []struct{ Name string }
	}
	c.Call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: td}, &syms)
	if len(syms) != 1 || syms[0].Name != "Search" || len(syms[0].Children) != 2 {
		t.Errorf("symbols = %+v, want Search with fast and sizes", syms)
	}

	fixAt := at("linearSerch", 3)
	var acts []protocol.CodeAction
	c.Call(t, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: td,
		Range: protocol.Range{Start: fixAt.Position, End: fixAt.Position}}, &acts)
	if len(acts) != 1 || acts[0].Kind != protocol.QuickFix || acts[0].Edit == nil || len(acts[0].Edit.Changes[u]) != 1 ||
		acts[0].Edit.Changes[u][0].NewText != "linearSearch" {
		t.Errorf("code actions = %+v, want the quick fix to linearSearch", acts)
	}

	var r *protocol.Range
	c.Call(t, protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: at("sizes](n) <=", 1)}, &r)
	if r == nil || r.Start.Line != line("@SPL") {
		t.Errorf("prepareRename = %+v", r)
	}
	var we protocol.WorkspaceEdit
	c.Call(t, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: at("sizes](n) <=", 1), NewName: "lengths"}, &we)
	if n := len(we.Changes[u]); n != 3 {
		t.Errorf("rename: %d edits in the file, want 3 (two formula terms, the declaration): %+v", n, we)
	}
	var locs []protocol.Location
	c.Call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: at("sizes(int", 1),
		Context: protocol.ReferenceContext{IncludeDeclaration: false}}, &locs)
	if len(locs) != 2 {
		t.Errorf("references = %+v, want the two formula terms", locs)
	}

	var hints []lsp317.InlayHint
	c.Call(t, lsp317.MethodInlayHint, &lsp317.InlayHintParams{TextDocument: td, Range: protocol.Range{End: protocol.Position{Line: 20}}}, &hints)
	if hints == nil || len(hints) != 0 {
		t.Errorf("inlay hints without results = %+v, want []", hints)
	}

	var sh *protocol.SignatureHelp
	c.Call(t, protocol.MethodTextDocumentSignatureHelp, &protocol.SignatureHelpParams{TextDocumentPositionParams: at("sizes](n) <=", 7)}, &sh)
	if sh == nil || len(sh.Signatures) != 1 || sh.Signatures[0].Label != "sizes(int n)" {
		t.Errorf("signature help = %+v", sh)
	}

	c.Call(t, protocol.MethodShutdown, nil, nil)
	c.Notify(t, protocol.MethodExit, nil)
	if code := p.exitCode(t); code != 0 {
		t.Errorf("serve exited with %d\n%s", code, p.stderr.String())
	}
}
