package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// TestExplainCommand: explain's flags are checked before anything runs,
// and a method without a slow-down in the stored results exits 1 with the
// reason, as JSON too. (The chain itself, on real JVMs, is
// engine's TestExplainNamesTheCommitAndTheCallee.)
func TestExplainCommand(t *testing.T) {
	ctx := context.Background()
	t.Setenv("PERFLS_CACHE_DIR", t.TempDir())
	t.Setenv("PERFLS_STORE", "")
	dir, hashes := fixture.GitProject(t, make([]map[string]string, 3)...)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", dir}, "needs --method"},
		{[]string{"explain", "--method", "p.A#m", "--good", hashes[0], dir}, "both --good and --bad"},
	} {
		var out, errOut strings.Builder
		if code := run(ctx, c.args, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.want)
		}
	}
	var out, errOut strings.Builder
	code := run(ctx, []string{"explain", "--method", "p.A#m", "--format", "json", dir}, strings.NewReader(""), &out, &errOut)
	checkJSON(t, "explain", out.String())
	var x struct {
		Method, Reason string
		FirstBad       string `json:"first_bad"`
	}
	if err := json.Unmarshal([]byte(out.String()), &x); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errOut.String())
	}
	if code != 1 || x.Method != "p.A#m" || x.FirstBad != "" || !strings.Contains(x.Reason, "no slow-down of p.A#m in the stored results") {
		t.Errorf("exit %d, %+v; want 1 and the reason", code, x)
	}
}
