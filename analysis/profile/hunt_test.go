package profile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// huntProfile: m calls h from line 21; callInLoop and calleeLoops say
// whether the call and h's hot line sit inside loops; wait adds parked time
// of the measuring thread.
func huntProfile(t *testing.T, callInLoop, calleeLoops bool, waitNs int64) *Profile {
	b := newBuilder()
	h := b.harness()
	loop := func(in bool) int {
		if in {
			return 1
		}
		return 0
	}
	call := b.frame("pkg.D", "count", "([I)I", 21, 14, loop(callInLoop))
	inner := b.frame("pkg.D", "first", "([II)I", 30, 5, loop(calleeLoops))
	b.stack(KindCPU, "", 1, 900, 900, inner, call, h)
	b.stack(KindCPU, "", 1, 100, 100, call, h)
	if waitNs > 0 {
		park := b.frame("jdk.internal.misc.Unsafe", "park", "(ZJ)V", -1, -1, -1)
		b.stack(KindPark, "java.util.concurrent.CompletableFuture$Signaller", 1, 10, waitNs, park, call, h)
	}
	b.thread(1, "main", true)
	b.iterations(flat(20, 50_000)...)
	return mustNew(t, b.s, []Declaration{
		{File: "D.java", Class: "pkg.D", Method: "count", Params: []string{"int[]"}, StartLine: 18, EndLine: 26, NameLine: 18},
		{File: "D.java", Class: "pkg.D", Method: "first", Params: []string{"int[]", "int"}, StartLine: 28, EndLine: 35, NameLine: 28},
	}, Target{Class: "pkg.D", Name: "count", Params: []string{"int[]"}})
}

// counts are the counts of pkg.D#first at size n: calls and loop passes per
// operation.
func counts(n, calls, passes float64) SizeCounts {
	return SizeCounts{N: n, Counts: []MethodCount{
		{Method: "pkg.D#count(int[])", Calls: 1, LoopPasses: n},
		{Method: "pkg.D#first(int[],int)", Calls: calls, LoopPasses: passes},
	}}
}

func TestCircuitousTreasureHunt(t *testing.T) {
	th := DefaultThresholds()
	// A linear search per element: first is called n times, its loop runs
	// n/2 times a call: n²/2 passes per operation.
	quadratic := &Scaling{Sizes: []SizeCounts{counts(500, 500, 125_000), counts(2000, 2000, 2_000_000)}}
	fs, notes := huntProfile(t, true, true, 0).findTreasureHunt(th, quadratic)
	if len(fs) != 1 || fs[0].Line != 21 || fs[0].Kind != FindingTreasureHunt || len(fs[0].Related) != 1 || fs[0].Related[0].Line != 30 || len(notes) != 0 {
		t.Fatalf("findings %+v, notes %q", fs, notes)
	}
	if e := fs[0].Evidence["exponent"].(float64); math.Abs(e-2) > 1e-9 || fs[0].Evidence["counted"] != "loop passes" {
		t.Errorf("evidence %+v", fs[0].Evidence)
	}
	for _, want := range []string{"D#first makes 250 loop passes per element at n = 500 and 1000 at n = 2000", "n^2.00", "counted"} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("message %q lacks %q", fs[0].Message, want)
		}
	}

	// A walk that visits every element once (calls 3n+1, as JDOM's
	// XMLOutputter#outputString): the same nested loops on the stacks, no
	// growth per element — no finding, and a note that says why.
	walk := &Scaling{Sizes: []SizeCounts{counts(500, 1501, 1500), counts(2000, 6001, 6000)}}
	fs, notes = huntProfile(t, true, true, 0).findTreasureHunt(th, walk)
	if len(fs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "not a circuitous treasure hunt") || !strings.Contains(notes[0], "does not grow with n") {
		t.Errorf("a tree walk: findings %+v, notes %q", fs, notes)
	}
	// One binary search per element: n·log n, an index already.
	nlogn := &Scaling{Sizes: []SizeCounts{counts(500, 500, 500*math.Log2(500)), counts(2000, 2000, 2000*math.Log2(2000))}}
	if fs, _ := huntProfile(t, true, true, 0).findTreasureHunt(th, nlogn); len(fs) != 0 {
		t.Errorf("n log n fired: %+v", fs)
	}
	// Without counts: not decided, and a note says so.
	for _, sc := range []*Scaling{nil, {Problem: "the workload has no integer size"}, {Sizes: []SizeCounts{counts(2000, 2000, 2e6)}}} {
		fs, notes := huntProfile(t, true, true, 0).findTreasureHunt(th, sc)
		if len(fs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "not decided") {
			t.Errorf("counts %+v: findings %+v, notes %q", sc, fs, notes)
		}
	}
	// No nested loop, or not enough of the time in it: nothing to decide.
	if fs, notes := huntProfile(t, false, true, 0).findTreasureHunt(th, quadratic); len(fs) != 0 || len(notes) != 0 {
		t.Errorf("a looping helper called once: %+v %q", fs, notes)
	}
	if fs, _ := huntProfile(t, true, false, 0).findTreasureHunt(th, quadratic); len(fs) != 0 {
		t.Errorf("a straight-line helper called in a loop fired: %+v", fs)
	}
	// Mostly waiting: not CPU being hunted.
	if fs, _ := huntProfile(t, true, true, 900_000_000).findTreasureHunt(th, quadratic); len(fs) != 0 {
		t.Errorf("a waiting method fired: %+v", fs)
	}
	// The target selects the stacks: another method's nested loops do not count.
	p := huntProfile(t, true, true, 0)
	p2 := mustNew(t, p.s, p.attr.decls, Target{Class: "pkg.D", Name: "other"})
	if fs, _ := p2.findTreasureHunt(th, quadratic); len(fs) != 0 || p2.NeedsCounts(th) {
		t.Errorf("another target fired: %+v", fs)
	}
	if !p.NeedsCounts(th) || huntProfile(t, false, true, 0).NeedsCounts(th) {
		t.Error("NeedsCounts")
	}
	// Report: without counts a note, with them the finding.
	if r := p.Report(th); findingOf(r.Findings, FindingTreasureHunt) != nil || !strings.Contains(strings.Join(r.Notes, "\n"), "circuitous treasure hunt not decided") {
		t.Errorf("report without counts: %+v %q", r.Findings, r.Notes)
	}
	if r := p.ReportWithCounts(th, quadratic); findingOf(r.Findings, FindingTreasureHunt) == nil {
		t.Errorf("report with counts: %+v", r.Findings)
	}
}

// TestTreasureHuntFalseFindingsAndPower draws workloads of known growth at
// random sizes (the profiled n from 40 to 100,000, counted again at n/4),
// with counts that vary between samples (randomised inputs: up to ±5 % per
// size; a deterministic workload's counts are exact), and prints how often
// each fires. Per element constant (a walk) and n·log n (a sort, or a binary
// search per element) must never fire; n² (a linear search per element) and
// n^1.75 in ≥ 99 % of the runs. A search that dominates only at large n
// (n²/20 + 50n) fires where it does; its rate is printed, not asserted.
func TestTreasureHuntFalseFindingsAndPower(t *testing.T) {
	th := DefaultThresholds()
	p := huntProfile(t, true, true, 0)
	rng := rand.New(rand.NewPCG(35, 2))
	const runs = 2000
	yes, no := true, false
	for _, c := range []struct {
		name string
		work func(n float64) float64 // loop passes per operation
		hunt *bool                   // nil: printed only
	}{
		{"3n + 1 (a walk)", func(n float64) float64 { return 3*n + 1 }, &no},
		{"n·log₂ n (a sort)", func(n float64) float64 { return n * math.Log2(n) }, &no},
		{"2n·log₂ n + 40n", func(n float64) float64 { return 2*n*math.Log2(n) + 40*n }, &no},
		{"n^1.75", func(n float64) float64 { return math.Pow(n, 1.75) }, &yes},
		{"n²/2 (a linear search per element)", func(n float64) float64 { return n * n / 2 }, &yes},
		{"n²/20 + 50n", func(n float64) float64 { return n*n/20 + 50*n }, nil},
	} {
		fired := 0
		for i := 0; i < runs; i++ {
			n := math.Round(40 * math.Pow(2500, rng.Float64()))
			lo := math.Floor(n / 4)
			jitter := func() float64 { return 1 + 0.05*(2*rng.Float64()-1) }
			sc := &Scaling{Sizes: []SizeCounts{counts(lo, lo, c.work(lo)*jitter()), counts(n, n, c.work(n)*jitter())}}
			fs, _ := p.findTreasureHunt(th, sc)
			fired += len(fs)
		}
		t.Logf("%-36s fired in %5.1f %% of %d runs", c.name, 100*float64(fired)/runs, runs)
		if c.hunt != nil && (*c.hunt && fired < runs*99/100 || !*c.hunt && fired > 0) {
			t.Errorf("%s: fired %d of %d", c.name, fired, runs)
		}
	}
}
