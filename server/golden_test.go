package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/server"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/golden/*.txtar")

func TestMain(m *testing.M) {
	// Hovers show local dates: fix the zone so goldens are the same
	// everywhere. Set before any session starts.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// archive is a txtar archive: a comment, then "-- name --" sections.
type archive struct {
	comment string
	files   []section
}

type section struct{ name, data string }

func parseArchive(b []byte) archive {
	var a archive
	cur := -1
	for _, line := range strings.SplitAfter(string(b), "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			a.files = append(a.files, section{name: strings.TrimSpace(t[3 : len(t)-3])})
			cur = len(a.files) - 1
			continue
		}
		if cur < 0 {
			a.comment += line
		} else {
			a.files[cur].data += line
		}
	}
	return a
}

func (a archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func (a archive) get(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

// TestGolden runs each testdata/golden/*.txtar: it writes the .java
// sections into a project, records verdicts.json (FILE stands for the
// path of the first .java section), starts a session with settings.json as
// initializationOptions, and compares the hover at every "hover NEEDLE"
// section (at the first occurrence of NEEDLE) and the "lenses" section.
// go test ./server -run Golden -update rewrites the expectations.
func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/golden/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no golden files")
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(b)
			got := runGolden(t, a)
			changed := false
			for i, f := range a.files {
				want, ok := got[f.name]
				if !ok {
					continue
				}
				if f.data != want {
					if *update {
						a.files[i].data = want
						changed = true
						continue
					}
					t.Errorf("%s: %s differs\n--- got ---\n%s--- want ---\n%s", p, f.name, want, f.data)
				}
			}
			if changed {
				if err := os.WriteFile(p, a.format(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func runGolden(t *testing.T, a archive) map[string]string {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pom.xml"), []byte("<project/>"), 0o644)
	var mainPath, mainSrc string
	for _, f := range a.files {
		if strings.HasSuffix(f.name, ".java") {
			p := filepath.Join(dir, filepath.FromSlash(f.name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(f.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if mainPath == "" {
				mainPath, mainSrc = p, f.data
			}
		}
	}
	store, _, err := cache.OpenStore(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if js, ok := a.get("verdicts.json"); ok {
		var recs []verdict.MethodResult
		if err := json.Unmarshal([]byte(strings.ReplaceAll(js, "FILE", mainPath)), &recs); err != nil {
			t.Fatalf("verdicts.json: %v", err)
		}
		if err := store.ReplaceVerdicts(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
	}
	var initOpts any
	if js, ok := a.get("settings.json"); ok {
		if err := json.Unmarshal([]byte(js), &initOpts); err != nil {
			t.Fatalf("settings.json: %v", err)
		}
	}
	fc := startSession(t, server.Options{Verdicts: store, Actions: &fakeActions{}})
	fc.call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir), InitializationOptions: initOpts}, nil)
	fc.notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File(mainPath)
	fc.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: mainSrc},
	})
	fc.awaitDiagnostics(t, u, 1)
	hover := func(pos protocol.Position) string {
		var h *protocol.Hover
		fc.call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &h)
		if h == nil {
			return "(no hover)\n"
		}
		return strings.ReplaceAll(h.Contents.Value, dir, "$DIR")
	}
	// References into other files resolve once the index is built.
	if strings.Contains(a.comment, "index") {
		needle := strings.TrimSpace(a.comment[strings.Index(a.comment, "index")+len("index"):])
		fc.await(t, "the workspace index", func() bool {
			return !strings.Contains(hover(position(t, mainSrc, strings.SplitN(needle, "\n", 2)[0], 0, 0)), "not declared in the workspace")
		})
	}
	got := map[string]string{}
	for _, f := range a.files {
		if needle, ok := strings.CutPrefix(f.name, "hover "); ok {
			got[f.name] = hover(position(t, mainSrc, needle, 0, 0))
		}
	}
	var lenses []protocol.CodeLens
	fc.call(t, protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &lenses)
	var lines []string
	for _, l := range lenses {
		cmd := "(no action)"
		if l.Command.Command != "" {
			cmd = l.Command.Command
		}
		lines = append(lines, fmt.Sprintf("%d:%d %s [%s]", l.Range.Start.Line+1, l.Range.Start.Character+1, l.Command.Title, cmd))
	}
	sort.Strings(lines)
	got["lenses"] = strings.Join(lines, "\n") + "\n"
	return got
}
