package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
)

// perfls regressions over a stored history with a +50 % step at commit 6
// of 12: exit 1 and the change in JSON; --since HEAD counts nothing (exit
// 0); a directory outside git is an error (exit 2).
func TestRegressionsCommand(t *testing.T) {
	ctx := context.Background()
	cacheDir := t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", cacheDir)
	t.Setenv("PERFLS_STORE", "")
	dir, hashes := fixture.GitProject(t, make([]map[string]string, 12)...)
	store, _, err := cache.OpenStore(ctx, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hashes {
		env, _ := json.Marshal(measured.Environment{Commit: h})
		x := 1000.0
		if i >= 6 {
			x = 1500
		}
		m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Code: h, Machine: "x"}, Environment: env}
		for _, d := range []float64{-10, 0, 10 + float64(i%2)} {
			m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{x + d}})
		}
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	var out, errOut strings.Builder
	code := run(ctx, []string{"regressions", "--format", "json", dir}, strings.NewReader(""), &out, &errOut)
	var res struct {
		Changes []struct {
			Commit, Metric string
			Magnitude      float64
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil || code != 1 || len(res.Changes) != 1 || res.Changes[0].Commit != hashes[6] || res.Changes[0].Magnitude < 0.45 {
		t.Errorf("exit %d, output %s (%v), stderr %q", code, out.String(), err, errOut.String())
	}
	checkJSON(t, "regressions", out.String())
	out.Reset()
	if code := run(ctx, []string{"regressions", "--since", "HEAD", dir}, strings.NewReader(""), &out, &errOut); code != 0 || !strings.Contains(out.String(), "slower (before --since) since "+hashes[6][:10]) {
		t.Errorf("--since HEAD: exit %d, output %s", code, out.String())
	}
	if code := run(ctx, []string{"regressions", t.TempDir()}, strings.NewReader(""), &out, &errOut); code != exitUsage {
		t.Errorf("outside git: exit %d, want %d", code, exitUsage)
	}
}
