package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file holds the sample-based interpretations of SPL (seed 004 §3):
// quick (pooled Welch), parametric (run means with between-run variance),
// non-parametric (two-level bootstrap) and a rank test (Mann-Whitney U).
//
// Every interpretation reduces to a Test: two one-sided p-values for the
// scaled sides cx·X and cy·Y. The relations are then decided uniformly:
//
//	X ≤p Y  fails  ⇔  PGreater < α                 (one-sided at α)
//	X =p Y  fails  ⇔  min(PGreater, PLess) < α     (two-sided at 2α)
//
// which is exactly the paper's "t ≤ t_{1−α}" and "|t| ≤ t_{1−α}" (and the
// z and bootstrap-CDF analogues), so the duality axiom (5) holds by
// construction. Scales are the linear transformations x → c·x applied to
// every observation of a side.

// Test is the outcome of one interpretation's test of cx·X against cy·Y.
type Test struct {
	Name      string  // e.g. "Welch t-test, pooled samples"
	StatName  string  // "t", "U" or "d" (bootstrap: observed difference of scaled means)
	Statistic float64 // the value of StatName
	DF        float64 // degrees of freedom; NaN when the test has none
	// PGreater is the one-sided p-value of H0: E[cx·X] ≤ E[cy·Y] against
	// E[cx·X] > E[cy·Y]; PLess the mirror image.
	PGreater, PLess float64
	// Z is the statistic on a standard scale (signed, positive when X is
	// larger), used to estimate how much more data would decide a test.
	Z float64
}

// PTwoSided is the two-sided p-value, 2·min(PGreater, PLess) capped at 1.
func (t Test) PTwoSided() float64 { return math.Min(1, 2*math.Min(t.PGreater, t.PLess)) }

// Interpretation names an SPL interpretation.
type Interpretation string

const (
	Auto          Interpretation = ""              // the default: parametric
	Quick         Interpretation = "quick"         // Welch t-test on pooled samples
	Parametric    Interpretation = "parametric"    // run means, between-run variance, normal model
	NonParametric Interpretation = "nonparametric" // two-level bootstrap of run means
	Rank          Interpretation = "rank"          // Mann-Whitney U on pooled samples
)

// ParseInterpretation reads a command-line name; "" and "auto" are Auto.
func ParseInterpretation(s string) (Interpretation, error) {
	switch Interpretation(s) {
	case Quick, Parametric, NonParametric, Rank:
		return Interpretation(s), nil
	case Auto, "auto":
		return Auto, nil
	}
	return "", fmt.Errorf("unknown interpretation %q (want quick, parametric, nonparametric or rank)", s)
}

// ---------------------------------------------------------------------------
// Quick mean-value interpretation.

// QuickTest is Welch's t-test on the pooled summaries, scaled by cx and cy
// (mean × c, variance × c²).
func QuickTest(x, y Summary, cx, cy float64) (Test, error) {
	w, err := Welch(x.Scale(cx), y.Scale(cy))
	if err != nil {
		return Test{}, err
	}
	return Test{Name: "Welch t-test, pooled samples", StatName: "t", Statistic: w.T, DF: w.DF,
		PGreater: w.PGreater, PLess: w.PLess, Z: w.T}, nil
}

// ---------------------------------------------------------------------------
// Parametric mean-value interpretation.

// RunSummary describes the runs (forks) of one side for the parametric
// interpretation. Every run is truncated to the smallest run length O, as
// the model needs equal observations per run (seed 004 §3.5).
type RunSummary struct {
	R, O      int       // runs and observations per run (after truncation)
	Truncated bool      // some runs were longer than O and were cut
	RunMeans  []float64 // M̄_i
	Mean      float64   // M̄ = mean of run means
	S2        float64   // average within-run variance (n−1 each)
	R2        float64   // variance of run means (r−1); NaN when R < 2
	R2DF      float64   // degrees of freedom of R2 (R−1, or history runs − 1)
	FromHist  bool      // R2 comes from a run history
}

// ErrNoRuns reports a side without usable runs.
var ErrNoRuns = errors.New("no runs with at least 2 observations")

// SummarizeRuns computes a RunSummary. Runs with fewer than 2 observations
// are ignored. history, when it has at least 2 runs, supplies R² (the
// variance of run means) as the paper's evaluation does (L2500–L2504).
func SummarizeRuns(runs [][]float64, history [][]float64) (RunSummary, error) {
	var rs RunSummary
	o := -1
	for _, r := range runs {
		if len(r) < 2 {
			continue
		}
		if o < 0 || len(r) < o {
			o = len(r)
		}
	}
	if o < 0 {
		return rs, ErrNoRuns
	}
	rs.O = o
	var s2 float64
	for _, r := range runs {
		if len(r) < 2 {
			continue
		}
		if len(r) > o {
			rs.Truncated = true
		}
		m, v := meanVar(r[:o])
		rs.RunMeans = append(rs.RunMeans, m)
		s2 += v
	}
	rs.R = len(rs.RunMeans)
	rs.S2 = s2 / float64(rs.R)
	rs.Mean, rs.R2 = meanVar(rs.RunMeans)
	rs.R2DF = float64(rs.R - 1)
	if rs.R < 2 {
		rs.R2 = math.NaN()
	}
	if len(history) > 0 {
		var hm []float64
		for _, r := range history {
			if len(r) > 0 {
				m, _ := meanVar(r)
				hm = append(hm, m)
			}
		}
		if len(hm) >= 2 {
			_, rs.R2 = meanVar(hm)
			rs.R2DF = float64(len(hm) - 1)
			rs.FromHist = true
		}
	}
	return rs, nil
}

// meanVar is the mean and unbiased variance (0 for fewer than 2 values),
// computed with a compensated two-pass sum.
func meanVar(xs []float64) (mean, variance float64) {
	if len(xs) == 0 {
		return math.NaN(), 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	mean = s / float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss, c float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
		c += d
	}
	n := float64(len(xs))
	return mean, (ss - c*c/n) / (n - 1)
}

// ErrNoRunVariance reports a side whose between-run variance is unknown.
var ErrNoRunVariance = errors.New("one run and no run history: the between-run variance is unknown")

// ParametricTest is Def. 9 of seed 004: with D² = R_X²/r_X + S_X²/(r_X o_X)
// + R_Y²/r_Y + S_Y²/(r_Y o_Y) on the scaled observations, X ≤p Y fails when
// X̄ − Ȳ > q·D.
//
// The paper takes q = z_{1−α}. With the few forks perfls measures (3–10) a
// normal quantile on an R² estimated from r−1 degrees of freedom rejects far
// more often than α, so we use Student's t with Welch–Satterthwaite degrees
// of freedom computed from the R² terms (r−1 each, or history runs − 1);
// it converges to the paper's z test as r grows. Reported as StatName "t".
func ParametricTest(x, y RunSummary, cx, cy float64) (Test, error) {
	if x.R == 0 || y.R == 0 {
		return Test{}, ErrNoRuns
	}
	if math.IsNaN(x.R2) || math.IsNaN(y.R2) {
		return Test{}, ErrNoRunVariance
	}
	ax := cx * cx * (x.R2/float64(x.R) + x.S2/float64(x.R*x.O))
	ay := cy * cy * (y.R2/float64(y.R) + y.S2/float64(y.R*y.O))
	d2 := ax + ay
	diff := cx*x.Mean - cy*y.Mean
	t := Test{Name: "parametric mean-value test (run means, between-run variance)", StatName: "t"}
	if d2 == 0 {
		t.Statistic = signInf(diff)
		t.DF = x.R2DF + y.R2DF
	} else {
		t.Statistic = diff / math.Sqrt(d2)
		t.DF = d2 * d2 / (ax*ax/x.R2DF + ay*ay/y.R2DF)
		if math.IsNaN(t.DF) || t.DF < 1 {
			t.DF = math.Max(1, math.Min(x.R2DF, y.R2DF))
		}
	}
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: t.DF}
	t.PGreater, t.PLess = dist.Survival(t.Statistic), dist.CDF(t.Statistic)
	t.Z = t.Statistic
	return t, nil
}

func signInf(d float64) float64 {
	switch {
	case d > 0:
		return math.Inf(1)
	case d < 0:
		return math.Inf(-1)
	}
	return 0
}

// ---------------------------------------------------------------------------
// Non-parametric mean-value interpretation.

// BootstrapConfig fixes the two-level bootstrap. The zero value gives the
// defaults; Seed 0 is a valid seed, so results are reproducible by default.
type BootstrapConfig struct {
	Seed      uint64 // PCG seed; recorded in the evidence
	Resamples int    // Monte-Carlo replicates of the mean of run means; default 10,000
	Inner     int    // within-run bootstrap means drawn per run; default 100
}

func (c BootstrapConfig) withDefaults() BootstrapConfig {
	if c.Resamples <= 0 {
		c.Resamples = 10000
	}
	if c.Inner <= 0 {
		c.Inner = 100
	}
	return c
}

// BootDist is the centred bootstrap distribution of one side's mean of run
// means: Dev[k] = X̄*_k − X̄. It is linear in the observations, so a scale c
// multiplies it by c.
type BootDist struct {
	Mean   float64   // mean of the compared runs' means (X̄)
	R      int       // runs in the compared statistic
	Dev    []float64 // centred replicates, len = Resamples
	Config BootstrapConfig
	Pool   int // runs resampled from (the compared runs or the history)
}

// Bootstrap builds a side's bootstrap distribution (seed 004 §3.6, L1982–
// L2033): level 1 resamples observations within a run (Inner replicate means
// per run, each from o draws with replacement); level 2 draws r runs with
// replacement and takes the mean of one within-run replicate of each. The
// pool of runs is history when it is given (the paper's X "similar methods,
// e.g. historical versions"), else the compared runs; either way r is the
// number of compared runs (the spread of the tested statistic).
//
// With a pool of p ≥ 2 runs the run-level deviations are inflated by
// sqrt(p/(p−1)), the usual small-sample correction of the bootstrap
// variance (ours; the paper's runs are many). With one run the between-run
// variance is not captured at all, which the caller must report.
// stream separates the random streams of two sides sharing one seed.
func Bootstrap(runs, history [][]float64, cfg BootstrapConfig, stream uint64) (*BootDist, error) {
	cfg = cfg.withDefaults()
	compared := nonEmpty(runs)
	if len(compared) == 0 {
		return nil, ErrNoRuns
	}
	pool := compared
	if h := nonEmpty(history); len(h) >= 2 {
		pool = h
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15^stream))
	// Level 1: within-run replicate means, and each run's own mean.
	inner := make([][]float64, len(pool))
	runMeans := make([]float64, len(pool))
	for i, r := range pool {
		runMeans[i], _ = meanVar(r)
		inner[i] = make([]float64, cfg.Inner)
		n := len(r)
		for k := range inner[i] {
			var s float64
			for j := 0; j < n; j++ {
				s += r[rng.IntN(n)]
			}
			inner[i][k] = s / float64(n)
		}
	}
	var poolMean float64
	for _, m := range runMeans {
		poolMean += m
	}
	poolMean /= float64(len(pool))
	infl := 1.0
	if len(pool) >= 2 {
		infl = math.Sqrt(float64(len(pool)) / float64(len(pool)-1))
	}
	// Centre each run's replicates on its run mean; the run-level deviation
	// is inflated, the within-run one kept.
	for i := range inner {
		shift := (runMeans[i]-poolMean)*infl - runMeans[i]
		for k := range inner[i] {
			inner[i][k] += shift // now: infl·(m_i − m̄) + (θ*_ik − m_i)
		}
	}
	d := &BootDist{R: len(compared), Config: cfg, Pool: len(pool), Dev: make([]float64, cfg.Resamples)}
	for _, r := range compared {
		m, _ := meanVar(r)
		d.Mean += m
	}
	d.Mean /= float64(d.R)
	p := len(pool)
	for k := range d.Dev {
		var s float64
		for i := 0; i < d.R; i++ {
			s += inner[rng.IntN(p)][rng.IntN(cfg.Inner)]
		}
		d.Dev[k] = s / float64(d.R)
	}
	return d, nil
}

func nonEmpty(runs [][]float64) [][]float64 {
	var out [][]float64
	for _, r := range runs {
		if len(r) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// BootstrapTest is Def. 10 of seed 004 on the scaled sides: with the null
// distribution B*(d) = P(cx·DevX − cy·DevY ≤ d) (the replicates of both
// sides paired by index) and the observed d0 = cx·X̄ − cy·Ȳ, X ≤p Y fails
// when B*(d0) > 1 − α. PGreater = (#{diff ≥ d0} + 1)/(B + 1) and PLess
// likewise: the usual Monte-Carlo p-value, never 0, and within 1/B of the
// paper's B*.
func BootstrapTest(x, y *BootDist, cx, cy float64) (Test, error) {
	if x == nil || y == nil || len(x.Dev) == 0 || len(x.Dev) != len(y.Dev) {
		return Test{}, errors.New("bootstrap distributions missing or of different sizes")
	}
	d0 := cx*x.Mean - cy*y.Mean
	var ge, le int
	var ss float64
	for k := range x.Dev {
		d := cx*x.Dev[k] - cy*y.Dev[k]
		if d >= d0 {
			ge++
		}
		if d <= d0 {
			le++
		}
		ss += d * d
	}
	b := float64(len(x.Dev))
	t := Test{Name: fmt.Sprintf("two-level bootstrap of run means (seed %d, %d resamples)", x.Config.Seed, len(x.Dev)),
		StatName: "d", Statistic: d0, DF: math.NaN(),
		PGreater: float64(ge+1) / (b + 1), PLess: float64(le+1) / (b + 1)}
	if sd := math.Sqrt(ss / b); sd > 0 {
		t.Z = d0 / sd
	} else {
		t.Z = signInf(d0)
	}
	return t, nil
}

// ---------------------------------------------------------------------------
// Mann-Whitney U.

// MannWhitneyResult is the rank-sum test of X against Y.
type MannWhitneyResult struct {
	U1        float64 // U of X: #{x > y} + #{x = y}/2
	Z         float64 // continuity-corrected for the 'greater' alternative
	PGreater  float64 // H1: X stochastically larger than Y
	PLess     float64 // H1: X stochastically smaller
	PTwoSided float64
}

// MannWhitney is the Mann-Whitney U test with the normal approximation, tie
// correction and continuity correction; it equals SciPy's
// scipy.stats.mannwhitneyu(x, y, method="asymptotic", use_continuity=True)
// for each alternative.
func MannWhitney(x, y []float64) (MannWhitneyResult, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return MannWhitneyResult{}, errors.New("Mann-Whitney U needs at least one observation per side")
	}
	type obs struct {
		v  float64
		fx bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(a, b obs) int { return cmp.Compare(a.v, b.v) })
	n := float64(n1 + n2)
	var r1, tie float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].fx {
				r1 += rank
			}
		}
		if t := float64(j - i); t > 1 {
			tie += t*t*t - t
		}
		i = j
	}
	f1, f2 := float64(n1), float64(n2)
	u1 := r1 - f1*(f1+1)/2
	u2 := f1*f2 - u1
	mu := f1 * f2 / 2
	s := math.Sqrt(f1 * f2 / 12 * ((n + 1) - tie/(n*(n-1))))
	res := MannWhitneyResult{U1: u1}
	p := func(u float64) float64 {
		if s == 0 {
			return 1
		}
		return distuv.UnitNormal.Survival((u - mu - 0.5) / s)
	}
	if s > 0 {
		res.Z = (u1 - mu - 0.5) / s
	}
	res.PGreater = clamp01(p(u1))
	res.PLess = clamp01(p(u2))
	res.PTwoSided = clamp01(2 * p(math.Max(u1, u2)))
	return res, nil
}

func clamp01(p float64) float64 { return math.Max(0, math.Min(1, p)) }

// RankTest is MannWhitney on the pooled, scaled samples.
func RankTest(x, y []float64, cx, cy float64) (Test, error) {
	sx, sy := scaled(x, cx), scaled(y, cy)
	m, err := MannWhitney(sx, sy)
	if err != nil {
		return Test{}, err
	}
	return Test{Name: "Mann-Whitney U test, pooled samples", StatName: "U", Statistic: m.U1, DF: math.NaN(),
		PGreater: m.PGreater, PLess: m.PLess, Z: m.Z}, nil
}

func scaled(xs []float64, c float64) []float64 {
	if c == 1 {
		return xs
	}
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = c * v
	}
	return out
}
