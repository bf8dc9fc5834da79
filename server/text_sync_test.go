package server_test

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// Incremental sync: ranged edits (UTF-16 columns, after non-ASCII text),
// several in one notification applied in order, and a change without a
// range replacing the text, each reflected in the diagnostics.
func TestIncrementalChanges(t *testing.T) {
	dir := t.TempDir()
	fc := lsptest.Start(t, server.Options{})
	var init protocol.InitializeResult
	fc.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir)}, &init)
	if sync, ok := init.Capabilities.TextDocumentSync.(map[string]any); !ok || sync["change"] != float64(protocol.TextDocumentSyncKindIncremental) {
		t.Errorf("text sync %#v, want incremental", init.Capabilities.TextDocumentSync)
	}
	fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	u := fc.Open(t, filepath.Join(dir, "Demo.java"), javaSource)
	if len(fc.LastDiagnostics(u)) == 0 {
		t.Fatal("no diagnostic for the unclosed argument list")
	}

	// Insert the missing ")" before the closing quote of line 7 (0-based 6),
	// whose column counts "é" as one UTF-16 unit and "😀" as two.
	line := strings.Split(javaSource, "\n")[6]
	col := uint32(len(utf16.Encode([]rune(line[:strings.Index(line, `n")`)+1]))))
	at := protocol.Position{Line: 6, Character: col}
	fc.Notify(t, protocol.MethodTextDocumentDidChange, lsptest.ChangeParams(u, 2, lsptest.Change{Range: &protocol.Range{Start: at, End: at}, Text: ")"}))
	if diags := fc.AwaitDiagnostics(t, u, 2); len(diags) != 0 {
		t.Errorf("after inserting ')': %+v", diags)
	}

	// Two changes in one notification: delete the ")" again, then insert a
	// line at the top; the error is back, one line lower.
	after := protocol.Position{Line: 6, Character: col + 1}
	top := protocol.Position{Line: 0, Character: 0}
	fc.Notify(t, protocol.MethodTextDocumentDidChange, lsptest.ChangeParams(u, 3,
		lsptest.Change{Range: &protocol.Range{Start: at, End: after}, Text: ""},
		lsptest.Change{Range: &protocol.Range{Start: top, End: top}, Text: "// a new first line\n"}))
	diags := fc.AwaitDiagnostics(t, u, 3)
	if len(diags) == 0 || diags[0].Range.Start.Line != 7 || diags[0].Range.Start.Character != col {
		t.Errorf("after deleting ')' and adding a line: %+v, want the error at 7:%d", diags, col)
	}

	// A change without a range is the whole text.
	fc.Replace(t, u, 4, strings.Replace(javaSource, `[gen](n")`, `[gen](n)")`, 1))
	if diags := fc.AwaitDiagnostics(t, u, 4); len(diags) != 0 {
		t.Errorf("after replacing the text: %+v", diags)
	}
}
