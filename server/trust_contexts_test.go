package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextsCarryTrust: every context the server hands its work derives
// from the session's base (trust.With): a context.Background elsewhere
// would carry no gate, and what runs under it would count as the user's
// explicit action. The wire layer's writes start nothing.
func TestContextsCarryTrust(t *testing.T) {
	allowed := map[string]int{"server.go": 1, "stream.go": 1}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// The session's background work (index, classpath) too.
	inner, err := filepath.Glob("internal/session/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, inner...)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(b), "context.Background()") + strings.Count(string(b), "context.TODO()")
		if n > allowed[f] {
			t.Errorf("%s: %d fresh contexts (context.Background/TODO), %d allowed: derive from s.base or the request's context", f, n, allowed[f])
		}
	}
}
