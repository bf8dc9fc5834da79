package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// Issue 40: check of a directory without formulas exited 0, so a CI job
// pointed at the wrong directory passed. It exits 2 and names where it
// looked; a single file without formulas (a hook passing changed files)
// still exits 0. Nothing is compiled or measured either way.
func TestCheckWithoutFormulas(t *testing.T) {
	fixture.Isolate(t)
	dir := t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{
		"perfls.json":                   `{"sourceRoots": ["src/main/java"]}`,
		"src/main/java/p/A.java":        "package p;\npublic class A { public static int a() { return 1; } }\n",
		"src/test/java/p/ATest.java":    "package p;\npublic class ATest {}\n",
		"other/src/main/java/q/Q.java":  "package q;\npublic class Q {}\n",
		"other/src/main/java/q/Q2.java": "package q;\npublic class Q2 {}\n",
	})
	code, out, errs := runCLI(t, "check", dir)
	if code != exitUsage || out != "" || !strings.Contains(errs, "no @SPL formulas to check: searched "+filepath.Join("src", "main", "java")+" (1 .java file(s), none with @SPL)") ||
		!strings.Contains(errs, "sourceRoots") {
		t.Errorf("directory without formulas: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, out, errs)
	}
	// Without perfls.json the whole directory is searched.
	code, _, errs = runCLI(t, "check", filepath.Join(dir, "other"))
	if code != exitUsage || !strings.Contains(errs, "searched "+filepath.Join(dir, "other")+" (2 .java file(s)") {
		t.Errorf("directory without perfls.json: exit %d\n%s", code, errs)
	}
	code, _, errs = runCLI(t, "check", filepath.Join(dir, "src", "main", "java", "p", "A.java"))
	if code != exitOK || !strings.Contains(errs, "no @SPL formulas") {
		t.Errorf("file without formulas: exit %d, want %d\n%s", code, exitOK, errs)
	}
}
