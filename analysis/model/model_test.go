package model

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/spl"
)

// Every metric is one formulas may name, in the same unit.
func TestMetricsAgreeWithTheFormulaLanguage(t *testing.T) {
	units := map[string]string{"ns": "ns", "B": "B", "1": ""}
	for _, m := range Metrics {
		u, ok := spl.Metrics[string(m)]
		if !ok {
			t.Errorf("%s is not an SPL metric", m)
			continue
		}
		if want := units[m.Unit()]; want != "" && u != want {
			t.Errorf("%s: unit %s here, %s in SPL", m, m.Unit(), u)
		}
	}
	if len(spl.Metrics) != len(Metrics) {
		t.Errorf("SPL has %d metrics, the model %d", len(spl.Metrics), len(Metrics))
	}
}

func TestDemandsPerOperation(t *testing.T) {
	forks := []measured.Fork{
		{NsPerOp: []float64{100, 120}, CPUNsPerOp: []float64{90, 90}, ProcCPUNsPerOp: []float64{100, 140}, AllocBytesPerOp: []float64{64, 64},
			GCs: []int64{0, 2}, GCMs: []float64{0, 4}, Ops: 1000},
		{NsPerOp: []float64{200, 200}, CPUNsPerOp: []float64{100, 100}, ProcCPUNsPerOp: []float64{110, 110}, AllocBytesPerOp: []float64{64, 64},
			GCs: []int64{1, 1}, GCMs: []float64{2, 2}, Ops: 1000},
	}
	got := map[Metric]Demand{}
	for _, d := range Demands(forks) {
		got[d.Metric] = d
	}
	want := map[Metric][]float64{ // fork figures
		Wall: {110, 200}, CPU: {90, 100}, ProcessCPU: {120, 110}, Alloc: {64, 64},
		GCCount: {0.001, 0.001}, GCTime: {2000, 2000}, CPUShare: {90.0 / 110, 0.5},
	}
	for m, figs := range want {
		d, ok := got[m]
		if !ok {
			t.Errorf("%s missing", m)
			continue
		}
		for i, f := range figs {
			if math.Abs(d.ForkMeans[i]-f) > 1e-9 {
				t.Errorf("%s fork %d = %g, want %g", m, i, d.ForkMeans[i], f)
			}
		}
		if d.CIOver != "forks" || !(d.CI95[0] <= d.Mean && d.Mean <= d.CI95[1]) {
			t.Errorf("%s: mean %g, interval %v over %s", m, d.Mean, d.CI95, d.CIOver)
		}
	}
	// A fork without process CPU: the metric is absent, not zero.
	forks[1].ProcCPUNsPerOp = nil
	if _, ok := DemandOf(forks, ProcessCPU); ok {
		t.Error("process CPU reported though a fork lacks it")
	}
}

// A process CPU clock in 10 ms ticks over a short fork is flagged as coarse;
// one with ns resolution is not.
func TestProcessClockResolution(t *testing.T) {
	ticks := measured.Fork{NsPerOp: []float64{1000, 1000, 1000}, ProcCPUNsPerOp: []float64{0, 10000, 0}, Ops: 1000}
	d, _ := DemandOf([]measured.Fork{ticks}, ProcessCPU)
	if !strings.Contains(d.Coarse, "10 ms") {
		t.Errorf("coarse note %q", d.Coarse)
	}
	fine := measured.Fork{NsPerOp: []float64{1000, 1000, 1000}, ProcCPUNsPerOp: []float64{1001.5, 998.25, 1000}, Ops: 1000}
	if d, _ := DemandOf([]measured.Fork{fine}, ProcessCPU); d.Coarse != "" {
		t.Errorf("fine clock flagged: %q", d.Coarse)
	}
}

func TestGeometricGrid(t *testing.T) {
	got := GeometricGrid(10, 100000, 5)
	want := []int64{10, 100, 1000, 10000, 100000}
	if len(got) != len(want) {
		t.Fatalf("grid %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("grid %v, want %v", got, want)
		}
	}
	if g := GeometricGrid(1, 3, 6); len(g) != 3 {
		t.Errorf("duplicates kept: %v", g)
	}
}

// By simulation with a known quadratic: the selected model, its text, a
// prediction inside the range that covers the truth, and an extrapolation
// that is flagged.
func TestDependencyRecoversAQuadratic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	truth := func(n float64) float64 { return 12 + 0.9*n*n }
	var pts []Point
	for _, n := range []float64{10, 25, 63, 158, 398, 1000} {
		p := Point{N: n}
		for k := 0; k < 4; k++ {
			p.Figures = append(p.Figures, truth(n)*math.Exp(0.03*rng.NormFloat64()))
		}
		pts = append(pts, p)
	}
	d, err := FitDependency(Wall, pts)
	if err != nil {
		t.Fatal(err)
	}
	if d.Best.Model != "n^2" && d.Best.Model != "n^k" {
		t.Errorf("best model %s (%s)", d.Best.Model, d.Text)
	}
	if d.Best.Model == "n^2" && !strings.HasPrefix(d.Text, "≈ 0.9") {
		t.Errorf("text %q", d.Text)
	}
	p := d.Predict(500)
	if p.Extrapolated || !(p.CI95[0] <= truth(500) && truth(500) <= p.CI95[1]) || math.Abs(p.Value/truth(500)-1) > 0.05 {
		t.Errorf("prediction at 500: %+v, truth %g", p, truth(500))
	}
	if q := d.Predict(5000); !q.Extrapolated {
		t.Errorf("5000 lies outside 10 … 1000 but is not flagged: %+v", q)
	}
}

func TestDependencyOfZeros(t *testing.T) {
	d, err := FitDependency(GCCount, []Point{{N: 1, Figures: []float64{0}}, {N: 10, Figures: []float64{0}}})
	if err != nil || d.Text != "= 0" {
		t.Errorf("%+v %v", d, err)
	}
	if p := d.Predict(100); p.Value != 0 || p.CI95 != (Interval{0, 0}) {
		t.Errorf("prediction %+v", p)
	}
	if _, err := FitDependency(GCCount, []Point{{N: 1, Figures: []float64{0}}, {N: 10, Figures: []float64{0.5}}}); err == nil {
		t.Error("a mix of zero and positive figures was fitted")
	}
}

func TestFormula(t *testing.T) {
	for _, c := range []struct {
		f    Fit
		unit string
		want string
	}{
		{Fit{Model: "n^2", A: 12, B: 0.9}, "ns", "0.9·n² + 12 ns"},
		{Fit{Model: "n", A: -30, B: 0.129}, "ns", "0.129·n − 30 ns"},
		{Fit{Model: "1", A: 12345.6}, "B", "12300 B"},
		{Fit{Model: "n^k", A: 3, B: 1.5234}, "ns", "3·n^1.52 ns"},
		{Fit{Model: "log n", A: 0, B: 2}, "1", "2·log n"},
	} {
		if got := Formula(c.f, c.unit); got != c.want {
			t.Errorf("Formula(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
}

// A model survives JSON (NaN bounds as null), and predictions refuse
// another environment.
func TestModelDocumentAndEnvironment(t *testing.T) {
	forks := func(scale float64) []measured.Fork {
		return []measured.Fork{{NsPerOp: []float64{scale, scale * 1.01}, CPUNsPerOp: []float64{scale, scale}, Ops: 10},
			{NsPerOp: []float64{scale * 0.99, scale}, CPUNsPerOp: []float64{scale, scale * 0.98}, Ops: 10}}
	}
	var ms []Measured
	for _, n := range []float64{100, 1000, 10000} {
		ms = append(ms, Measured{N: n, Forks: forks(5 * n)})
	}
	op := Extract("p.C#m(int[])", "p.C#gen(int)", "n", nil, ms)
	if len(op.Dependencies) == 0 || op.Dependencies[0].Metric != Wall || op.Dependencies[0].Best.Model != "n" && op.Dependencies[0].Best.Model != "n^k" {
		t.Fatalf("operation %+v", op)
	}
	env := Environment{Machine: "cpu, 2 cores, linux/amd64", JVM: "/usr/bin/java (1 bytes) default heap"}
	m := &Model{Format: FormatVersion, Operations: []Operation{op}, Environment: env}
	m.Operations[0].Points[0].Demands[0].CI95 = Interval{math.NaN(), math.NaN()}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.Operations[0].Points[0].Demands[0].CI95[0]) {
		t.Error("a null bound did not read back as NaN")
	}
	_, ps, err := back.Predict("", 5000)
	if err != nil || len(ps) == 0 || math.Abs(ps[0].Value/25000-1) > 0.02 || ps[0].Extrapolated {
		t.Errorf("predictions %+v %v", ps, err)
	}
	if env.Mismatch(env) != "" {
		t.Error("an environment differs from itself")
	}
	other := env
	other.Machine = "another cpu, 8 cores, linux/amd64"
	if d := env.Mismatch(other); !strings.Contains(d, "the machine") || strings.Contains(d, "JVM") {
		t.Errorf("mismatch %q", d)
	}
	if _, err := Read([]byte(`{"perfls_model": 99, "operations": [{}]}`)); err == nil {
		t.Error("a future format was read")
	}
	// A model kind perfls does not know is refused, not evaluated as a
	// constant (issue 34: "model":"bogus" predicted 12.0 ns).
	for _, where := range []string{"best", "indistinct"} {
		bogus := strings.Replace(string(data), `"model":"`+back.Operations[0].Dependencies[0].Best.Model+`"`, `"model":"bogus\u001b[2J"`, 1)
		if where == "indistinct" {
			d := back.Operations[0].Dependencies[0]
			d.Indistinct = append(d.Indistinct, Fit{Model: "n^3"})
			m.Operations[0].Dependencies[0] = d
			b, _ := json.Marshal(m)
			bogus = string(b)
		}
		_, err := Read([]byte(bogus))
		if err == nil {
			t.Fatalf("%s: an unknown model kind was read", where)
		}
		if msg := err.Error(); !strings.Contains(msg, "unknown model kind") || !strings.Contains(msg, `"1", "log n", "n", "n log n", "n^2", "n^k", "exact"`) || strings.ContainsRune(msg, 0x1b) {
			t.Errorf("%s: %q", where, msg)
		}
	}
	// Names predict prints are text perfls wrote: no terminal escapes.
	escaped := strings.Replace(string(data), `"method":"p.C#m(int[])"`, `"method":"p.C#m\u001b]0;pwned\u0007"`, 1)
	if _, err := Read([]byte(escaped)); err == nil || !strings.Contains(err.Error(), "control characters") || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("a method name with an escape: %v", err)
	}
}

// Apportioning: shares and their errors, the floor, and a callee's demand
// fitted over the values where it stays above the floor.
func TestApportionAndFitCallees(t *testing.T) {
	cpu := Demand{Metric: CPU, Mean: 1000, CI95: Interval{980, 1020}}
	cs := Apportion(400, map[string]float64{"p.A#big()": 360, "p.A#small()": 8, "p.A#rare()": 25}, cpu)
	if len(cs) != 3 || cs[0].Method != "p.A#big()" || math.Abs(cs[0].Share-0.9) > 1e-12 || math.Abs(cs[0].CPU-900) > 1e-9 {
		t.Fatalf("callees %+v", cs)
	}
	if pa := 362.0 / 404; math.Abs(cs[0].ShareSE-math.Sqrt(pa*(1-pa)/404)) > 1e-12 || !(cs[0].CPUSE > 1000*cs[0].ShareSE) {
		t.Errorf("errors %+v", cs[0])
	}
	if cs[0].Unreliable != "" || !strings.Contains(cs[2].Unreliable, "floor") || !strings.Contains(cs[1].Unreliable, "fewer than") {
		t.Errorf("floor: %q, %q, %q", cs[0].Unreliable, cs[1].Unreliable, cs[2].Unreliable)
	}
	if one := Apportion(100, map[string]float64{"p.A#all()": 100}, cpu); !(one[0].ShareSE > 0) {
		t.Errorf("a share of 1 has no error: %+v", one[0])
	}
	var ms []Measured
	for _, n := range []float64{100, 200, 400, 800, 1600} {
		f := measured.Fork{NsPerOp: []float64{n * n, n * n}, CPUNsPerOp: []float64{n * n, n * n * 1.01}, Ops: 10}
		ms = append(ms, Measured{N: n, Forks: []measured.Fork{f, f}, Profile: &CalleeSamples{Total: 1000, ByCallee: map[string]float64{"p.A#pairs()": 940}}})
	}
	op := Extract("p.A#compute()", "p.A#gen(int)", "n", nil, ms)
	if len(op.CalleeDependencies) != 1 || op.CalleeDependencies[0].Callee != "p.A#pairs()" ||
		!strings.Contains(op.CalleeDependencies[0].Text, "94 % of compute() at n = 1600") {
		t.Fatalf("callee dependencies %+v, problems %v", op.CalleeDependencies, op.Problems)
	}
	if m := op.CalleeDependencies[0].Best.Model; m != "n^2" && m != "n^k" {
		t.Errorf("callee model %s", m)
	}
}

// A model's environment takes the JVM and machine from the forks'
// environment and keeps the options it was asked to run with.
func TestEnvironmentRan(t *testing.T) {
	asked := Environment{Machine: "m", JVM: "j", HeapMB: 512, JVMArgs: []string{"-XX:+UseSerialGC"}}
	ran := measured.Environment{JavaVersion: "21", JavaVendor: "v", VMName: "vm", OS: "Linux", Arch: "amd64",
		CPUModel: "cpu", Cores: 4, JVMArgs: []string{"-Xmx512m", "-XX:+UseSerialGC", "-Dother"}}
	got := asked.Ran(ran)
	want := Environment{Machine: "m", JVM: "j", HeapMB: 512, JVMArgs: []string{"-XX:+UseSerialGC"},
		JavaVersion: "21", JavaVendor: "v", VMName: "vm", OS: "Linux", Arch: "amd64", CPUModel: "cpu", Cores: 4}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Ran: %+v, want %+v", got, want)
	}
}
