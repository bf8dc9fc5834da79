package ensemble

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// synthEnv is one environment of synthetic stored results: its
// components and its time per call.
type synthEnv struct {
	env    Environment
	wallNs float64
}

var (
	synthG1       = synthEnv{Environment{"cpu": "EPYC", "cores": "2", "jvm": "17", "gc": "G1"}, 18000}
	synthParallel = synthEnv{Environment{"cpu": "EPYC", "cores": "2", "jvm": "17", "gc": "Parallel"}, 19500}
	synth25       = synthEnv{Environment{"cpu": "EPYC", "cores": "2", "jvm": "25", "gc": "G1"}, 21000}
	synthSerial   = synthEnv{Environment{"cpu": "EPYC", "cores": "2", "jvm": "17", "gc": "Serial"}, 22000}
)

// synthStored is a stored result as StoredRun makes it: 3 forks × 10
// samples (the first of each left out), the time per call spread ±8 %
// around wallNs·factor with a per-fork offset of ±2 % — wider than the
// rules' bins, as perfls's real samples are —, thread CPU just below it,
// 1,040 bytes a call, a rare collection.
func synthStored(rng *rand.Rand, name string, e synthEnv, factor float64) Run {
	var forks []StoredFork
	for range 3 {
		var f StoredFork
		off := 1 + 0.04*(rng.Float64()-0.5)
		for range 10 {
			w := e.wallNs * factor * off * (1 + 0.16*(rng.Float64()-0.5))
			f.NsPerOp = append(f.NsPerOp, w)
			f.CPUNsPerOp = append(f.CPUNsPerOp, w*0.995)
			f.AllocBytesPerOp = append(f.AllocBytesPerOp, 1040+0.3*rng.Float64())
			var gc int64
			if rng.Float64() < 0.05 {
				gc = 1
			}
			f.GCs = append(f.GCs, gc)
		}
		f.OpsPerSample = 50
		forks = append(forks, f)
	}
	r, err := StoredRun(name, e.env, forks, fine)
	if err != nil {
		panic(err) // the test's own data
	}
	return r
}

// rangeReport checks current against history and applies the store
// form's verdicts, returning also the counters undecided before the range
// decision (the test's precondition: the votes could not judge the time).
func rangeReport(t *testing.T, history []Run, current Run) (*Report, []string) {
	t.Helper()
	rep, err := Detect(history, current, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rep.MarkEnvironmentDiffers()
	var before []string
	for _, u := range rep.Undecided {
		before = append(before, u.Counter)
	}
	rep.DecideByRange(history, current, RangeAlpha)
	return rep, before
}

// nineResults: 3 results with G1, 2 each with the parallel collector,
// JDK 25 and the serial collector, interleaved.
func nineResults(rng *rand.Rand) []Run {
	var h []Run
	for i, e := range []synthEnv{synthG1, synthParallel, synth25, synthSerial, synthG1, synthParallel, synth25, synthSerial, synthG1} {
		h = append(h, synthStored(rng, "result-"+string(rune('1'+i)), e, 1))
	}
	return h
}

func decision(rep *Report, counter string) (Decided, bool) {
	i := slices.IndexFunc(rep.Decided, func(d Decided) bool { return d.Counter == counter })
	if i < 0 {
		return Decided{}, false
	}
	return rep.Decided[i], true
}

func regression(rep *Report, counter string) bool {
	return slices.ContainsFunc(rep.Regressions(), func(f Flag) bool { return f.Counter == counter })
}

// A doubled time per call among nine prior results of four environments:
// out of every rule's reach (undecided by the votes), flagged by the
// historical range of the three same-environment results, confirmed by
// the test on fork means, and it counts.
func TestDecideByRangeDoubledTime(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		h := nineResults(rng)
		rep, before := rangeReport(t, h, synthStored(rng, "result-10", synthG1, 2))
		if !slices.Contains(before, "wall_ns_per_op") {
			t.Fatalf("seed %d: wall time not undecided by the votes (undecided %v, flagged %v): the test's precondition", seed, before, rep.Flagged)
		}
		d, ok := decision(rep, "wall_ns_per_op")
		if !ok || d.Verdict != RangeRegression || d.Same == nil || d.Same.Outside != rangeAbove || !(d.Same.P < RangeAlpha) || d.Same.Results != 3 || d.Same.Forks != 9 {
			t.Fatalf("seed %d: decision %+v (same %+v)", seed, d, d.Same)
		}
		if !regression(rep, "wall_ns_per_op") || slices.ContainsFunc(rep.Undecided, func(u Undecided) bool { return u.Counter == "wall_ns_per_op" }) {
			t.Errorf("seed %d: regressions %v, undecided %v", seed, rep.Regressions(), rep.Undecided)
		}
		i := slices.IndexFunc(rep.Flagged, func(f Flag) bool { return f.Counter == "wall_ns_per_op" })
		if f := rep.Flagged[i]; f.Range == nil || f.Severity < 0.9 || *f.Range.Change < 0.8 || *f.Range.Change > 1.2 {
			t.Errorf("seed %d: flag %+v, range %+v", seed, f, f.Range)
		}
		var b strings.Builder
		rep.WriteText(&b)
		if !strings.Contains(b.String(), "not reported by the rules; by the historical range: fork medians") || !strings.Contains(b.String(), "above the range") {
			t.Errorf("seed %d: text\n%s", seed, b.String())
		}
	}
}

// The same history and an unchanged result: the time is not flagged, and
// where the votes left it undecided the range says so.
func TestDecideByRangeUnchangedTime(t *testing.T) {
	decided := 0
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		h := nineResults(rng)
		for _, e := range []synthEnv{synthG1, synth25} {
			rep, before := rangeReport(t, h, synthStored(rng, "result-10", e, 1))
			for _, c := range []string{"wall_ns_per_op", "cpu_ns_per_op"} {
				if regression(rep, c) || slices.ContainsFunc(rep.Flagged, func(f Flag) bool { return f.Counter == c }) {
					t.Errorf("seed %d, %v: %s flagged: %+v", seed, e.env, c, rep.Flagged)
				}
				if d, ok := decision(rep, c); ok {
					decided++
					if d.Verdict != RangeNotFlagged || d.Same == nil || d.Same.Outside != "" {
						t.Errorf("seed %d, %v: %s decided %+v (same %+v)", seed, e.env, c, d, d.Same)
					}
				} else if slices.Contains(before, c) {
					t.Errorf("seed %d: %s undecided by the votes and not decided by the range", seed, c)
				}
			}
		}
	}
	if decided == 0 {
		t.Error("no unchanged time was out of the rules' reach: the test does not test the range")
	}
}

// A doubled time only against other environments: no earlier result was
// measured in the new one's (JDK 17 with the serial collector against nine
// results with G1), so the flag is an environment difference and does not
// count; and a result in an environment whose own earlier results are as
// slow (JDK 25 at the same time as its two) is not flagged although every
// other environment is faster: the same environment's range decides.
func TestDecideByRangeOtherEnvironment(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var h []Run
	for i := range 9 {
		h = append(h, synthStored(rng, "result-"+string(rune('1'+i)), synthG1, 1))
	}
	rep, before := rangeReport(t, h, synthStored(rng, "result-10", synthSerial, 18000*2/synthSerial.wallNs))
	if !slices.Contains(before, "wall_ns_per_op") {
		t.Fatalf("wall time not undecided by the votes (undecided %v): the test's precondition", before)
	}
	d, ok := decision(rep, "wall_ns_per_op")
	if !ok || d.Verdict != RangeEnvironment || d.Same != nil || d.Other == nil || d.Other.Against != againstOther || d.Other.Outside != rangeAbove {
		t.Fatalf("decision %+v (other %+v)", d, d.Other)
	}
	i := slices.IndexFunc(rep.Flagged, func(f Flag) bool { return f.Counter == "wall_ns_per_op" })
	if i < 0 || !rep.Flagged[i].EnvironmentDiffers || regression(rep, "wall_ns_per_op") {
		t.Errorf("flagged %+v, regressions %v: want the wall time flagged as an environment difference", rep.Flagged, rep.Regressions())
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "environment differs: no earlier run was measured in this environment") {
		t.Errorf("text\n%s", b.String())
	}

	// JDK 25 twice as slow as G1, its own two earlier results as slow.
	slow25 := synth25
	slow25.wallNs = 36000
	h = h[:7]
	h = append(h, synthStored(rng, "result-8", slow25, 1), synthStored(rng, "result-9", slow25, 1))
	rep, _ = rangeReport(t, h, synthStored(rng, "result-10", slow25, 1))
	if regression(rep, "wall_ns_per_op") {
		t.Errorf("JDK 25 as slow as its own history: regressions %v", rep.Regressions())
	}
	if d, ok := decision(rep, "wall_ns_per_op"); ok && (d.Verdict != RangeNotFlagged || d.Same == nil || d.Other != nil) {
		t.Errorf("JDK 25 as slow as its own history: decision %+v (same %+v)", d, d.Same)
	}
}

// A counter that cannot be tested (one fork on both sides) stays
// undecided; runs whose forks do not add up are refused.
func TestDecideByRangeUntestable(t *testing.T) {
	one := func(name string, wall float64) Run {
		r := Run{Name: name, Env: Environment{"gc": "G1"}, Counters: []string{"wall_ns_per_op"}}
		for i := range 9 {
			r.Intervals = append(r.Intervals, []float64{wall * (1 + 0.1*float64(i%3))})
		}
		return r
	}
	h := []Run{one("a", 10), one("b", 10)}
	rep, err := Detect(h, one("c", 20), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rep.DecideByRange(h, one("c", 20), RangeAlpha)
	// Two one-fork prior runs give the between-run variance: tested.
	if _, ok := decision(rep, "wall_ns_per_op"); !ok && len(rep.Undecided) > 0 {
		t.Errorf("two prior runs: undecided %+v, decided %+v", rep.Undecided, rep.Decided)
	}
	h = h[:1]
	rep, err = Detect(h, one("c", 20), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := len(rep.Undecided)
	rep.DecideByRange(h, one("c", 20), RangeAlpha)
	if len(rep.Undecided) != n || len(rep.Decided) != 0 {
		t.Errorf("one fork a side: undecided %+v, decided %+v; want them left undecided", rep.Undecided, rep.Decided)
	}
	bad := one("d", 10)
	bad.Forks = []int{4, 4}
	if _, err := Detect(h, bad, DefaultConfig()); err == nil || !strings.Contains(err.Error(), "forks have 8 intervals, the run 9") {
		t.Errorf("forks not adding up: %v", err)
	}
}

// A doubled time the rules test and pass: one earlier result of another
// environment, slowed twelvefold by the machine's load, stretches the bins
// so far that the old and the doubled time share one (run 9 of the
// real-data evaluation). The range of the same environment's results
// flags it, marked as passed by the vote.
func TestDecideByRangePassedByVote(t *testing.T) {
	passed := 0
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		h := nineResults(rng)
		h[3] = synthStored(rng, "result-4", synthSerial, 12)
		cur := synthStored(rng, "result-10", synthG1, 2)
		rep, err := Detect(h, cur, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		rep.MarkEnvironmentDiffers()
		if slices.ContainsFunc(rep.Flagged, func(f Flag) bool { return f.Counter == "wall_ns_per_op" }) ||
			slices.ContainsFunc(rep.Undecided, func(u Undecided) bool { return u.Counter == "wall_ns_per_op" }) {
			continue // the vote reported it, or could not judge it: other tests' cases
		}
		passed++
		rep.DecideByRange(h, cur, RangeAlpha)
		d, ok := decision(rep, "wall_ns_per_op")
		if !ok || !d.PassedByVote || d.Verdict != RangeRegression || !regression(rep, "wall_ns_per_op") {
			t.Errorf("seed %d: decision %+v, %d regressions", seed, d, len(rep.Regressions()))
		}
	}
	t.Logf("%d of 5 seeds: the vote tested the doubled time and passed it", passed)
	if passed == 0 {
		t.Error("the votes never passed the doubled wall time: the test does not test a counter the vote passed")
	}
	// An unchanged result with that history: nothing added.
	rng := rand.New(rand.NewSource(1))
	h := nineResults(rng)
	h[3] = synthStored(rng, "result-4", synthSerial, 12)
	rep, _ := rangeReport(t, h, synthStored(rng, "result-10", synthG1, 1))
	if slices.ContainsFunc(rep.Decided, func(d Decided) bool { return d.PassedByVote }) {
		t.Errorf("unchanged: decided %+v", rep.Decided)
	}
}
