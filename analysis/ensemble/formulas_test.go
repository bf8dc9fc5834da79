package ensemble

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// k = max(1, 2·ln u), rounded: the log base is the natural one.
func TestBinCount(t *testing.T) {
	for _, c := range []struct{ u, k int }{{0, 1}, {1, 1}, {2, 1}, {3, 2}, {7, 4}, {11, 5}, {1000, 14}} {
		if got := BinCount(c.u); got != c.k {
			t.Errorf("BinCount(%d) = %d, want %d (2·ln u = %.3f)", c.u, got, c.k, 2*math.Log(float64(c.u)))
		}
	}
}

// Width = (x_max − x_min)/k; values outside the training range get their own bins.
func TestBinsEqualWidth(t *testing.T) {
	var vs []float64
	for i := 0; i <= 10; i++ {
		vs = append(vs, float64(i)) // u = 11 → k = 5, width 2
	}
	b := NewBins(vs)
	if b.K != 5 || b.Width != 2 || b.Min != 0 || b.Max != 10 {
		t.Fatalf("bins = %+v, want k 5, width 2 over [0, 10]", b)
	}
	for x, want := range map[float64]int{0: 0, 1.99: 0, 2: 1, 3.9: 1, 9.99: 4, 10: 4, -0.1: Below, 10.1: 5} {
		if got := b.Index(x); got != want {
			t.Errorf("Index(%v) = %d, want %d", x, got, want)
		}
	}
	// A constant counter: one bin of width 0, any other value is outside.
	c := NewBins([]float64{5, 5, 5})
	if c.K != 1 || c.Index(5) != 0 || c.Index(4) != Below || c.Index(6) != c.Above() {
		t.Errorf("constant bins %+v: Index(5, 4, 6) = %d %d %d", c, c.Index(5), c.Index(4), c.Index(6))
	}
}

// Reference §2.4's worked values for Δ = 1 − cos θ.
func TestConfidenceChange(t *testing.T) {
	for _, c := range []struct{ h, n, want float64 }{
		{0.9, 0.2, 0.652}, {0.9, 0.5, 0.219}, {0.9, 0.85, 0.002}, {1, 0, 1}, {0.9, 0.9, 0}, {1, 1, 0},
	} {
		if got := ConfidenceChange(c.h, c.n); !near(got, c.want, 0.0005) {
			t.Errorf("Δ(%v → %v) = %.4f, want %.3f", c.h, c.n, got, c.want)
		}
	}
	// The default threshold 0.3: a rule that always held is violated once it
	// fails in more than half of the intervals where its premise holds.
	if ConfidenceChange(1, 0.49) <= 0.3 || ConfidenceChange(1, 0.5) > 0.3 || ConfidenceChange(1, 0.51) > 0.3 {
		t.Errorf("Δ(1 → 0.49, 0.5, 0.51) = %.4f %.4f %.4f around the threshold 0.3", ConfidenceChange(1, 0.49), ConfidenceChange(1, 0.5), ConfidenceChange(1, 0.51))
	}
}

// The seed's weight arithmetic: √3/(√3+√2) = 0.55, weights sum to 1, and the
// fallback when no run shares a component.
func TestSimilarityWeights(t *testing.T) {
	cur := Environment{"cpu": "2 GHz 2 cores", "memory": "2 GB", "db": "1", "arch": "64 bit"}
	m1, l1 := Similarity(Environment{"cpu": "2 GHz 2 cores", "memory": "2 GB", "db": "1", "arch": "32 bit"}, cur)
	m2, l2 := Similarity(Environment{"cpu": "2 GHz 2 cores", "memory": "1 GB", "db": "2", "arch": "64 bit"}, cur)
	if !reflect.DeepEqual(m1, []string{"cpu", "db", "memory"}) || !near(l1, math.Sqrt(3), 1e-12) || !reflect.DeepEqual(m2, []string{"arch", "cpu"}) || !near(l2, math.Sqrt(2), 1e-12) {
		t.Fatalf("similarity: %v %.3f, %v %.3f", m1, l1, m2, l2)
	}
	w, fb := Weights([]float64{l1, l2})
	if fb || !near(w[0], 0.55, 0.005) || !near(w[0]+w[1], 1, 1e-12) {
		t.Errorf("weights %v (fallback %v), want w1 = 1.7/(1.7+1.4) = 0.55", w, fb)
	}
	if _, l := Similarity(Environment{"os": "linux"}, cur); l != 0 {
		t.Errorf("no shared component: length %v", l)
	}
	w, fb = Weights([]float64{0, 0, 0, 0})
	if !fb || !reflect.DeepEqual(w, []float64{0.25, 0.25, 0.25, 0.25}) {
		t.Errorf("fallback weights %v %v, want equal weights and fallback", w, fb)
	}
}

// Bagging reports "at least half", stacking "greater than ½": with four
// equally weighted models two flags are reported by one and not the other.
func TestVoteAsymmetry(t *testing.T) {
	if !BaggingReports(2, 4) || BaggingReports(1, 4) || !BaggingReports(2, 3) || BaggingReports(1, 3) {
		t.Error("bagging: want 2/4 and 2/3 reported, 1/4 and 1/3 not")
	}
	w, _ := Weights([]float64{1, 1, 1, 1})
	s := StackingScore(w, []bool{true, true, false, false})
	if s != 0.5 || StackingReports(s) {
		t.Errorf("stacking: s = %v reported %v, want 0.5 not reported", s, StackingReports(s))
	}
	if !StackingReports(StackingScore(w, []bool{true, true, true, false})) {
		t.Error("stacking: 3/4 not reported")
	}
	// Sums of thirds and sixths round; 0.5 must still be exactly not reported.
	w6, _ := Weights([]float64{1, 1, 1, 1, 1, 1})
	if s := StackingScore(w6, []bool{true, true, true, false, false, false}); StackingReports(s) {
		t.Errorf("stacking with six equal weights, three flags: s = %.17g reported", s)
	}
}

func TestSeverity(t *testing.T) {
	if Severity(3, 12) != 0.25 || Severity(0, 12) != 0 || Severity(12, 12) != 1 || Severity(0, 0) != 0 {
		t.Error("severity = flagged intervals / total intervals")
	}
}

// Table I → Table II → bagging (reference §2.5): throughput 3/4 and memory
// 2/4 are reported by bagging; stacking with equal weights reports only
// throughput (memory's s = 0.5).
func TestTableIIBagging(t *testing.T) {
	counters := []string{"cpu", "memory", "throughput", "db transactions"}
	d := &detector{counters: counters, bins: make([]Bins, len(counters)), total: 4}
	flag := func(cs ...int) modelVerdict {
		// Every model has rules on every counter whose premises hold.
		v := modelVerdict{violations: map[int][]Violation{}, broken: map[int]bitset{}, tested: map[int]bool{0: true, 1: true, 2: true, 3: true}}
		for _, c := range cs {
			v.violations[c] = []Violation{{Rule: counters[c]}}
			v.broken[c] = newBitset(4)
			v.broken[c].set(c)
		}
		return v
	}
	models := []modelVerdict{flag(0, 2), flag(1, 2), flag(1, 2), flag(3)}
	names := func(fs []Flag) []string {
		var r []string
		for _, f := range fs {
			r = append(r, f.Counter)
		}
		return r
	}
	ones := []float64{1, 1, 1, 1}
	change := make([]*float64, 4)
	bag, undecided := d.aggregate(models, ones, change, func(s float64) bool { return BaggingReports(int(s), 4) }, 4)
	if len(undecided) != 0 {
		t.Errorf("undecided %+v, want none: every model tests every counter", undecided)
	}
	if got := names(bag); !reflect.DeepEqual(got, []string{"throughput", "memory"}) {
		t.Errorf("bagging reports %v, want [throughput memory] (3/4 first)", got)
	}
	if bag[0].Score != 0.75 || bag[0].Votes != 3 || bag[1].Score != 0.5 {
		t.Errorf("bagging scores %+v", bag)
	}
	w, _ := Weights(ones)
	if got, _ := d.aggregate(models, w, change, StackingReports, 1); !reflect.DeepEqual(names(got), []string{"throughput"}) {
		t.Errorf("stacking with equal weights reports %v, want [throughput]", names(got))
	}
}

// A counter is undecided when the models that test it weigh too little for
// the vote, even if all of them flag it: here three of four models have no
// rule on throughput whose premise holds, and the fourth flags it.
func TestUndecided(t *testing.T) {
	counters := []string{"cpu", "throughput"}
	d := &detector{counters: counters, bins: make([]Bins, len(counters)), total: 4}
	blind := modelVerdict{violations: map[int][]Violation{}, broken: map[int]bitset{}, tested: map[int]bool{0: true}}
	seeing := modelVerdict{violations: map[int][]Violation{1: {{Rule: "throughput"}}}, broken: map[int]bitset{1: newBitset(4)},
		tested: map[int]bool{0: true, 1: true}}
	models := []modelVerdict{seeing, blind, blind, blind}
	change := make([]*float64, 2)
	w := []float64{0.4, 0.2, 0.2, 0.2}
	flags, undecided := d.aggregate(models, w, change, StackingReports, 1)
	want := []Undecided{{Counter: "throughput", Testing: 1, Weight: 0.4, Votes: 1, Score: 0.4}}
	if len(flags) != 0 || !reflect.DeepEqual(undecided, want) {
		t.Errorf("stacking: flags %+v, undecided %+v; want none and %+v", flags, undecided, want)
	}
	// Two testing models of four make bagging's half: decidable, and reported.
	models[1] = seeing
	flags, undecided = d.aggregate(models, []float64{1, 1, 1, 1}, change, func(s float64) bool { return BaggingReports(int(s), 4) }, 4)
	if len(flags) != 1 || len(undecided) != 0 {
		t.Errorf("bagging with two testing models: flags %+v, undecided %+v; want throughput flagged", flags, undecided)
	}
}

// A hand-counted Apriori case: 10 intervals, counters A, B, C.
func TestMineHandCounted(t *testing.T) {
	var tx [][]int
	for i := 0; i < 10; i++ {
		b, c := 0, 0
		if i >= 8 {
			b = 1
		}
		if i >= 5 {
			c = 1
		}
		tx = append(tx, []int{0, b, c})
	}
	name := []string{"A", "B", "C"}
	str := func(rs []Rule, _ int) []string {
		var out []string
		for _, r := range rs {
			s := ""
			for _, it := range r.Premise {
				s += fmt.Sprintf("%s%d ", name[it.Counter], it.Bin)
			}
			out = append(out, fmt.Sprintf("%s=> %s%d s=%.1f c=%.1f", s, name[r.Consequent.Counter], r.Consequent.Bin, r.Support, r.Confidence))
		}
		sort.Strings(out)
		return out
	}
	// A0 holds in every interval: the empty-premise rule {} => A0 (arules'
	// minlen 1); B0 (0.8) and C0, C1 (0.5) are below confidence 0.9.
	want := []string{
		"=> A0 s=1.0 c=1.0",
		"A0 C0 => B0 s=0.5 c=1.0",
		"B0 => A0 s=0.8 c=1.0",
		"B0 C0 => A0 s=0.5 c=1.0",
		"B0 C1 => A0 s=0.3 c=1.0",
		"C0 => A0 s=0.5 c=1.0",
		"C0 => B0 s=0.5 c=1.0",
		"C1 => A0 s=0.5 c=1.0",
	}
	if got := str(Mine(tx, 0.3, 0.9, 3)); !reflect.DeepEqual(got, want) {
		t.Errorf("rules:\n%v\nwant\n%v", got, want)
	}
	if got := str(Mine(tx, 0.3, 0.9, 1)); len(got) != 5 {
		t.Errorf("premises of at most one item: %v, want the empty one and the 4 single-premise rules", got)
	}
	// Support 0.3 is inclusive: B0 C1 holds in exactly 3 of 10 intervals.
	if got := str(Mine(tx, 0.31, 0.9, 3)); len(got) != 7 {
		t.Errorf("support 0.31 keeps %d rules, want 7 (B0 C1 => A0 dropped)", len(got))
	}
	// Confidence 0.8 admits {} => B0 (B0 in 8 of 10 intervals).
	if got := str(Mine(tx, 0.3, 0.8, 0)); !reflect.DeepEqual(got, []string{"=> A0 s=1.0 c=1.0", "=> B0 s=0.8 c=0.8"}) {
		t.Errorf("premises of no item at confidence 0.8: %v", got)
	}
}

func TestIntervalsMedians(t *testing.T) {
	times := []float64{0, 1, 2, 5, 6, 12}
	rows := [][]float64{{1, 10}, {3, 30}, {2, 20}, {7, 70}, {9, 90}, {4, 40}}
	got, err := Intervals(times, rows, 5)
	if err != nil {
		t.Fatal(err)
	}
	// [0,5): medians of 1,3,2 → 2; [5,10): lower middle of 7, 9 → 7; [10,15): 4.
	want := [][]float64{{2, 20}, {7, 70}, {4, 40}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Intervals = %v, want %v", got, want)
	}
	if _, err := Intervals([]float64{0, 2, 1}, [][]float64{{1}, {2}, {3}}, 1); err == nil {
		t.Error("decreasing time accepted")
	}
}

// Phase 1 keeps only the test's expected duration (seed L80): rows at or
// after first time + duration are dropped before the medians are taken.
func TestPhase1Crop(t *testing.T) {
	times := []float64{10, 11, 12, 15, 16, 22}
	rows := [][]float64{{1}, {3}, {2}, {7}, {9}, {4}}
	got, err := Phase1{Duration: 10, Interval: 5}.Apply(times, rows)
	if err != nil {
		t.Fatal(err)
	}
	// t = 22 lies 12 units after the start, outside the 10-unit test.
	if want := [][]float64{{2}, {7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Apply = %v, want %v", got, want)
	}
	if all, _ := (Phase1{Interval: 5}).Apply(times, rows); len(all) != 3 {
		t.Errorf("duration 0 keeps %d intervals, want 3", len(all))
	}
	if _, _, err := Crop(times, rows, -1); err == nil {
		t.Error("negative duration accepted")
	}
	if _, _, err := Crop([]float64{0, 5, 1}, [][]float64{{1}, {2}, {3}}, 2); err == nil {
		t.Error("decreasing time accepted after the cut")
	}
}
