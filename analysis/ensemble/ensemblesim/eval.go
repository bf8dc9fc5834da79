package ensemblesim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/perfls/perfls/analysis/ensemble"
)

// Score is one case's precision, recall and F-measure.
type Score struct{ Precision, Recall, F float64 }

// Measure scores flagged counters against the expected ones with the seed's
// definitions (L157): precision 1 − m_false/m_total (1 when nothing is
// flagged), recall (m_total − m_false)/m_expected (1 when nothing is
// expected), F their harmonic mean (0 when both are 0).
func Measure(flagged, expected []string) Score {
	exp := map[string]bool{}
	for _, e := range expected {
		exp[e] = true
	}
	var s Score
	falses := 0
	for _, f := range flagged {
		if !exp[f] {
			falses++
		}
	}
	s.Precision, s.Recall = 1, 1
	if len(flagged) > 0 {
		s.Precision = 1 - float64(falses)/float64(len(flagged))
	}
	if len(expected) > 0 {
		s.Recall = float64(len(flagged)-falses) / float64(len(expected))
	}
	if s.Precision+s.Recall > 0 {
		s.F = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

// MeasureAll scores the three approaches' flags (Methods order) against the
// counters the fault moved. With relative recall (the seed's enterprise
// cases, L161–L163) m_expected is the union of the moved counters that any
// approach flagged; precision is unchanged.
func MeasureAll(flagged [3][]string, moved []string, relative bool) [3]Score {
	expected := moved
	if relative {
		isMoved := map[string]bool{}
		for _, m := range moved {
			isMoved[m] = true
		}
		found := map[string]bool{}
		expected = nil
		for _, fl := range flagged {
			for _, c := range fl {
				if isMoved[c] && !found[c] {
					found[c] = true
					expected = append(expected, c)
				}
			}
		}
	}
	var out [3]Score
	for i, fl := range flagged {
		out[i] = Measure(fl, expected)
	}
	return out
}

// Scenario is one row of the miniature Table IV: the labs of the training
// runs and of the new run, the fault injected into the new run (the seed's
// fault for that case; the zero Fault for none) and the runs' length.
type Scenario struct {
	Name, Seed string // Seed: the seed's case it imitates
	Training   func(*rand.Rand) []Lab
	New        Lab
	Fault      Fault
	Intervals  int
	// RelativeRecall scores recall as the seed does for its enterprise
	// cases (L161–L163): against the union of the true regressions that
	// the three approaches found, not against every counter the fault moved.
	RelativeRecall bool
	// LoadSpread: each training run's standard load (both generators) is
	// scaled by a factor drawn uniformly from [1 − LoadSpread,
	// 1 + LoadSpread] (the enterprise history, EnterpriseLoadSpread); the
	// new run has the standard load and its case's deviation.
	LoadSpread float64
	// LabDeviation, when set, is applied to every training run on the new
	// run's lab: a property of that lab its earlier runs share (E3Lab).
	LabDeviation Fault
}

var (
	base       = Lab{Cores: 4, MemoryGB: 8, JVM: 17, OS: "linux"}
	fewerCores = Lab{Cores: 2, MemoryGB: 8, JVM: 17, OS: "linux"}
	lessMemory = Lab{Cores: 4, MemoryGB: 4, JVM: 17, OS: "linux"}
	newerJVM   = Lab{Cores: 4, MemoryGB: 8, JVM: 21, OS: "linux"}
)

func labs(ls ...Lab) func(*rand.Rand) []Lab { return func(*rand.Rand) []Lab { return ls } }

// tenLabs is the enterprise case: ten passed runs, three on the new run's
// lab and seven on labs that differ from it in one or two components.
func tenLabs(rng *rand.Rand) []Lab {
	out := []Lab{base, base, base}
	for len(out) < 10 {
		l := base
		for k := 0; k < 1+rng.IntN(2); k++ {
			switch rng.IntN(4) {
			case 0:
				l.Cores = []int{2, 8}[rng.IntN(2)]
			case 1:
				l.MemoryGB = []int{4, 16}[rng.IntN(2)]
			case 2:
				l.JVM = 21
			case 3:
				l.OS = "windows"
			}
		}
		out = append(out, l)
	}
	return out
}

// Scenarios imitate the seed's seven cases (Table IV, reference §3.2):
// DS2's hour-long runs on three hardware set-ups with the n+1 fault in D_5
// (L186–L188), JPetStore's hour-long runs on two database versions (here
// JVMs) with the caches disabled in J_3 (L234), and the enterprise
// system's eight-hour runs against ten passed runs whose load varies from
// run to run (EnterpriseLoadSpread), with E_1's load mismatch, E_2's
// overloading generator and E_3's harmless faster generator (L256–L282).
var Scenarios = []Scenario{
	{"replica, hardware mix", "D_4", labs(base, fewerCores, lessMemory), base, Fault{}, HourIntervals, false, 0, Fault{}},
	{"n+1, identical lab only", "D_5(1)", labs(base), base, NPlusOne, HourIntervals, false, 0, Fault{}},
	{"n+1, hardware mix", "D_5(3)", labs(base, fewerCores, lessMemory), base, NPlusOne, HourIntervals, false, 0, Fault{}},
	{"cache off, JVM mix", "J_3", labs(base, newerJVM), newerJVM, CacheDisabled, HourIntervals, false, 0, Fault{}},
	{"load mismatch, ten labs", "E_1", tenLabs, base, LoadMismatch, EightHours, true, EnterpriseLoadSpread, Fault{}},
	{"overload, ten labs", "E_2", tenLabs, base, Overload, EightHours, true, EnterpriseLoadSpread, Fault{}},
	{"faster generator, ten labs", "E_3", tenLabs, base, FasterGenerator, EightHours, true, EnterpriseLoadSpread, Fault{}},
}

// Case is one generated case and the three approaches' scores.
type Case struct {
	Scenario, Fault           string
	Single, Bagging, Stacking Score
	// Why each approach erred (Methods order: single, bagging, stacking).
	Errors [3]Errors
}

// Methods are the approaches in the order of Case.Errors.
var Methods = [3]ensemble.Method{ensemble.Single, ensemble.Bagging, ensemble.Stacking}

// Errors counts an approach's false flags by cause, and its missed counters.
type Errors struct {
	// Correlated: every violated rule that flags the counter has a counter
	// the fault moved in its premise — the counter "follows" a changed one
	// (the seed flags a rule's consequent, L99).
	Correlated int
	// Environment: otherwise, and only models of labs that differ from the
	// new run's flag it.
	Environment int
	// SameLab: otherwise — a model of the new run's own lab (or the pooled
	// model) flags it: run-to-run noise across a bin edge.
	SameLab int
	// Missed: expected counters not flagged.
	Missed int
}

func (e Errors) add(o Errors) Errors {
	return Errors{e.Correlated + o.Correlated, e.Environment + o.Environment, e.SameLab + o.SameLab, e.Missed + o.Missed}
}

// explain classifies the false flags and counts the misses of one approach.
func explain(rep *ensemble.Report, flags []ensemble.Flag, expected []string, newEnv ensemble.Environment) Errors {
	exp := map[string]bool{}
	for _, e := range expected {
		exp[e] = true
	}
	sameLab := map[string]bool{"pooled": true}
	for _, m := range rep.Models {
		if len(m.Matching) == len(newEnv) {
			sameLab[m.Run] = true
		}
	}
	var e Errors
	found := 0
	for _, f := range flags {
		if exp[f.Counter] {
			found++
			continue
		}
		followsChange, fromSameLab := true, false
		for _, v := range f.Rules {
			moved := false
			for _, c := range v.Premise {
				moved = moved || exp[c]
			}
			followsChange = followsChange && moved
			fromSameLab = fromSameLab || sameLab[v.Model]
		}
		switch {
		case followsChange:
			e.Correlated++
		case !fromSameLab:
			e.Environment++
		default:
			e.SameLab++
		}
	}
	e.Missed = len(exp) - found
	return e
}

// history generates the scenario's prior passed runs, each at the standard
// load scaled within LoadSpread.
func (sc Scenario) history(rng *rand.Rand, noise Noise) []ensemble.Run {
	var runs []ensemble.Run
	for i, l := range sc.Training(rng) {
		load := Fault{}
		if l == sc.New && sc.LabDeviation.apply != nil {
			load = sc.LabDeviation
		}
		if sc.LoadSpread > 0 {
			load = withLoad(load, 1+sc.LoadSpread*(2*rng.Float64()-1))
		}
		runs = append(runs, generate(rng, fmt.Sprintf("T%d", i+1), l, load, noise, sc.Intervals))
	}
	return runs
}

// Evaluate runs every scenario reps times from one seed.
func Evaluate(seed uint64, reps int, cfg ensemble.Config, noise Noise) ([]Case, error) {
	return EvaluateScenarios(Scenarios, seed, reps, cfg, noise)
}

// EvaluateScenarios runs each of scs reps times from one seed (the i-th
// scenario draws from the stream (seed, i)).
func EvaluateScenarios(scs []Scenario, seed uint64, reps int, cfg ensemble.Config, noise Noise) ([]Case, error) {
	var cases []Case
	for si, sc := range scs {
		rng := rand.New(rand.NewPCG(seed, uint64(si)))
		f := sc.Fault
		expected := f.Expected(sc.New, sc.Intervals)
		name := f.Name
		if name == "" {
			name = "none"
		}
		for r := 0; r < reps; r++ {
			rep, err := ensemble.Detect(sc.history(rng, noise), generate(rng, "new", sc.New, f, noise, sc.Intervals), cfg)
			if err != nil {
				return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
			}
			var flagged [3][]string
			for i, m := range Methods {
				for _, fl := range rep.FlaggedBy(m) {
					flagged[i] = append(flagged[i], fl.Counter)
				}
			}
			scores := MeasureAll(flagged, expected, sc.RelativeRecall)
			c := Case{Scenario: sc.Name, Fault: name, Single: scores[0], Bagging: scores[1], Stacking: scores[2]}
			for i, m := range Methods {
				c.Errors[i] = explain(rep, rep.FlaggedBy(m), expected, sc.New.Environment())
			}
			cases = append(cases, c)
		}
	}
	return cases, nil
}

// Row is a scenario's mean scores.
type Row struct {
	Scenario, Seed            string
	Single, Bagging, Stacking Score
	// Errors are the scenario's false flags by cause and missed counters,
	// summed over its cases (Methods order), and Cases how many there are.
	Errors [3]Errors
	Cases  int
}

// Table averages the cases per scenario, and the last row averages the
// scenarios (as the seed averages its seven cases).
func Table(cases []Case) []Row { return TableOf(Scenarios, cases) }

// TableOf is Table over the scenarios scs.
func TableOf(scs []Scenario, cases []Case) []Row {
	var rows []Row
	var total Row
	for _, sc := range scs {
		r := Row{Scenario: sc.Name, Seed: sc.Seed}
		n := 0
		for _, c := range cases {
			if c.Scenario == sc.Name {
				r.Single, r.Bagging, r.Stacking = add(r.Single, c.Single), add(r.Bagging, c.Bagging), add(r.Stacking, c.Stacking)
				for i := range r.Errors {
					r.Errors[i] = r.Errors[i].add(c.Errors[i])
				}
				n++
			}
		}
		r.Single, r.Bagging, r.Stacking = scale(r.Single, n), scale(r.Bagging, n), scale(r.Stacking, n)
		r.Cases = n
		for i := range total.Errors {
			total.Errors[i] = total.Errors[i].add(r.Errors[i])
		}
		total.Cases += n
		total.Single, total.Bagging, total.Stacking = add(total.Single, r.Single), add(total.Bagging, r.Bagging), add(total.Stacking, r.Stacking)
		rows = append(rows, r)
	}
	n := len(scs)
	rows = append(rows, Row{Scenario: "average", Seed: "Avg.", Single: scale(total.Single, n), Bagging: scale(total.Bagging, n), Stacking: scale(total.Stacking, n),
		Errors: total.Errors, Cases: total.Cases})
	return rows
}

func add(a, b Score) Score { return Score{a.Precision + b.Precision, a.Recall + b.Recall, a.F + b.F} }

func scale(a Score, n int) Score {
	if n == 0 {
		return a
	}
	k := float64(n)
	return Score{a.Precision / k, a.Recall / k, a.F / k}
}

// SeedTable is Table IV's averages (seed 001 L180): single model, bagging,
// stacking.
var SeedTable = [3]Score{{0.84, 0.58, 0.55}, {0.78, 0.81, 0.69}, {0.97, 0.77, 0.85}}

// SeedCases is Table IV per case (seed 001 L169–L179), keyed like
// Scenario.Seed: single model, bagging, stacking. E_1's stacking F is
// printed 0.92 in the seed although its P = R = 0.85.
var SeedCases = map[string][3]Score{
	"D_4":    {{0, 1, 0}, {1, 1, 1}, {1, 1, 1}},
	"D_5(1)": {{1, 0.57, 0.73}, {1, 0.57, 0.73}, {1, 0.57, 0.73}},
	"D_5(3)": {{1, 0.14, 0.25}, {1, 0.57, 0.73}, {1, 0.57, 0.73}},
	"J_3":    {{1, 0.5, 0.66}, {1, 0.5, 0.66}, {1, 0.5, 0.66}},
	"E_1":    {{1, 0.46, 0.63}, {0.72, 1, 0.84}, {0.85, 0.85, 0.92}},
	"E_2":    {{0.86, 0.4, 0.55}, {0.75, 1, 0.86}, {0.93, 0.87, 0.90}},
	"E_3":    {{1, 1, 1}, {0, 1, 0}, {1, 1, 1}},
}

// Example is one generated case for trying the command line: the hardware
// mix (prior runs on the base lab, with fewer cores and with less memory)
// and a new run on the base lab with a busy loop; expected are the counters
// the fault moves.
func Example(seed uint64) (history []ensemble.Run, current ensemble.Run, expected []string) {
	rng := rand.New(rand.NewPCG(seed, 99))
	for i, l := range []Lab{base, fewerCores, lessMemory} {
		history = append(history, generate(rng, []string{"lab-a", "lab-a-2cores", "lab-a-4g"}[i], l, Fault{}, DefaultNoise, HourIntervals))
	}
	return history, generate(rng, "candidate", base, Faults[0], DefaultNoise, HourIntervals), Faults[0].Expected(base, HourIntervals)
}

// Faulty reports whether the scenario injects a regression (not D_4's
// replica, not E_3's harmless deviation).
func (sc Scenario) Faulty() bool { return sc.Fault.apply != nil && !sc.Fault.Harmless }

// FaultyAverage averages Table's rows of the faulty scenarios (rows in
// Scenarios order, as Table gives them).
func FaultyAverage(rows []Row) [3]Score {
	var sum [3]Score
	n := 0
	for i, sc := range Scenarios {
		if i < len(rows) && sc.Faulty() {
			r := rows[i]
			sum[0], sum[1], sum[2] = add(sum[0], r.Single), add(sum[1], r.Bagging), add(sum[2], r.Stacking)
			n++
		}
	}
	for i := range sum {
		sum[i] = scale(sum[i], n)
	}
	return sum
}

// harmonic is the F-measure of P and R (0 when both are 0).
func harmonic(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// SeedRecomputed is Table IV with each case's F recomputed from its
// printed P and R where the printed F does not follow from them beyond
// rounding (only E_1's stacking F: printed 0.92, P = R = 0.85), for the
// seed's seven cases (all) or its five faulty ones: averages of P, R and F
// in Methods order. All seven give stacking 0.84, not the printed 0.85;
// the five faulty ones 0.77.
func SeedRecomputed(faultyOnly bool) [3]Score {
	var sum [3]Score
	n := 0
	for _, sc := range Scenarios {
		if faultyOnly && !sc.Faulty() {
			continue
		}
		for i, c := range SeedCases[sc.Seed] {
			if f := harmonic(c.Precision, c.Recall); math.Abs(f-c.F) > 0.01 {
				c.F = f
			}
			sum[i] = add(sum[i], c)
		}
		n++
	}
	for i := range sum {
		sum[i] = scale(sum[i], n)
	}
	return sum
}

// FalseAlarms is, per scenario without a regression (D_4, E_3, keyed by
// Seed), the fraction of its cases in which each approach (Methods order)
// flagged anything: nothing is expected there, so one flag makes P = F = 0
// and the seed's F of such a case is a false-alarm indicator.
func FalseAlarms(cases []Case) map[string][3]float64 {
	out := map[string][3]float64{}
	for _, sc := range Scenarios {
		if sc.Faulty() {
			continue
		}
		var alarms [3]float64
		n := 0
		for _, c := range cases {
			if c.Scenario != sc.Name {
				continue
			}
			n++
			for i, s := range [3]Score{c.Single, c.Bagging, c.Stacking} {
				if s.Precision < 1 {
					alarms[i]++
				}
			}
		}
		for i := range alarms {
			alarms[i] /= float64(max(n, 1))
		}
		out[sc.Seed] = alarms
	}
	return out
}

// Settings names the generator settings a table was made with: what the
// false-alarm rates of the no-fault cases depend on.
func Settings(seed uint64, reps int, noise Noise) string {
	return fmt.Sprintf("seed %d, %d cases per scenario, noise %.1f %% per interval and %.1f %% per run (workload counters: per interval only), "+
		"%d one-minute intervals (DS2, JPetStore) and %d (enterprise), enterprise history's load ±%.0f %% from run to run, both generators together; "+
		"E_3's lab: 3 of its 10 prior runs",
		seed, reps, 100*noise.Interval, 100*noise.Run, HourIntervals, EightHours, 100*EnterpriseLoadSpread)
}

// E3Lab is E_3 read as the seed's text allows it (L7, L59, L128): the
// harmless faster generator is a property of E_3's lab — its earlier runs
// share it — and the history is ten passed runs, share of them on that lab
// and the others on labs that differ in one or two components, at the
// standard load (no run-to-run spread, which the text does not require).
// The seed does not say how many of the ten were on E_3's lab; share states
// the mix (the main Scenarios' E_3 has 3 of 10 and no lab deviation).
func E3Lab(share int) Scenario {
	training := func(rng *rand.Rand) []Lab {
		out := make([]Lab, 0, 10)
		for range share {
			out = append(out, base)
		}
		for _, l := range tenLabs(rng)[3:] {
			if len(out) < 10 {
				out = append(out, l)
			}
		}
		for len(out) < 10 { // share < 3: more differing labs
			l := base
			l.Cores = []int{2, 8}[rng.IntN(2)]
			out = append(out, l)
		}
		return out
	}
	return Scenario{Name: fmt.Sprintf("E_3's lab: %d of 10 runs", share), Seed: "E_3", Training: training, New: base,
		Fault: FasterGenerator, Intervals: EightHours, RelativeRecall: true, LabDeviation: FasterGenerator}
}
