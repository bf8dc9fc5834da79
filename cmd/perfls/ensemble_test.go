package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/cache"
)

func TestEnsembleCommand(t *testing.T) {
	ex := filepath.Join("..", "..", "analysis", "ensemble", "csvrun", "testdata", "example")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"ensemble", "--history", filepath.Join(ex, "history"), "--new", filepath.Join(ex, "new"), "--format", "json"}, nil, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (flagged); stderr %s", code, errb.String())
	}
	var rep struct {
		Flagged []struct {
			Counter  string
			Score    float64
			Severity float64
			Rules    []struct{ Rule string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	checkJSON(t, "ensemble", out.String())
	got := map[string]bool{}
	for _, f := range rep.Flagged {
		got[f.Counter] = f.Score > 0.5 && f.Severity > 0 && len(f.Rules) > 0
	}
	if !got["cpu_util"] {
		t.Errorf("the busy loop's cpu_util is not flagged with score, severity and rules: %s", out.String())
	}
}

func TestEnsembleCommandErrors(t *testing.T) {
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "r.csv"), []byte("time,cpu\n0,1\n1,oops\n"), 0o644)
	os.WriteFile(filepath.Join(bad, "r.env"), []byte("cores=4\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ensemble"}, "want a history directory"},
		{[]string{"ensemble", "--history", bad, "--new", bad}, "r.csv:3: counter cpu: \"oops\" is not a finite number"},
		{[]string{"ensemble", "--history", bad, "--new", bad, "--method", "vote"}, "--method"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), c.args, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// The store form with one stored result of the method: exit 2, how many
// results are needed and the perfls measure command that makes them.
func TestEnsembleStoreTooFew(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", cacheDir)
	t.Setenv("PERFLS_STORE", "")
	store, _, err := cache.OpenStore(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Code: "c", JVM: "j", Harness: "h", Machine: "m"},
		Forks: []cache.Fork{{NsPerOp: []float64{100, 101}, AllocBytesPerOp: []float64{24, 24}}}}
	if err := store.Put(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	store.Close()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"ensemble", "--method", "p.A#m", "--project", t.TempDir()},
			[]string{"needs at least 2 stored results of p.A#m", "1 stored", "perfls measure --method p.A#m --fresh"}},
		{[]string{"ensemble", "--method", "p.A#m", "--args", "20", "--project", t.TempDir()},
			[]string{"needs at least 2 stored results", "0 stored", "perfls measure --method p.A#m --args 20"}},
		{[]string{"ensemble", "--method", "p.A#m", "--history", "h"}, []string{"give one form"}},
		{[]string{"ensemble", "--method", "p.A#m", "--vote", "all"}, []string{"--vote"}},
		{[]string{"ensemble", "--method", "p.A#m", "--review", "ok"}, []string{"want passed, regression or none"}},
		{[]string{"ensemble", "--method", "p.A#m", "--review", "regression", "--project", t.TempDir()},
			[]string{"needs at least 2 stored results", "the review of result 1 is recorded"}},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, nil, &out, &errb)
		for _, w := range c.want {
			if code != 2 || !strings.Contains(errb.String(), w) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), w)
			}
		}
	}
	// perfls history shows each result's ID and review.
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"history", "--method", "p.A#m"}, nil, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "REVIEW") || !strings.Contains(out.String(), "regression") || !strings.HasPrefix(strings.Split(out.String(), "\n")[1], "1 ") {
		t.Errorf("history: exit %d, stdout %q, stderr %q; want result 1 reviewed as a regression", code, out.String(), errb.String())
	}
}
