package declindex_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache/declindex"
)

func TestIndexRootPersistsAndReuses(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(t.TempDir(), "index.gob")
	write := func(rel, src string) string {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a/A.java", "package a;\nimport java.util.List;\npublic abstract class A extends B implements List<String> {\n  static class In { void m(int[] x, String... s) {} }\n  abstract int f(long y);\n}\n")
	write("a/B.java", "package a;\nclass B { static Iterable<Object[]> gen(int n) { return null; } }\n")
	write("build/Gen.java", "package gen;\nclass Skipped {}\n")

	names := func(files []*javasrc.File) []string {
		var out []string
		for _, f := range files {
			for _, m := range f.Methods {
				out = append(out, m.Type.BinaryName+"#"+m.Signature())
			}
		}
		sort.Strings(out)
		return out
	}
	files1, st1, err := declindex.IndexRoot(root, cache, nil, nil)
	if err != nil || st1.Files != 2 || st1.Parsed != 2 || st1.Reused != 0 {
		t.Fatalf("cold: %+v %v", st1, err)
	}
	files2, st2, err := declindex.IndexRoot(root, cache, nil, nil)
	if err != nil || st2.Parsed != 0 || st2.Reused != 2 {
		t.Fatalf("reopen: %+v %v", st2, err)
	}
	if got, want := names(files2), names(files1); len(got) != 3 || !equal(got, want) {
		t.Errorf("reopened declarations %v, want %v", got, want)
	}
	// What the checker needs survives the round trip.
	ix := workspace.NewIndex(files2)
	at := ix.Type("a.A")
	if at == nil || !equal(at.Supers, []string{"B", "List"}) || ix.Type("a.A$In") == nil || ix.Type("a.A.In").Outer != at {
		t.Fatalf("types after reopen: %+v", at)
	}
	if ms := ix.Methods(at, "f"); len(ms) != 1 || !ms[0].Abstract || ms[0].Params[0].Erased != "long" {
		t.Errorf("A.f after reopen: %+v", ms)
	}
	if ms := ix.Methods(ix.Type("a.A.In"), "m"); len(ms) != 1 || !ms[0].Params[1].Varargs {
		t.Errorf("In.m after reopen: %+v", ms)
	}

	// A changed file is parsed again; a deleted one leaves the index.
	os.WriteFile(a, []byte("package a;\npublic class A { void g() {} }\n"), 0o644)
	os.Chtimes(a, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	os.Remove(filepath.Join(root, "a/B.java"))
	files3, st3, err := declindex.IndexRoot(root, cache, nil, nil)
	if err != nil || st3.Files != 1 || st3.Parsed != 1 || st3.Reused != 0 {
		t.Fatalf("after changes: %+v %v", st3, err)
	}
	if got := names(files3); !equal(got, []string{"a.A#g()"}) {
		t.Errorf("after changes: %v", got)
	}

	// A corrupt cache is ignored and rewritten.
	os.WriteFile(cache, []byte("garbage"), 0o644)
	if _, st, err := declindex.IndexRoot(root, cache, nil, nil); err != nil || st.Parsed != 1 {
		t.Errorf("corrupt cache: %+v %v", st, err)
	}
	if _, st, err := declindex.IndexRoot(root, cache, nil, nil); err != nil || st.Reused != 1 {
		t.Errorf("rewritten cache: %+v %v", st, err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
