package engine

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// editableClass is a project whose annotations the test edits: fast is far
// faster than slow, so a bound of 1.2 holds and one of 0.000001 does not.
func editableClass(bound, paramMin, slowFactor string) string {
	return `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](100) <= ` + bound + ` * p.A#slow[gen](100)")
    @SeeAlso("p.A#slow")
    public static long fast(int n) { return n; }
    @Workload("p.A#gen")
    public static long slow(int n) { long s = 0; for (int i = 0; i < n * ` + slowFactor + `; i++) s += i ^ s; return s; }
    @Generator("one call with n")
    public static Iterable<Object[]> gen(@Param(value = "n", min = ` + paramMin + `) int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
}

// Editing a formula (its bound, with a parameter's documented minimum
// besides) measures nothing again: the check answers every measurement from
// the cache and decides the new formula on the same data, so the ratio of
// the two sides moves exactly by the bound's change. Editing code still
// measures again.
func TestFormulaEditMeasuresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	e := openEngine(t, small)
	dir, src := writeProject(t, "p/A.java", editableClass("1.2", "1", "50"))
	ctx := context.Background()
	opts := small
	opts.Forks = 3 // two forks leave one degree of freedom: too few to decide a large gap every time
	req := CheckRequest{Dir: dir, Options: opts, MaxForks: opts.Forks}
	// check writes text, checks, and returns the result with the instance's
	// outcome and mean(fast) / mean(slow), the bound taken out of the ratio.
	check := func(step, text, bound, not string) (*CheckResult, float64) {
		t.Helper()
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := e.Check(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if len(res.CompileErrors) > 0 {
			t.Fatalf("%s: compile errors: %v", step, res.CompileErrors)
		}
		if len(res.Methods) != 1 || len(res.Methods[0].Instances) != 1 || len(res.Methods[0].Instances[0].Comparisons) != 1 {
			t.Fatalf("%s: verdicts %+v", step, res.Methods)
		}
		in := res.Methods[0].Instances[0]
		// Timing decides the outcome, and a loaded machine can leave it
		// undecided; only the wrong decision is an error.
		if !strings.Contains(in.Formula, bound+" *") || in.Failed || in.Outcome.String() == not {
			t.Errorf("%s: %q %s (failed %v), want the formula with %q, not %s", step, in.Formula, in.Outcome, in.Failed, bound, not)
		}
		c, err := strconv.ParseFloat(bound, 64)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d measurements, %d from the cache; %s", step, res.Requests, res.Cached, in.Outcome)
		return res, in.Comparisons[0].Evidence.Ratio * c
	}
	stored := func() int {
		t.Helper()
		rows, total, _, err := e.CacheList(ctx, 0)
		if err != nil || len(rows) != total {
			t.Fatalf("%d rows of %d: %v", len(rows), total, err)
		}
		return total
	}

	first, ratio := check("first check", editableClass("1.2", "1", "50"), "1.2", "violated")
	if first.Requests != 2 || first.Cached != 0 {
		t.Fatalf("first check: %d measurements, %d cached; want 2 measured", first.Requests, first.Cached)
	}
	before := stored()
	for _, edit := range []struct{ step, bound, min, not string }{
		{"bound 1.2 → 1.3", "1.3", "1", "violated"},
		{"bound 1.3 → 0.000001, @Param min 1 → 5", "0.000001", "5", "satisfied"},
	} {
		res, r := check(edit.step, editableClass(edit.bound, edit.min, "50"), edit.bound, edit.not)
		if res.Cached != res.Requests || res.Requests != 2 {
			t.Errorf("%s: %d of %d measurements from the cache, want all: the edit measured again", edit.step, res.Cached, res.Requests)
		}
		if math.Abs(r-ratio) > 1e-9*ratio {
			t.Errorf("%s: mean(fast)/mean(slow) %g, was %g: not the same data", edit.step, r, ratio)
		}
	}
	if after := stored(); after != before {
		t.Errorf("formula edits stored %d new measurements", after-before)
	}

	// The cache still sees code: slow's body changed, the class of both
	// methods is measured again.
	code, _ := check("slow's body", editableClass("0.000001", "5", "60"), "0.000001", "satisfied")
	if code.Cached != 0 {
		t.Errorf("after a code edit %d of %d measurements came from the cache", code.Cached, code.Requests)
	}
}
