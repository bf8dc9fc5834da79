package main

import (
	"context"
	"strings"
	"testing"
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
