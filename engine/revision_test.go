package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/fixture"
)

// revClass is a class whose work method loops n*factor times, with a
// generator and the formulas given.
func revClass(factor, formulas string) string {
	return `package p;
import dev.perfls.*;
public class A {
    @SPL({` + formulas + `})
    public static long work(int n) { long s = 0; for (int i = 0; i < n * ` + factor + `; i++) s += i ^ (s >>> 3); return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
}

// A formula naming a method at a revision measures that commit's method,
// in a tree materialised in the cache, leaving the checkout alone; unknown
// revisions and methods missing there are diagnostics on "@rev".
func TestCheckRevisionInFormula(t *testing.T) {
	formulas := `"SELF[gen](3000) <= SELF@HEAD~1[gen](3000)", "SELF[gen](10) <= SELF@nosuch[gen](10)", "SELF[gen](10) <= p.A#gone@HEAD~1[gen](10)"`
	dir, commits := fixture.GitProject(t,
		map[string]string{"src/p/A.java": revClass("200", formulas)},
		map[string]string{"src/p/A.java": revClass("1", formulas)})
	e := openReplayed(t, "check-revision-in-formula", small)
	ctx := context.Background()
	opts := small
	opts.Forks = 3 // two forks leave one degree of freedom: too noisy to show even a 100× gap every time
	// Forks whose warm-up hits the cap do not decide: a cap the JIT settles
	// within on a busy machine, and room to replace a fork that still hits it.
	opts.MaxWarmup = 3 * time.Second
	req := CheckRequest{Dir: dir, Options: opts, MaxForks: 2 * opts.Forks}
	res, err := e.Check(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.CompileErrors) > 0 {
		t.Fatalf("compile errors: %v", res.CompileErrors)
	}
	var outcomes []string
	for _, m := range res.Methods {
		for _, in := range m.Instances {
			outcomes = append(outcomes, in.Outcome.String()+failed(in))
			for _, c := range in.Comparisons {
				t.Logf("%s: %s %s %+v", in.Formula, c.Outcome, c.Reason, c.Evidence.Ratio)
			}
		}
	}
	if strings.Join(outcomes, " ") != "satisfied undecided(failed) undecided(failed)" {
		t.Errorf("outcomes %v, want the fast method satisfied against its slow past and the others failed", outcomes)
	}
	diags := map[string]workspace.Diagnostic{}
	for _, d := range res.Diagnostics {
		if d.Code == "revision" {
			diags[d.Message] = d
		}
	}
	var sawUnknown, sawMissing bool
	for msg, d := range diags {
		width := d.Range.End.Character - d.Range.Start.Character
		switch {
		case strings.Contains(msg, `unknown revision "nosuch"`):
			sawUnknown = width == len("@nosuch")
		case strings.Contains(msg, `"gone"`) && strings.Contains(msg, commits[0][:12]):
			sawMissing = width == len("@HEAD~1")
		}
	}
	if !sawUnknown || !sawMissing {
		t.Errorf("want located diagnostics on @nosuch and on gone's @HEAD~1, got %+v", res.Diagnostics)
	}
	if st := fixture.Git(t, dir, "status", "--porcelain"); st != "" || fixture.Git(t, dir, "rev-parse", "HEAD") != commits[1] {
		t.Errorf("the checkout changed: status %q", st)
	}
	if out := fixture.Git(t, dir, "worktree", "list"); strings.Count(out, "\n") != 0 {
		t.Errorf("worktrees were added: %s", out)
	}

	// Again: the commit's tree and its measurements are reused.
	again, err := e.Check(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Five requests, of which two name no measurable method.
	if again.Cached != 3 {
		t.Errorf("second check: %d of %d requests cached", again.Cached, again.Requests)
	}
}

func failed(in verdict.InstanceResult) string {
	if in.Failed {
		return "(failed)"
	}
	return ""
}

// Revisions in a directory that is not a git repository are diagnostics,
// for check and lint alike, and nothing is measured.
func TestRevisionOutsideGit(t *testing.T) {
	dir, src := writeProject(t, "src/p/A.java", revClass("1", `"SELF@v1[gen](10) <= SELF@HEAD~3[gen](10)"`))
	e := openEngine(t, small)
	res, err := e.Check(context.Background(), CheckRequest{Dir: dir, Options: small})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range res.Diagnostics {
		if d.Code == "revision" && strings.Contains(d.Message, "not in a git repository") {
			n++
		}
	}
	if n != 2 || !res.Failed() {
		t.Errorf("want 2 located diagnostics and a failed instance, got %d: %+v", n, res.Diagnostics)
	}
	lint, err := lintAsTheCLI([]string{src}, "none")
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for _, d := range lint {
		if d.Code == "revision" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("lint: %d revision diagnostics, want 2: %+v", n, lint)
	}
}

// The thesis's Listing 4: a workload loop written today (not in any
// commit) drives a method, now and at an older commit. m[loop](n) measures
// the loop; at a revision the loop is the working tree's, compiled with
// that commit's classes.
func TestWorkloadLoopAgainstRevision(t *testing.T) {
	dir, commits := fixture.GitProject(t,
		map[string]string{"src/p/A.java": plainClass("200")},
		map[string]string{"src/p/A.java": plainClass("1")})
	fixture.WriteFiles(t, dir, map[string]string{"src/w/Loops.java": `package w;
import dev.perfls.*;
public class Loops {
    @SPL({"now := p.A#work", "old := p.A#work@HEAD~1",
          "for n in {3000} now[drive](n) <= old[drive](n)",
          "for n in {3000} old[drive](n) <= now[drive](n)",
          "w.Unused#f[drive](3000) <= old[drive](3000)"})
    public static void drive(SPLController spl, int n) {
        long sink = 0;
        while (spl.needsMore()) {
            sink += p.A.work(n);
        }
        if (sink == 42) System.out.print("");
    }
}
class Unused { static int f() { return 1; } }
`})
	e := openReplayed(t, "workload-loop-against-revision", small)
	opts := small
	opts.Forks = 3
	// Forks whose warm-up hits the cap do not decide: a cap the loop's
	// forks settle within on a loaded 2-core VM (0.5–1.1 s), and room to
	// replace one that still hits it. The three comparisons are one family
	// (Holm): the violation needs p < α/3 — room for more forks decides it
	// on a loaded machine too.
	opts.MaxWarmup = 3 * time.Second
	res, err := e.Check(context.Background(), CheckRequest{Dir: dir, Options: opts, MaxForks: 4 * opts.Forks})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.CompileErrors) > 0 || len(res.Diagnostics) > 0 {
		t.Fatalf("compile errors %v, diagnostics %v", res.CompileErrors, res.Diagnostics)
	}
	got := map[string]string{}
	for _, m := range res.Methods {
		for _, in := range m.Instances {
			got[in.Formula] = in.Outcome.String() + failed(in)
			for _, c := range in.Comparisons {
				t.Logf("%s: %s %s %+v", in.Formula, c.Outcome, c.Reason, c.Evidence.Ratio)
			}
		}
	}
	want := map[string]string{
		"for n in {3000} now[drive](n) <= old[drive](n)": "satisfied",
		"for n in {3000} old[drive](n) <= now[drive](n)": "violated",
	}
	for f, w := range want {
		if got[f] != w {
			t.Errorf("%s: %q, want %q (all: %v)", f, got[f], w, got)
		}
	}
	// The same loop names a method it never reaches: measured once (the
	// loop's figure, cached), with a notice that says so.
	if got["w.Unused#f[drive](3000) <= old[drive](3000)"] != "satisfied" || !strings.Contains(strings.Join(res.Notices, "\n"), "does not reach w.Unused") {
		t.Errorf("a loop standing for a method it does not reach: %q, notices %q", got["w.Unused#f[drive](3000) <= old[drive](3000)"], res.Notices)
	}
	if st := fixture.Git(t, dir, "status", "--porcelain"); st != "?? src/w/" {
		t.Errorf("the checkout changed: status %q", st)
	}
	if fixture.Git(t, dir, "rev-parse", "HEAD") != commits[1] {
		t.Error("HEAD moved")
	}
}

// plainClass is revClass without formulas.
func plainClass(factor string) string {
	return strings.Replace(revClass(factor, `""`), "    @SPL({\"\"})\n", "", 1)
}

// diff --profile: a slower workload is profiled in both trees and the
// callee whose share grew is named.
func TestDiffProfileNamesTheCalleeThatGrew(t *testing.T) {
	class := func(factor string) string {
		return `package p;
import dev.perfls.*;
public class A {
    @Workload("p.A#gen")
    public static long work(int n) { return a(n) + b(n); }
    static long a(int n) { long s = 0; for (int i = 0; i < n * ` + factor + `; i++) s += i ^ (s >>> 3); return s; }
    static long b(int n) { long s = 1; for (int i = 0; i < n; i++) s += i ^ (s >>> 5); return s; }
    @Generator("one call") public static Iterable<Object[]> gen(@Param(value = "n", min = 20000) int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
	}
	dir, _ := fixture.GitProject(t, map[string]string{"src/p/A.java": class("1")})
	fixture.WriteFiles(t, dir, map[string]string{"src/p/A.java": class("20")})
	e := openReplayed(t, "diff-profile-callee-grew", small)
	opts := small
	opts.Forks = 3
	d, err := e.Diff(context.Background(), HistoryRequest{Dir: dir, Base: "HEAD", Options: opts, MaxForks: 3, Profile: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Verdict != "slower" || d.Changes[0].Profile == nil {
		t.Fatalf("changes %+v", d.Changes)
	}
	p := d.Changes[0].Profile
	var b strings.Builder
	d.WriteText(&b)
	t.Log(b.String())
	if !p.Comparable || len(p.Findings) == 0 || p.Findings[0].Kind != "callee-grew" || !strings.Contains(p.Findings[0].Message, "p.A#a") {
		t.Errorf("profile comparison %+v", p)
	}
	if !strings.Contains(b.String(), "what changed: callee-grew: p.A#a") {
		t.Errorf("text:\n%s", b.String())
	}
}
