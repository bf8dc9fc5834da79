package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// References resolve against the files on disk once the background index
// of the project is built, and the index follows saved changes.
func TestReferencesResolveAgainstTheWorkspace(t *testing.T) {
	mainSrc := `package b;
class Main {
    @SPL("for n in {10} SELF[a.Gen#data](n) <= other[a.Gen#dta](n)")
    static int ok(int[] x) { return 0; }
    static int other(int[] x) { return 0; }
}
`
	dir := fixture.Project(t, map[string]string{"pom.xml": "<project/>", "src/b/Main.java": mainSrc,
		"src/a/Gen.java": "package a;\npublic class Gen {\n    public static Iterable<Object[]> data(int n) { return null; }\n}\n"})
	genPath, mainPath := filepath.Join(dir, "src/a/Gen.java"), filepath.Join(dir, "src/b/Main.java")

	fc := lsptest.Start(t, server.Options{})
	var init protocol.InitializeResult
	fc.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir),
		Capabilities: protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true}}}, &init)
	fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File(mainPath)
	fc.Notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: mainSrc},
	})
	has := func(sub string) func([]protocol.Diagnostic) bool {
		return func(ds []protocol.Diagnostic) bool {
			for _, d := range ds {
				if strings.Contains(d.Message, sub) {
					return true
				}
			}
			return false
		}
	}
	ds := fc.AwaitMatch(t, u, "the unknown generator", has(`a.Gen has no generator method "dta"; did you mean data?`))
	if len(ds) != 1 {
		t.Errorf("want only the unknown generator, got %+v", ds)
	}
	// The index was built with progress: create, then begin … end on its token.
	var seq []string
	for _, c := range fc.Messages() {
		switch c.Method {
		case protocol.MethodWorkDoneProgressCreate:
			seq = append(seq, "create")
		case protocol.MethodProgress:
			var p struct {
				Token string
				Value struct{ Kind, Message string }
			}
			json.Unmarshal(c.Params, &p)
			if strings.HasPrefix(p.Token, "perfls/index/") {
				seq = append(seq, p.Value.Kind)
			}
		}
	}
	if len(seq) < 3 || seq[0] != "create" || seq[1] != "begin" || seq[len(seq)-1] != "end" {
		t.Errorf("progress messages %v, want create, begin, …, end", seq)
	}

	line := strings.Split(mainSrc, "\n")[2]
	if r := ds[0].Range; r.Start.Line != 2 || int(r.Start.Character) != strings.Index(line, "a.Gen#dta") || int(r.End.Character) != strings.Index(line, "a.Gen#dta")+len("a.Gen#dta") {
		t.Errorf("range %+v, want the reference a.Gen#dta", r)
	}

	// Renaming the generator on disk and saving: both references break.
	os.WriteFile(genPath, []byte("package a;\npublic class Gen {\n    public static Iterable<Object[]> dta(int n) { return null; }\n}\n"), 0o644)
	fc.Notify(t, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(genPath)}})
	fc.AwaitMatch(t, u, "the renamed generator", has(`a.Gen has no generator method "data"; did you mean dta?`))
}
