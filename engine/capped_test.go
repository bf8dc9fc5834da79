package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// cappedService answers every measurement with synthetic forks: method
// fast at 100 ns per call, slow at 200 ns (or the means given), with a
// relative spread noise (1 % if 0); capped(method, i) says whether the
// method's i-th fork (counted over the whole check) hit its warm-up cap,
// and such a fork reads 1,000 ns, as a fork still compiling would.
type cappedService struct {
	capped func(method string, i int) bool
	n      map[string]int
	asked  []int // forks per call
	means  map[string]float64
	noise  float64
}

func (s *cappedService) Measure(_ context.Context, p service.Params, _ func(service.Progress)) (*service.Response, error) {
	s.asked = append(s.asked, p.Options.Forks)
	resp := &service.Response{}
	for _, it := range p.Items {
		var r service.ItemResult
		for k := 0; k < p.Options.Forks; k++ {
			name := it.Method.Name
			i := s.n[name]
			s.n[name]++
			mean := map[string]float64{"fast": 100, "slow": 200}[name]
			if m, ok := s.means[name]; ok {
				mean = m
			}
			noise := s.noise
			if noise == 0 {
				noise = 0.01
			}
			f := measured.Fork{WarmupSettled: 1}
			if s.capped != nil && s.capped(name, i) {
				mean, f.WarmupSettled, f.WarmupOpen = 1000, 0, []string{"trend"}
			}
			for j := 0; j < 10; j++ {
				f.NsPerOp = append(f.NsPerOp, mean*(1+noise*math.Sin(float64(7*i+j))))
			}
			r.Forks = append(r.Forks, f)
		}
		resp.Items = append(resp.Items, r)
	}
	return resp, nil
}
func (s *cappedService) Status(context.Context) (*service.Status, error) {
	return &service.Status{}, nil
}
func (s *cappedService) Close() error { return nil }

const cappedClass = `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](100) <= p.A#slow[gen](100)")
    public static long fast(int n) { return n; }
    public static long slow(int n) { return n + 1; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`

// A fork whose warm-up hit the cap is left out of the verdict and
// replaced by a new fork within --max-forks; when the budget is spent the
// instance is undecided (not failed) and says why and what to do.
func TestCappedForksAreReplacedOrLeaveTheInstanceUndecided(t *testing.T) {
	dir, _ := writeProject(t, "p/A.java", cappedClass)
	e := openEngine(t, small)
	opts := measure.Options{Forks: 3, SamplesPerFork: 10, Warmup: 50 * time.Millisecond, MaxWarmup: 200 * time.Millisecond}
	check := func(capped func(string, int) bool) (*CheckResult, *cappedService) {
		t.Helper()
		svc := &cappedService{capped: capped, n: map[string]int{}}
		res, err := e.check(context.Background(), svc, CheckRequest{Dir: dir, Options: opts, MaxForks: 6})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Methods) != 1 || len(res.Methods[0].Instances) != 1 {
			t.Fatalf("methods %+v", res.Methods)
		}
		return res, svc
	}

	// fast's first fork is capped: one more fork replaces it, and the
	// verdict rests on three settled forks.
	res, svc := check(func(m string, i int) bool { return m == "fast" && i == 0 })
	in := res.Methods[0].Instances[0]
	ev := in.Comparisons[0].Evidence
	if in.Outcome != verdict.Satisfied || ev.Left.Forks != 3 || ev.Left.MeanNs > 110 || res.ReplacedForks != 1 || svc.n["fast"] != 4 || svc.n["slow"] != 3 {
		t.Errorf("one capped fork: %v (%s), left %+v, replaced %d, measured %v", in.Outcome, in.Comparisons[0].Reason, ev.Left, res.ReplacedForks, svc.n)
	}
	if !hasNotice(res.Notices, "1 of 4 forks did not reach a steady state within 200ms (the warm-up cap; time per call still falling in 1): left out of the verdicts and replaced by new forks") {
		t.Errorf("notices %q", res.Notices)
	}

	// fast never settles: forks up to --max-forks, then undecided.
	res, svc = check(func(m string, i int) bool { return m == "fast" })
	in = res.Methods[0].Instances[0]
	c := in.Comparisons[0]
	if in.Outcome != verdict.Undecided || in.Failed || res.Failed() || svc.n["fast"] != 6 || res.ReplacedForks != 3 {
		t.Errorf("never settles: %v failed=%v, measured %v, replaced %d", in.Outcome, in.Failed, svc.n, res.ReplacedForks)
	}
	for _, want := range []string{"warm-up did not settle in 6 of 6 forks of p.A#fast", "--max-warmup 200ms", "time per call still falling in 6", "raise --max-warmup", "raise --max-forks"} {
		if !strings.Contains(c.Reason, want) {
			t.Errorf("reason %q lacks %q", c.Reason, want)
		}
	}
	if !hasNotice(res.Notices, "the formulas that use it are undecided") || hasNotice(res.Notices, "figures may be high") {
		t.Errorf("notices %q", res.Notices)
	}

	// --max-forks equal to --forks leaves no room: undecided at once.
	svc = &cappedService{capped: func(m string, i int) bool { return m == "slow" && i == 1 }, n: map[string]int{}}
	res, err := e.check(context.Background(), svc, CheckRequest{Dir: dir, Options: opts, MaxForks: 3})
	if err != nil {
		t.Fatal(err)
	}
	if in := res.Methods[0].Instances[0]; in.Outcome != verdict.Undecided || !strings.Contains(in.Comparisons[0].Reason, "right side: warm-up did not settle in 1 of 3 forks") || len(svc.asked) != 1 {
		t.Errorf("no budget: %v %q, calls %v", in.Outcome, in.Comparisons[0].Reason, svc.asked)
	}
}

func hasNotice(notices []string, part string) bool {
	for _, n := range notices {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// The same one-fork data: undecided by default, satisfied under the
// classic semantics (from the request or perfls.json, the request
// winning), which decides in one look and is recorded with the verdict.
func TestCheckSemantics(t *testing.T) {
	e := openEngine(t, small)
	opts := measure.Options{Forks: 1, SamplesPerFork: 10, Warmup: 50 * time.Millisecond}
	check := func(dir string, req CheckRequest) (*CheckResult, *cappedService, error) {
		t.Helper()
		svc := &cappedService{n: map[string]int{}, means: map[string]float64{"fast": 103, "slow": 100}, noise: 0.1}
		req.Dir, req.Options, req.Interpretation = dir, opts, "quick"
		res, err := e.check(context.Background(), svc, req)
		return res, svc, err
	}
	outcome := func(res *CheckResult) (verdict.Outcome, string) {
		in := res.Methods[0].Instances[0]
		return in.Outcome, in.Comparisons[0].Evidence.Semantics
	}
	dir, _ := writeProject(t, "p/A.java", cappedClass)
	res, _, err := check(dir, CheckRequest{MaxForks: 1})
	if o, sem := outcome(res); err != nil || o != verdict.Undecided || sem != "shown" || res.Semantics != verdict.Shown {
		t.Errorf("default: %v %q, %v", o, sem, err)
	}
	res, svc, err := check(dir, CheckRequest{Semantics: "classic"})
	if o, sem := outcome(res); err != nil || o != verdict.Satisfied || sem != "classic" || res.Looks != 1 || len(svc.asked) != 1 || res.Alpha != 0.05 {
		t.Errorf("classic: %v %q, looks %d, calls %v, α %g, %v", o, sem, res.Looks, svc.asked, res.Alpha, err)
	}
	if got := res.Methods[0].Instances[0].Comparisons[0].Evidence.Alpha; got != 0.05 {
		t.Errorf("classic tests at α = %g, want 0.05 (one look)", got)
	}
	conf := writeFile(t, dir, "perfls.json", `{"semantics": "classic"}`)
	res, _, err = check(dir, CheckRequest{MaxForks: 1})
	if o, _ := outcome(res); err != nil || o != verdict.Satisfied || res.Semantics != verdict.Classic {
		t.Errorf("perfls.json classic: %v, %v", o, err)
	}
	res, _, err = check(dir, CheckRequest{MaxForks: 1, Semantics: "shown"})
	if o, _ := outcome(res); err != nil || o != verdict.Undecided {
		t.Errorf("request shown over perfls.json classic: %v, %v", o, err)
	}
	writeFile(t, dir, "perfls.json", `{"semantics": "lenient"}`)
	if _, svc, err = check(dir, CheckRequest{}); len(svc.asked) != 0 || err == nil || !strings.Contains(err.Error(), conf) || !strings.Contains(err.Error(), "classic") {
		t.Errorf("bad perfls.json semantics: %v", err)
	}
	if err := (CheckRequest{Semantics: "lenient"}).Validate(); err == nil || !strings.Contains(err.Error(), "semantics") {
		t.Errorf("Validate: %v", err)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// restlessClass's method never reaches a steady state: its cost keeps
// falling with the time since its first call (by half every 28 ms, to
// nothing after a second or so), and its generator starts
// threads that keep the processors busy (the harness waits for the JVM's
// other threads to be quiet, docs/measurement.md rule 3).
const restlessClass = `package p;
import dev.perfls.*;
public class B {
    static long t0;
    @SPL("SELF[busy](100) <= SELF[busy](200)")
    public static long restless(int n) {
        if (t0 == 0) t0 = System.nanoTime();
        long work = (long) (n * 2000 * Math.exp(-(System.nanoTime() - t0) / 40e6));
        long s = 0;
        for (long i = 0; i < work; i++) s += i ^ s;
        return s;
    }
    static volatile long spun;
    public static Iterable<Object[]> busy(int n) {
        for (int i = 0; i < 4; i++) { // enough to stay above a quarter of a processor on a loaded machine
            Thread t = new Thread(() -> { while (true) spun++; });
            t.setDaemon(true);
            t.start();
        }
        return java.util.Collections.singletonList(new Object[] {n});
    }
}
`

// With real JVMs: a workload whose warm-up never settles is measured up to
// --max-forks, its capped forks never enter the statistics, and the
// instance is undecided saying why.
func TestWarmupThatNeverSettles(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	dir, _ := writeProject(t, "p/B.java", restlessClass)
	e := openEngine(t, small)
	opts := measure.Options{Forks: 2, SamplesPerFork: 5, Warmup: 50 * time.Millisecond, MaxWarmup: 300 * time.Millisecond}
	res, err := e.Check(context.Background(), CheckRequest{Dir: dir, Options: opts, MaxForks: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Methods) != 1 || len(res.Methods[0].Instances) != 1 {
		t.Fatalf("methods %+v, notices %q, diagnostics %v", res.Methods, res.Notices, res.Diagnostics)
	}
	in := res.Methods[0].Instances[0]
	c := in.Comparisons[0]
	t.Logf("%v: %s; notices %q", in.Outcome, c.Reason, res.Notices)
	for key, r := range res.results {
		for _, f := range r.Forks {
			t.Logf("%s: settled %d after %s, open %v, %d warm-up ops, mean %.0f ns", key, f.WarmupSettled, f.Warmup, f.WarmupOpen, f.WarmupOps, f.NsPerOp[0])
		}
	}
	if in.Outcome != verdict.Undecided || in.Failed || res.Failed() || res.ReplacedForks != 2 {
		t.Errorf("%v failed=%v replaced %d: %s", in.Outcome, in.Failed, res.ReplacedForks, c.Reason)
	}
	for _, want := range []string{"warm-up did not settle in 3 of 3 forks of p.B#restless(int)[p.B#busy(int)](100)", "--max-warmup 300ms", "raise --max-warmup"} {
		if !strings.Contains(c.Reason, want) {
			t.Errorf("reason %q lacks %q", c.Reason, want)
		}
	}
}
