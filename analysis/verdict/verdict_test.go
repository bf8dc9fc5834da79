package verdict

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
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
	fast := Side{Samples: samples(rng, 10, 60), Forks: 3}
	slow := Side{Samples: samples(rng, 100, 60), Forks: 3}
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
		{spl.EQI, Side{Samples: fast.Samples, Scale: 10}, slow, Satisfied},
		// 20 × fast ≤ slow fails; 0.5 × slow ≤ fast fails; 0.05 × slow ≤ fast holds.
		{spl.LE, Side{Samples: fast.Samples, Scale: 20}, slow, Violated},
		{spl.LE, Side{Samples: slow.Samples, Scale: 0.05}, fast, Satisfied},
	}
	for _, c := range cases {
		got := Compare(c.op, c.left, c.right, nil, Options{})
		if got.Outcome != c.want {
			t.Errorf("%v (scales %g, %g): %v, want %v; evidence %+v", c.op, c.left.Scale, c.right.Scale, got.Outcome, c.want, got.Evidence)
		}
		if got.Evidence.Left.Samples != 60 || got.Evidence.Alpha == 0 || got.Evidence.Test == "" {
			t.Errorf("%v: incomplete evidence %+v", c.op, got.Evidence)
		}
	}
}

func TestCompareEvidenceValues(t *testing.T) {
	l := Side{Samples: []float64{10, 12, 11, 13}, Forks: 1}
	r := Side{Samples: []float64{20, 22, 21, 23}, Forks: 1, Scale: 0.5}
	got := Compare(spl.LE, l, r, nil, Options{Alpha: 0.01})
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
	ok := Side{Samples: []float64{1, 2, 3}}
	if c := Compare(spl.LE, Side{Err: errors.New("workload threw")}, ok, nil, Options{}); c.Outcome != Undecided || !strings.Contains(c.Reason, "workload threw") {
		t.Errorf("failed side: %+v", c)
	}
	if c := Compare(spl.LE, Side{Samples: []float64{1}}, ok, nil, Options{}); c.Outcome != Undecided || !strings.Contains(c.Reason, "too few samples") {
		t.Errorf("one sample: %+v", c)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	same := samples(rng, 50, 40)
	if c := Compare(spl.LT, Side{Samples: same}, Side{Samples: same}, nil, Options{}); c.Outcome != Undecided {
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
		l := Side{Samples: samples(rng, 100, 30)}
		r := Side{Samples: samples(rng, 100, 30)}
		for _, op := range []spl.CmpOp{spl.LE, spl.EQ} {
			if Compare(op, l, r, nil, Options{Alpha: 0.05}).Outcome == Violated {
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
