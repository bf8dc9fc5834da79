package measure

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestScanPackage(t *testing.T) {
	cases := map[string]string{
		"package a.b;\nclass X {}":                                 "a.b",
		"\uFEFF// c\n/* package no; */\npackage  a . b\n.c ;":      "a.b.c",
		"/** doc */ @Deprecated @A(x = \")\", y = {1}) package p;": "p",
		"import java.util.List;\nclass X {}":                       "",
		"class X {}":                                               "",
		"":                                                         "",
		"package a.b":                                              "",
		"@interface A {}":                                          "",
	}
	for src, want := range cases {
		if got := scanPackage(src); got != want {
			t.Errorf("scanPackage(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestFindProject(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src/main/java/a/b/A.java"), "package a.b;\npublic class A {}\n")
	writeFile(t, filepath.Join(dir, "src/test/java/c/C.java"), "/* x */\npackage c; class C {}\n")
	writeFile(t, filepath.Join(dir, "scripts/Top.java"), "class Top {}\n")
	writeFile(t, filepath.Join(dir, "odd/place/M.java"), "package elsewhere;\nclass M {}\n")
	writeFile(t, filepath.Join(dir, ".hidden/a/H.java"), "package a; class H {}\n")
	writeFile(t, filepath.Join(dir, "target/gen/a/T.java"), "package a; class T {}\n")
	writeFile(t, filepath.Join(dir, "build/a/B.java"), "package a; class B {}\n")
	writeFile(t, filepath.Join(dir, "web/node_modules/a/N.java"), "package a; class N {}\n")
	writeFile(t, filepath.Join(dir, "src/main/java/a/b/notes.txt"), "not java")

	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := func(s string) string { return filepath.Join(dir, filepath.FromSlash(s)) }
	wantSources := []string{j("odd/place/M.java"), j("scripts/Top.java"), j("src/main/java/a/b/A.java"), j("src/test/java/c/C.java")}
	wantRoots := []string{j("odd/place"), j("scripts"), j("src/main/java"), j("src/test/java")}
	if !reflect.DeepEqual(p.Sources, wantSources) {
		t.Errorf("Sources = %q, want %q", p.Sources, wantSources)
	}
	if !reflect.DeepEqual(p.SourceRoots, wantRoots) {
		t.Errorf("SourceRoots = %q, want %q", p.SourceRoots, wantRoots)
	}
	if p.Dir != dir {
		t.Errorf("Dir = %q, want %q", p.Dir, dir)
	}
	if _, err := FindProject(filepath.Join(dir, "missing")); err == nil {
		t.Error("FindProject of a missing directory succeeded")
	}
}
