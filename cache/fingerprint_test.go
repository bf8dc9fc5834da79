package cache

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func compile(t *testing.T, src, classes string, files map[string]string) {
	t.Helper()
	var paths []string
	for name, text := range files {
		p := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	all, _ := filepath.Glob(filepath.Join(src, "p", "*.java"))
	out, err := exec.Command("javac", append([]string{"-d", classes}, all...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
}

func TestFingerprintFollowsReachableClassesOnly(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("no javac")
	}
	src, classes := t.TempDir(), t.TempDir()
	files := map[string]string{
		"p/A.java":      "package p; public class A { public static int m(int[] a) { return Helper.sum(a) + new Inner().v; } static class Inner { int v = 1; } }",
		"p/Helper.java": "package p; public class Helper { public static int sum(int[] a) { int s = 0; for (int x : a) s += x; return s; } }",
		// Only named in a descriptor: a parameter type, never instantiated.
		"p/Gen.java":       "package p; public class Gen { public static Iterable<Object[]> gen(int n, Config c) { return null; } }",
		"p/Config.java":    "package p; public class Config { int size = 3; }",
		"p/Unrelated.java": "package p; public class Unrelated { public static int x() { return 1; } }",
	}
	compile(t, src, classes, files)
	fp, covered, err := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p.A", "p.A$Inner", "p.Helper", "p.Gen", "p.Config"} {
		if !slices.Contains(covered, want) {
			t.Errorf("fingerprint does not cover %s: %v", want, covered)
		}
	}
	if slices.Contains(covered, "p.Unrelated") {
		t.Errorf("covers unrelated code: %v", covered)
	}

	// Editing unrelated code keeps the fingerprint.
	compile(t, src, classes, map[string]string{"p/Unrelated.java": "package p; public class Unrelated { public static int x() { return 2; } }"})
	if fp2, _, _ := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"}); fp2 != fp {
		t.Errorf("an edit of unrelated code changed the fingerprint")
	}
	// Editing a callee changes it.
	compile(t, src, classes, map[string]string{"p/Helper.java": "package p; public class Helper { public static int sum(int[] a) { int s = 1; for (int x : a) s += x; return s; } }"})
	fp3, _, _ := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"})
	if fp3 == fp {
		t.Errorf("an edit of a callee kept the fingerprint")
	}
	// Editing a class reached only through a descriptor changes it too.
	compile(t, src, classes, map[string]string{"p/Config.java": "package p; public class Config { int size = 4; }"})
	if fp4, _, _ := Fingerprint([]string{classes}, []string{"p.A", "p.Gen"}); fp4 == fp3 {
		t.Errorf("an edit of a parameter type kept the fingerprint")
	}
}

func TestClassReferencesRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("hello"), {0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0, 5, 1, 0, 200}} {
		if _, err := classReferences(b); err == nil {
			t.Errorf("no error for %q", b)
		}
	}
}
