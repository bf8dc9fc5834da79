package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Reference §7.1 claim 1: a centred window of odd w maps n points to
// n−(w−1), dropping (w−1)/2 at each end.
func TestSmoothDropsHalfAWindowAtEachEnd(t *testing.T) {
	xs := make([]float64, 50)
	for i := range xs {
		xs[i] = float64(i)
	}
	s := Smooth(xs, 9, "mean")
	if len(s) != 42 || s[0] != 4 || s[len(s)-1] != 45 {
		t.Errorf("mean-9 of 0..49: len %d, first %g, last %g; want 42, 4, 45", len(s), s[0], s[len(s)-1])
	}
	med := Smooth([]float64{1, 100, 2, 3, 50}, 3, "median")
	if fmt.Sprint(med) != "[2 3 3]" {
		t.Errorf("median-3 = %v", med)
	}
	if len(Smooth(xs[:5], 9, "mean")) != 0 {
		t.Error("a series shorter than the window must yield nothing")
	}
	if len(Smooth(xs, 1, "none")) != 50 {
		t.Error("no smoothing must keep every point")
	}
}

// Claims 2 and 3: {1,2,3} at k=4 gives [−2, 6], clamped to [0, 6]; the
// median option moves only the centre.
func TestSimpleBoundsExactValues(t *testing.T) {
	cfg := Config{K: 4, MinAbs: 1e-12, NonNegative: []string{}}.withDefaults(3)
	b := cfg.band("x", 0, []float64{1, 2, 3})
	if b.Lo != -2 || b.Hi != 6 || b.SD != 1 || b.Mean != 2 {
		t.Errorf("unclamped band %+v, want [-2, 6]", b)
	}
	cfg.NonNegative = nil // every metric non-negative
	if b := cfg.band("x", 0, []float64{1, 2, 3}); b.Lo != 0 || b.Hi != 6 {
		t.Errorf("clamped band [%g, %g], want [0, 6]", b.Lo, b.Hi)
	}
	cfg.Center = "median"
	b = cfg.band("x", 0, []float64{1, 2, 9})
	if b.Center != 2 || !near(b.Hi-b.Center, 4*b.SD, 1e-12) {
		t.Errorf("median centre %+v: width must stay k·sd", b)
	}
}

func TestMinimumHalfWidthGuardsConstantMetrics(t *testing.T) {
	runs := make([]Run, 5)
	for i := range runs {
		runs[i] = Run{ID: fmt.Sprint(i), Series: map[string][]float64{"classes": constant(30, 1000)}}
	}
	m, err := Calibrate(runs, Config{})
	if err != nil {
		t.Fatal(err)
	}
	b := m.Metrics[0].Bands[0]
	if !b.Floored || !near(b.Hi-b.Lo, 20, 1e-9) {
		t.Errorf("band %+v: want the 1%% floor (±10)", b)
	}
	jitter := Run{Series: map[string][]float64{"classes": constant(30, 1003)}}
	if r := Classify(m, jitter); r.Verdict != Pass {
		t.Errorf("a 0.3%% jitter of a constant metric failed: %+v", r)
	}
	if r := Classify(m, Run{Series: map[string][]float64{"classes": constant(30, 1500)}}); r.Verdict != Fail {
		t.Errorf("50%% more classes passed: %+v", r)
	}
	if !m.Provisional {
		t.Error("5 runs must give a provisional model")
	}
}

func constant(n int, v float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = v
	}
	return xs
}

// Claim 8: any point outside fails the metric (at the policy's k), a failed
// metric fails the run; violations carry direction and size.
func TestClassifyReportsDirectionAndLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	runs := make([]Run, 30)
	for i := range runs {
		runs[i] = Run{ID: fmt.Sprint(i), Series: map[string][]float64{
			"ns_per_op": noisy(rng, 40, 100, 2),
			"heap":      noisy(rng, 40, 5000, 100),
		}}
	}
	m, err := Calibrate(runs, Config{Policy: Policy{K: 6}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Provisional || len(m.Metrics) != 2 || len(m.Metrics[0].Bands) != 32 {
		t.Fatalf("model: provisional=%v metrics=%d bands=%d", m.Provisional, len(m.Metrics), len(m.Metrics[0].Bands))
	}
	slow := Run{Series: map[string][]float64{"ns_per_op": noisy(rng, 40, 130, 2), "heap": noisy(rng, 40, 5000, 100)}}
	r := Classify(m, slow)
	if r.Verdict != Fail {
		t.Fatalf("30%% slower passed: %+v", r)
	}
	f := r.Metrics[1] // ns_per_op (sorted after heap)
	if f.Metric != "ns_per_op" || !f.Failed || len(f.Violations) != 32 || !f.Violations[0].Above || f.Violations[0].By < 0.15 {
		t.Errorf("finding %+v", f)
	}
	if !strings.Contains(f.Summary(), "above") || r.Metrics[0].Failed {
		t.Errorf("summary %q; heap failed: %v", f.Summary(), r.Metrics[0].Failed)
	}
	// A longer run is compared over the common range, and says so.
	long := Run{Series: map[string][]float64{"ns_per_op": noisy(rng, 60, 100, 2), "heap": noisy(rng, 60, 5000, 100)}}
	r = Classify(m, long)
	if r.Verdict != Pass || !r.Metrics[0].LengthDiffers || r.Metrics[0].Compared != 32 {
		t.Errorf("longer run: %+v", r)
	}
}

func noisy(rng *rand.Rand, n int, mean, sd float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mean + sd*rng.NormFloat64()
	}
	return xs
}

// Claim 9 and §5.2: another environment makes the oracle not applicable,
// never a regression; filtered keys are ignored; calibration across
// environments is refused.
func TestEnvironment(t *testing.T) {
	env := func(jvm string, pid string) map[string]string {
		return map[string]string{"java.version": jvm, "pid": pid, "cores": "2"}
	}
	runs := []Run{
		{ID: "a", Env: env("17", "1"), Series: map[string][]float64{"x": constant(20, 1)}},
		{ID: "b", Env: env("17", "2"), Series: map[string][]float64{"x": constant(20, 1)}},
	}
	m, err := Calibrate(runs, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Env["pid"]; ok {
		t.Error("the volatile pid was kept in the environment model")
	}
	r := Classify(m, Run{Env: env("21", "3"), Series: map[string][]float64{"x": constant(20, 1000)}})
	if r.Verdict != NotApplicable || len(r.EnvDiffs) != 1 || r.EnvDiffs[0].Kind != "different" {
		t.Errorf("other JVM: %+v", r)
	}
	extra := env("17", "4")
	extra["gc"] = "G1"
	delete(extra, "cores")
	diffs := DiffEnv(m.Env, extra, m.Config.EnvFilter)
	if len(diffs) != 2 || diffs[0].Kind != "missing" || diffs[1].Kind != "extra" {
		t.Errorf("diffs %+v", diffs)
	}
	runs[1].Env = env("21", "2")
	if _, err := Calibrate(runs, Config{}); !errors.Is(err, ErrEnvMismatch) {
		t.Errorf("calibration across JVMs: %v", err)
	}
}

// Claim 11: MCC and accuracy of the seed's tables.
func TestConfusionMatchesSeedTables(t *testing.T) {
	c := Confusion{TP: 1554, FN: 46, TN: 1550, FP: 50}
	if !near(c.Accuracy(), 0.97, 0.001) || !near(c.Precision(), 0.969, 0.001) || !near(c.MCC(), 0.940, 0.001) {
		t.Errorf("acc %.4f prec %.4f mcc %.4f", c.Accuracy(), c.Precision(), c.MCC())
	}
	c = Confusion{TP: 1358, FN: 242, TN: 1594, FP: 6}
	if !near(c.Accuracy(), 0.92, 0.005) || !near(c.MCC(), 0.854, 0.001) {
		t.Errorf("acc %.4f mcc %.4f", c.Accuracy(), c.MCC())
	}
	if (Confusion{TP: 5}).MCC() != 0 {
		t.Error("empty marginal must give 0")
	}
}

// Claim 12 checks that bands use the sample (n−1) deviation.
func TestSampleStandardDeviation(t *testing.T) {
	xs := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	_, sd := stat.MeanStdDev(xs, nil)
	b := Config{}.withDefaults(8).band("x", 0, xs)
	if !near(b.SD, sd, 1e-12) || !near(b.SD, math.Sqrt(32.0/7), 1e-12) {
		t.Errorf("sd %g, want sqrt(32/7)", b.SD)
	}
}

// TestModelRoundTripsThroughJSON: a stored model classifies as the original.
func TestModelRoundTripsThroughJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var runs []Run
	for i := 0; i < 10; i++ {
		runs = append(runs, Run{ID: fmt.Sprint(i), Series: map[string][]float64{"t": noisy(rng, 30, 50, 1)}})
	}
	m, _ := Calibrate(runs, Config{})
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	probe := Run{Series: map[string][]float64{"t": noisy(rng, 30, 58, 1)}}
	if a, c := Classify(m, probe), Classify(&back, probe); a.Verdict != c.Verdict || a.Metrics[0].Decisive != c.Metrics[0].Decisive {
		t.Errorf("stored model classifies differently: %+v vs %+v", a, c)
	}
}

// TestSimulatedLeakAndRhythm: calibrate on a process, classify fresh runs of
// it and of changed processes whose mean or peak a single figure would miss.
func TestSimulatedLeakAndRhythm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 60
	base := func() Run {
		heap := make([]float64, n)
		for i := range heap { // GC saw-tooth: fill to ~800, collect every 10 iterations
			heap[i] = 200 + 60*float64(i%10) + 10*rng.NormFloat64()
		}
		return Run{Series: map[string][]float64{"heap": heap, "ns": noisy(rng, n, 100, 3)}}
	}
	leak := func() Run { // same peak at the start, the floor creeps up
		r := base()
		for i := range r.Series["heap"] {
			r.Series["heap"][i] += 4 * float64(i)
		}
		return r
	}
	rhythm := func() Run { // same range, collections twice as often
		r := base()
		for i := range r.Series["heap"] {
			r.Series["heap"][i] = 200 + 120*float64(i%5) + 10*rng.NormFloat64()
		}
		return r
	}
	var calib []Run
	for i := 0; i < 30; i++ {
		calib = append(calib, base())
	}
	m, err := Calibrate(calib, Config{Window: 1, Smoothing: "none", Policy: Policy{K: 8}})
	if err != nil {
		t.Fatal(err)
	}
	var c Confusion
	for i := 0; i < 100; i++ {
		if Classify(m, base()).Verdict == Fail {
			c.FP++
		} else {
			c.TN++
		}
		for _, changed := range []func() Run{leak, rhythm} {
			if Classify(m, changed()).Verdict == Fail {
				c.TP++
			} else {
				c.FN++
			}
		}
	}
	t.Logf("simulated: %+v accuracy %.3f MCC %.3f", c, c.Accuracy(), c.MCC())
	if c.FP > 5 || c.FN > 5 {
		t.Errorf("false alarms %d, misses %d out of 100/200", c.FP, c.FN)
	}
}

// The policy's sustained-shift rule: a run a few deviations off at most
// of its points fails though no point reaches the spike band; a run off at
// a few points only does not.
func TestPolicySustainedShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var runs []Run
	for i := 0; i < 30; i++ {
		runs = append(runs, Run{ID: fmt.Sprint(i), Series: map[string][]float64{"t": noisy(rng, 40, 100, 1)}})
	}
	m, err := Calibrate(runs, Config{Smoothing: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Config.Policy; p != DefaultPolicy() || p.K != 20 || p.ShiftK != 3 || p.ShiftRatio != 0.8 {
		t.Fatalf("default policy %+v", p)
	}
	shifted := Run{Series: map[string][]float64{"t": noisy(rng, 40, 108, 1)}} // 8 sd: inside ±20 sd, outside ±3 sd
	r := Classify(m, shifted)
	if r.Verdict != Fail || r.Metrics[0].Decisive != 0 || r.Metrics[0].Shifted < 30 {
		t.Errorf("sustained shift: %+v", r.Metrics[0])
	}
	few := noisy(rng, 40, 100, 1)
	for i := 0; i < 5; i++ {
		few[i] += 8
	}
	if r := Classify(m, Run{Series: map[string][]float64{"t": few}}); r.Verdict != Pass || r.Metrics[0].Shifted != 5 {
		t.Errorf("5 of 40 points off: %+v", r.Metrics[0])
	}
	// Without the shift rule only spikes count.
	m2, _ := Calibrate(runs, Config{Smoothing: "none", Policy: Policy{K: 20}})
	if r := Classify(m2, shifted); r.Verdict != Pass {
		t.Errorf("shift rule disabled, still failed: %+v", r.Metrics[0])
	}
}

func TestCombineMajority(t *testing.T) {
	p, f, na := Result{Verdict: Pass}, Result{Verdict: Fail}, Result{Verdict: NotApplicable}
	for _, c := range []struct {
		in   []Result
		want Verdict
	}{
		{[]Result{f}, Fail}, {[]Result{p}, Pass}, {[]Result{na}, NotApplicable}, {nil, NotApplicable},
		{[]Result{p, f, f}, Fail}, {[]Result{p, p, f}, Pass}, {[]Result{p, f}, Pass}, {[]Result{na, f}, Fail},
	} {
		if got := Combine(c.in); got != c.want {
			t.Errorf("Combine(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}
