package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// Standalone .spl files are checked with the project (they were skipped),
// and check takes one .spl or .java file: its formulas only, in the
// project that holds it (it said "not a directory"). Issue #18 item 4.
func TestCheckReadsSPLFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "check-spl-files")
	dir := t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{
		"perfls.json": `{}`,
		"src/p/A.java": `package p;
public class A {
    public static long fast(int n) { return n; }
    public static long slow(int n) { long s = 0; for (int i = 0; i < 200 * n; i++) { s += i ^ s; } return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`,
		"perf/regressions.spl": "for n in {1000} p.A#slow[p.A#gen](n) <= p.A#fast[p.A#gen](n)\n",
	})
	small := []string{"--forks", "2", "--samples", "5", "--warmup", "20ms", "--interpretation", "quick"}
	code, out, errs := runCLI(t, append(append([]string{"check"}, small...), dir)...)
	spl := filepath.Join("perf", "regressions.spl")
	if code != exitViolated || !strings.HasPrefix(out, "violated  "+spl+":1") || !strings.Contains(out, "p.A#slow[p.A#gen](1000) <= p.A#fast[p.A#gen](1000)") {
		t.Fatalf("check of the project: exit %d, want %d and the .spl formula violated\nstdout:\n%s\nstderr:\n%s", code, exitViolated, out, errs)
	}
	// The .spl file alone: the same verdict, from the cache.
	code, out, errs = runCLI(t, append(append([]string{"check"}, small...), filepath.Join(dir, spl))...)
	if code != exitViolated || !strings.HasPrefix(out, "violated  "+spl+":1") {
		t.Fatalf("check of the .spl file: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// A Java file without formulas: nothing to check, and no error.
	code, out, errs = runCLI(t, append(append([]string{"check"}, small...), filepath.Join(dir, "src", "p", "A.java"))...)
	if code != exitOK || out != "" || !strings.Contains(errs, "no @SPL formulas") {
		t.Fatalf("check of a file without formulas: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "check", filepath.Join(dir, "perfls.json")); code != exitUsage || !strings.Contains(errs, "neither a directory nor a .java or .spl file") {
		t.Errorf("check of perfls.json: exit %d, %s", code, errs)
	}
}
