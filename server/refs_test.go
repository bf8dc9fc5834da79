package server_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

const refsGen = `package a;

public class Gen {
    /** Inputs. */
    @Generator("n random ints")
    public static Iterable<Object[]> data(int n) { return null; }

    public static int other(int[] x) { return 0; }
}
`

const refsMain = `package b;

import a.Gen;

class Main {
    @SPL({"w := a.Gen#data", "for n in {10} SELF[w](n) <= a.Gen#other[a.Gen#data](n)"})
    @SeeAlso({"a.Gen#other", "b.Main#nope"})
    static int ok(int[] x) { return 0; }

    @SPL("for k in {1} SELF[a.Gen#data](k) <= ok[w](k)")
    static int two(int[] x) { return 0; }
}
`

type refsSession struct {
	*lsptest.Client
	dir     string
	u, genU protocol.DocumentURI
}

func openRefs(t *testing.T, opts server.Options) *refsSession {
	t.Helper()
	dir := fixture.Project(t, map[string]string{"pom.xml": "<project/>", "src/a/Gen.java": refsGen, "src/b/Main.java": refsMain})
	fc := lsptest.Start(t, opts)
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	u := fc.Open(t, filepath.Join(dir, "src/b/Main.java"), refsMain)
	rs := &refsSession{fc, dir, u, uri.File(filepath.Join(dir, "src/a/Gen.java"))}
	// Once the index is built, references resolve into the files on disk.
	fc.Await(t, "the workspace index", func() bool {
		return strings.Contains(rs.hover(t, fixture.Position(t, refsMain, "a.Gen#other", 0, 8)), "src/a/Gen.java")
	})
	return rs
}

func (rs *refsSession) hover(t *testing.T, pos protocol.Position) string {
	t.Helper()
	return rs.Hover(t, rs.u, pos)
}

func TestHoverAndDefinitionOfFormulaReferences(t *testing.T) {
	rs := openRefs(t, server.Options{})
	for _, c := range []struct {
		name  string
		pos   protocol.Position
		wants []string
	}{
		{"method on disk", fixture.Position(t, refsMain, "a.Gen#other", 0, 8), []string{"**perfls** method `a.Gen#other`", "resolves to `a.Gen#other(int[])`", "static int other(int[] x)", "src/a/Gen.java:8"}},
		{"generator", fixture.Position(t, refsMain, "a.Gen#data](n)", 0, 2), []string{"**perfls** generator `a.Gen#data`", "static Iterable<Object[]> data(int n)", "src/a/Gen.java:6", "n random ints"}},
		{"alias", fixture.Position(t, refsMain, "SELF[w]", 0, 5), []string{"generator `w`", "alias `w` := `a.Gen#data`", "src/a/Gen.java:6"}},
		{"method of the class", fixture.Position(t, refsMain, "<= ok[w]", 0, 3), []string{"method `ok`", "resolves to `b.Main#ok(int[])`", "src/b/Main.java:8"}},
		{"variable", fixture.Position(t, refsMain, "SELF[w](n)", 0, 8), []string{"variable `n`", "values: `{10}`"}},
	} {
		md := rs.hover(t, c.pos)
		for _, w := range c.wants {
			if !strings.Contains(md, w) {
				t.Errorf("%s: hover lacks %q:\n%s", c.name, w, md)
			}
		}
	}
	// Unresolvable: the alias w is not declared for two's formula.
	if md := rs.hover(t, fixture.Position(t, refsMain, "ok[w](k)", 0, 3)); !strings.Contains(md, "Does not resolve") {
		t.Errorf("unknown alias hover:\n%s", md)
	}

	def := func(pos protocol.Position) []protocol.Location {
		var locs []protocol.Location
		rs.Call(t, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: rs.u}, Position: pos}}, &locs)
		return locs
	}
	locs := def(fixture.Position(t, refsMain, "a.Gen#other", 0, 8))
	if want := fixture.Position(t, refsGen, "other(", 0, 0); len(locs) != 1 || locs[0].URI != rs.genU || locs[0].Range.Start != want {
		t.Errorf("definition of a.Gen#other: %+v, want %v at %+v", locs, rs.genU, want)
	}
	locs = def(fixture.Position(t, refsMain, "SELF[w]", 0, 5))
	if want := fixture.Position(t, refsGen, "data(", 0, 0); len(locs) != 1 || locs[0].Range.Start != want {
		t.Errorf("definition through the alias w: %+v", locs)
	}
	if locs := def(fixture.Position(t, refsMain, "class Main", 0, 2)); len(locs) != 0 {
		t.Errorf("definition outside formulas: %+v", locs)
	}
}

func TestCompletionInsideFormulas(t *testing.T) {
	rs := openRefs(t, server.Options{})
	// Edit the second formula as the user types, then complete.
	complete := func(text string, pos protocol.Position) []string {
		t.Helper()
		var list protocol.CompletionList
		rs.Replace(t, rs.u, 2, text)
		rs.Call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: rs.u}, Position: pos}}, &list)
		var labels []string
		for _, it := range list.Items {
			labels = append(labels, it.Label)
		}
		return labels
	}
	has := func(labels []string, want ...string) bool {
		for _, w := range want {
			found := false
			for _, l := range labels {
				found = found || l == w
			}
			if !found {
				return false
			}
		}
		return true
	}
	// After "#": the class's methods.
	src := strings.Replace(refsMain, "<= ok[w](k)", "<= a.Gen#", 1)
	if got := complete(src, fixture.Position(t, src, "a.Gen#\"", 0, 6)); !has(got, "data", "other") {
		t.Errorf("after a.Gen#: %v", got)
	}
	// Inside "[": generators of the class and aliases of the method.
	src = strings.Replace(refsMain, "SELF[w](n)", "SELF[](n)", 1)
	if got := complete(src, fixture.Position(t, src, "SELF[](n)", 0, 5)); !has(got, "w") {
		t.Errorf("inside []: %v", got)
	}
	// After "a.": classes of the package.
	src = strings.Replace(refsMain, "<= ok[w](k)", "<= a.", 1)
	if got := complete(src, fixture.Position(t, src, "<= a.\"", 0, 5)); !has(got, "Gen") {
		t.Errorf("after a.: %v", got)
	}
	// An identifier: variables, SELF, methods of the class, indexed methods.
	src = strings.Replace(refsMain, "<= ok[w](k)", "<= o", 1)
	if got := complete(src, fixture.Position(t, src, "<= o\"", 0, 4)); !has(got, "ok", "or") || has(got, "SELF") {
		t.Errorf("after o: %v", got)
	}
	src = strings.Replace(refsMain, "<= ok[w](k)", "<= Ge", 1)
	if got := complete(src, fixture.Position(t, src, "<= Ge\"", 0, 5)); !has(got, "a.Gen#other") {
		t.Errorf("after Ge: %v", got)
	}
	src = strings.Replace(refsMain, "SELF[a.Gen#data](k)", "SELF[a.Gen#data](", 1)
	if got := complete(src, fixture.Position(t, src, "data](", 1, 6)); !has(got, "k", "SELF") || has(got, "n", "in") {
		t.Errorf("in the arguments: %v", got)
	}
	// Outside formula strings: nothing.
	if got := complete(refsMain, fixture.Position(t, refsMain, "static int ok", 0, 3)); len(got) != 0 {
		t.Errorf("outside formulas: %v", got)
	}
}

func TestSeeAlsoSideBySide(t *testing.T) {
	dir := t.TempDir()
	store, _, err := cache.OpenStore(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	rs0 := func(method string, params []string, ms ...verdict.Measurement) verdict.MethodResult {
		return verdict.MethodResult{Class: map[string]string{"ok": "b.Main", "other": "a.Gen"}[method], Method: method, Params: params, CheckedAt: at, Measurements: ms}
	}
	m := func(args string, ns float64) verdict.Measurement {
		return verdict.Measurement{Workload: "a.Gen#data", Args: args, MeanNs: ns, Forks: 3, Samples: 30, MeasuredAt: at}
	}
	rs := openRefs(t, server.Options{Verdicts: store})
	ok := rs0("ok", []string{"int[]"}, m("10", 120), m("100", 1500))
	ok.File = uri.URI(rs.u).Filename()
	other := rs0("other", []string{"int[]"}, m("10", 240))
	other.File = uri.URI(rs.genU).Filename()
	if err := store.ReplaceVerdicts(context.Background(), []verdict.MethodResult{ok, other}); err != nil {
		t.Fatal(err)
	}
	md := rs.hover(t, fixture.Position(t, refsMain, "static int ok", 0, 12))
	for _, w := range []string{
		"**See also**",
		"- `b.Main#nope`: unknown method \"nope\"",
		"| workload | this: ok | Gen#other |",
		"| Gen#data(10) | 120 ns/op | 240 ns/op |",
		"| Gen#data(100) | 1.50 µs/op | — |",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("hover lacks %q:\n%s", w, md)
		}
	}
}

// References in standalone .spl files resolve the same way.
func TestSPLFileReferences(t *testing.T) {
	rs := openRefs(t, server.Options{})
	const splText = "# budgets\nx := a.Gen#data\nfor n in {10} b.Main#ok[x](n) <= a.Gen#other[x](n)\n"
	u := uri.File(filepath.Join(rs.dir, "budgets.spl"))
	rs.Notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "spl", Version: 1, Text: splText},
	})
	rs.AwaitDiagnostics(t, u, 1)
	pos := fixture.Position(t, splText, "a.Gen#other", 0, 3)
	var h *protocol.Hover
	rs.Call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &h)
	if h == nil || !strings.Contains(h.Contents.Value, "resolves to `a.Gen#other(int[])`") || h.Range.Start != fixture.Position(t, splText, "a.Gen#other", 0, 0) {
		t.Errorf("hover in a .spl file: %+v", h)
	}
	var locs []protocol.Location
	rs.Call(t, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: fixture.Position(t, splText, "[x]", 0, 1)}}, &locs)
	if len(locs) != 1 || locs[0].URI != rs.genU || locs[0].Range.Start != fixture.Position(t, refsGen, "data(", 0, 0) {
		t.Errorf("definition through the alias in a .spl file: %+v", locs)
	}

	complete := func(text string, pos protocol.Position) map[string]bool {
		t.Helper()
		rs.Replace(t, u, 2, text)
		var list protocol.CompletionList
		rs.Call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &list)
		got := map[string]bool{}
		for _, it := range list.Items {
			got[it.Label] = true
		}
		return got
	}
	edited := strings.Replace(splText, "<= a.Gen#other[x](n)", "<= a.Gen#", 1)
	if got := complete(edited, fixture.Position(t, edited, "<= a.Gen#", 0, 9)); !got["other"] || !got["data"] {
		t.Errorf("after a.Gen# in a .spl file: %v", got)
	}
	edited = strings.Replace(splText, "<= a.Gen#other[x](n)", "<= a.Gen#other[x](", 1)
	if got := complete(edited, fixture.Position(t, edited, "[x](", 1, 4)); !got["n"] || !got["x"] || got["SELF"] {
		t.Errorf("arguments in a .spl file: %v", got)
	}
}
