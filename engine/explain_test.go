package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/internal/fixture"
)

// Explain follows a slow-down from two revisions to its first bad commit
// and names the callee that grew there: a history of four commits in which
// the third makes one of work's two callees 40 times as costly. On
// recorded measurements and profiles (bench/explain.sh explains a real
// 32-commit history).
func TestExplainNamesTheCommitAndTheCallee(t *testing.T) {
	class := func(factor string) string {
		return `package p;
import dev.perfls.*;
public class A {
    @Workload("p.A#gen")
    public static long work(int n) { return mix(n) + scan(n); }
    static long mix(int n) { long s = 0; for (int i = 0; i < n; i++) s += i ^ (s >>> 3); return s; }
    static long scan(int n) { long s = 0; for (int i = 0; i < n * ` + factor + `; i++) s += (i * 31L) ^ (s >>> 5); return s; }
    public static Iterable<Object[]> gen() { return java.util.Collections.singletonList(new Object[] {2000}); }
}
`
	}
	var history []map[string]string
	for _, f := range []string{"1", "1", "40", "40"} {
		history = append(history, map[string]string{"src/p/A.java": class(f)})
	}
	dir, commits := fixture.GitProject(t, history...)
	e := openReplayed(t, "explain-commit-and-callee", small)
	opts := small
	opts.Forks = 3
	opts.MaxWarmup = 3 * time.Second
	x, err := e.Explain(context.Background(), ExplainRequest{HistoryRequest: HistoryRequest{Dir: dir, Method: "p.A#work", Options: opts, MaxForks: 6},
		Good: commits[0], Bad: commits[3]})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	x.WriteText(&text)
	t.Log("\n" + text.String())
	if x.FirstBad != commits[2] || x.Parent != commits[1] || x.Bisect == nil || x.Commits != 3 {
		t.Fatalf("first bad %.12s parent %.12s (want %.12s after %.12s) over %d commits", x.FirstBad, x.Parent, commits[2], commits[1], x.Commits)
	}
	if cause := x.Cause(); !strings.Contains(cause, "scan") {
		t.Errorf("cause %q does not name the callee that grew, scan", cause)
	}
	var md strings.Builder
	x.WriteMarkdown(&md)
	for _, want := range []string{"### perfls explain: `p.A#work`", "**First bad commit:** `" + commits[2][:12], "**Cause:**", "<details>"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	// One commit between the revisions: no bisection (the measurements and
	// profiles are the cache's now).
	x, err = e.Explain(context.Background(), ExplainRequest{HistoryRequest: HistoryRequest{Dir: dir, Method: "p.A#work", Options: opts, MaxForks: 6},
		Good: commits[1], Bad: commits[2]})
	if err != nil {
		t.Fatal(err)
	}
	if x.FirstBad != commits[2] || x.Bisect != nil || x.Commits != 1 {
		t.Errorf("adjacent commits: first bad %.12s, bisect %v, commits %d", x.FirstBad, x.Bisect != nil, x.Commits)
	}
}
