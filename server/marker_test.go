package server_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/server"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/markers/*.txtar")

func TestMain(m *testing.M) {
	// Hovers show local dates: fix the zone so expectations are the same
	// everywhere. Set before any session starts.
	time.Local = time.UTC
	pgtest.Main(m) // stops the PostgreSQL server the team tests start

}

// marker is written /*@name*/ in a source section, at the place it names;
// it is removed from the text the server sees, so it may stand anywhere,
// inside formula strings too.
var marker = regexp.MustCompile(`/\*@([\w.-]+)\*/`)

// TestMarkers runs every testdata/markers/*.txtar case (gopls's marker
// tests, reduced): the .java sections are written into a project (the
// first is opened in the editor), verdicts.json is recorded in the store
// (FILE stands for the opened file's path) and settings.json is the
// client's initializationOptions. Then each expectation section is compared
// with what the real server, in this process over a pipe, answers:
//
//	-- hover NAME --        the hover at marker NAME
//	-- completion NAME --   the completion items at NAME: label (kind) detail
//	-- definition NAME --   where the definition at NAME is, as file:line:col
//	-- diagnostics --       the opened file's diagnostics
//	-- lenses --            its code lenses: line:col title [command]
//
// models.json holds the cost models the fake engine's StoredModels answers.
// Lines of the archive's comment prepare the case:
//
//	await-index NAME                 wait until the workspace index resolves
//	                                 the reference at NAME (and the opened
//	                                 file's diagnostics are the index's)
//	calibrate METHOD WORKLOAD ARGS N  calibrate the bounds oracle on N
//	                                 synthetic forks of 1 µs/op, 64 B/op
//	oracle-run METHOD WORKLOAD ARGS NS BYTES JAVA
//	                                 classify and record one later fork
//	git ARGS…                        run git ARGS in the project (before
//	                                 the server starts): make it a repository
//	await-diagnostic CODE            wait until the opened file's
//	                                 diagnostics hold one of code CODE
//
// go test ./server -run Markers -update rewrites the expectations.
func TestMarkers(t *testing.T) {
	paths, _ := filepath.Glob("testdata/markers/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no marker cases")
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got := runMarkers(t, ar)
			changed := false
			for i, f := range ar.Files {
				want, ok := got[f.Name]
				if !ok || string(f.Data) == want {
					continue
				}
				if *update {
					ar.Files[i].Data, changed = []byte(want), true
					continue
				}
				t.Errorf("%s: %s differs\n--- got ---\n%s--- want ---\n%s", p, f.Name, want, f.Data)
			}
			if changed {
				if err := os.WriteFile(p, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// markedFiles is a case's project: where each marker is.
type markedFiles struct {
	dir     string
	texts   map[string]string // path → text without markers
	at      map[string]string // marker → path
	offsets map[string]int    // marker → byte offset in its text
	main    string            // the first .java or .spl file
}

func writeMarked(t *testing.T, ar *txtar.Archive) *markedFiles {
	t.Helper()
	mf := &markedFiles{dir: t.TempDir(), texts: map[string]string{}, at: map[string]string{}, offsets: map[string]int{}}
	files := map[string]string{"pom.xml": "<project/>"}
	for _, f := range ar.Files {
		if !strings.HasSuffix(f.Name, ".java") && !strings.HasSuffix(f.Name, ".spl") {
			continue
		}
		path := filepath.Join(mf.dir, filepath.FromSlash(f.Name))
		var text strings.Builder
		src := string(f.Data)
		last := 0
		for _, m := range marker.FindAllStringSubmatchIndex(src, -1) {
			text.WriteString(src[last:m[0]])
			name := src[m[2]:m[3]]
			if _, dup := mf.at[name]; dup {
				t.Fatalf("marker %s twice", name)
			}
			mf.at[name], mf.offsets[name] = path, text.Len()
			last = m[1]
		}
		text.WriteString(src[last:])
		mf.texts[path] = text.String()
		files[f.Name] = text.String()
		if mf.main == "" {
			mf.main = path
		}
	}
	fixture.WriteFiles(t, mf.dir, files)
	return mf
}

func (mf *markedFiles) position(t *testing.T, name string) (protocol.DocumentURI, protocol.Position) {
	t.Helper()
	path, ok := mf.at[name]
	if !ok {
		t.Fatalf("no marker %s", name)
	}
	return uri.File(path), fixture.PositionAt(mf.texts[path], mf.offsets[name])
}

func section(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

func runMarkers(t *testing.T, ar *txtar.Archive) map[string]string {
	t.Helper()
	started := time.Now()
	mf := writeMarked(t, ar)
	store, _, err := cache.OpenStore(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if js, ok := section(ar, "verdicts.json"); ok {
		var recs []verdict.MethodResult
		if err := json.Unmarshal([]byte(strings.ReplaceAll(string(js), "FILE", mf.main)), &recs); err != nil {
			t.Fatalf("verdicts.json: %v", err)
		}
		if err := store.ReplaceVerdicts(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
	}
	prepareOracle(t, store, string(ar.Comment))
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if args, ok := strings.CutPrefix(line, "git "); ok {
			fixture.Git(t, mf.dir, strings.Fields(args)...)
		}
	}
	actions := &fakeActions{}
	if js, ok := section(ar, "models.json"); ok {
		if err := json.Unmarshal(js, &actions.models); err != nil {
			t.Fatalf("models.json: %v", err)
		}
	}
	var initOpts any
	if js, ok := section(ar, "settings.json"); ok {
		if err := json.Unmarshal(js, &initOpts); err != nil {
			t.Fatalf("settings.json: %v", err)
		}
	}
	fc := lsptest.Start(t, server.Options{Verdicts: store, Actions: actions})
	fc.Initialize(t, mf.dir, initOpts, protocol.ClientCapabilities{})
	u := fc.Open(t, mf.main, mf.texts[mf.main])
	hover := func(name string) string {
		u, pos := mf.position(t, name)
		if h := fc.Hover(t, u, pos); h != "" {
			return h
		}
		return "(no hover)\n"
	}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if name, ok := strings.CutPrefix(line, "await-index "); ok {
			fc.Await(t, "the workspace index", func() bool { return !strings.Contains(hover(name), "not declared in the workspace") })
			// The same text again: its diagnostics are the index's.
			fc.Replace(t, u, 2, mf.texts[mf.main])
			fc.AwaitDiagnostics(t, u, 2)
		}
		if code, ok := strings.CutPrefix(line, "await-diagnostic "); ok {
			fc.AwaitMatch(t, u, "a diagnostic "+code, func(ds []protocol.Diagnostic) bool {
				return slices.ContainsFunc(ds, func(d protocol.Diagnostic) bool { return d.Code == code })
			})
		}
	}
	got := map[string]string{}
	// The oracle's store stamps what it records with the time it is
	// recorded: such times read $NOW.
	today := regexp.MustCompile(`(` + regexp.QuoteMeta(started.Format(time.DateOnly)) + `|` +
		regexp.QuoteMeta(time.Now().Format(time.DateOnly)) + `) \d\d:\d\d(:\d\d)?`)
	for _, f := range ar.Files {
		kind, name, _ := strings.Cut(f.Name, " ")
		var out string
		switch kind {
		case "hover":
			out = hover(name)
		case "completion":
			u, pos := mf.position(t, name)
			out = completionText(fc.Completion(t, u, pos))
		case "definition":
			u, pos := mf.position(t, name)
			out = definitionText(t, fc, u, pos, mf.dir)
		case "diagnostics":
			out = diagnosticsText(fc.LastDiagnostics(u))
		case "lenses":
			out = lensesText(fc.Lenses(t, u))
		default:
			var ok bool
			if out, ok = editorMarker(t, fc, mf, u, kind, name); !ok { // editor_marker_test.go
				continue
			}
		}
		got[f.Name] = today.ReplaceAllString(strings.ReplaceAll(out, mf.dir, "$DIR"), "$$NOW")
	}
	return got
}

// prepareOracle runs the comment's calibrate and oracle-run lines on the
// store, before the server reads it.
func prepareOracle(t *testing.T, store *cache.Store, comment string) {
	t.Helper()
	for _, line := range strings.Split(comment, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 5 && f[0] == "calibrate":
			n, err := strconv.Atoi(f[4])
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			calibrate(t, store, cache.OracleKey{Method: f[1], Workload: f[2], Args: f[3]}, n)
		case len(f) == 7 && f[0] == "oracle-run":
			ns, err1 := strconv.ParseFloat(f[4], 64)
			bytes, err2 := strconv.ParseFloat(f[5], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%q: want numbers for NS and BYTES", line)
			}
			k := cache.OracleKey{Method: f[1], Workload: f[2], Args: f[3]}
			if _, _, err := store.ClassifyAndRecord(context.Background(), k, []oracle.Run{syntheticRun(99, ns, bytes, f[6])}, "check"); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		case len(f) > 0 && (f[0] == "calibrate" || f[0] == "oracle-run"):
			t.Fatalf("%q: wrong number of fields (see TestMarkers)", line)
		}
	}
}

func completionText(list *protocol.CompletionList) string {
	var b strings.Builder
	for _, it := range list.Items {
		fmt.Fprintln(&b, strings.TrimSpace(fmt.Sprintf("%s (%s) %s", it.Label, it.Kind, it.Detail)))
	}
	if list.IsIncomplete {
		b.WriteString("(incomplete)\n")
	}
	if b.Len() == 0 {
		return "(none)\n"
	}
	return b.String()
}

func definitionText(t *testing.T, fc *lsptest.Client, u protocol.DocumentURI, pos protocol.Position, dir string) string {
	var locs []protocol.Location
	fc.Call(t, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &locs)
	var b strings.Builder
	for _, l := range locs {
		rel, _ := filepath.Rel(dir, l.URI.Filename())
		fmt.Fprintf(&b, "%s:%d:%d\n", filepath.ToSlash(rel), l.Range.Start.Line+1, l.Range.Start.Character+1)
	}
	if b.Len() == 0 {
		return "(none)\n"
	}
	return b.String()
}

func diagnosticsText(ds []protocol.Diagnostic) string {
	var lines []string
	for _, d := range ds {
		r := d.Range
		msg := strings.ReplaceAll(d.Message, "\n", "\n  ")
		lines = append(lines, fmt.Sprintf("%d:%d-%d:%d %s %v: %s", r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1,
			strings.ToLower(d.Severity.String()), d.Code, msg))
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "(none)\n"
	}
	return strings.Join(lines, "\n") + "\n"
}

func lensesText(lenses []protocol.CodeLens) string {
	var lines []string
	for _, l := range lenses {
		cmd := "(no action)"
		if l.Command.Command != "" {
			cmd = l.Command.Command
		}
		lines = append(lines, fmt.Sprintf("%d:%d %s [%s]", l.Range.Start.Line+1, l.Range.Start.Character+1, l.Command.Title, cmd))
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "(none)\n"
	}
	return strings.Join(lines, "\n") + "\n"
}
