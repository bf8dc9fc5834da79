package ensemble

// The store form's answer for counters out of every rule's reach
// (docs/regressions.md, "Undecided counters, decided by the historical
// range"). A result's time per call spreads over several of the rules' bins
// and a doubled time lies above every earlier value, where no premise of
// the rules on it holds (seed L228): the votes cannot report it. The seed
// itself judged such a counter by its historical value range — E_3's
// database transactions "fell within the counter's historical value range",
// so no regression (L278) — and compared a run first with runs of its own
// environment (L59). Reference 001 §5.6 foresees swapping the per-run model
// for a distribution and a two-sample test on data like perfls's; this is
// that swap for the counters the rules cannot judge, and only for them.

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/perfls/perfls/analysis/stats"
)

// RangeAlpha is the two-sided level of the test that confirms a counter
// outside its historical range (the real-data evaluation's ground truth
// uses p < 0.01 too).
const RangeAlpha = 0.01

// Verdicts of the historical-range decision.
const (
	RangeRegression  = "flagged"             // outside the same-environment range, and the test confirms it
	RangeEnvironment = "environment differs" // only other environments' results are that far off
	RangeNotFlagged  = "not flagged"
	againstSame      = "same environment"
	againstOther     = "other environments"
	rangeAbove       = "above"
	rangeBelow       = "below"
)

// RangeEvidence is one historical-range test of a counter: the new
// result's fork medians against the range of the earlier results' fork
// medians, confirmed by stats.ParametricTest on the fork means.
type RangeEvidence struct {
	// Against is "same environment" (earlier results in every component
	// the new result's) or "other environments".
	Against string `json:"against"`
	Results int    `json:"results"` // earlier results compared
	Forks   int    `json:"forks"`   // their forks
	// Low and High: the historical range, the lowest and the highest
	// median of their forks; NewLow and NewHigh the new result's.
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	NewLow  float64 `json:"new_low"`
	NewHigh float64 `json:"new_high"`
	// Outside is "above" when every fork median of the new result lies
	// above High, "below" when every one lies below Low, else "".
	Outside string `json:"outside,omitempty"`
	// Change: the mean of the new result's fork means over the earlier
	// forks' mean, minus 1 (absent when that mean is 0).
	Change *float64 `json:"change,omitempty"`
	// P is the two-sided p-value of the parametric test on fork means
	// (between-fork variance, Student's t with Welch–Satterthwaite degrees
	// of freedom DF).
	P  float64 `json:"p"`
	DF float64 `json:"df"`
	// Flagged: outside the range and P < RangeAlpha.
	Flagged bool `json:"flagged"`
}

// Decided is a counter the votes left undecided, decided by its historical
// range: Verdict is RangeRegression (a flag that counts), RangeEnvironment
// (a flag marked EnvironmentDiffers) or RangeNotFlagged. Same is the test
// against the earlier results of the new result's environment (nil when
// there is none), Other the test against the others (nil when not needed:
// Same flagged it, or there are none).
type Decided struct {
	Counter string         `json:"counter"`
	Verdict string         `json:"verdict"`
	Same    *RangeEvidence `json:"same,omitempty"`
	Other   *RangeEvidence `json:"other,omitempty"`
	// PassedByVote: the vote could judge the counter (it was not
	// undecided) and did not report it; the range flagged it.
	PassedByVote bool `json:"passed_by_vote,omitempty"`
}

// Evidence is the test that decided.
func (d Decided) Evidence() *RangeEvidence {
	if d.Same == nil {
		return d.Other
	}
	return d.Same
}

// DecidedBy is the range decisions of one method's undecided counters.
func (r *Report) DecidedBy(m Method) []Decided { return r.decidedByMethod[m] }

// errNoForkVariance: neither side has two forks, so the between-fork
// variance is unknown and the counter stays undecided.
var errNoForkVariance = errors.New("no two forks on either side")

// DecideByRange decides each method's undecided counters by their
// historical range (the store form's deviation from the seed, see the file
// comment): against the earlier results of the new result's own
// environment when there are any (the models whose SameEnvironment is set;
// history is Detect's, in the same order), a counter whose every fork
// median lies outside their fork medians' range and whose fork means the
// parametric test tells apart at RangeAlpha is flagged, and counts; else
// it is not flagged: the seed's E_3 reading, a value within the range of
// comparable runs is no regression, whatever other environments do. When
// no earlier result shares the environment, the same test against the
// other environments' results flags it as an environment difference,
// which does not count (as MarkEnvironmentDiffers does with the votes'
// flags). A counter that cannot be tested (one fork on both sides) stays
// undecided. The same test runs on the counters the vote tested and did
// not report; there it only adds flags (PassedByVote), since the rules
// may be blind (bins stretched by another environment's outlier).
func (r *Report) DecideByRange(history []Run, current Run, alpha float64) {
	same, other := r.splitByEnvironment(history)
	decisions := map[string]*Decided{}
	decide := func(counter string) *Decided {
		if d, ok := decisions[counter]; ok {
			return d
		}
		d := &Decided{Counter: counter, Verdict: RangeNotFlagged}
		decisions[counter] = d
		// The same environment's results decide; without them, the
		// others' can only say that the environment differs.
		prior, against, verdict, slot := same, againstSame, RangeRegression, &d.Same
		if len(same) == 0 {
			prior, against, verdict, slot = other, againstOther, RangeEnvironment, &d.Other
		}
		ev, err := rangeTest(counter, prior, current, alpha, against)
		if err != nil {
			decisions[counter] = nil
			return nil
		}
		*slot = &ev
		if ev.Flagged {
			d.Verdict = verdict
		}
		return d
	}
	idx := map[string]int{}
	for i, c := range current.Counters {
		idx[c] = i
	}
	for m, undecided := range r.undecidedByMethod {
		var left []Undecided
		var decided []Decided
		flags := r.byMethod[m]
		for _, u := range undecided {
			d := decide(u.Counter)
			if d == nil {
				left = append(left, u)
				continue
			}
			decided = append(decided, *d)
			if d.Verdict == RangeNotFlagged {
				continue
			}
			flags = append(flags, rangeFlag(current, u.Counter, idx[u.Counter], u.Score, u.Votes, u.Change, d))
		}
		// The counters the vote tested and passed: its rules reach them but
		// may be blind, when an earlier result of another environment (a
		// fork slowed by the machine's load) stretched the bins so far that
		// the old and the doubled time share one (run 9 of the real-data
		// evaluation). Only a flag is added; silence stays silence.
		for c, name := range current.Counters {
			if slices.ContainsFunc(flags, func(f Flag) bool { return f.Counter == name }) || slices.ContainsFunc(undecided, func(u Undecided) bool { return u.Counter == name }) {
				continue
			}
			d := decide(name)
			if d == nil || d.Verdict == RangeNotFlagged {
				continue
			}
			pd := *d
			pd.PassedByVote = true
			decided = append(decided, pd)
			score, votes := r.vote(m, name)
			flags = append(flags, rangeFlag(current, name, c, score, votes, d.Evidence().Change, d))
		}
		if left == nil {
			left = []Undecided{}
		}
		r.byMethod[m], r.undecidedByMethod[m] = flags, left
		if r.decidedByMethod == nil {
			r.decidedByMethod = map[Method][]Decided{}
		}
		r.decidedByMethod[m] = decided
	}
	r.Flagged, r.Undecided, r.Decided = r.byMethod[r.Method], r.undecidedByMethod[r.Method], r.decidedByMethod[r.Method]
}

// splitByEnvironment parts history (Detect's, in the models' order) into
// the results of the new result's own environment and the others'.
func (r *Report) splitByEnvironment(history []Run) (same, other []Run) {
	for i, m := range r.Models {
		if i >= len(history) {
			break
		}
		if m.SameEnvironment {
			same = append(same, history[i])
		} else {
			other = append(other, history[i])
		}
	}
	return same, other
}

// rangeFlag is the flag a range decision d raises on counter (column c of
// current), with the vote's score and votes and the change to show.
func rangeFlag(current Run, counter string, c int, score float64, votes int, change *float64, d *Decided) Flag {
	ev := d.Evidence()
	iv := outsideIntervals(current, c, ev)
	return Flag{Counter: counter, Score: score, Votes: votes, Severity: Severity(len(iv), len(current.Intervals)),
		Change: change, Rules: []Violation{}, Correlated: []string{}, Intervals: iv,
		EnvironmentDiffers: d.Verdict == RangeEnvironment, Range: ev}
}

// vote is the score and the votes a counter got from method m's models:
// Σ w_i (stacking) or the fraction of the models (bagging) that flag it;
// the single model's pooled rules did not flag it (0).
func (r *Report) vote(m Method, counter string) (score float64, votes int) {
	if m == Single {
		return 0, 0
	}
	for _, md := range r.Models {
		if slices.Contains(md.Flagged, counter) {
			votes++
			score += md.Weight
		}
	}
	if m == Bagging && len(r.Models) > 0 {
		score = float64(votes) / float64(len(r.Models))
	}
	return score, votes
}

// outsideIntervals are the new run's intervals in which counter c (its
// column in current) lies on ev's side of the historical range.
func outsideIntervals(current Run, c int, ev *RangeEvidence) []int {
	iv := []int{}
	for t, row := range current.Intervals {
		if (ev.Outside == rangeAbove && row[c] > ev.High) || (ev.Outside == rangeBelow && row[c] < ev.Low) {
			iv = append(iv, t)
		}
	}
	return iv
}

// rangeTest tests counter of current against the prior runs.
func rangeTest(counter string, prior []Run, current Run, alpha float64, against string) (RangeEvidence, error) {
	ev := RangeEvidence{Against: against, Results: len(prior)}
	xs := forkSeries(current, counter)
	var ys [][]float64
	for _, r := range prior {
		ys = append(ys, forkSeries(r, counter)...)
	}
	ev.Forks = len(ys)
	if len(xs) == 0 || len(ys) == 0 {
		return ev, fmt.Errorf("counter %s: no samples", counter)
	}
	ev.Low, ev.High = forkMedianRange(ys)
	ev.NewLow, ev.NewHigh = forkMedianRange(xs)
	switch {
	case ev.NewLow > ev.High:
		ev.Outside = rangeAbove
	case ev.NewHigh < ev.Low:
		ev.Outside = rangeBelow
	}
	// A side with one fork borrows the other side's between-fork variance.
	sx, errX := stats.SummarizeRuns(xs, nil)
	sy, errY := stats.SummarizeRuns(ys, nil)
	if err := errors.Join(errX, errY); err != nil {
		return ev, fmt.Errorf("counter %s: %w", counter, err)
	}
	if sx.R < 2 {
		sx, _ = stats.SummarizeRuns(xs, ys)
	}
	if sy.R < 2 {
		sy, _ = stats.SummarizeRuns(ys, xs)
	}
	t, err := stats.ParametricTest(sx, sy, 1, 1)
	if err != nil {
		return ev, fmt.Errorf("counter %s: %w (%w)", counter, errNoForkVariance, err)
	}
	ev.P, ev.DF = t.PTwoSided(), t.DF
	if sy.Mean != 0 {
		c := sx.Mean/sy.Mean - 1
		ev.Change = &c
	}
	ev.Flagged = ev.Outside != "" && ev.P < alpha
	return ev, nil
}

// forkSeries is counter's values in each fork of r (the whole run when
// r.Forks is empty or does not add up); nil when r lacks the counter.
func forkSeries(r Run, counter string) [][]float64 {
	c := slices.Index(r.Counters, counter)
	if c < 0 {
		return nil
	}
	lengths := r.Forks
	if sum(lengths) != len(r.Intervals) {
		lengths = []int{len(r.Intervals)}
	}
	var out [][]float64
	t := 0
	for _, n := range lengths {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.Intervals[t+i][c]
		}
		t += n
		if n > 0 {
			out = append(out, xs)
		}
	}
	return out
}

// forkMedianRange is the lowest and the highest median of the forks.
func forkMedianRange(forks [][]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, xs := range forks {
		m := stats.Median(xs)
		lo, hi = min(lo, m), max(hi, m)
	}
	return lo, hi
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}
