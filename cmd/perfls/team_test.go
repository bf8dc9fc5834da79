package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure/service"
)

// perfls history on an empty store: a document with no results, and a usage error
// for a method without its class.
func TestHistoryListCommand(t *testing.T) {
	t.Setenv("PERFLS_CACHE_DIR", t.TempDir())
	t.Setenv("PERFLS_STORE", "")
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{"history", "--method", "p.A#m", "--format", "json"}, strings.NewReader(""), &out, &errOut); code != 0 || !strings.Contains(out.String(), `"results": []`) {
		t.Errorf("exit %d, output %q, stderr %q", code, out.String(), errOut.String())
	}
	checkJSON(t, "history", out.String())
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

// perfls history --html DIR: a page plotting the stored results over the
// project's first-parent commits, one series per machine class, beside the
// usual listing.
func TestHistoryHTMLCommand(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", cacheDir)
	t.Setenv("PERFLS_STORE", "")
	dir, commits := fixture.GitProject(t, map[string]string{"A.java": "class A {}"}, map[string]string{"A.java": "class A { }"})
	ctx := context.Background()
	store, _, err := cache.Open(ctx, "", cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []struct {
		commit, machine string
		mean            float64
	}{{commits[1], "cpu x, 2 cores", 20}, {commits[0], "cpu x, 2 cores", 10}, {commits[0], "cpu y, 8 cores", 7}} {
		env, _ := json.Marshal(measured.Environment{Commit: r.commit, JavaVendor: "Debian", JavaVersion: "17"})
		m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Code: fmt.Sprint("c", i), Machine: r.machine},
			Environment: env, CreatedAt: time.Unix(int64(100+i), 0), Forks: []cache.Fork{{NsPerOp: []float64{r.mean - 1, r.mean + 1}}, {NsPerOp: []float64{r.mean}}}}
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	t.Chdir(dir)
	out := filepath.Join(t.TempDir(), "report")
	code, stdout, errs := runCLI(t, "history", "--method", "p.A#m", "--html", out)
	if code != 0 || !strings.Contains(stdout, "cpu y, 8 cores") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	b, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<svg", "2 commits plotted", "cpu x, 2 cores · Debian 17", "cpu y, 8 cores · Debian 17", "commit 1", commits[0][:7], "first-parent line"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if i, j := strings.Index(page, ">"+commits[0]+"<"), strings.Index(page, ">"+commits[1]+"<"); i < 0 || j < i {
		t.Errorf("commits not in first-parent order (%d, %d)", i, j)
	}
}

// check --remote in a CI log (stderr not a terminal): each state change of
// a job on the workers' queue is a line of its own, other progress goes to
// the usual progress line (silent there but for heartbeats); with -v or on
// a terminal the progress line shows them as before.
func TestRemoteJobStatesInALog(t *testing.T) {
	var log strings.Builder
	var passed []string
	progress := func(p service.Progress) { passed = append(passed, p.Message) }
	lines := jobLines(&log, progress, false)
	for _, p := range []service.Progress{
		{Job: 7, Message: "job 7: sources: an archive of the sources (not a git work tree)"},
		{Job: 7, Message: "job 7 on queue perfls: queued"},
		{Job: 7, Message: "job 7 on queue perfls: running on worker w1 (attempt 1)"},
		{Message: "fork 1 of 2", NsPerOp: 3},
		{Job: 7, Message: "job 7 on queue perfls: done"},
	} {
		lines(p)
	}
	want := "perfls: job 7: sources: an archive of the sources (not a git work tree)\n" +
		"perfls: job 7 on queue perfls: queued\n" +
		"perfls: job 7 on queue perfls: running on worker w1 (attempt 1)\n" +
		"perfls: job 7 on queue perfls: done\n"
	if log.String() != want || len(passed) != 1 || passed[0] != "fork 1 of 2" {
		t.Errorf("log %q, passed on %q", log.String(), passed)
	}
	log.Reset()
	passed = nil
	jobLines(&log, progress, true)(service.Progress{Job: 7, Message: "job 7 on queue perfls: queued"})
	if log.Len() != 0 || len(passed) != 1 {
		t.Errorf("shown elsewhere: log %q, passed on %q", log.String(), passed)
	}
}
