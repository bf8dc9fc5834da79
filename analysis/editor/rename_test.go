package editor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
)

const renameA = `package p;
import dev.perfls.SPL;
class A {
    @SPL({"for n in {10} SELF[Gens.gen](n) <= linearSearch[w](n)", "w := p.Gens.gen"})
    void m() {}
    @SPL(value = "SELF[w](1) < 2 * A#linearSearch[w](1) & ls[w](1) < java.util.Arrays#sort[w](1)",
         methods = {"ls=p.A#linearSearch"}, generators = {"w=p.Gens#gen"})
    void other() {}
    static int linearSearch(int n) { return 0; }
    @dev.perfls.Workload("p.Gens#gen")
    void measured(int n) {}
}
`

const renameB = `package p;
class Gens {
    static Iterable<Object[]> gen(int n) { return null; }
    static Iterable<Object[]> linearSearch(int n) { return null; }
}
`

func testWorkspace(t *testing.T, srcs ...string) Workspace {
	var files []*javasrc.File
	for i, s := range srcs {
		files = append(files, parseJava(t, fmt.Sprintf("%c.java", 'A'+i), s))
	}
	return Workspace{Files: files, Index: workspace.NewIndex(files)}
}

func renderLocs(w Workspace, ls []Location) string {
	var b []string
	for _, l := range ls {
		f := w.File(l.Path)
		b = append(b, fmt.Sprintf("%s:%d:%d:%s", l.Path, l.Range.Start.Line, l.Range.Start.Character, f.Src[l.Span.Start:l.Span.End]))
	}
	return strings.Join(b, " ")
}

func TestRename(t *testing.T) {
	w := testWorkspace(t, renameA, renameB)
	at := func(path, s string, n int) int { // offset of the n-th s in path
		src := w.File(path).Src
		i := -1
		for ; n >= 0; n-- {
			i += 1 + strings.Index(src[i+1:], s)
		}
		return i + 1
	}
	cases := []struct {
		name        string
		path        string
		offset      int
		newName     string
		want, error string
	}{
		{"method named in a formula", "A.java", at("A.java", "linearSearch[w]", 0), "binarySearch",
			"A.java:3:46:linearSearch A.java:5:37:linearSearch A.java:6:28:linearSearch A.java:8:15:linearSearch(decl)", ""},
		{"generator at its declaration", "B.java", at("B.java", "gen(", 0), "make",
			"A.java:3:35:gen A.java:3:80:gen A.java:6:68:gen A.java:9:33:gen B.java:2:30:gen(decl)", ""},
		{"generator at a workload", "A.java", at("A.java", "Gens#gen\")", 0) + 6, "make",
			"A.java:3:35:gen A.java:3:80:gen A.java:6:68:gen A.java:9:33:gen B.java:2:30:gen(decl)", ""},
		{"SELF", "A.java", at("A.java", "SELF", 0), "x", "", "without spelling its name"},
		{"an alias", "A.java", at("A.java", "ls[w]", 0), "x", "", "without spelling its name"},
		{"a JDK method", "A.java", at("A.java", "sort", 0), "x", "", "not a method declared in the workspace"},
		{"a keyword", "A.java", at("A.java", "linearSearch[w]", 0), "for", "", "not a Java method name"},
		{"nothing", "A.java", at("A.java", "package", 0), "x", "", "no method or generator name here"},
	}
	for _, c := range cases {
		edits, err := w.Rename(c.path, c.offset, c.newName)
		if c.error != "" {
			if err == nil || !strings.Contains(err.Error(), c.error) {
				t.Errorf("%s: err = %v, want one saying %q", c.name, err, c.error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var ls []Location
		var decl []bool
		for _, e := range edits {
			if e.NewText != c.newName {
				t.Errorf("%s: edit to %q", c.name, e.NewText)
			}
			ls, decl = append(ls, e.Location), append(decl, e.Declaration)
		}
		got := strings.Split(renderLocs(w, ls), " ")
		for i := range got {
			if decl[i] {
				got[i] += "(decl)"
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: edits\n got %s\nwant %s", c.name, g, c.want)
		}
	}
}

func TestPrepareRenameAndReferences(t *testing.T) {
	w := testWorkspace(t, renameA, renameB)
	off := strings.Index(renameA, "A#linearSearch") + 4
	loc, name, err := w.PrepareRename("A.java", off)
	if err != nil || name != "linearSearch" || renameA[loc.Span.Start:loc.Span.End] != "linearSearch" {
		t.Errorf("PrepareRename = %v %q %v", loc, name, err)
	}
	// references of the generator from its declaration: by name, through
	// the aliases w (a thesis alias and a generators={…} element)
	refs, err := w.References("B.java", strings.Index(renameB, "gen("), true)
	if err != nil {
		t.Fatal(err)
	}
	got := renderLocs(w, refs)
	want := "A.java:3:35:gen A.java:3:59:w A.java:3:80:gen A.java:5:23:w A.java:5:50:w A.java:5:61:w A.java:5:91:w A.java:6:68:gen A.java:9:33:gen B.java:2:30:gen"
	if got != want {
		t.Errorf("references\n got %s\nwant %s", got, want)
	}
}
