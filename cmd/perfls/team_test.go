package main

import (
	"context"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// perfls history on an empty store: an empty JSON array, and a usage error
// for a method without its class.
func TestHistoryListCommand(t *testing.T) {
	t.Setenv("PERFLS_CACHE_DIR", t.TempDir())
	t.Setenv("PERFLS_STORE", "")
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{"history", "--method", "p.A#m", "--format", "json"}, strings.NewReader(""), &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != "[]" {
		t.Errorf("exit %d, output %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"history", "--method", "binarySearch"}, strings.NewReader(""), &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "pkg.Class#method") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// check --remote without a shared store says what to set, measuring
// nothing; worker likewise.
func TestRemoteNeedsASharedStore(t *testing.T) {
	fixture.Isolate(t)
	t.Setenv("PERFLS_STORE", "")
	dir := fixture.Project(t, map[string]string{"p/A.java": `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](1) <= p.A#b[gen](1)")
    public static int a(int n) { return n; }
    public static int b(int n) { return n; }
    public static Iterable<Object[]> gen(int n) { return null; }
}
`})
	for _, args := range [][]string{{"check", "--remote", "--label", "quiet", dir}, {"worker"}} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "needs a shared store: set PERFLS_STORE") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}
