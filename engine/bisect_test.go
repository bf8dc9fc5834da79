package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/fixture"
)

// The search over a fake line finds the first bad commit in at most
// ⌈log2 n⌉ judgements, passes skipped commits over for their neighbours,
// and names the candidates when skipped ones hide the answer.
func TestBisectSearch(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for first := 0; first < n; first++ {
			var judged []int
			got, cands, err := bisectSearch(n, func(i int) (string, error) {
				judged = append(judged, i)
				if i >= first {
					return stepBad, nil
				}
				return stepGood, nil
			})
			limit := 0
			for 1<<limit < n {
				limit++
			}
			if err != nil || got != first || cands != nil || len(judged) > limit || slices.Contains(judged, n-1) {
				t.Fatalf("n=%d first=%d: got %d %v %v after %v (limit %d)", n, first, got, cands, err, judged, limit)
			}
		}
	}
	// judge says bad from first on and skip for the skipped.
	skip := map[int]bool{7: true, 8: true}
	judge := func(first int) func(int) (string, error) {
		return func(i int) (string, error) {
			switch {
			case skip[i]:
				return stepSkip, nil
			case i >= first:
				return stepBad, nil
			}
			return stepGood, nil
		}
	}
	// Skipped commits: the neighbours decide.
	if got, cands, _ := bisectSearch(16, judge(10)); got != 10 || cands != nil {
		t.Errorf("with skips: %d %v, want 10", got, cands)
	}
	// The first bad commit sits right after skipped ones: it may be any.
	if got, cands, _ := bisectSearch(16, judge(8)); got != 9 || fmt.Sprint(cands) != "[7 8 9]" {
		t.Errorf("hidden by skips: %d %v, want 9 [7 8 9]", got, cands)
	}
	// A judgement's error ends the search.
	if _, _, err := bisectSearch(8, func(int) (string, error) { return "", fmt.Errorf("boom") }); err == nil {
		t.Error("the error was lost")
	}
}

// Without a method, bisect follows the formula: the first commit at which
// an instance that holds at Good is violated, skipping a commit that does
// not build; a formula added later does not count.
func TestBisectFormula(t *testing.T) {
	class := func(factor string, extra string) string {
		return `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](3000) <= p.A#ref[gen](3000)")
    public static long work(int n) { long s = 0; for (int i = 0; i < n * ` + factor + `; i++) s += i ^ (s >>> 3); return s; }
    public static long ref(int n) { long s = 0; for (int i = 0; i < n * 10; i++) s += i ^ (s >>> 3); return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
` + extra + `}
`
	}
	later := `    @SPL("SELF[gen](10) <= p.A#ref[gen](10)") public static long added(int n) { return n; }
`
	var history []map[string]string
	for i, f := range []string{"1", "1", "1", "broken", "100", "100"} {
		src := class(f, "")
		if f == "broken" {
			src = "package p; class A { broken"
		}
		if i >= 4 {
			src = class(f, later)
		}
		history = append(history, map[string]string{"src/p/A.java": src})
	}
	dir, commits := fixture.GitProject(t, history...)
	e := openReplayed(t, "bisect-formula", small)
	opts := small
	opts.Forks = 3
	// Forks whose warm-up hits the cap do not decide a formula: a cap the
	// JIT settles within on a busy machine, and room to replace one.
	opts.MaxWarmup = 3 * time.Second
	b, err := e.Bisect(context.Background(), BisectRequest{HistoryRequest: HistoryRequest{Dir: dir, Options: opts, MaxForks: 6}, Good: commits[0], Bad: commits[5]})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", b)
	if b.Mode != "formula" || b.FirstBad != commits[4] || len(b.Formulas) != 1 || !strings.Contains(b.Formulas[0], "src/p/A.java: SELF[gen](3000) <= p.A#ref[gen](3000)") {
		t.Errorf("mode %q, first bad %.12s (want %.12s, commit 4), followed %v", b.Mode, b.FirstBad, commits[4], b.Formulas)
	}
	skipped := false
	for _, s := range b.Steps {
		skipped = skipped || s.Commit == commits[3] && s.Verdict == stepSkip
	}
	if !skipped && slices.ContainsFunc(b.Steps, func(s report.BisectStep) bool { return s.Commit == commits[3] }) {
		t.Errorf("the commit that does not build was not skipped: %+v", b.Steps)
	}
}

// When no formula instance holds at Good, bisect names each with its
// evidence there and searches for a slower workload instead, saying so.
// "SELF <= 0.5 * SELF@HEAD~2" at HEAD~2 compares one measurement with
// half itself: violated, whatever the noise.
func TestBisectFormulaFallsBack(t *testing.T) {
	class := func(factor string) string {
		return `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](3000) <= 0.5 * SELF@HEAD~2[gen](3000)")
    public static long work(int n) { long s = 0; for (int i = 0; i < n * ` + factor + `; i++) s += i ^ (s >>> 3); return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
	}
	dir, commits := fixture.GitProject(t,
		map[string]string{"src/p/A.java": class("1")},
		map[string]string{"src/p/A.java": class("100")},
		map[string]string{"src/p/A.java": class("100"), "NOTES": "notes"})
	e := openReplayed(t, "bisect-formula-falls-back", small)
	opts := small
	opts.Forks = 3
	b, err := e.Bisect(context.Background(), BisectRequest{HistoryRequest: HistoryRequest{Dir: dir, Options: opts, MaxForks: 3}, Good: commits[0], Bad: commits[2]})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	b.WriteText(&text)
	t.Log(text.String())
	if b.Mode != "slower" || b.FirstBad != commits[1] || len(b.AtGood) != 1 ||
		!strings.Contains(b.AtGood[0], "src/p/A.java: SELF[gen](3000) <= 0.5 * SELF@HEAD~2[gen](3000): violated: ") ||
		!strings.Contains(b.AtGood[0], "ratio 2 [2, 2]") || !strings.Contains(b.Fallback, "searching instead for the first commit at which a workload is slower") {
		t.Errorf("mode %q, first bad %.12s (want %.12s), at good %q, fallback %q", b.Mode, b.FirstBad, commits[1], b.AtGood, b.Fallback)
	}
	if !strings.Contains(text.String(), "at good: src/p/A.java") || !strings.Contains(text.String(), "searching instead") {
		t.Errorf("text:\n%s", text.String())
	}
}

// A method named on the command line matches its workloads by
// methodspec.Spec's rule: with or without parameter types, simple type
// names, spaces.
func TestMatchesAMethodAsNamed(t *testing.T) {
	r := workspace.Request{Method: workspace.Target{Class: "p.A", Method: "m", Params: []string{"int[]", "java.lang.String"}, Revision: "v1"}}
	for method, want := range map[string]bool{
		"": true, "p.A#m": true, "p.A#m(int[],java.lang.String)": true, "p.A#m(int[], String)": true,
		"p.A#m(int[])": false, "p.A#n": false, "q.A#m": false, "p.A#m(long[], String)": false,
	} {
		if got := matches(r, method); got != want {
			t.Errorf("matches(%s, %q) = %v, want %v", r.Method, method, got, want)
		}
	}
}

// When Bad is not shown slower there is nothing to search, and bisect says
// why in the words SPL reads a relation by: "not shown slower than Good",
// with the step's reason — here the method's code is Good's.
func TestBisectBadNotShownSlower(t *testing.T) {
	class := `package p;
import dev.perfls.*;
public class A {
    @Workload("p.A#gen")
    public static long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i ^ (s >>> 3); return s; }
    public static Iterable<Object[]> gen() { return java.util.Collections.singletonList(new Object[] {3000}); }
}
`
	dir, commits := fixture.GitProject(t,
		map[string]string{"src/p/A.java": class},
		map[string]string{"src/p/A.java": class, "NOTES": "notes"})
	e := openEngine(t, small) // nothing is measured: the code is Good's
	b, err := e.Bisect(context.Background(), BisectRequest{HistoryRequest: HistoryRequest{Dir: dir, Method: "p.A#work", Options: small, MaxForks: 2},
		Good: commits[0], Bad: commits[1]})
	if err != nil {
		t.Fatal(err)
	}
	want := commits[1] + " is not shown slower than " + commits[0] + ": code unchanged since good"
	if b.FirstBad != "" || b.Reason != want {
		t.Errorf("first bad %q, reason %q; want none and %q", b.FirstBad, b.Reason, want)
	}
}
