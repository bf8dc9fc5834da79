package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// histClass is class p.<name> whose work method loops n*factor times,
// measured on its @Workload generator; version changes its code without
// changing its speed ("" leaves it out).
func histClass(name, factor, version string) string {
	return `package p;
import dev.perfls.*;
public class ` + name + ` {
    static long version() { return 0` + version + `; }
    @Workload("p.` + name + `#sizes")
    public static long work(int n) { long s = version(); for (int i = 0; i < n * ` + factor + `; i++) s += i ^ (s >>> 3); return s; }
    @Generator("one call")
    public static Iterable<Object[]> sizes(@Param(value = "n", min = 3000) int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
}

// small measuring flags: three forks (two leave one degree of freedom,
// too few to show even a large gap every time), and room for a second look
// with three more: on a loaded machine three forks' means can spread ×10
// and leave even a ×300 change undecided at one look. A check leaves
// out a fork whose warm-up hit the cap, so the cap is 3 s and the heap
// small and fixed: warm-up waits until the code has allocated as much as
// the heap holds (docs/measurement.md), and at load 20 a default heap
// kept every fork from settling within 3 s.
var histFlags = []string{"--forks", "3", "--max-forks", "6", "--samples", "5", "--warmup", "50ms", "--max-warmup", "3s", "--format", "json"}

type diffJSON struct {
	Base, Head string
	Changes    []struct {
		Method, Verdict string
		Ratio           float64
		Base, Head      *struct {
			MeanNs float64 `json:"mean_ns_per_op"`
		}
	}
	Unchanged        []string
	Measured, Cached int
	MeasuredHead     int `json:"measured_head"`
}

// perfls diff measures the edited method in the base commit and the
// working tree and finds it slower (exit 1), lists the untouched one as
// unchanged, and after a second edit measures only the edited method's
// head again; the checkout is untouched. Then bisect, and both in a
// shallow CI clone that must fetch (gitci_test.go), sharing the cache: the
// same code's measurements answer them. On recorded measurements: diff's
// and bisect's JVM work runs for real in the conformance matrix (every
// workload form) and on the old history.
func TestDiffAndBisect(t *testing.T) {
	fixture.Isolate(t)
	replayed(t, "diff-and-bisect")
	t.Run("diff", testDiffAgainstBase)
	t.Run("bisect", testBisectFindsRegression)
	t.Run("shallow clone fetches", testDiffBisectShallowCloneFetches)
}

func testDiffAgainstBase(t *testing.T) {
	dir, commits := fixture.GitProject(t, map[string]string{"src/p/A.java": histClass("A", "1", ""), "src/p/B.java": histClass("B", "1", "")})
	fixture.WriteFiles(t, dir, map[string]string{"src/p/A.java": histClass("A", "100", "")})
	diff := func(wantCode int, more ...string) diffJSON {
		t.Helper()
		code, out, errs := runCLI(t, append(append([]string{"diff", "--base", "HEAD"}, more...), append(histFlags, dir)...)...)
		var d diffJSON
		if err := json.Unmarshal([]byte(out), &d); err != nil || code != wantCode {
			t.Fatalf("exit %d (want %d), %v\n%s\n%s", code, wantCode, err, out, errs)
		}
		checkJSON(t, "diff", out)
		return d
	}
	d := diff(1)
	if d.Base != commits[0] || d.Head != "worktree" || len(d.Changes) != 1 || d.Changes[0].Method != "p.A#work(int)" ||
		d.Changes[0].Verdict != "slower" || d.Changes[0].Ratio < 5 || len(d.Unchanged) != 1 || !strings.HasPrefix(d.Unchanged[0], "p.B#work") {
		t.Fatalf("first diff: %+v", d)
	}
	if d.Measured != 2 {
		t.Errorf("first diff measured %d, want both sides of p.A#work", d.Measured)
	}
	// Another edit of the same method: its base figures are the cache's.
	fixture.WriteFiles(t, dir, map[string]string{"src/p/A.java": histClass("A", "60", "")})
	reports := t.TempDir()
	d = diff(1, "--junit", filepath.Join(reports, "diff.xml"), "--html", filepath.Join(reports, "html"))
	junit, _ := os.ReadFile(filepath.Join(reports, "diff.xml"))
	page, _ := os.ReadFile(filepath.Join(reports, "html", "index.html"))
	if !strings.Contains(string(junit), `failures="1"`) || !strings.Contains(string(junit), `type="perfls.Slower"`) ||
		!strings.Contains(string(page), "1 slower</span>") || !strings.Contains(string(page), "<svg") {
		t.Errorf("diff --junit / --html:\n%s\n%.600s", junit, page)
	}
	if d.Measured != 1 || d.MeasuredHead != 1 || d.Cached != 1 || len(d.Unchanged) != 1 {
		t.Errorf("second diff: measured %d (head %d), cached %d, unchanged %v; want only the edited method's head measured", d.Measured, d.MeasuredHead, d.Cached, d.Unchanged)
	}
	if st := fixture.Git(t, dir, "status", "--porcelain"); st != "M src/p/A.java" || fixture.Git(t, dir, "rev-parse", "HEAD") != commits[0] {
		t.Errorf("the checkout changed: %q", st)
	}
}

// Bad input is a one-line error with exit status 2, never a crash.
func TestDiffAndBisectBadInput(t *testing.T) {
	fixture.Isolate(t)
	plain := fixture.Project(t, map[string]string{"src/p/A.java": histClass("A", "1", "")})
	dir, _ := fixture.GitProject(t, map[string]string{"src/p/A.java": histClass("A", "1", "")})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", plain}, "not in a git repository"},
		{[]string{"diff", "--base", "nosuch", dir}, `unknown revision "nosuch"`},
		{[]string{"bisect", "HEAD", "nosuch", dir}, `unknown revision "nosuch"`},
		{[]string{"bisect", "HEAD", "HEAD", dir}, "no commits between"},
		{[]string{"bisect", "HEAD"}, "Run 'perfls bisect --help'"},
		{[]string{"diff", "--forks", "1", dir}, "forks must be ≥ 2"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// perfls bisect finds the commit that made a method slower in a history
// where other commits change other code, measuring few commits, and
// leaves the checkout, index and refs alone.
func testBisectFindsRegression(t *testing.T) {
	var history []map[string]string
	for i := 0; i < 7; i++ {
		factor := "1"
		if i >= 4 {
			factor = "100" // commit 4 makes A slower
		}
		history = append(history, map[string]string{"src/p/A.java": histClass("A", factor, ""), "src/p/B.java": histClass("B", "1", fmt.Sprint(" + ", i))})
	}
	history[2]["src/p/A.java"] = "package p; class A { broken" // does not build
	history[3]["src/p/A.java"] = histClass("A", "1", "")
	dir, commits := fixture.GitProject(t, history...)
	refs := fixture.Git(t, dir, "for-each-ref")
	code, out, errs := runCLI(t, append([]string{"bisect", commits[0], commits[6], "--method", "p.A#work"}, append(histFlags, dir)...)...)
	var b struct {
		FirstBad string `json:"first_bad"`
		Steps    []struct{ Commit, Verdict string }
		Measured int
	}
	checkJSON(t, "bisect", out)
	if err := json.Unmarshal([]byte(out), &b); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	if b.FirstBad != commits[4] {
		t.Errorf("first bad %s, want %s (commit 4); steps %+v", b.FirstBad, commits[4], b.Steps)
	}
	// Good, and the slow code once: the cache answers it at later commits.
	// Six commits: Bad, ⌈log2 6⌉ = 3 steps and the one that does not build.
	if b.Measured > 2 || len(b.Steps) > 5 {
		t.Errorf("measured %d commits in %d steps: %+v", b.Measured, len(b.Steps), b.Steps)
	}
	if st := fixture.Git(t, dir, "status", "--porcelain"); st != "" || fixture.Git(t, dir, "rev-parse", "HEAD") != commits[6] || fixture.Git(t, dir, "for-each-ref") != refs {
		t.Errorf("the checkout or refs changed: %q", st)
	}
}
