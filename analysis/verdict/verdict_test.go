package verdict

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
)

func samples(rng *rand.Rand, mean float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mean * math.Exp(0.05*rng.NormFloat64())
	}
	return xs
}

func TestCompareDecidesLargeEffects(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	fastS := samples(rng, 10, 60)
	fast := Side{Runs: [][]float64{fastS}}
	slowS := samples(rng, 100, 60)
	slow := Side{Runs: [][]float64{slowS}}
	cases := []struct {
		op          spl.CmpOp
		left, right Side
		want        Outcome
	}{
		{spl.LE, fast, slow, Satisfied},
		{spl.LE, slow, fast, Violated},
		{spl.GE, slow, fast, Satisfied},
		{spl.GE, fast, slow, Violated},
		{spl.LT, fast, slow, Satisfied},
		{spl.LT, slow, fast, Violated},
		{spl.GT, slow, fast, Satisfied},
		{spl.EQ, fast, slow, Violated},
		{spl.EQI, fast, slow, Violated},
		// Scaling the fast side by 10 makes the sides equal within ±5 %.
		{spl.EQI, Side{Runs: [][]float64{fastS}, Scale: 10}, slow, Satisfied},
		// 20 × fast ≤ slow fails; 0.5 × slow ≤ fast fails; 0.05 × slow ≤ fast holds.
		{spl.LE, Side{Runs: [][]float64{fastS}, Scale: 20}, slow, Violated},
		{spl.LE, Side{Runs: [][]float64{slowS}, Scale: 0.05}, fast, Satisfied},
	}
	for _, c := range cases {
		got := Compare(c.op, c.left, c.right, nil, Options{Interpretation: stats.Quick})
		if got.Outcome != c.want {
			t.Errorf("%v (scales %g, %g): %v, want %v; evidence %+v", c.op, c.left.Scale, c.right.Scale, got.Outcome, c.want, got.Evidence)
		}
		if got.Evidence.Left.Samples != 60 || got.Evidence.Alpha == 0 || got.Evidence.Test == "" {
			t.Errorf("%v: incomplete evidence %+v", c.op, got.Evidence)
		}
	}
}

func TestCompareEvidenceValues(t *testing.T) {
	l := Side{Runs: [][]float64{{10, 12, 11, 13}}}
	r := Side{Runs: [][]float64{{20, 22, 21, 23}}, Scale: 0.5}
	got := Compare(spl.LE, l, r, nil, Options{Alpha: 0.01, Interpretation: stats.Quick})
	ev := got.Evidence
	if ev.Left.MeanNs != 11.5 || ev.Right.MeanNs != 21.5 || ev.Right.Scale != 0.5 {
		t.Errorf("means %+v", ev)
	}
	if math.Abs(ev.Ratio-11.5/10.75) > 1e-12 || !(ev.RatioLow < ev.Ratio && ev.Ratio < ev.RatioHigh) {
		t.Errorf("ratio %g [%g, %g]", ev.Ratio, ev.RatioLow, ev.RatioHigh)
	}
	if ev.Alpha != 0.01 {
		t.Errorf("alpha %g", ev.Alpha)
	}
}

func TestCompareUndecided(t *testing.T) {
	ok := Side{Runs: [][]float64{{1, 2, 3}}}
	if c := Compare(spl.LE, Side{Err: errors.New("workload threw")}, ok, nil, Options{Interpretation: stats.Quick}); c.Outcome != Undecided || !strings.Contains(c.Reason, "workload threw") {
		t.Errorf("failed side: %+v", c)
	}
	if c := Compare(spl.LE, Side{Runs: [][]float64{{1}}}, ok, nil, Options{Interpretation: stats.Quick}); c.Outcome != Undecided || !strings.Contains(c.Reason, "too few samples") {
		t.Errorf("one sample: %+v", c)
	} else if ev := c.Evidence; !math.IsNaN(ev.P) || !math.IsNaN(ev.T) || !math.IsNaN(ev.DF) {
		// No test ran: p = 0 would read as overwhelming evidence.
		t.Errorf("one sample: t %v, df %v, p %v; want all undefined", ev.T, ev.DF, ev.P)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	same := samples(rng, 50, 40)
	if c := Compare(spl.LT, Side{Runs: [][]float64{same}}, Side{Runs: [][]float64{same}}, nil, Options{Interpretation: stats.Quick}); c.Outcome != Undecided {
		t.Errorf("strict comparison of equal samples: %+v", c)
	}
}

// TestFalseAlarmRates checks by simulation that, with equal true means,
// `<=` fails at about α and `==` at about 2α (seed 004, Def. 8).
func TestFalseAlarmRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	const runs = 3000
	fails := map[spl.CmpOp]int{}
	for i := 0; i < runs; i++ {
		l := Side{Runs: [][]float64{samples(rng, 100, 30)}}
		r := Side{Runs: [][]float64{samples(rng, 100, 30)}}
		for _, op := range []spl.CmpOp{spl.LE, spl.EQ} {
			if Compare(op, l, r, nil, Options{Alpha: 0.05, Interpretation: stats.Quick}).Outcome == Violated {
				fails[op]++
			}
		}
	}
	le, eq := float64(fails[spl.LE])/runs, float64(fails[spl.EQ])/runs
	t.Logf("false alarms: <= %.4f (α = 0.05), == %.4f (2α = 0.10)", le, eq)
	if le < 0.03 || le > 0.07 {
		t.Errorf("<= false-alarm rate %.4f, want about 0.05", le)
	}
	if eq < 0.075 || eq > 0.125 {
		t.Errorf("== false-alarm rate %.4f, want about 0.10", eq)
	}
}

func TestCombineIsKleeneLogic(t *testing.T) {
	S, V, U := Satisfied, Violated, Undecided
	a := &spl.Comparison{}
	b := &spl.Comparison{}
	cases := []struct {
		op   spl.LogicOp
		x, y Outcome
		want Outcome
	}{
		{spl.And, S, S, S}, {spl.And, S, V, V}, {spl.And, U, V, V}, {spl.And, U, S, U},
		{spl.Or, V, V, V}, {spl.Or, V, S, S}, {spl.Or, U, S, S}, {spl.Or, U, V, U},
		{spl.Implies, V, U, S}, {spl.Implies, S, V, V}, {spl.Implies, S, S, S}, {spl.Implies, U, S, S}, {spl.Implies, S, U, U},
	}
	for _, c := range cases {
		e := &spl.Logic{Op: c.op, X: a, Y: b}
		got := Combine(e, func(n *spl.Comparison) Outcome {
			if n == a {
				return c.x
			}
			return c.y
		})
		if got != c.want {
			t.Errorf("%v %v %v = %v, want %v", c.x, c.op, c.y, got, c.want)
		}
	}
}

func forkRuns(rng *rand.Rand, mean float64, forks, n int) [][]float64 {
	out := make([][]float64, forks)
	for i := range out {
		b := mean * (1 + 0.01*rng.NormFloat64())
		out[i] = samples(rng, b, n)
	}
	return out
}

// TestDefaultSelection: the default is parametric at any fork count; one
// fork per side is undecided (the between-fork variance is unknown) and
// says how many forks would decide; explicit quick pools samples and takes
// a tolerance only when given one.
func TestDefaultSelection(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 61))
	one := Side{Runs: forkRuns(rng, 100, 1, 50)}
	c := Compare(spl.LE, Side{Runs: forkRuns(rng, 103, 1, 50)}, one, nil, Options{})
	if c.Outcome != Undecided || c.Evidence.Interpretation != "parametric" || c.Evidence.MoreForks != 1 || c.Failed {
		t.Errorf("one fork: %v %q %+v", c.Outcome, c.Reason, c.Evidence)
	}
	if c := Compare(spl.LE, Side{Runs: forkRuns(rng, 110, 1, 200)}, one, nil, Options{Interpretation: stats.Quick}); c.Evidence.Tolerance != 0 || c.Outcome != Violated {
		t.Errorf("explicit quick, 10%% slower: %v %+v", c.Outcome, c.Evidence)
	}
	if c := Compare(spl.LE, Side{Runs: forkRuns(rng, 103, 1, 200)}, one, nil, Options{Interpretation: stats.Quick, Tolerance: 0.05, Semantics: Classic}); c.Evidence.Tolerance != 0.05 ||
		c.Outcome != Satisfied || !strings.Contains(c.Evidence.Test, "tolerance 5%") {
		t.Errorf("explicit quick with 5%% tolerance, 3%% slower: %v %+v", c.Outcome, c.Evidence)
	}
	for _, forks := range []int{2, 3, 5} {
		c = Compare(spl.LE, Side{Runs: forkRuns(rng, 100, forks, 50)}, Side{Runs: forkRuns(rng, 100, forks, 50)}, nil, Options{})
		if c.Evidence.Interpretation != "parametric" || c.Evidence.StatName != "t" || c.Evidence.Left.Forks != forks || c.Evidence.Left.SamplesPerFork != 50 {
			t.Errorf("%d forks: %+v", forks, c.Evidence)
		}
	}
}

// TestHoldingMustBeShown: `<=` of two equal methods is satisfied when the
// forks show the ratio below 1+δ, and undecided with an estimate of the
// forks that would decide when they are too noisy to show it; the lenient
// reading (the paper's) calls both satisfied.
func TestHoldingMustBeShown(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 65))
	quiet := func() Side { return Side{Runs: forkRuns(rng, 100, 5, 30)} }
	c := Compare(spl.LE, quiet(), quiet(), nil, Options{})
	if c.Outcome != Satisfied || c.Evidence.Margin != 0.05 || !(c.Evidence.PHolds < 0.05) {
		t.Errorf("quiet A/A: %v %q %+v", c.Outcome, c.Reason, c.Evidence)
	}
	// Fork means 30 % apart at random: three forks cannot tell.
	noisy := func() Side {
		runs := make([][]float64, 3)
		for i := range runs {
			runs[i] = samples(rng, 100*(1+0.3*rng.NormFloat64()), 30)
		}
		return Side{Runs: runs}
	}
	l, r := noisy(), noisy()
	c = Compare(spl.LE, l, r, nil, Options{})
	if c.Outcome != Undecided || c.Failed || c.Evidence.MoreForks <= 0 || !strings.Contains(c.Reason, "more forks per side") {
		t.Errorf("noisy A/A: %v %q %+v", c.Outcome, c.Reason, c.Evidence)
	}
	if c := Compare(spl.LE, l, r, nil, Options{Semantics: Classic}); c.Outcome != Satisfied || c.Evidence.Margin != 0 {
		t.Errorf("noisy A/A, lenient: %v %+v", c.Outcome, c.Evidence)
	}
	for _, op := range []spl.CmpOp{spl.GE, spl.EQ, spl.EQI} {
		if c := Compare(op, quiet(), quiet(), nil, Options{}); c.Outcome != Satisfied {
			t.Errorf("quiet A/A %v: %v %q", op, c.Outcome, c.Reason)
		}
		if c := Compare(op, l, r, nil, Options{}); c.Outcome != Undecided {
			t.Errorf("noisy A/A %v: %v %q", op, c.Outcome, c.Reason)
		}
	}
}

// TestEveryInterpretationDecides: a 30 % slowdown over 5 forks is found by
// all four interpretations, with their evidence.
func TestEveryInterpretationDecides(t *testing.T) {
	rng := rand.New(rand.NewPCG(62, 63))
	slow := Side{Runs: forkRuns(rng, 130, 5, 40)}
	fast := Side{Runs: forkRuns(rng, 100, 5, 40)}
	for _, in := range []stats.Interpretation{stats.Quick, stats.Parametric, stats.NonParametric, stats.Rank} {
		opt := Options{Interpretation: in, Bootstrap: stats.BootstrapConfig{Seed: 7, Resamples: 2000}}
		for _, c := range []struct {
			op          spl.CmpOp
			left, right Side
			want        Outcome
		}{
			{spl.LE, slow, fast, Violated}, {spl.LE, fast, slow, Satisfied},
			{spl.GT, slow, fast, Satisfied}, {spl.EQ, slow, fast, Violated},
			{spl.EQI, Side{Runs: slow.Runs, Scale: 1 / 1.3}, fast, Satisfied},
		} {
			got := Compare(c.op, c.left, c.right, nil, opt)
			if got.Outcome != c.want {
				t.Errorf("%s %v: %v, want %v (%s)", in, c.op, got.Outcome, c.want, got.Reason)
			}
			ev := got.Evidence
			if ev.Interpretation != string(in) || ev.Test == "" || ev.StatName == "" || !(ev.RatioLow <= ev.Ratio && ev.Ratio <= ev.RatioHigh) {
				t.Errorf("%s %v: evidence %+v", in, c.op, ev)
			}
			if in == stats.NonParametric && (ev.Seed == nil || *ev.Seed != 7 || ev.Resamples != 2000) {
				t.Errorf("bootstrap evidence does not record seed and resamples: %+v", ev)
			}
		}
	}
}

func TestUndecidedEstimatesMoreForks(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 65))
	l := Side{Runs: forkRuns(rng, 100, 3, 30)}
	// R is L slowed by 0.3 %: far below the 1 % between-fork noise.
	r := Side{Runs: make([][]float64, 3)}
	for i, run := range l.Runs {
		for _, x := range run {
			r.Runs[i] = append(r.Runs[i], 1.003*x)
		}
	}
	c := Compare(spl.LT, l, r, nil, Options{Interpretation: stats.Parametric})
	if c.Outcome != Undecided {
		t.Fatalf("0.3 %% difference with 1 %% fork noise decided: %v (p = %g)", c.Outcome, c.Evidence.P)
	}
	if c.Evidence.MoreForks < 1 || !strings.Contains(c.Reason, "more forks") {
		t.Errorf("undecided without an estimate: %q %+v", c.Reason, c.Evidence)
	}
	// Parametric with one fork: undecided, needs one more fork.
	c = Compare(spl.LE, Side{Runs: forkRuns(rng, 100, 1, 30)}, r, nil, Options{Interpretation: stats.Parametric})
	if c.Outcome != Undecided || c.Evidence.MoreForks != 1 || !strings.Contains(c.Reason, "between-fork variance") {
		t.Errorf("parametric with one fork: %v %q %+v", c.Outcome, c.Reason, c.Evidence)
	}
	if got := moreForks(1, 0.05, 4); got != 7 { // need 4·(1.645/1)² = 10.8 → 11
		t.Errorf("moreForks(z=1, 4 forks) = %d, want 7", got)
	}
}

// TestEvidenceJSONKeepsUndefinedNumbers: NaN and ±Inf encode as null and
// read back as NaN, instead of failing the whole record.
func TestEvidenceJSONKeepsUndefinedNumbers(t *testing.T) {
	ev := Evidence{Ratio: math.NaN(), RatioLow: math.NaN(), RatioHigh: math.NaN(), T: math.Inf(1), DF: 4, P: 0.5, Test: "x"}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"ratio":null`) || !strings.Contains(string(b), `"df":4`) || !strings.Contains(string(b), `"test":"x"`) {
		t.Errorf("encoded %s", b)
	}
	var back Evidence
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.Ratio) || !math.IsNaN(back.T) || back.DF != 4 || back.P != 0.5 || back.Test != "x" {
		t.Errorf("decoded %+v", back)
	}
}

func TestPrepareGivesTheSameVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(66, 67))
	l := Side{Runs: forkRuns(rng, 100, 4, 100)}
	r := Side{Runs: forkRuns(rng, 101, 4, 100)}
	a := Compare(spl.LE, l, r, nil, Options{})
	b := Compare(spl.LE, l.Prepare(), r.Prepare(), nil, Options{})
	if a.Outcome != b.Outcome || a.Evidence.P != b.Evidence.P || a.Evidence.Left != b.Evidence.Left {
		t.Errorf("prepared %+v, plain %+v", b.Evidence, a.Evidence)
	}
}

// The ratio interval is the deciding test inverted: a verdict and the
// interval shown beside it never disagree, whatever the interpretation.
func TestRatioIntervalAgreesWithTheVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, interp := range []stats.Interpretation{stats.Parametric, stats.Quick, stats.NonParametric, stats.Rank} {
		for i := 0; i < 40; i++ {
			effect := 0.9 + 0.2*rng.Float64()
			l, r := Side{Runs: forkRuns(rng, 1000*effect, 5, 20)}, Side{Runs: forkRuns(rng, 1000, 5, 20)}
			got := Compare(spl.LE, l, r, nil, Options{Interpretation: interp})
			ev := got.Evidence
			if !(ev.RatioLow <= ev.Ratio && ev.Ratio <= ev.RatioHigh) || ev.RatioLevel != 0.9 {
				t.Fatalf("%s: ratio %g [%g, %g] level %g", interp, ev.Ratio, ev.RatioLow, ev.RatioHigh, ev.RatioLevel)
			}
			// Bisection stops within 1 part in 10⁶ of the boundary.
			const eps = 1e-5
			switch {
			case got.Outcome == Violated && !(ev.RatioLow > 1-eps):
				t.Errorf("%s: violated but the interval [%g, %g] reaches below 1", interp, ev.RatioLow, ev.RatioHigh)
			case got.Outcome == Satisfied && !(ev.RatioHigh < 1.05+eps):
				t.Errorf("%s: satisfied but the interval [%g, %g] reaches above 1.05", interp, ev.RatioLow, ev.RatioHigh)
			case got.Outcome == Undecided && (ev.RatioLow > 1+eps || ev.RatioHigh < 1.05-eps):
				t.Errorf("%s: undecided but the interval [%g, %g] decides", interp, ev.RatioLow, ev.RatioHigh)
			}
		}
	}
}

// A demand other than wall time is compared like it (cpu against cpu, wall
// against cpu: both ns), its name kept in the evidence; sides in different
// units fail the comparison instead of deciding it.
func TestCompareMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	cpuFast := Side{Runs: [][]float64{samples(rng, 10, 30), samples(rng, 10, 30)}, Metric: "cpu"}
	cpuSlow := Side{Runs: [][]float64{samples(rng, 100, 30), samples(rng, 100, 30)}, Metric: "cpu"}
	wall := Side{Runs: [][]float64{samples(rng, 100, 30), samples(rng, 100, 30)}}
	got := Compare(spl.LE, cpuFast, cpuSlow, nil, Options{Interpretation: stats.Quick})
	if got.Outcome != Satisfied || got.Evidence.Left.Metric != "cpu" {
		t.Errorf("cpu(fast) <= cpu(slow): %v, evidence %+v", got.Outcome, got.Evidence.Left)
	}
	if got := Compare(spl.LE, cpuFast, wall, nil, Options{Interpretation: stats.Quick}); got.Outcome != Satisfied {
		t.Errorf("cpu(fast) <= wall(slow): %v (%s)", got.Outcome, got.Reason)
	}
	alloc := Side{Runs: wall.Runs, Metric: "alloc"}
	got = Compare(spl.LE, cpuFast, alloc, nil, Options{})
	if got.Outcome != Undecided || !got.Failed || !strings.Contains(got.Reason, "different units") {
		t.Errorf("cpu <= alloc: %v failed=%v %q", got.Outcome, got.Failed, got.Reason)
	}
}
