// Package verdict decides SPL comparisons and whole formulas from measured
// samples. Every decision is three-valued and carries its evidence, so a
// user can see why a formula holds, fails, or cannot be decided yet.
//
// The interpretations of seed 004 (quick, parametric, non-parametric) and a
// rank test are in analysis/stats; see docs/statistics.md. `<=` fails when
// the one-sided test rejects mean(L) ≤ mean(R) at α, `==` when the two-sided
// test rejects equality at 2α. What holding means is the Semantics: by
// default the data must also show the relation holds within a margin
// (Shown); seed 004's classic reading (Classic) calls every relation the
// test does not reject satisfied. Neither is a proof.
package verdict

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"gonum.org/v1/gonum/stat/distuv"
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

// Semantics says what "satisfied" means: which outcome a relation gets
// when the test does not reject it.
type Semantics string

const (
	// Shown (the default): satisfied only when the data also show that the
	// relation holds within Options.Delta; violated when the test rejects
	// it; otherwise undecided, with the forks that would decide.
	Shown Semantics = "shown"
	// Classic is seed 004's (Defs. 8–10, L1694–L1727, L1892–L1917,
	// L2036–L2054): satisfied when the test does not reject the relation
	// at α, violated when it does, however little data there is. Strict
	// `<` and `>`, which the seed does not define, are the negation of `>=`
	// and `<=` (as SPL Tools decides them): satisfied when the difference
	// is significant, else violated. Data the test cannot be computed on
	// (fewer than 2 samples, one fork without a run history under
	// parametric) stay undecided.
	Classic Semantics = "classic"
)

// SemanticsNames lists the accepted names, for messages and completion.
var SemanticsNames = []string{string(Shown), string(Classic)}

// ParseSemantics reads a semantics' name; "" is "not chosen" (the next
// setting, else Shown).
func ParseSemantics(name string) (Semantics, error) {
	switch s := Semantics(strings.TrimSpace(name)); s {
	case "", Shown, Classic:
		return s, nil
	}
	return "", fmt.Errorf("unknown semantics %q: use shown (satisfied when the data show the relation holds within 5 %%, the default) or classic (the SPL paper's reading: satisfied unless the test rejects it)", name)
}

// Options configure the tests.
type Options struct {
	// Alpha is the significance level of each test; default 0.05. A check
	// that may add forks and look again spreads its α over the looks and
	// passes the share of one look here.
	Alpha float64
	// Looks is how many looks that α was spread over (0 or 1: one); it is
	// recorded in the evidence so that every output can state the check's
	// level, Alpha × Looks, beside the one look's.
	Looks int
	// Delta is the relative difference that matters: the interval of `=`
	// without an explicit (δ), and the margin within which `<=`, `>=` and
	// `==` must be shown to hold. Default 0.05.
	Delta float64
	// Semantics is what satisfied means; "" is Shown.
	Semantics Semantics
	// RejectAlpha is the level a violation test must reach, when a check
	// decides many comparisons as one family (FamilyLevel, Holm): below
	// Alpha, so that the chance of any false violation across them stays
	// within Alpha. 0 is Alpha. The tests that show a relation holds keep
	// Alpha.
	RejectAlpha float64
	// Interpretation selects the test; Auto is parametric: fork means with
	// the between-fork variance from the forks (≥ 2 per side) or from a run
	// history. Samples are never pooled across forks unless quick or rank
	// is chosen explicitly.
	Interpretation stats.Interpretation
	// Tolerance τ of the quick interpretation: `L <= R` is tested as
	// L ≤p(x, (1+τ)x) R. 0 or negative means none.
	Tolerance float64
	// Bootstrap fixes the non-parametric interpretation (seed, resamples).
	Bootstrap stats.BootstrapConfig
}

// looksOf is opt's looks as the evidence records them: 0 for one.
func looksOf(opt Options) int {
	if opt.Looks > 1 {
		return opt.Looks
	}
	return 0
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 || o.Alpha > 0.5 {
		o.Alpha = DefaultAlpha
	}
	if o.Delta <= 0 {
		o.Delta = DefaultDelta
	}
	if o.Semantics == "" {
		o.Semantics = Shown
	}
	if o.RejectAlpha <= 0 || o.RejectAlpha > o.Alpha {
		o.RejectAlpha = o.Alpha
	}
	return o
}

// DefaultAlpha is the significance level when none is given.
const DefaultAlpha = 0.05

// DefaultDelta is the relative difference that matters when none is given.
const DefaultDelta = 0.05

// Side is one operand of a comparison: the per-operation times (ns) of each
// fork (run), or of another demand (Metric), and the transformation factor.
type Side struct {
	Runs    [][]float64 // Runs[i]: the samples of fork i
	Metric  string      // the demand in Runs (spl.Metrics); "" is wall time
	Scale   float64     // multiplier from `c * term` or a lambda; 0 means 1
	History [][]float64 // optional earlier runs of the same measurement (between-run variance)
	Err     error       // the measurement failed; the comparison is undecided
	// Withheld, when set, says why the measured data cannot decide (forks
	// whose warm-up did not settle and could not be replaced): the
	// comparison is undecided for that reason, not failed, and shows the
	// evidence of the data there are.
	Withheld string

	desc *stats.Described // set by Prepare
}

// Prepare reads the samples once (moments, median, run means) and keeps the
// result in the returned Side, so that the comparisons that share a
// measurement do not read its samples again. Runs must not change afterwards.
func (s Side) Prepare() Side {
	d := stats.Describe(s.Runs)
	s.desc = &d
	return s
}

func (s Side) describe() stats.Described {
	if s.desc != nil {
		return *s.desc
	}
	return stats.Describe(s.Runs)
}

// Forks is the number of non-empty runs.
func (s Side) Forks() int {
	n := 0
	for _, r := range s.Runs {
		if len(r) > 0 {
			n++
		}
	}
	return n
}

func (s Side) pooled() []float64 {
	var out []float64
	for _, r := range s.Runs {
		out = append(out, r...)
	}
	return out
}

// SideEvidence summarises one operand as the user should see it: the
// method's own figures, and the factor the formula applies to them.
type SideEvidence struct {
	// Metric is the demand compared (spl.Metrics), "" for wall time; the
	// mean and median are in its unit (bytes for alloc).
	Metric         string  `json:"metric,omitempty"`
	MeanNs         float64 `json:"mean_ns_per_op"`
	MedianNs       float64 `json:"median_ns_per_op"`
	Scale          float64 `json:"scale"`
	Forks          int     `json:"forks"`
	Samples        int     `json:"samples"`                    // all samples of all forks
	SamplesPerFork int     `json:"samples_per_fork,omitempty"` // the fewest in one fork
	HistoryRuns    int     `json:"history_runs,omitempty"`
}

// Evidence is what a comparison's verdict rests on.
type Evidence struct {
	Left      SideEvidence `json:"left"`
	Right     SideEvidence `json:"right"`
	Ratio     float64      `json:"ratio"` // scaled mean(L) / scaled mean(R)
	RatioLow  float64      `json:"ratio_ci_low"`
	RatioHigh float64      `json:"ratio_ci_high"`
	// RatioLevel is the two-sided confidence of [RatioLow, RatioHigh] at
	// the look that decided: 1 − 2α when the interval holds the ratios the
	// deciding test does not reject at α on either side (so a bound lies
	// beyond 1 exactly when the test shows a difference); each bound is
	// then a one-sided 1 − α bound, and over all Looks a one-sided
	// 1 − α·Looks bound (95 % at the default α = 0.05: docs/statistics.md,
	// "Ratio intervals"). Omitted (0) for the descriptive 95 % interval of
	// untested data, 1 when the ratio is exact.
	RatioLevel float64 `json:"ratio_ci_level,omitempty"`
	// Looks is how many looks the check's α was spread over (a look decides
	// again after adding forks); Alpha is one look's. Omitted for one look.
	Looks int `json:"looks,omitempty"`
	// Interpretation is quick, parametric, nonparametric or rank.
	Interpretation string `json:"interpretation,omitempty"`
	// Semantics is what satisfied meant when this was decided: shown or
	// classic (Semantics); "" in records written before it was recorded,
	// which were decided as shown.
	Semantics string  `json:"semantics,omitempty"`
	Tolerance float64 `json:"tolerance,omitempty"` // quick tolerance τ applied
	Test      string  `json:"test"`
	StatName  string  `json:"statistic_name,omitempty"` // t, U or d (bootstrap: difference of means)
	T         float64 `json:"t"`                        // the statistic (named by StatName)
	DF        float64 `json:"df"`                       // 0 when the test has none
	P         float64 `json:"p"`
	Alpha     float64 `json:"alpha"` // the level P was compared with
	// FamilyAlpha, when set, is the lower level a violation needed because
	// the check decided its comparisons as one family (Holm) and this one's
	// P lay between the two.
	FamilyAlpha float64 `json:"family_alpha,omitempty"`
	Seed        *uint64 `json:"seed,omitempty"`
	Resamples   int     `json:"resamples,omitempty"`
	// Margin is the relative difference within which the relation had to
	// be shown to hold (0: the classic semantics), and PHolds the
	// p-value of that test (satisfied when below Alpha).
	Margin float64 `json:"margin,omitempty"`
	PHolds float64 `json:"p_holds,omitempty"`
	// MoreForks estimates, for an undecided comparison, how many more forks
	// per side would decide it if the observed effect and noise persist;
	// 0 when not estimated.
	MoreForks int `json:"more_forks,omitempty"`
}

// Comparison is the verdict on one comparison.
type Comparison struct {
	Outcome  Outcome
	Evidence Evidence
	Reason   string // why undecided or what failed; empty when decided cleanly
	// Failed is true when a side's error (Side.Err) left it undecided,
	// false when it is undecided for lack of evidence.
	Failed bool
	// PReject is the p-value of the test that would make the comparison
	// violated, scaled so that violated ⇔ PReject < RejectAlpha; NaN when
	// no such test ran (the data could not be tested, or the classic
	// reading of < and >, which needs no evidence to be violated).
	PReject float64
}

// tester runs the chosen interpretation on the scaled sides cl·L, cr·R.
type tester func(cl, cr float64) (stats.Test, error)

// comparer decides one comparison: the chosen test, the scale factors, the
// margin, and the evidence gathered so far.
type comparer struct {
	opt      Options
	ev       Evidence
	test     tester
	cl, cr   float64 // the formula's factors
	tol, up  float64 // the quick tolerance τ, and 1 + τ
	margin   float64 // δ: within it a relation must be shown to hold
	minForks int
	pReject  float64 // Comparison.PReject
	family   string  // why a violation alone at Alpha was not one of the family
}

// Compare decides `left op right`. delta is the explicit interval of `=(δ)`,
// or nil for the default. A side's Withheld reason leaves it undecided,
// with the evidence its data give.
func Compare(op spl.CmpOp, left, right Side, delta *float64, opt Options) Comparison {
	c := compare(op, left, right, delta, opt)
	if (left.Withheld != "" || right.Withheld != "") && !c.Failed {
		c.Outcome, c.Reason, c.Evidence.MoreForks = Undecided, joinReasons(left.Withheld, right.Withheld), 0
	}
	return c
}

func compare(op spl.CmpOp, left, right Side, delta *float64, opt Options) Comparison {
	opt = opt.withDefaults()
	if left.Err != nil || right.Err != nil {
		return Comparison{Reason: joinReasons(errText(left.Err), errText(right.Err)), Failed: true, Evidence: Evidence{Semantics: string(opt.Semantics)}}
	}
	if lu, ru := spl.MetricUnit(left.Metric), spl.MetricUnit(right.Metric); lu != ru {
		return Comparison{Reason: fmt.Sprintf("the sides measure different units (%s and %s): compare the same metric on both", lu, ru), Failed: true, Evidence: Evidence{Semantics: string(opt.Semantics)}}
	}
	c, stop := newComparer(left, right, opt)
	if stop != nil {
		return *stop
	}
	c.ratioInterval()
	c.margin = opt.Delta
	if op == spl.EQI && delta != nil {
		c.margin = *delta
	}
	var out Comparison
	switch op {
	case spl.LE, spl.GE:
		out = c.atMost(op)
	case spl.LT, spl.GT:
		out = c.strict(op)
	case spl.EQ, spl.EQI:
		out = c.equal(op)
	default:
		return c.undecided(fmt.Sprintf("comparison %v is not supported", op))
	}
	if c.tol > 0 && out.Outcome != Undecided {
		out.Evidence.Test += fmt.Sprintf(", tolerance %g%%", 100*c.tol)
	}
	return out
}

// newComparer picks the interpretation's test and fills in the evidence
// every outcome shows; stop is the answer when the data cannot be tested.
func newComparer(left, right Side, opt Options) (c *comparer, stop *Comparison) {
	ld, rd := left.describe(), right.describe()
	lraw, rraw := ld.Pooled, rd.Pooled
	c = &comparer{opt: opt, cl: scaleOf(left), cr: scaleOf(right), up: 1, minForks: min(left.Forks(), right.Forks()), pReject: math.NaN()}
	cl, cr := c.cl, c.cr
	interp := opt.Interpretation
	if interp == stats.Auto {
		interp = stats.Parametric
	}
	if interp == stats.Quick && opt.Tolerance > 0 {
		c.tol, c.up = opt.Tolerance, 1+opt.Tolerance
	}
	// No test has run yet: t, df and p are undefined (null in JSON, "n/a"
	// in text) until one does — a comparison halted for lack of samples
	// must not read as p = 0.
	c.ev = Evidence{Left: sideEvidence(lraw, left), Right: sideEvidence(rraw, right), Alpha: opt.Alpha,
		Looks: looksOf(opt), Interpretation: string(interp), Semantics: string(opt.Semantics), Tolerance: c.tol,
		T: math.NaN(), DF: math.NaN(), P: math.NaN()}
	c.ev.Ratio, c.ev.RatioLow, c.ev.RatioHigh = stats.RatioCI(lraw.Scale(cl), rraw.Scale(cr), 0.95)
	halt := func(reason string) (*comparer, *Comparison) {
		r := c.undecided(reason)
		return nil, &r
	}
	if lraw.N < 2 || rraw.N < 2 {
		return halt(fmt.Sprintf("too few samples to test (%d and %d; need at least 2 each)", lraw.N, rraw.N))
	}
	switch interp {
	case stats.Quick:
		c.test = func(a, b float64) (stats.Test, error) { return stats.QuickTest(lraw, rraw, a, b) }
	case stats.Parametric:
		ls, err1 := ld.Runs(left.Runs, left.History)
		rs, err2 := rd.Runs(right.Runs, right.History)
		if err := errors.Join(err1, err2); err != nil {
			return halt(err.Error())
		}
		if math.IsNaN(ls.R2) || math.IsNaN(rs.R2) {
			c.ev.Test = "parametric mean-value test"
			c.ev.MoreForks = 2 - c.minForks
			return halt(fmt.Sprintf("parametric needs ≥ 2 forks per side or a run history (have %d and %d forks): the between-fork variance is unknown", ls.R, rs.R))
		}
		c.ev.Left.SamplesPerFork, c.ev.Right.SamplesPerFork = ls.O, rs.O
		se2l := cl * cl * (ls.R2/float64(ls.R) + ls.S2/float64(ls.R*ls.O))
		se2r := cr * cr * (rs.R2/float64(rs.R) + rs.S2/float64(rs.R*rs.O))
		c.ev.Ratio, c.ev.RatioLow, c.ev.RatioHigh = stats.RatioCISE(cl*ls.Mean, se2l, cr*rs.Mean, se2r, 0.95)
		c.test = func(a, b float64) (stats.Test, error) { return stats.ParametricTest(ls, rs, a, b) }
	case stats.NonParametric:
		lb, err1 := stats.Bootstrap(left.Runs, left.History, opt.Bootstrap, 1)
		rb, err2 := stats.Bootstrap(right.Runs, right.History, opt.Bootstrap, 2)
		if err := errors.Join(err1, err2); err != nil {
			return halt(err.Error())
		}
		seed := lb.Config.Seed
		c.ev.Seed, c.ev.Resamples = &seed, lb.Config.Resamples
		c.ev.Ratio, c.ev.RatioLow, c.ev.RatioHigh = stats.RatioCISE(cl*lb.Mean, cl*cl*stats.Var(lb.Dev), cr*rb.Mean, cr*cr*stats.Var(rb.Dev), 0.95)
		c.test = func(a, b float64) (stats.Test, error) { return stats.BootstrapTest(lb, rb, a, b) }
	case stats.Rank:
		lp, rp := left.pooled(), right.pooled()
		c.test = func(a, b float64) (stats.Test, error) { return stats.RankTest(lp, rp, a, b) }
	default:
		return halt(fmt.Sprintf("unknown interpretation %q", interp))
	}
	return c, nil
}

// ratioInterval replaces the evidence's ratio interval by the one the
// deciding test implies: the ratios ρ for which the test of cl·L against
// ρ·cr·R rejects neither side at α. So the ratio shown and the verdict
// never disagree: `<=` is shown to hold within δ exactly when the upper
// bound lies below 1 + δ, and violated when the lower bound lies above 1
// (+τ). Bounds the test cannot reach within a factor of 2⁴⁰ are 0 and +Inf.
func (c *comparer) ratioInterval() {
	r := c.ev.Ratio
	if !(r > 0) || math.IsInf(r, 0) {
		return
	}
	alpha := c.opt.Alpha
	// lessShown(ρ): L < ρ·R is shown (PLess ≤ α), which more ρ makes likelier.
	lessShown := func(rho float64) bool {
		t, err := c.test(c.cl, rho*c.cr)
		return err == nil && t.PLess <= alpha
	}
	greaterShown := func(rho float64) bool {
		t, err := c.test(c.cl, rho*c.cr)
		return err == nil && t.PGreater <= alpha
	}
	c.ev.RatioHigh = boundary(r, 2, lessShown)
	c.ev.RatioLow = boundary(r, 0.5, greaterShown)
	c.ev.RatioLevel = 1 - 2*alpha
}

// boundary finds where shown turns from false to true when ρ moves from
// start by factors of step, then narrows it to 1 part in 10⁶ by bisection
// on log ρ; the limit (0 or +Inf) when shown never turns within 40 steps.
func boundary(start, step float64, shown func(float64) bool) float64 {
	in, out := start, start
	if shown(start) {
		// Already shown at the estimate: the bound lies beyond, towards it.
		return start
	}
	found := false
	for i := 0; i < 40; i++ {
		out = in * step
		if shown(out) {
			found = true
			break
		}
		in = out
	}
	if !found {
		if step > 1 {
			return math.Inf(1)
		}
		return 0
	}
	for i := 0; i < 60 && math.Abs(math.Log(out/in)) > 1e-6; i++ {
		mid := math.Sqrt(in * out)
		if shown(mid) {
			out = mid
		} else {
			in = mid
		}
	}
	return out
}

func (c *comparer) undecided(reason string) Comparison {
	if c.ev.Test == "" {
		c.ev.Test = c.ev.Interpretation
	}
	if c.family != "" {
		reason = c.family + "; " + reason
	}
	return Comparison{Evidence: c.ev, Reason: reason, PReject: c.pReject}
}

// rejects says whether a violation test's p-value (scaled as PReject)
// shows the violation at the family's level; when it would alone (at
// Alpha) but not across the family, the comparison's reason says so.
func (c *comparer) rejects(p float64) bool {
	if p < c.opt.RejectAlpha {
		return true
	}
	if p < c.opt.Alpha {
		c.family = fmt.Sprintf("a violation at α = %.3g alone (p = %.3g), not across the check's comparisons (Holm: p < %.3g needed)", c.opt.Alpha, p, c.opt.RejectAlpha)
		c.ev.FamilyAlpha = c.opt.RejectAlpha
	}
	return false
}

// run tests cl·L against cr·R scaled by a and b; on error the comparison
// is undecided with the reason.
func (c *comparer) run(a, b float64) (stats.Test, *Comparison) {
	t, err := c.test(a, b)
	if err != nil {
		r := c.undecided(fmt.Sprintf("cannot test: %v", err))
		return t, &r
	}
	return t, nil
}

// record puts the test that decides into the evidence.
func (c *comparer) record(t stats.Test, kind string) {
	c.ev.Test, c.ev.StatName, c.ev.T, c.ev.DF = t.Name+kind, t.StatName, t.Statistic, t.DF
	if math.IsNaN(c.ev.DF) {
		c.ev.DF = 0
	}
}

func (c *comparer) decided(o Outcome) Comparison {
	return Comparison{Outcome: o, Evidence: c.ev, Reason: c.family, PReject: c.pReject}
}

// atMost decides `L <= R` (and `L >= R` mirrored): violated when
// E[cl·L] > E[(1+τ)·cr·R] is shown; satisfied when E[cl·L] < E[(1+δ)·cr·R]
// is shown too.
func (c *comparer) atMost(op spl.CmpOp) Comparison {
	cl, cr := c.cl, c.cr
	a, b, bad := cl, cr*c.up, func(t stats.Test) float64 { return t.PGreater }
	if op == spl.GE {
		a, b, bad = cl*c.up, cr, func(t stats.Test) float64 { return t.PLess }
	}
	t, stop := c.run(a, b)
	if stop != nil {
		return *stop
	}
	c.record(t, ", one-sided")
	c.ev.P = bad(t)
	c.pReject = c.ev.P
	if c.rejects(c.ev.P) {
		return c.decided(Violated)
	}
	if op == spl.LE {
		return c.shown(cl, cr*(1+c.margin), true, t, nil)
	}
	neg := t
	neg.Z = -t.Z
	return c.shown(cl*(1+c.margin), cr, false, neg, nil)
}

// strict decides `L < R` and `L > R`, which need positive evidence of the
// difference. Under the classic semantics, where `L >= R` holds unless
// rejected, `L < R` is its negation: violated without that evidence.
func (c *comparer) strict(op spl.CmpOp) Comparison {
	t, stop := c.run(c.cl, c.cr)
	if stop != nil {
		return *stop
	}
	c.record(t, ", one-sided")
	pFor, pAgainst := t.PLess, t.PGreater
	if op == spl.GT {
		pFor, pAgainst = pAgainst, pFor
	}
	c.ev.P = pFor
	switch {
	case pFor < c.opt.Alpha:
		return c.decided(Satisfied)
	case c.opt.Semantics == Classic:
		return c.decided(Violated)
	}
	if c.pReject = pAgainst; c.rejects(pAgainst) {
		return c.decided(Violated)
	}
	c.ev.MoreForks = moreForks(t.Z, c.opt.Alpha, c.minForks)
	msg := fmt.Sprintf("difference not significant (p = %.3g ≥ α = %.3g)", pFor, c.opt.Alpha)
	if c.ev.MoreForks > 0 {
		msg += fmt.Sprintf("; about %d more forks per side would decide it at the observed effect and noise", c.ev.MoreForks)
	} else if t.Z == 0 {
		msg += "; no observed difference, so more forks are unlikely to decide it"
	}
	return c.undecided(msg)
}

// equal decides `L == R` (two-sided at 2α, seed 004 Def. 8, so its
// false-alarm rate is 2α; with a tolerance L ≤p(x,(1+τ)x) R and
// R ≤p(x,(1+τ)x) L) and `L =(δ) R` (L(1−δ) ≤ R(1+δ) and L(1+δ) ≥ R(1−δ),
// SPL Tools' interval equality, anchors-perf §1.6). Satisfied when
// equivalence within the margin is shown by two one-sided tests (TOST).
func (c *comparer) equal(op spl.CmpOp) Comparison {
	cl, cr, d := c.cl, c.cr, c.margin
	ga, gb, la, lb := cl, cr*c.up, cl*c.up, cr
	if op == spl.EQI {
		ga, gb, la, lb = cl*(1-d), cr*(1+d), cl*(1+d), cr*(1-d)
	}
	tg, stop := c.run(ga, gb)
	if stop != nil {
		return *stop
	}
	tl, stop := c.run(la, lb)
	if stop != nil {
		return *stop
	}
	t := tg
	if tl.PLess < tg.PGreater {
		t = tl
	}
	if op == spl.EQ {
		c.record(t, ", two-sided")
		c.ev.Alpha = 2 * c.opt.Alpha
		c.ev.P = math.Min(1, 2*math.Min(tg.PGreater, tl.PLess))
		c.pReject = c.ev.P / 2
	} else {
		c.record(t, fmt.Sprintf(", equality within ±%g%%", 100*d))
		c.ev.P = math.Min(tg.PGreater, tl.PLess)
		c.pReject = c.ev.P
	}
	if c.rejects(c.pReject) {
		return c.decided(Violated)
	}
	hiA, hiB, loA, loB := cl, cr*(1+d), cl*(1+d), cr
	if op == spl.EQI {
		hiA, hiB, loA, loB = cl*(1-d), cr*(1+d), cl*(1+d), cr*(1-d)
	}
	return c.shown(hiA, hiB, true, t, func() Comparison {
		hold := c.ev.PHolds
		r := c.shown(loA, loB, false, t, nil)
		r.Evidence.PHolds = math.Max(hold, r.Evidence.PHolds)
		return r
	})
}

// shown tests that the relation holds within the margin: satisfied when
// the p-value of that test (PLess when less, else PGreater) is below α —
// then next, if given, decides the rest. v is the violation test, for the
// estimate of the forks that would decide. The classic semantics skips it.
func (c *comparer) shown(a, b float64, less bool, v stats.Test, next func() Comparison) Comparison {
	if c.opt.Semantics == Classic {
		return c.decided(Satisfied)
	}
	t, stop := c.run(a, b)
	if stop != nil {
		return *stop
	}
	c.ev.Margin = c.margin
	c.ev.PHolds = t.PGreater
	if less {
		c.ev.PHolds = t.PLess
	}
	if c.ev.PHolds < c.opt.Alpha {
		if next != nil {
			return next()
		}
		return c.decided(Satisfied)
	}
	// More data moves the one test towards significance whose statistic
	// already points the right way.
	zh, zv := t.Z, v.Z
	if !less {
		zh = -zh
	}
	alpha, forks := c.opt.Alpha, c.minForks
	switch {
	case zh < 0 && (zv <= 0 || moreForks(zh, alpha, forks) <= moreForks(zv, alpha, forks)):
		c.ev.MoreForks = moreForks(zh, alpha, forks)
	case zv > 0:
		c.ev.MoreForks = moreForks(zv, alpha, forks)
	}
	msg := fmt.Sprintf("not violated, but not shown to hold within %g%% either (p = %.3g ≥ α = %.3g)", 100*c.margin, c.ev.PHolds, alpha)
	if c.ev.MoreForks > 0 {
		msg += fmt.Sprintf("; about %d more forks per side would decide it at the observed effect and noise", c.ev.MoreForks)
	}
	return c.undecided(msg)
}

// moreForks estimates the additional forks per side after which a test
// statistic z (which grows like √forks at a fixed effect and noise) reaches
// the one-sided critical value z_{1−α}. 0 when z is 0 or not finite.
func moreForks(z, alpha float64, forks int) int {
	if z == 0 || math.IsNaN(z) || math.IsInf(z, 0) || forks < 1 {
		return 0
	}
	crit := distuv.UnitNormal.Quantile(1 - alpha)
	need := math.Ceil(float64(forks) * (crit / z) * (crit / z))
	if need > 1e6 {
		need = 1e6
	}
	return max(1, int(need)-forks)
}

func scaleOf(s Side) float64 {
	if s.Scale == 0 {
		return 1
	}
	return s.Scale
}

func sideEvidence(s stats.Summary, side Side) SideEvidence {
	e := SideEvidence{MeanNs: s.Mean, MedianNs: s.Median, Scale: scaleOf(side), Forks: side.Forks(), Samples: s.N, HistoryRuns: len(side.History), Metric: side.Metric}
	for _, r := range side.Runs {
		if len(r) > 0 && (e.SamplesPerFork == 0 || len(r) < e.SamplesPerFork) {
			e.SamplesPerFork = len(r)
		}
	}
	return e
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// joinReasons says what is wrong with the left side (a) and the right (b),
// either of which may be empty.
func joinReasons(a, b string) string {
	switch {
	case a != "" && b != "":
		return fmt.Sprintf("left side: %s; right side: %s", a, b)
	case a != "":
		return "left side: " + a
	default:
		return "right side: " + b
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
