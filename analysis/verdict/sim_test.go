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
		opt.Interpretation, opt.Tolerance = stats.Quick, DefaultTolerance
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
