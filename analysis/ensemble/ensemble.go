// Package ensemble is seed 001's regression detector for runs from
// heterogeneous environments (reference 001-ensemble-regression.md §2): the
// counters of each run per time interval are discretised with equal-width
// bins fixed over the training runs, one Apriori rule set is mined per prior
// passed run, each rule set checks the new run (a rule is violated when its
// confidence changes by more than a threshold, measured as a cosine
// distance), and the per-model verdicts are combined per counter by bagging
// (at least half of the models) or stacking (weights from how similar each
// prior run's environment is to the new run's, reported above ½). A single
// model mined from the pooled training runs is the baseline the seed
// compares against.
//
// It is pure computation over Go values: runs come from CSV files
// (package csvrun) or from perfls's own stored results (StoredRun; the engine
// reads them from the store).
package ensemble

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Environment is a run's environment as components and their values (cores,
// memory, jvm, os, …). Which components matter is the user's choice; two
// runs share a component when both have it with the same value.
type Environment map[string]string

// Run is one performance test run after Phase 1: a vector of counter values
// per time interval (the seed takes the median of each counter in the
// interval; see Intervals).
type Run struct {
	Name      string
	Env       Environment
	Counters  []string
	Intervals [][]float64 // Intervals[t][c] is counter c in interval t
	// Forks, in the store form, is how many intervals each fork of the
	// result contributed, in order (they sum to len(Intervals)); the
	// historical-range decision (DecideByRange) compares fork medians and
	// tests fork means. Empty: the run is one series.
	Forks []int
}

// Method combines the per-model verdicts.
type Method string

// The approaches of the seed's Table IV.
const (
	Stacking Method = "stacking" // environment-similarity weighted vote, s > ½
	Bagging  Method = "bagging"  // simple majority, at least half the models
	Single   Method = "single"   // one rule set mined from the pooled training runs
)

// Config holds the detector's parameters; DefaultConfig gives the seed's.
type Config struct {
	// MinSupport and MinConfidence prune the mined rules (seed: 0.3 and 0.9,
	// set here explicitly rather than taken from a library default).
	MinSupport, MinConfidence float64
	// MaxPremise caps the items of a premise; it bounds Apriori's work when
	// many counters sit in one bin.
	MaxPremise int
	// DeltaThreshold: a rule is violated when Δconfidence exceeds it. The
	// seed gives no value; 0.3 means a rule that held in every interval of
	// the prior run now fails in more than half of the new run's intervals
	// where its premise holds (Δ(1 → 0.5) = 0.293, Δ(1 → 0.49) = 0.307).
	DeltaThreshold float64
	// Method picks the verdict reported as Flagged.
	Method Method
}

// DefaultConfig is support 0.3, confidence 0.9, premises of up to 3 items,
// Δ threshold 0.3, stacking.
func DefaultConfig() Config {
	return Config{MinSupport: 0.3, MinConfidence: 0.9, MaxPremise: 3, DeltaThreshold: 0.3, Method: Stacking}
}

// Validate refuses parameters outside their ranges.
func (c Config) Validate() error {
	switch {
	case !(c.MinSupport > 0 && c.MinSupport <= 1):
		return fmt.Errorf("minimum support %v: must be in (0, 1]", c.MinSupport)
	case !(c.MinConfidence > 0 && c.MinConfidence <= 1):
		return fmt.Errorf("minimum confidence %v: must be in (0, 1]", c.MinConfidence)
	case c.MaxPremise < 1:
		return fmt.Errorf("maximum premise %d: must be at least 1", c.MaxPremise)
	case !(c.DeltaThreshold >= 0 && c.DeltaThreshold < 1):
		return fmt.Errorf("Δ threshold %v: must be in [0, 1)", c.DeltaThreshold)
	case !c.Method.Valid():
		return fmt.Errorf("method %q: must be stacking, bagging or single", c.Method)
	}
	return nil
}

// Report is the detector's verdict on a new run.
type Report struct {
	Run       string   `json:"run"`
	Method    Method   `json:"method"`
	Flagged   []Flag   `json:"flagged"`
	Counters  []string `json:"counters"`
	Intervals int      `json:"intervals"`
	Models    []Model  `json:"models"`
	// NoComparableEnvironment: no prior run shares a component with the new
	// run, so stacking fell back to equal weights.
	NoComparableEnvironment bool `json:"no_comparable_environment,omitempty"`
	// Undecided are the counters the vote could not report whatever the
	// models found: too few models test a rule on them in the new run.
	Undecided []Undecided `json:"undecided"`
	// Decided are the counters the votes left undecided that the store
	// form decided by the historical range (DecideByRange), flagged or not.
	Decided []Decided `json:"decided,omitempty"`
	Notes   []string  `json:"notes,omitempty"`

	byMethod          map[Method][]Flag
	undecidedByMethod map[Method][]Undecided
	decidedByMethod   map[Method][]Decided
}

// Undecided is a counter that the models able to judge it weigh too little
// to report: a model tests a counter when one of its rules concludes on it
// and the rule's premise holds in some interval of the new run (a rule whose
// premise never holds is skipped, seed L228). Were every testing model to
// flag it, the vote would still not report it — silence about it is not a
// verdict. A steady per-sample series spread over several bins in each prior
// run yields no rule on it; a doubled time per call then lies where no
// premise of the rules on it holds (docs/regressions.md).
type Undecided struct {
	Counter string `json:"counter"`
	// Testing models and their weight (stacking's Σ w_i, bagging's
	// fraction of the models, 1 or 0 for the single model).
	Testing int     `json:"testing"`
	Weight  float64 `json:"weight"`
	// Votes: the testing models that flag it, and their weight.
	Votes int     `json:"votes"`
	Score float64 `json:"score"`
	// What the rules cannot say, described: the mean's change (as Flag's)
	// and the intervals in which the counter lies below or above every
	// prior value.
	Change *float64 `json:"change,omitempty"`
	Below  int      `json:"below"`
	Above  int      `json:"above"`
}

// FlaggedBy is the verdict of one method (all three are computed).
// Valid says whether m is one of the three approaches.
func (m Method) Valid() bool { return m == Stacking || m == Bagging || m == Single }

func (r *Report) FlaggedBy(m Method) []Flag { return r.byMethod[m] }

// UndecidedBy is the undecided counters of one method.
func (r *Report) UndecidedBy(m Method) []Undecided { return r.undecidedByMethod[m] }

// Model is one prior run's rule set and what it says about the new run.
type Model struct {
	Run      string   `json:"run"`
	Rules    int      `json:"rules"`
	Matching []string `json:"matching"`   // environment components equal to the new run's
	Length   float64  `json:"similarity"` // √len(Matching)
	// SameEnvironment: the prior run shares every component of the new
	// run's (non-empty) environment.
	SameEnvironment bool    `json:"same_environment"`
	Weight          float64 `json:"weight"`
	// Tested: the counters on which one of its rules concludes whose
	// premise holds in the new run; Flagged: those it flags.
	Tested  []string `json:"tested"`
	Flagged []string `json:"flagged"`
}

// Flag is a counter reported by a method.
type Flag struct {
	Counter string `json:"counter"`
	// Score is s(x) for stacking, the fraction of models that flag the
	// counter for bagging, 1 for the single model.
	Score    float64 `json:"score"`
	Votes    int     `json:"votes"`
	Severity float64 `json:"severity"`
	// Change is the new run's mean over the prior runs' mean (weighted by
	// similarity) minus 1: the direction, which the seed's rules do not have.
	Change *float64 `json:"change,omitempty"`
	// Rules are the violated rules that flag it, largest Δ first.
	Rules []Violation `json:"rules"`
	// Correlated are the counters in those rules' premises, the most
	// frequent first: the seed's report lists them beside each problematic
	// counter (L141).
	Correlated []string `json:"correlated"`
	// Intervals of the new run in which one of those rules is broken
	// (premise holds, consequent does not).
	Intervals []int `json:"intervals"`
	// EnvironmentDiffers (MarkEnvironmentDiffers): the change is seen only
	// against other environments — no prior run shares the new run's, or
	// the models of those that do test the counter and do not flag it — and
	// is not a regression.
	EnvironmentDiffers bool `json:"environment_differs,omitempty"`
	// Range: the counter was out of every rule's reach and the
	// historical-range decision flagged it (DecideByRange); Rules is then
	// empty and Score the vote's, which alone did not report it.
	Range *RangeEvidence `json:"range,omitempty"`
}

// Violation is one violated rule.
type Violation struct {
	Model             string   `json:"model"`
	Rule              string   `json:"rule"`
	Premise           []string `json:"premise"` // the premise's counters
	ConfidenceHistory float64  `json:"confidence_history"`
	ConfidenceNew     float64  `json:"confidence_new"`
	Delta             float64  `json:"delta"`
	Intervals         []int    `json:"intervals"`
}

// modelVerdict is what one rule set flags: per counter, its violations and
// the intervals where they are broken.
type modelVerdict struct {
	violations map[int][]Violation
	broken     map[int]bitset
	// tested: the counters on which a rule with a premise that holds in the
	// new run concludes.
	tested map[int]bool
}

// Detect checks the new run against one model per prior run (and the pooled
// single model) and reports the flagged counters of cfg.Method.
func Detect(history []Run, current Run, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(history) == 0 {
		return nil, errors.New("no prior runs: the ensemble needs at least one prior passed run")
	}
	for _, r := range append([]Run{current}, history...) {
		if err := r.validate(); err != nil {
			return nil, err
		}
	}
	counters, notes := commonCounters(history, current)
	if len(counters) == 0 {
		return nil, fmt.Errorf("run %s shares no counter with every prior run", current.Name)
	}
	histVals := make([][][]float64, len(history))
	for i, r := range history {
		histVals[i] = r.columns(counters)
	}
	newVals := current.columns(counters)
	bins := trainBins(histVals, len(counters))
	newTx := discretise(newVals, bins)
	newBits := itemBits(newTx)
	d := &detector{cfg: cfg, counters: counters, bins: bins, newBits: newBits, total: len(newTx)}

	rep := &Report{Run: current.Name, Method: cfg.Method, Counters: counters, Intervals: len(newTx), Notes: notes, byMethod: map[Method][]Flag{}, undecidedByMethod: map[Method][]Undecided{}}
	verdicts := make([]modelVerdict, len(history))
	lengths := make([]float64, len(history))
	var pooled [][]int
	for i, r := range history {
		tx := discretise(histVals[i], bins)
		pooled = append(pooled, tx...)
		rules, premise := Mine(tx, cfg.MinSupport, cfg.MinConfidence, cfg.MaxPremise)
		if premise < cfg.MaxPremise {
			rep.Notes = append(rep.Notes, capNote(r.Name, premise))
		}
		verdicts[i] = d.check(r.Name, rules)
		m := Model{Run: r.Name, Rules: len(rules), Tested: []string{}, Flagged: []string{}}
		for c := range counters {
			if verdicts[i].tested[c] {
				m.Tested = append(m.Tested, counters[c])
			}
		}
		m.Matching, m.Length = Similarity(r.Env, current.Env)
		m.SameEnvironment = len(current.Env) > 0 && len(m.Matching) == len(current.Env)
		lengths[i] = m.Length
		for c := range verdicts[i].violations {
			m.Flagged = append(m.Flagged, counters[c])
		}
		sort.Strings(m.Flagged)
		rep.Models = append(rep.Models, m)
	}
	weights, fallback := Weights(lengths)
	rep.NoComparableEnvironment = fallback
	for i := range rep.Models {
		rep.Models[i].Weight = weights[i]
	}
	if fallback {
		rep.Notes = append(rep.Notes, "no prior run shares an environment component with the new run: stacking used equal weights")
	}
	change := relativeChanges(histVals, newVals, weights)
	n := len(history)
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	rep.byMethod[Bagging], rep.undecidedByMethod[Bagging] = d.aggregate(verdicts, ones, change, func(s float64) bool { return BaggingReports(int(math.Round(s)), n) }, float64(n))
	rep.byMethod[Stacking], rep.undecidedByMethod[Stacking] = d.aggregate(verdicts, weights, change, StackingReports, 1)
	pooledRules, premise := Mine(pooled, cfg.MinSupport, cfg.MinConfidence, cfg.MaxPremise)
	if premise < cfg.MaxPremise {
		rep.Notes = append(rep.Notes, capNote("pooled", premise))
	}
	single := d.check("pooled", pooledRules)
	rep.byMethod[Single], rep.undecidedByMethod[Single] = d.aggregate([]modelVerdict{single}, []float64{1}, change, func(s float64) bool { return s > 0 }, 1)
	rep.Flagged, rep.Undecided = rep.byMethod[cfg.Method], rep.undecidedByMethod[cfg.Method]
	return rep, nil
}

// MarkEnvironmentDiffers applies perfls's one verdict for the user (as
// perfls regressions and diff do) on top of the seed's vote. A flag is
// marked EnvironmentDiffers when no prior run shares the new run's
// environment (every flag is then seen only against other environments),
// or when models of runs in the new run's own environment test the counter
// and none of them flags it: only other environments' rules break. When
// no same-environment model tests the counter (no rule on it, or none whose
// premise holds), nothing contradicts the vote and the flag stands.
//
// The seed's stacking weighs environments by √N of the shared components,
// which barely separates them when most components are shared (perfls's
// eight on one machine: a result with another heap limit weighs 0.94 of an
// identical one, with another collector 0.79), so models of other
// environments outvote the identical ones. The flags stay
// in the report; ExitStatus leaves the marked ones out. The single model's
// pooled rules belong to no one run: its flags are marked only when no
// prior run shares the environment.
func (r *Report) MarkEnvironmentDiffers() {
	var same []Model
	for _, m := range r.Models {
		if m.SameEnvironment {
			same = append(same, m)
		}
	}
	for method, flags := range r.byMethod {
		for i := range flags {
			f := &flags[i]
			if f.Range != nil { // decided by DecideByRange, which marks its own
				continue
			}
			tested, flagged := false, false
			for _, m := range same {
				tested = tested || slices.Contains(m.Tested, f.Counter)
				flagged = flagged || slices.Contains(m.Flagged, f.Counter)
			}
			f.EnvironmentDiffers = len(same) == 0 || (method != Single && tested && !flagged)
		}
	}
	r.Flagged = r.byMethod[r.Method]
}

// HasSameEnvironment reports whether a prior run shares every component of
// the new run's environment.
func (r *Report) HasSameEnvironment() bool {
	return slices.ContainsFunc(r.Models, func(m Model) bool { return m.SameEnvironment })
}

// Regressions are the flagged counters not marked EnvironmentDiffers.
func (r *Report) Regressions() []Flag {
	var out []Flag
	for _, f := range r.Flagged {
		if !f.EnvironmentDiffers {
			out = append(out, f)
		}
	}
	return out
}

// capNote says that a run's rules were limited because too many itemsets
// were frequent (premise is 0 when none were mined). A note, not an error:
// premise lengths that did fit were mined.
func capNote(run string, premise int) string {
	return fmt.Sprintf("run %s: more than %d frequent itemsets of %d items; its rules have premises of at most %d items (give fewer or less constant counters)", run, maxItemsets, premise+2, premise)
}

func (r Run) validate() error {
	if len(r.Intervals) == 0 {
		return fmt.Errorf("run %s has no intervals", r.Name)
	}
	seen := map[string]bool{}
	for _, c := range r.Counters {
		if seen[c] {
			return fmt.Errorf("run %s: counter %q appears twice", r.Name, c)
		}
		seen[c] = true
	}
	if len(r.Forks) > 0 && sum(r.Forks) != len(r.Intervals) {
		return fmt.Errorf("run %s: its forks have %d intervals, the run %d", r.Name, sum(r.Forks), len(r.Intervals))
	}
	for t, row := range r.Intervals {
		if len(row) != len(r.Counters) {
			return fmt.Errorf("run %s, interval %d: %d values for %d counters", r.Name, t, len(row), len(r.Counters))
		}
		for c, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("run %s, interval %d: counter %s is %v; counters must be finite numbers", r.Name, t, r.Counters[c], v)
			}
		}
	}
	return nil
}

// commonCounters are the new run's counters that every prior run has; the
// others are named in a note.
func commonCounters(history []Run, current Run) (common, notes []string) {
	for _, c := range current.Counters {
		var missing []string
		for _, r := range history {
			if !contains(r.Counters, c) {
				missing = append(missing, r.Name)
			}
		}
		if len(missing) > 0 {
			notes = append(notes, fmt.Sprintf("counter %s left out: prior runs %v do not have it", c, missing))
			continue
		}
		common = append(common, c)
	}
	return common, notes
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// columns reorders the run's values to counters: vals[t][c].
func (r Run) columns(counters []string) [][]float64 {
	idx := make([]int, len(counters))
	for i, c := range counters {
		for j, rc := range r.Counters {
			if rc == c {
				idx[i] = j
			}
		}
	}
	vals := make([][]float64, len(r.Intervals))
	for t, row := range r.Intervals {
		vals[t] = make([]float64, len(counters))
		for i, j := range idx {
			vals[t][i] = row[j]
		}
	}
	return vals
}

// trainBins fixes each counter's bins over all training runs (T_A).
func trainBins(runs [][][]float64, counters int) []Bins {
	bins := make([]Bins, counters)
	for c := range bins {
		var vs []float64
		for _, r := range runs {
			for _, row := range r {
				vs = append(vs, row[c])
			}
		}
		bins[c] = NewBins(vs)
	}
	return bins
}

func discretise(vals [][]float64, bins []Bins) [][]int {
	tx := make([][]int, len(vals))
	for t, row := range vals {
		tx[t] = make([]int, len(row))
		for c, v := range row {
			tx[t][c] = bins[c].Index(v)
		}
	}
	return tx
}

// relativeChanges is, per counter, the new run's mean over the weighted mean
// of the prior runs' means, minus 1; nil where that mean is 0.
func relativeChanges(hist [][][]float64, current [][]float64, weights []float64) []*float64 {
	out := make([]*float64, len(current[0]))
	for c := range out {
		var base float64
		for i, r := range hist {
			base += weights[i] * meanOf(r, c)
		}
		if base != 0 {
			v := meanOf(current, c)/base - 1
			out[c] = &v
		}
	}
	return out
}

func meanOf(vals [][]float64, c int) float64 {
	var s float64
	for _, row := range vals {
		s += row[c]
	}
	return s / float64(len(vals))
}
