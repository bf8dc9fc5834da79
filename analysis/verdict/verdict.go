// Package verdict decides SPL comparisons and whole formulas from measured
// samples. Every decision is three-valued and carries its evidence, so a
// user can see why a formula holds, fails, or cannot be decided yet.
//
// This is the quick mean-value interpretation of seed 004 (Def. 8): samples
// of all forks are pooled and compared with Welch's t-test; `<=` fails when
// the one-sided test rejects mean(L) ≤ mean(R) at α, `==` when the two-sided
// test rejects equality at 2α. A formula that holds means "no significant
// evidence against", never "proven".
package verdict

import (
	"fmt"
	"math"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
)

// Outcome is the three-valued result of a comparison or formula.
type Outcome int

const (
	Undecided Outcome = iota
	Satisfied
	Violated
)

func (o Outcome) String() string {
	switch o {
	case Satisfied:
		return "satisfied"
	case Violated:
		return "violated"
	default:
		return "undecided"
	}
}

// MarshalText makes Outcome readable in JSON records.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText parses what MarshalText wrote.
func (o *Outcome) UnmarshalText(b []byte) error {
	switch string(b) {
	case "satisfied":
		*o = Satisfied
	case "violated":
		*o = Violated
	case "undecided":
		*o = Undecided
	default:
		return fmt.Errorf("unknown outcome %q", b)
	}
	return nil
}

// Options configure the tests.
type Options struct {
	Alpha float64 // significance level; default 0.05
	Delta float64 // relative interval for `=` without an explicit (δ); default 0.05
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 || o.Alpha > 0.5 {
		o.Alpha = 0.05
	}
	if o.Delta <= 0 {
		o.Delta = 0.05
	}
	return o
}

// Side is one operand of a comparison: the per-operation times of all its
// samples (nanoseconds), pooled over forks, and the transformation factor.
type Side struct {
	Samples []float64
	Forks   int
	Scale   float64 // multiplier from `c * term` or a lambda; 0 means 1
	Err     error   // the measurement failed; the comparison is undecided
}

// SideEvidence summarises one operand as the user should see it: the
// method's own figures, and the factor the formula applies to them.
type SideEvidence struct {
	MeanNs   float64 `json:"mean_ns_per_op"`
	MedianNs float64 `json:"median_ns_per_op"`
	Scale    float64 `json:"scale"`
	Forks    int     `json:"forks"`
	Samples  int     `json:"samples"`
}

// Evidence is what a comparison's verdict rests on.
type Evidence struct {
	Left      SideEvidence `json:"left"`
	Right     SideEvidence `json:"right"`
	Ratio     float64      `json:"ratio"` // scaled mean(L) / scaled mean(R)
	RatioLow  float64      `json:"ratio_ci_low"`
	RatioHigh float64      `json:"ratio_ci_high"`
	Test      string       `json:"test"`
	T         float64      `json:"t"`
	DF        float64      `json:"df"`
	P         float64      `json:"p"`
	Alpha     float64      `json:"alpha"` // the level P was compared with
}

// Comparison is the verdict on one comparison.
type Comparison struct {
	Outcome  Outcome
	Evidence Evidence
	Reason   string // why undecided or what failed; empty when decided cleanly
}

// Compare decides `left op right`. delta is the explicit interval of `=(δ)`,
// or nil for the default.
func Compare(op spl.CmpOp, left, right Side, delta *float64, opt Options) Comparison {
	opt = opt.withDefaults()
	if left.Err != nil || right.Err != nil {
		return Comparison{Reason: joinErrs(left.Err, right.Err)}
	}
	lraw, rraw := stats.Summarize(left.Samples), stats.Summarize(right.Samples)
	l, r := lraw.Scale(scaleOf(left)), rraw.Scale(scaleOf(right))
	ev := Evidence{
		Left:  sideEvidence(lraw, left),
		Right: sideEvidence(rraw, right),
		Alpha: opt.Alpha,
		Test:  "Welch t-test, pooled samples",
	}
	ev.Ratio, ev.RatioLow, ev.RatioHigh = stats.RatioCI(l, r, 0.95)
	if l.N < 2 || r.N < 2 {
		return Comparison{Evidence: ev, Reason: fmt.Sprintf("too few samples to test (%d and %d; need at least 2 each)", l.N, r.N)}
	}
	w, _ := stats.Welch(l, r) // both N ≥ 2
	ev.T, ev.DF = w.T, w.DF

	var out Outcome
	switch op {
	case spl.LE:
		ev.Test += ", one-sided"
		ev.P = w.PGreater
		out = decideHolds(ev.P, opt.Alpha)
	case spl.GE:
		ev.Test += ", one-sided"
		ev.P = w.PLess
		out = decideHolds(ev.P, opt.Alpha)
	case spl.LT, spl.GT:
		// Strict comparisons need positive evidence of the difference.
		ev.Test += ", one-sided"
		pFor, pAgainst := w.PLess, w.PGreater
		if op == spl.GT {
			pFor, pAgainst = pAgainst, pFor
		}
		ev.P = pFor
		switch {
		case pFor < opt.Alpha:
			out = Satisfied
		case pAgainst < opt.Alpha:
			out = Violated
		default:
			return Comparison{Evidence: ev, Reason: fmt.Sprintf("difference not significant (p = %.3g ≥ α = %g)", pFor, opt.Alpha)}
		}
	case spl.EQ:
		// Two-sided at 2α (seed 004 Def. 8), so its false-alarm rate is 2α.
		ev.Test += ", two-sided"
		ev.Alpha = 2 * opt.Alpha
		ev.P = w.PTwoSided
		out = decideHolds(ev.P, ev.Alpha)
	case spl.EQI:
		d := opt.Delta
		if delta != nil {
			d = *delta
		}
		// L(1−δ) ≤ R(1+δ) and L(1+δ) ≥ R(1−δ): two one-sided tests.
		lo, _ := stats.Welch(l.Scale(1-d), r.Scale(1+d))
		hi, _ := stats.Welch(l.Scale(1+d), r.Scale(1-d))
		ev.Test += fmt.Sprintf(", equality within ±%g%%", 100*d)
		ev.P = math.Min(lo.PGreater, hi.PLess)
		out = decideHolds(ev.P, opt.Alpha)
	default:
		return Comparison{Evidence: ev, Reason: fmt.Sprintf("comparison %v is not supported", op)}
	}
	return Comparison{Outcome: out, Evidence: ev}
}

// decideHolds: the relation holds unless the data reject it.
func decideHolds(p, alpha float64) Outcome {
	if p < alpha {
		return Violated
	}
	return Satisfied
}

func scaleOf(s Side) float64 {
	if s.Scale == 0 {
		return 1
	}
	return s.Scale
}

func sideEvidence(s stats.Summary, side Side) SideEvidence {
	return SideEvidence{MeanNs: s.Mean, MedianNs: s.Median, Scale: scaleOf(side), Forks: side.Forks, Samples: s.N}
}

func joinErrs(a, b error) string {
	switch {
	case a != nil && b != nil:
		return fmt.Sprintf("left side: %v; right side: %v", a, b)
	case a != nil:
		return fmt.Sprintf("left side: %v", a)
	default:
		return fmt.Sprintf("right side: %v", b)
	}
}

// Combine evaluates a formula body with Kleene's three-valued logic, given the
// outcome of each comparison.
func Combine(e spl.Expr, outcomeOf func(*spl.Comparison) Outcome) Outcome {
	switch e := e.(type) {
	case *spl.Comparison:
		return outcomeOf(e)
	case *spl.Logic:
		x, y := Combine(e.X, outcomeOf), Combine(e.Y, outcomeOf)
		switch e.Op {
		case spl.And:
			return and(x, y)
		case spl.Or:
			return not(and(not(x), not(y)))
		case spl.Implies:
			return not(and(x, not(y)))
		}
	case *spl.Paren:
		return Combine(e.X, outcomeOf)
	}
	return Undecided
}

func not(o Outcome) Outcome {
	switch o {
	case Satisfied:
		return Violated
	case Violated:
		return Satisfied
	}
	return Undecided
}

func and(x, y Outcome) Outcome {
	switch {
	case x == Violated || y == Violated:
		return Violated
	case x == Satisfied && y == Satisfied:
		return Satisfied
	}
	return Undecided
}
