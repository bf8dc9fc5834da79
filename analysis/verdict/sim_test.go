package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
)

// The simulations draw fork-structured timings P_ij = µ·(1 + b_i) + e_ij
// with a between-fork effect b_i ~ N(0, ρ²) and within-fork noise
// e_ij ~ N(0, (σµ)²) — seed 004 claim T6 — and count how often `L <= R`
// is violated.

type simSetup struct {
	rho, sigma float64 // relative between-fork and within-fork SD
	samples    int     // per fork
	history    int     // history runs per side (0: none)
}

func simRuns(rng *rand.Rand, mu float64, s simSetup, forks int) [][]float64 {
	out := make([][]float64, forks)
	for i := range out {
		m := mu * (1 + s.rho*rng.NormFloat64())
		out[i] = make([]float64, s.samples)
		for j := range out[i] {
			out[i][j] = m + s.sigma*mu*rng.NormFloat64()
		}
	}
	return out
}

// violationRate is the share of reps in which `L <= R` is violated when
// L is slower than R by the factor 1+effect.
func violationRate(seed uint64, interp stats.Interpretation, s simSetup, forks int, effect float64, reps int) float64 {
	rng := rand.New(rand.NewPCG(seed, uint64(forks)*1000+uint64(effect*1e4)))
	opt := Options{Alpha: 0.05, Interpretation: interp, Bootstrap: stats.BootstrapConfig{Resamples: 1000, Inner: 50}}
	if interp == "quick+tol" {
		opt.Interpretation, opt.Tolerance = stats.Quick, 0.05
	}
	fails := 0
	for k := 0; k < reps; k++ {
		opt.Bootstrap.Seed = uint64(k)
		l := Side{Runs: simRuns(rng, 100*(1+effect), s, forks)}
		r := Side{Runs: simRuns(rng, 100, s, forks)}
		if s.history > 0 {
			l.History = simRuns(rng, 100*(1+effect), s, s.history)
			r.History = simRuns(rng, 100, s, s.history)
		}
		if Compare(spl.LE, l, r, nil, opt).Outcome == Violated {
			fails++
		}
	}
	return float64(fails) / float64(reps)
}

// mcBound is α plus three Monte-Carlo standard errors.
func mcBound(alpha float64, reps int) float64 {
	return alpha + 3*math.Sqrt(alpha*(1-alpha)/float64(reps))
}

// TestFalseAlarmsWithForkEffects (always run, ~2 s): on A/A data with a
// 2 % between-fork SD, `<=` fails at most at α (+ Monte-Carlo error) under
// the parametric interpretation at 3 and 10 forks and under the
// non-parametric one with 10 forks, while quick without tolerance fails far
// more often (seed 004 §2.4).
func TestFalseAlarmsWithForkEffects(t *testing.T) {
	s := simSetup{rho: 0.02, sigma: 0.05, samples: 50}
	const reps = 2000
	bound := mcBound(0.05, reps)
	cases := []struct {
		interp stats.Interpretation
		forks  int
		max    float64
	}{
		{stats.Parametric, 3, bound},
		{stats.Parametric, 10, bound},
		{stats.NonParametric, 10, bound},
	}
	for _, c := range cases {
		fa := violationRate(1, c.interp, s, c.forks, 0, reps)
		t.Logf("%s, %d forks: false-alarm rate %.3f (bound %.3f)", c.interp, c.forks, fa, c.max)
		if fa > c.max {
			t.Errorf("%s with %d forks: false-alarm rate %.3f > %.3f", c.interp, c.forks, fa, c.max)
		}
	}
	if q := violationRate(1, stats.Quick, s, 5, 0, reps); q < 0.2 {
		t.Errorf("quick without tolerance on fork-effect data: false-alarm rate %.3f, expected far above α", q)
	}
	// A 10 % slowdown is found by the parametric test with 10 forks.
	if p := violationRate(2, stats.Parametric, s, 10, 0.10, 200); p < 0.9 {
		t.Errorf("parametric power at +10%%, 10 forks: %.3f", p)
	}
}

// TestSimulationTables prints the false-alarm and power tables of
// docs/statistics.md. It takes about a minute; run it with
//
//	PERFLS_SIM=1 go test ./analysis/verdict -run TestSimulationTables -v
func TestSimulationTables(t *testing.T) {
	if os.Getenv("PERFLS_SIM") == "" {
		t.Skip("set PERFLS_SIM=1 to run the full simulation")
	}
	s := simSetup{rho: 0.02, sigma: 0.05, samples: 200}
	interps := []stats.Interpretation{stats.Quick, "quick+tol", stats.Parametric, stats.NonParametric, stats.Rank}
	forks := []int{1, 3, 5, 10, 20}
	const faReps, powReps = 2000, 500
	var b strings.Builder
	fmt.Fprintf(&b, "False-alarm rate of `<=` on A/A data (α = 0.05; between-fork SD ρ = %g %%, within-fork SD σ = %g %%, %d samples/fork; %d replicates, MC bound α+3SE = %.3f)\n\n",
		100*s.rho, 100*s.sigma, s.samples, faReps, mcBound(0.05, faReps))
	fmt.Fprintf(&b, "| interpretation |")
	for _, f := range forks {
		fmt.Fprintf(&b, " %d forks |", f)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(forks)) + "\n")
	for _, in := range interps {
		fmt.Fprintf(&b, "| %s |", in)
		for _, f := range forks {
			if f == 1 && (in == stats.Parametric) {
				b.WriteString(" undecided |")
				continue
			}
			fmt.Fprintf(&b, " %.3f |", violationRate(3, in, s, f, 0, faReps))
		}
		b.WriteString("\n")
	}
	for _, hs := range []int{20} {
		hsetup := s
		hsetup.history = hs
		for _, in := range []stats.Interpretation{stats.Parametric, stats.NonParametric} {
			fmt.Fprintf(&b, "| %s, history of %d runs |", in, hs)
			for _, f := range forks {
				fmt.Fprintf(&b, " %.3f |", violationRate(4, in, hsetup, f, 0, faReps/2))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\nPower: share of %d replicates in which `L <= R` is violated when L is slower by the effect (same data model)\n\n", powReps)
	b.WriteString("| interpretation | effect |")
	for _, f := range forks {
		fmt.Fprintf(&b, " %d forks |", f)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(forks)) + "\n")
	for _, in := range []stats.Interpretation{"quick+tol", stats.Parametric, stats.NonParametric} {
		for _, eff := range []float64{0.01, 0.03, 0.05, 0.10} {
			fmt.Fprintf(&b, "| %s | %g %% |", in, 100*eff)
			for _, f := range forks {
				if f == 1 && in == stats.Parametric {
					b.WriteString(" undecided |")
					continue
				}
				fmt.Fprintf(&b, " %.3f |", violationRate(5, in, s, f, eff, powReps))
			}
			b.WriteString("\n")
		}
	}
	t.Log("\n" + b.String())
}

// forkGen draws the samples of one fork of a method whose mean is mu.
type forkGen func(rng *rand.Rand, mu float64) []float64

// normalForks: fork effect ρ = 2 %, within-fork σ = 5 %, 30 samples.
func normalForks(rng *rand.Rand, mu float64) []float64 {
	return samplesAround(rng, mu*(1+0.02*rng.NormFloat64()), 0.05, 30)
}

// bimodalForks: each JVM settles on one of two code shapes, at 1.0 or 1.5
// times the mean, as two identical ~70 ns methods did under JMH and perfls
// (issue #15: per-JVM means ≈57 ns or 85–92 ns).
func bimodalForks(rng *rand.Rand, mu float64) []float64 {
	level := 0.8 * mu
	if rng.IntN(2) == 1 {
		level *= 1.5
	}
	return samplesAround(rng, level, 0.03, 30)
}

func samplesAround(rng *rand.Rand, m, sigma float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = m * (1 + sigma*rng.NormFloat64())
	}
	return out
}

// checkOutcome decides `L op R` as perfls check does: forks forks per side,
// then as many again while the comparison is undecided for lack of
// evidence, up to maxForks, each look at α/Looks.
func checkOutcome(rng *rand.Rand, gen forkGen, effect float64, op spl.CmpOp, forks, maxForks int) (Outcome, int) {
	looks := Looks(forks, maxForks)
	opt := Options{Alpha: 0.05 / float64(looks)}
	var l, r Side
	n := 0
	for look := 1; ; look++ {
		add := min(forks, maxForks-n)
		for i := 0; i < add; i++ {
			l.Runs = append(l.Runs, gen(rng, 100*(1+effect)))
			r.Runs = append(r.Runs, gen(rng, 100))
		}
		n += add
		c := Compare(op, l, r, nil, opt)
		if c.Outcome != Undecided || look == looks || c.Evidence.MoreForks == 0 {
			return c.Outcome, n
		}
	}
}

// outcomeShares runs checkOutcome reps times: the shares violated,
// satisfied and undecided, and the mean forks per side.
func outcomeShares(seed uint64, gen forkGen, effect float64, op spl.CmpOp, forks, maxForks, reps int) (v, s, u, meanForks float64) {
	rng := rand.New(rand.NewPCG(seed, uint64(forks*1000+maxForks)))
	total := 0
	for k := 0; k < reps; k++ {
		o, n := checkOutcome(rng, gen, effect, op, forks, maxForks)
		total += n
		switch o {
		case Violated:
			v++
		case Satisfied:
			s++
		default:
			u++
		}
	}
	f := float64(reps)
	return v / f, s / f, u / f, float64(total) / f
}

// TestCheckProcedureIsHonest (always run, a few seconds): the default
// procedure — parametric on fork means, holding shown within 5 %, forks
// added while undecided, α spread over the looks — at 3 and 5 starting
// forks, on normal and on bimodal fork means:
//   - A/A: violated (a false alarm) at most α, within Monte-Carlo error;
//   - L slower by 5 % (the margin) or 10 %: satisfied (a false pass) at
//     most α; the rest is violated or an honest undecided.
func TestCheckProcedureIsHonest(t *testing.T) {
	const reps = 1000
	bound := mcBound(0.05, reps)
	for _, g := range []struct {
		name string
		gen  forkGen
	}{{"normal", normalForks}, {"bimodal", bimodalForks}} {
		for _, forks := range []int{3, 5} {
			v, s, u, n := outcomeShares(7, g.gen, 0, spl.LE, forks, 3*forks, reps)
			t.Logf("%s A/A, %d→%d forks: violated %.3f, satisfied %.3f, undecided %.3f, %.1f forks per side", g.name, forks, 3*forks, v, s, u, n)
			if v > bound {
				t.Errorf("%s A/A with %d forks: false-alarm rate %.3f > %.3f", g.name, forks, v, bound)
			}
			for _, eff := range []float64{0.05, 0.10} {
				v, s, u, n = outcomeShares(8, g.gen, eff, spl.LE, forks, 3*forks, reps)
				t.Logf("%s +%g %%, %d→%d forks: violated %.3f, satisfied %.3f, undecided %.3f, %.1f forks per side", g.name, 100*eff, forks, 3*forks, v, s, u, n)
				if s > bound {
					t.Errorf("%s +%g%% with %d forks: false passes %.3f > %.3f", g.name, 100*eff, forks, s, bound)
				}
			}
		}
	}
}
