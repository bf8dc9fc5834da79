package editor

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
)

const fixSrc = `package p;
import dev.perfls.SPL;
import dev.perfls.SPLController;
class Q {
    @SPL("SELF[gen](1) < linearSerch[gen](1)")
    void a() {}
    @SPL("SELF[gen](1) < p.Q#linearSerch[gen](1)")
    void b() {}
    @SPL("SELF[gen](1) < Seracher#find[gen](1)")
    void c() {}
    @SPL("SELF[gen](1) < Q#linearSearch[genn](1)")
    void d() {}
    @SPL("SELF[gen](1) =< Q#linearSearch[gen](1)")
    void e() {}
    @SPL("for size in {1} SELF[gen](sise) < Q#linearSearch[gen](size)")
    void f() {}
    @SPL("cpu(SELF)[gen](1) < alloc(linearSearch)[gen](1)")
    void g() {}
    @SPL("SELF[gen](1) < loop[gen](1)")
    void h() {}
    @SPL(value = "SELF[gen](1) < linearSearch[gen](1)", interpretation = "quik")
    void i() {}
    @SPL("SELF[gen](1) < linearSearch[gen](1")
    void j() {}
    @SPL("for n in {1, 2, 1} SELF[gen](n) < linearSearch[gen](n)")
    void l() {}
    @SPL("SELF[inst](1) < linearSearch[gen](1)")
    void m() {}
    @SPL("SELF[gen](1) < linearSearch(long)[gen](1)")
    void o() {}
    @SPL("SELF[gen]('a) < linearSearch[gen](1)")
    void k() {}
    static Iterable<Object[]> gen(int n) { return null; }
    public Iterable<Object[]> inst(int n) { return null; }
    static Iterable<Object[]> words(String s) { return null; }
    static int linearSearch(int n) { return 0; }
    static void loop(SPLController c, int n) {}
}
class Searcher { static int find(int n) { return 0; } }
`

// applyEdits applies edits of one file (non-overlapping) to src.
func applyEdits(src string, edits []TextEdit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].Span.Start > edits[j].Span.Start })
	for _, e := range edits {
		src = src[:e.Span.Start] + e.NewText + src[e.Span.End:]
	}
	return src
}

// changedLine is the line of after that differs from before.
func changedLine(before, after string) string {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	for i := range b {
		if i >= len(a) || a[i] != b[i] {
			return strings.TrimSpace(b[i])
		}
	}
	return ""
}

func TestQuickFixes(t *testing.T) {
	w := testWorkspace(t, fixSrc)
	f := w.Files[0]
	formulas, diags := workspace.JavaFormulas(f)
	diags = append(diags, w.Index.Lint(formulas, workspace.LintOptions{})...)
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Span.Start < diags[j].Span.Start })
	var got []string
	for _, d := range diags {
		fixes := w.QuickFixes(d, nil)
		line := d.Code
		if len(fixes) == 0 {
			line += " (no fix)"
		}
		for _, fx := range fixes {
			line += " | " + fx.Title
			if fx.Preferred {
				line += " (preferred)"
			}
			line += ": " + changedLine(f.Src, applyEdits(f.Src, fx.Edits))
		}
		got = append(got, line)
	}
	want := []string{
		`unknown-alias | Change to linearSearch (preferred): @SPL("SELF[gen](1) < linearSearch[gen](1)")`,
		`unknown-method | Change to linearSearch (preferred): @SPL("SELF[gen](1) < p.Q#linearSearch[gen](1)")`,
		`unknown-class | Change to Searcher (preferred): @SPL("SELF[gen](1) < Searcher#find[gen](1)")`,
		`unknown-alias | Change to gen (preferred): @SPL("SELF[gen](1) < Q#linearSearch[gen](1)")`,
		`unknown-operator | Write <= (preferred): @SPL("SELF[gen](1) <= Q#linearSearch[gen](1)")`,
		`undeclared-variable | Change to size (preferred): @SPL("for size in {1} SELF[gen](size) < Q#linearSearch[gen](size)")`,
		`metric-mismatch | Compare cpu on both sides: @SPL("cpu(SELF)[gen](1) < cpu(linearSearch)[gen](1)") | Compare alloc on both sides: @SPL("alloc(SELF)[gen](1) < alloc(linearSearch)[gen](1)")`,
		`workload-loop | Remove [gen] (preferred): @SPL("SELF[gen](1) < loop(1)")`,
		`unknown-interpretation | Change to quick (preferred): @SPL(value = "SELF[gen](1) < linearSearch[gen](1)", interpretation = "quick")`,
		`unclosed | Insert ) (preferred): @SPL("SELF[gen](1) < linearSearch[gen](1)")`,
		`duplicate-value | Remove the repeated 1 (preferred): @SPL("for n in {1, 2} SELF[gen](n) < linearSearch[gen](n)")`,
		`generator-signature | Make inst static (preferred): public static Iterable<Object[]> inst(int n) { return null; }`,
		`no-overload | Change to linearSearch(int) (preferred): @SPL("SELF[gen](1) < linearSearch(int)[gen](1)")`,
		`unterminated-string (no fix)`,
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("fixes\n got:\n%s\nwant:\n%s", g, w)
	}
}

func TestMissingWorkloadsAndImport(t *testing.T) {
	src := `package p;
class W {
    @SPL("for n in {1, 2} SELF(n) < SELF[gen](n) & m2[gen](n) < SELF[words]('x')")
    void m() {}
    @dev.perfls.SPL("SELF[gen](1) < SELF[gen](2)")
    void m2() {}
    static Iterable<Object[]> gen(int n) { return null; }
    public Iterable<Object[]> inst(int n) { return null; }
    static Iterable<Object[]> gen2(long n) { return null; }
    static Iterable<Object[]> words(String s) { return null; }
}
`
	w := testWorkspace(t, src)
	f := w.Files[0]
	ps := w.MissingWorkloads(f)
	if len(ps) != 1 {
		t.Fatalf("MissingWorkloads = %d problems, want 1 (SELF(n)): %+v", len(ps), ps)
	}
	p := ps[0]
	if p.Diagnostic.Code != CodeNoWorkload || f.Src[p.Diagnostic.Span.Start:p.Diagnostic.Span.End] != "SELF" {
		t.Errorf("diagnostic %+v", p.Diagnostic)
	}
	var got []string
	for _, fx := range p.Fixes {
		got = append(got, fx.Title+": "+changedLine(f.Src, applyEdits(f.Src, fx.Edits)))
	}
	want := `Measure on gen: @SPL("for n in {1, 2} SELF[gen](n) < SELF[gen](n) & m2[gen](n) < SELF[words]('x')")
Measure on gen2: @SPL("for n in {1, 2} SELF[gen2](n) < SELF[gen](n) & m2[gen](n) < SELF[words]('x')")`
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("fixes\n got:\n%s\nwant:\n%s", g, want)
	}

	mi := MissingImport(f)
	if mi == nil || mi.Diagnostic.Code != CodeMissingImport {
		t.Fatalf("MissingImport = %+v", mi)
	}
	if got := applyEdits(f.Src, mi.Fixes[0].Edits); !strings.HasPrefix(got, "package p;\n\nimport dev.perfls.SPL;\nclass W {") {
		t.Errorf("import fix gives\n%s", got)
	}
	imported := testWorkspace(t, strings.Replace(src, "package p;", "package p;\nimport java.util.List;", 1)).Files[0]
	if got := applyEdits(imported.Src, MissingImport(imported).Fixes[0].Edits); !strings.HasPrefix(got, "package p;\nimport java.util.List;\nimport dev.perfls.SPL;\nclass W {") {
		t.Errorf("import fix after imports gives\n%s", got)
	}
	for _, ok := range []string{"import dev.perfls.SPL;", "import dev.perfls.*;"} {
		g := testWorkspace(t, strings.Replace(src, "package p;", "package p;\n"+ok, 1)).Files[0]
		if p := MissingImport(g); p != nil {
			t.Errorf("with %s: %+v", ok, p.Diagnostic)
		}
	}
}

func TestRevisionFixes(t *testing.T) {
	src := `package p;
class R {
    @SPL("SELF@v1.O[gen](1) <= SELF[gen](1)")
    void m() {}
    static Iterable<Object[]> gen(int n) { return null; }
    public Iterable<Object[]> inst(int n) { return null; }
}
`
	w := testWorkspace(t, src)
	f := w.Files[0]
	at := strings.Index(src, "@v1.O")
	d := workspace.Diagnostic{Path: f.Path, Span: textposSpan(at, at+5)}
	fixes := w.RevisionFixes(d, "v1.O", []string{"main", "v1.0", "v2.0", "V1.O-rc"})
	var got []string
	for _, fx := range fixes {
		got = append(got, fx.Title+": "+changedLine(src, applyEdits(src, fx.Edits)))
	}
	want := `Change to @v1.0: @SPL("SELF@v1.0[gen](1) <= SELF[gen](1)")
Change to @v2.0: @SPL("SELF@v2.0[gen](1) <= SELF[gen](1)")`
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("fixes\n got:\n%s\nwant:\n%s", g, want)
	}
	if fixes := w.RevisionFixes(d, "v1.O", []string{"v1.o"}); len(fixes) != 1 || !fixes[0].Preferred || fixes[0].Edits[0].NewText != "@v1.o" {
		t.Errorf("case-only difference: %+v", fixes)
	}
	rel := strings.Replace(src, "@v1.O", "@mian~2", 1)
	wr := testWorkspace(t, rel)
	d = workspace.Diagnostic{Path: wr.Files[0].Path, Span: textposSpan(at, at+7)}
	if fixes := wr.RevisionFixes(d, "mian~2", []string{"main", "v1.0"}); len(fixes) != 1 || fixes[0].Title != "Change to @main~2" || fixes[0].Edits[0].NewText != "@main~2" {
		t.Errorf("a relative name: %+v", fixes)
	}
}

func textposSpan(a, b int) textpos.Span { return textpos.Span{Start: a, End: b} }

// fakeRevisions knows HEAD, the names given, and (as the real list does)
// relative names on a known base and anything hex-like.
type fakeRevisions []string

func (r fakeRevisions) Knows(rev string) bool {
	base, _, _ := strings.Cut(strings.ReplaceAll(rev, "^", "~"), "~")
	return base == "HEAD" || slices.Contains(r, base) || len(base) >= 4 && strings.Trim(base, "0123456789abcdef") == ""
}
func (r fakeRevisions) Names() []string { return r }

func TestUnknownRevisions(t *testing.T) {
	src := `package p;
class R {
    @SPL(value = "SELF@v1.O[gen](1) <= SELF@HEAD~1[gen](1) & SELF@abc1234[gen](1) < SELF@v1.0~2[gen](1) & SELF[@mian:p.R#gen](1) < other@zzz:p.R#m[gen](1)",
         methods = {"old := p.R#m@relase"})
    void m() {}
    static Iterable<Object[]> gen(int n) { return null; }
}
`
	w := testWorkspace(t, src)
	f := w.Files[0]
	ps := UnknownRevisions(f, fakeRevisions{"main", "release", "v1.0", "v2.0"})
	var got []string
	for _, p := range ps {
		d := p.Diagnostic
		line := fmt.Sprintf("%s %s %q: %s", d.Code, d.Severity, f.Src[d.Span.Start:d.Span.End], d.Message)
		for _, fx := range p.Fixes {
			line += fmt.Sprintf("\n  %s (preferred %v): %s", fx.Title, fx.Preferred, changedLine(src, applyEdits(src, fx.Edits)))
		}
		got = append(got, line)
	}
	want := `unknown-revision warning "@v1.O": revision @v1.O names no tag, branch or commit of this repository: a check would fail it; did you mean @v1.0 or @v2.0?
  Change to @v1.0 (preferred false): @SPL(value = "SELF@v1.0[gen](1) <= SELF@HEAD~1[gen](1) & SELF@abc1234[gen](1) < SELF@v1.0~2[gen](1) & SELF[@mian:p.R#gen](1) < other@zzz:p.R#m[gen](1)",
  Change to @v2.0 (preferred false): @SPL(value = "SELF@v2.0[gen](1) <= SELF@HEAD~1[gen](1) & SELF@abc1234[gen](1) < SELF@v1.0~2[gen](1) & SELF[@mian:p.R#gen](1) < other@zzz:p.R#m[gen](1)",
unknown-revision warning "@mian": revision @mian names no tag, branch or commit of this repository: a check would fail it; did you mean @main?
  Change to @main (preferred true): @SPL(value = "SELF@v1.O[gen](1) <= SELF@HEAD~1[gen](1) & SELF@abc1234[gen](1) < SELF@v1.0~2[gen](1) & SELF[@main:p.R#gen](1) < other@zzz:p.R#m[gen](1)",
unknown-revision warning "@relase": revision @relase names no tag, branch or commit of this repository: a check would fail it; did you mean @release?
  Change to @release (preferred true): methods = {"old := p.R#m@release"})`
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("UnknownRevisions\n got:\n%s\nwant:\n%s", g, want)
	}
	if ps := UnknownRevisions(f, fakeRevisions{"v1.O", "v1.0", "mian", "relase"}); len(ps) != 0 {
		t.Errorf("every revision known: %+v", ps)
	}
}

// countingRevisions counts the questions asked of it.
type countingRevisions struct {
	fakeRevisions
	asked *int
}

func (r countingRevisions) Knows(rev string) bool { *r.asked++; return r.fakeRevisions.Knows(rev) }

// A memo reads again only the strings that changed.
func TestRevisionMemoReadsChangedStringsOnly(t *testing.T) {
	src := `package p;
class R {
    @SPL("SELF[gen](1) <= SELF@mian[gen](1)")
    void a() {}
    @SPL("SELF[gen](1) <= SELF@v1.0[gen](1)")
    void b() {}
    static Iterable<Object[]> gen(int n) { return null; }
}
`
	asked := 0
	m := NewRevisionMemo(countingRevisions{fakeRevisions{"main", "v1.0"}, &asked})
	f := testWorkspace(t, src).Files[0]
	first := m.Problems(f)
	if len(first) != 1 || asked != 2 {
		t.Fatalf("first: %d problems, %d questions; want 1 and 2", len(first), asked)
	}
	edited := testWorkspace(t, strings.Replace(src, "SELF@v1.0[gen](1)", "SELF@v1.1[gen](1)", 1)).Files[0]
	again := m.Problems(edited)
	if asked != 3 || len(again) != 2 || again[0].Diagnostic.Span != first[0].Diagnostic.Span || len(again[0].Fixes) != 1 {
		t.Errorf("after editing one string: %d questions (want 3), problems %+v", asked, again)
	}
}
