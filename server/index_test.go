package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	// Until the client says initialized, the server sends no requests: a
	// client may reject them (VS Code's rejects workDoneProgress/create).
	for _, c := range fc.Messages() {
		if c.Method == protocol.MethodWorkDoneProgressCreate {
			t.Errorf("%s before initialized", c.Method)
		}
	}
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

// A document outside every workspace folder is indexed alone: not its
// directory, not its project, not the filesystem's root; in a session
// without folders too.
func TestLooseFileIsIndexedAlone(t *testing.T) {
	ws := fixture.Project(t, map[string]string{"pom.xml": "<project/>", "src/w/W.java": "package w;\nclass W {}\n"})
	outside := fixture.Project(t, map[string]string{"pom.xml": "<project/>", "X.java": javaSource, "Sibling.java": "package demo;\nclass Sibling {}\n",
		"sub/Deep.java": "package demo.sub;\nclass Deep {}\n"})
	loose := filepath.Join(outside, "X.java")
	for _, c := range []struct {
		name        string
		folder      string
		roots, file []string
	}{
		{"outside the folder", ws, []string{ws}, []string{loose, filepath.Join(ws, "src/w/W.java")}},
		{"no folder", "", nil, []string{loose}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fc, ss := lsptest.StartSession(t, server.Options{})
			params := &protocol.InitializeParams{}
			if c.folder != "" {
				params.RootURI = uri.File(c.folder)
			}
			fc.Call(t, protocol.MethodInitialize, params, nil)
			fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
			fc.Open(t, loose, javaSource)
			var roots, files []string
			fc.Await(t, "the index of the folder and the file", func() bool {
				roots, files = server.Indexed(ss)
				for _, f := range c.file {
					if !slices.Contains(files, f) {
						return false
					}
				}
				return true
			})
			slices.Sort(c.file)
			if !slices.Equal(roots, c.roots) || !slices.Equal(files, c.file) {
				t.Errorf("indexed roots %q and files %q, want %q and %q", roots, files, c.roots, c.file)
			}
		})
	}
}
