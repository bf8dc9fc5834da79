package ensemble

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// runOf builds a run of two counters: load alternates 100/160, cpu = k·load.
func runOf(name string, env Environment, k float64) Run {
	r := Run{Name: name, Env: env, Counters: []string{"load", "cpu"}}
	for t := 0; t < 40; t++ {
		load := 100.0
		if t%4 >= 2 {
			load = 160
		}
		wobble := float64(t%3) * 0.2
		r.Intervals = append(r.Intervals, []float64{load + wobble, k*load + wobble})
	}
	return r
}

func TestDetectFlagsChangedRelation(t *testing.T) {
	a := Environment{"cores": "4", "jvm": "21"}
	history := []Run{runOf("T1", a, 0.2), runOf("T2", a, 0.2), runOf("T3", Environment{"cores": "2", "jvm": "21"}, 0.4)}
	// D_4: a replica of T1's lab; only T3 (fewer cores) disagrees, 1 of 3
	// votes and weight 1/(1 + 2·√2) = 0.26.
	rep, err := Detect(history, runOf("same", a, 0.2), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.FlaggedBy(Stacking)) != 0 || len(rep.FlaggedBy(Bagging)) != 0 {
		t.Errorf("replica flagged: stacking %+v, bagging %+v", rep.FlaggedBy(Stacking), rep.FlaggedBy(Bagging))
	}
	if m := rep.Models[2]; math.Abs(m.Weight-1/(1+2*math.Sqrt2)) > 1e-12 || len(m.Flagged) == 0 {
		t.Errorf("T3: weight %v, flags %v; want 0.26 and a flag of its own", m.Weight, m.Flagged)
	}
	// cpu per load up 60 %: every model sees its rules load ⇒ cpu break,
	// ranked first; the same-lab models also see cpu ⇒ load break (the
	// high-load cpu bin now meets low load), a correlated counter.
	rep, err = Detect(history, runOf("slow", a, 0.32), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Flagged
	if len(f) != 2 || f[0].Counter != "cpu" || f[0].Votes != 3 || math.Abs(f[0].Score-1) > 1e-12 || f[0].Severity != 1 || len(f[0].Rules) != 6 {
		t.Fatalf("flagged %+v, want cpu by all three models, severity 1", f)
	}
	if f[1].Counter != "load" || f[1].Votes != 2 || f[1].Severity != 0.5 {
		t.Errorf("second flag %+v, want load by the two same-lab models in the low-load half", f[1])
	}
	// The direction is against the similarity-weighted prior means: T3's
	// doubled cpu counts with its weight.
	w3 := 1 / (1 + 2*math.Sqrt2)
	if want := 0.32/((1-w3)*0.2+w3*0.4) - 1; f[0].Change == nil || math.Abs(*f[0].Change-want) > 0.01 {
		t.Errorf("change %v, want %+.3f", f[0].Change, want)
	}
	// The report names the correlated counters (seed L141): load is in the
	// premises of the rules that flag cpu, and cpu in those that flag load.
	// (Rules with an empty premise add none.)
	if !reflect.DeepEqual(f[0].Correlated, []string{"load"}) || !reflect.DeepEqual(f[1].Correlated, []string{"cpu"}) ||
		!reflect.DeepEqual(f[0].Rules[0].Premise, []string{"load"}) {
		t.Errorf("correlated: cpu %v, load %v; cpu's first rule's premise %v", f[0].Correlated, f[1].Correlated, f[0].Rules[0].Premise)
	}
	if !strings.Contains(f[0].Rules[0].Rule, "=> cpu") {
		t.Errorf("rule %q does not conclude on cpu", f[0].Rules[0].Rule)
	}
}

func TestDetectRefusesBadInput(t *testing.T) {
	good := runOf("ok", nil, 0.2)
	nan := runOf("bad", nil, 0.2)
	nan.Intervals[3][1] = math.NaN()
	for _, c := range []struct {
		history []Run
		current Run
		want    string
	}{
		{nil, good, "no prior runs"},
		{[]Run{good}, nan, "run bad, interval 3: counter cpu is NaN"},
		{[]Run{good}, Run{Name: "empty", Counters: []string{"cpu"}}, "run empty has no intervals"},
		{[]Run{{Name: "other", Counters: []string{"x"}, Intervals: [][]float64{{1}}}}, good, "shares no counter"},
	} {
		if _, err := Detect(c.history, c.current, DefaultConfig()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	// One prior run and a constant counter are fine: the ensembles are the single model.
	one := runOf("one", nil, 0)
	rep, err := Detect([]Run{one}, runOf("new", nil, 0), DefaultConfig())
	if err != nil || len(rep.Flagged) != 0 {
		t.Errorf("one run, constant cpu: %v, %+v", err, rep)
	}
}

// A rule whose premise never holds in the new run cannot flag anything
// (seed L228), however different the consequent's counter is.
func TestPremiseNeverHoldsSkipped(t *testing.T) {
	newTx := [][]int{{1, 5}, {1, 5}} // counter 0 in bin 1, counter 1 in bin 5
	d := &detector{cfg: DefaultConfig(), counters: []string{"a", "b"}, bins: []Bins{{K: 6, Width: 1}, {K: 6, Width: 1}}, newBits: itemBits(newTx), total: 2}
	rules := []Rule{
		{Premise: []Item{{0, 0}}, Consequent: Item{1, 0}, Confidence: 1}, // a = 0 never holds
		{Premise: []Item{{0, 1}}, Consequent: Item{1, 0}, Confidence: 1}, // a = 1 holds, b = 0 fails
	}
	v := d.check("m", rules)
	if len(v.violations[1]) != 1 || !strings.HasPrefix(v.violations[1][0].Rule, "a in [1, 2)") || v.violations[1][0].Delta != 1 {
		t.Errorf("violations %+v, want only the rule whose premise holds", v.violations)
	}
}

// An empty premise holds in every interval: {} => b = 0 is violated when b
// left bin 0, with Δ = 1 when it never comes back (1.0 → 0.0).
func TestEmptyPremiseRule(t *testing.T) {
	newTx := [][]int{{1, 5}, {1, 5}, {1, 0}}
	d := &detector{cfg: DefaultConfig(), counters: []string{"a", "b"}, bins: []Bins{{K: 6, Width: 1}, {K: 6, Width: 1}}, newBits: itemBits(newTx), total: 3}
	v := d.check("m", []Rule{{Premise: []Item{}, Consequent: Item{1, 0}, Confidence: 1}, {Premise: []Item{}, Consequent: Item{0, 1}, Confidence: 0.9}})
	got := v.violations[1]
	if len(got) != 1 || !strings.HasPrefix(got[0].Rule, "{} => b in [0, 1)") || math.Abs(got[0].ConfidenceNew-1.0/3) > 1e-12 ||
		!reflect.DeepEqual(got[0].Intervals, []int{0, 1}) || len(got[0].Premise) != 0 {
		t.Errorf("violations of b: %+v, want {} => b broken in intervals 0 and 1 (confidence 1 → 1/3)", got)
	}
	if len(v.violations[0]) != 0 {
		t.Errorf("a stayed in bin 1 (confidence 0.9 → 1, Δ %.3f): %+v", ConfidenceChange(0.9, 1), v.violations[0])
	}
}

// Correlated counters come most frequent first, ties by name.
func TestCorrelatedRanked(t *testing.T) {
	v := func(p ...string) Violation { return Violation{Premise: p} }
	got := correlated([]Violation{v("b", "a"), v("c"), v("c", "b"), v(), v("d", "c")})
	if want := []string{"c", "b", "a", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("correlated = %v, want %v", got, want)
	}
}

// perfls's verdict over the seed's vote: a flag raised only by models of
// other environments is an environment difference; with no prior run of the
// new run's environment, every flag is.
func TestMarkEnvironmentDiffers(t *testing.T) {
	a := Environment{"cores": "4", "jvm": "21"}
	history := []Run{runOf("T1", a, 0.2), runOf("T3", Environment{"cores": "2", "jvm": "21"}, 0.4)}
	cfg := DefaultConfig()
	cfg.Method = Bagging
	rep, err := Detect(history, runOf("same", a, 0.2), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Flagged) == 0 || rep.ExitStatus() != 1 {
		t.Fatalf("bagging flags %+v (exit %d): want T3's flags, half of the models", rep.Flagged, rep.ExitStatus())
	}
	rep.MarkEnvironmentDiffers()
	if !rep.Models[0].SameEnvironment || rep.Models[1].SameEnvironment {
		t.Errorf("same environment: T1 %v, T3 %v; want T1 only", rep.Models[0].SameEnvironment, rep.Models[1].SameEnvironment)
	}
	for _, f := range rep.Flagged {
		if !f.EnvironmentDiffers {
			t.Errorf("%s flagged by T3 alone is not marked as an environment difference", f.Counter)
		}
	}
	var out strings.Builder
	rep.WriteText(&out)
	if rep.ExitStatus() != 0 || len(rep.Regressions()) != 0 || !strings.Contains(out.String(), "the models of earlier runs in this environment test it and do not flag it") {
		t.Errorf("exit %d, regressions %+v, text:\n%s", rep.ExitStatus(), rep.Regressions(), out.String())
	}

	// cpu up 60 % on T1's lab: T1's own model flags it, a regression.
	rep, err = Detect(history, runOf("slow", a, 0.32), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep.MarkEnvironmentDiffers()
	if r := rep.Regressions(); len(r) == 0 || r[0].Counter != "cpu" || rep.ExitStatus() != 1 {
		t.Errorf("slow on T1's lab: regressions %+v, want cpu", r)
	}

	// A lab no prior run had: whatever is flagged, the environment differs.
	rep, err = Detect(history, runOf("elsewhere", Environment{"cores": "8", "jvm": "17"}, 0.32), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep.MarkEnvironmentDiffers()
	out.Reset()
	rep.WriteText(&out)
	if len(rep.Flagged) == 0 || len(rep.Regressions()) != 0 || !strings.Contains(out.String(), "no earlier run was measured in this environment") {
		t.Errorf("another lab: flags %+v, regressions %+v, text:\n%s", rep.Flagged, rep.Regressions(), out.String())
	}
}

// A counter spread over several bins in every prior run has no rule
// concluding on it: 1.5 times as high in the new run, it is undecided, not passed
// over, and the report says how far it moved (+50 %) and where it lies
// above every prior value.
func TestDetectUndecidedSpreadCounter(t *testing.T) {
	spread := func(name string, k float64) Run {
		r := Run{Name: name, Env: Environment{"jvm": "21"}, Counters: []string{"load", "cpu"}}
		for t := 0; t < 40; t++ {
			r.Intervals = append(r.Intervals, []float64{100, k * float64(10+t%10)})
		}
		return r
	}
	rep, err := Detect([]Run{spread("T1", 1), spread("T2", 1)}, spread("slower", 1.5), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Flagged) != 0 || len(rep.Undecided) != 1 {
		t.Fatalf("flagged %+v, undecided %+v; want cpu undecided", rep.Flagged, rep.Undecided)
	}
	u := rep.Undecided[0]
	if u.Counter != "cpu" || u.Testing != 0 || u.Above != 28 || u.Change == nil || math.Abs(*u.Change-0.5) > 1e-9 {
		t.Errorf("undecided %+v: want cpu, no testing model, 28 of 40 intervals above 19 (1.5·13 and up), +50 %%", u)
	}
	var out strings.Builder
	rep.WriteText(&out)
	if !strings.Contains(out.String(), "no counter flagged by stacking, 1 undecided") || !strings.Contains(out.String(), "above every earlier value in 28 of 40 intervals") {
		t.Errorf("text:\n%s", out.String())
	}
}

// A rule's items name the bin's values: a range, one side outside the
// training values, or the one value of a constant counter.
func TestItemText(t *testing.T) {
	d := &detector{counters: []string{"alloc", "cpu"}, bins: []Bins{NewBins([]float64{1040, 1040}), NewBins([]float64{10, 20, 30})}}
	for _, c := range []struct {
		it   Item
		want string
	}{
		{Item{0, 0}, "alloc = 1040"},
		{Item{0, 1}, "alloc > 1040"},
		{Item{1, 0}, "cpu in [10, 20)"},
		{Item{1, Below}, "cpu < 10"},
	} {
		if got := d.itemText(c.it); got != c.want {
			t.Errorf("item %+v: %q, want %q", c.it, got, c.want)
		}
	}
}
