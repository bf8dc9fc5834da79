package measure

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

func noisy(rng *rand.Rand, n int, level float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level * (1 + 0.03*rng.NormFloat64())
	}
	return xs
}

func TestSteadyStateWarnings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forks := []measured.Fork{
		{NsPerOp: noisy(rng, 30, 100), WarmupSettled: 1},
		{NsPerOp: noisy(rng, 30, 100), WarmupSettled: 0, WarmupOpen: []string{"trend", "heap"}},
		{NsPerOp: append(noisy(rng, 15, 100), noisy(rng, 15, 250)...), WarmupSettled: 1},
	}
	ws := SteadyStateWarnings("p.A#m", forks, 5*time.Second)
	if len(ws) != 2 || !strings.Contains(ws[0], "1 of 3 forks did not reach a steady state within 5s (the warm-up cap; time per call still falling in 1; the heap still growing in 1)") || !strings.Contains(ws[0], "raise --max-warmup, or fix the heap's size (--heap MB") || !strings.Contains(ws[1], "fork 3 drifted") {
		t.Errorf("warnings %q", ws)
	}
	if ws := SteadyStateWarnings("p.A#m", forks[:1], time.Second); len(ws) != 0 {
		t.Errorf("a steady fork warned: %q", ws)
	}
}

// Capped and Settled tell the forks whose warm-up hit its cap from the
// others (a JVM without compilation monitoring, −1, counts as settled).
func TestCappedAndSettled(t *testing.T) {
	forks := []measured.Fork{{WarmupSettled: 1}, {WarmupSettled: 0, WarmupOpen: []string{"jit"}}, {WarmupSettled: -1}, {WarmupSettled: 0, WarmupOpen: []string{"jit", "heap"}}}
	n, why, remedy := Capped(forks)
	if n != 2 || why != "; the JIT still compiling or other threads busy in 2; the heap still growing in 1" || !strings.Contains(remedy, "fix the heap's size") {
		t.Errorf("Capped = %d, %q, %q", n, why, remedy)
	}
	if s := Settled(forks); len(s) != 2 || s[0].WarmupSettled != 1 || s[1].WarmupSettled != -1 {
		t.Errorf("Settled = %+v", s)
	}
	if n, _, remedy := Capped(forks[:1]); n != 0 || remedy != "raise --max-warmup" {
		t.Errorf("Capped(settled) = %d, %q", n, remedy)
	}
}

// A workload loop whose spans allocate nothing is never held open by the
// heap rule: neither the harness's own allocation between spans (a few
// hundred bytes per span, millions of spans) nor G1 resizing the heap by
// itself makes it wait for allocation that never comes. Before, such forks
// ran to the cap with "the heap still growing".
func TestLoopThatAllocatesNothingIsNotHeldOpenByTheHeap(t *testing.T) {
	requireJDK(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src/p/L.java"), `package p;
public class L {
    public static void loop(dev.perfls.SPLController spl, int n) {
        long s = 0;
        while (spl.needsMore()) {
            for (int i = 0; i < n; i++) s += i ^ s;
        }
        if (s == 42) System.out.print("");
    }
}
`)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compile(context.Background(), p, sharedCache)
	if err != nil {
		t.Fatal(err)
	}
	rs := resolveAll(t, b, "p.L#loop")
	res, err := Measure(context.Background(), b, []measured.Request{{Method: rs[0], Args: []measured.Arg{measured.IntArg(100)}}},
		Options{Forks: 2, SamplesPerFork: 3, Warmup: 50 * time.Millisecond, MaxWarmup: 3 * time.Second}, nil)
	if err != nil || res[0].Err != nil {
		t.Fatalf("%v %v", err, res[0].Err)
	}
	for i, f := range res[0].Forks {
		t.Logf("fork %d: settled %d after %s (%d spans), open %v, %.0f bytes per span", i+1, f.WarmupSettled, f.Warmup, f.WarmupOps, f.WarmupOpen, f.AllocBytesPerOp[0])
		if slices.Contains(f.WarmupOpen, "heap") {
			t.Errorf("fork %d held open by the heap rule: %v after %d spans", i+1, f.WarmupOpen, f.WarmupOps)
		}
	}
}
