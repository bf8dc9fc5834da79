package report

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/model"
)

// perfls measure shows every demand per operation with its interval, in
// text and in JSON.
func TestMeasurementShowsDemands(t *testing.T) {
	f := measured.Fork{NsPerOp: []float64{100, 102, 98}, CPUNsPerOp: []float64{90, 92, 88}, ProcCPUNsPerOp: []float64{95, 97, 93},
		AllocBytesPerOp: []float64{64, 64, 64}, GCs: []int64{0, 0, 0}, GCMs: []float64{0, 0, 0}, Ops: 1000}
	m := NewMeasurement("p.C#m()", "p.C#gen(int)", []measured.Arg{measured.IntArg(10)}, measured.Result{Forks: []measured.Fork{f, f}})
	var text bytes.Buffer
	WriteMeasurementText(&text, m)
	for _, want := range []string{"per op (95% CI): wall 100 ns", "cpu 90.0 ns (90.0 ns … 90.0 ns)", "process cpu 95.0 ns", "alloc 64.0 B", "cpu share 0.90"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteMeasurementJSON(&js, m); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary struct{ Demands []model.Demand }
		Forks   []struct {
			ProcCPU []float64 `json:"proc_cpu_ns_per_op"`
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Summary.Demands) != 7 || doc.Summary.Demands[2].Metric != model.ProcessCPU || len(doc.Forks[0].ProcCPU) != 3 {
		t.Errorf("JSON %s", js.String())
	}
}

// The model document in YAML has the JSON's keys in their order, in block
// style; predictions print each metric with its interval and flag an
// extrapolation.
func TestModelOutputs(t *testing.T) {
	dep := model.Dependency{Metric: model.Wall, Unit: "ns", Text: "≈ 2·n ns", Best: model.Fit{Model: "n", B: 2, K: 2}, Range: [2]float64{10, 1000}}
	m := &model.Model{Format: 1, Operations: []model.Operation{{Method: "p.C#m()", Parameter: "n", Dependencies: []model.Dependency{dep}}}}
	var out, notes bytes.Buffer
	if err := WritePerformanceModel(&out, &notes, "yaml", m); err != nil {
		t.Fatal(err)
	}
	if y := out.String(); !strings.HasPrefix(y, "format_version: 2\nperfls_model: 1\n") || !strings.Contains(y, "      - metric: wall\n") && !strings.Contains(y, "- metric: wall") {
		t.Errorf("yaml:\n%s", y)
	}
	if !strings.Contains(notes.String(), "wall        ≈ 2·n ns, fitted on n in 10 … 1000") {
		t.Errorf("summary:\n%s", notes.String())
	}
	p := &Predicted{Method: "p.C#m()", Parameter: "n", Predictions: []model.Prediction{dep.Predict(5000)}}
	p.Predictions[0].CI95 = model.Interval{math.NaN(), math.NaN()}
	p.Predictions[0].PI95 = model.Interval{8000, 12000}
	out.Reset()
	WritePredictions(&out, "text", p)
	if s := out.String(); !strings.Contains(s, "wall        10.0 µs (n/a … n/a; a measurement 8.00 µs … 12.0 µs), n [extrapolated") {
		t.Errorf("predictions:\n%s", s)
	}
}

// TestCalleeLinesAndModelMarkdown: the callees read "pairs(): cpu ≈ …, N %
// of compute() at n = …; calls = … per op, exact …"; the hover's model
// names the range and flags the figures at ten times its top as
// extrapolated.
func TestCalleeLinesAndModelMarkdown(t *testing.T) {
	var ms []model.Measured
	for _, n := range []float64{10, 20, 40, 80} {
		f := measured.Fork{NsPerOp: []float64{n * n, n * n}, CPUNsPerOp: []float64{n * n, n * n}, Ops: 10}
		ms = append(ms, model.Measured{N: n, Forks: []measured.Fork{f, f},
			Profile: &model.CalleeSamples{Total: 1000, ByCallee: map[string]float64{"p.A#pairs(int,int)": 900}},
			Counts:  &measured.CallCounts{Ops: 100, Calls: []measured.CallCount{{Method: "p.A#pairs(int,int)", PerOp: n * (n - 1) / 2}}}})
	}
	op := model.Extract("p.A#compute(int[])", "p.A#gen(int)", "n", nil, ms)
	lines := CalleeLines(op)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "pairs(): cpu ≈ ") ||
		!strings.HasSuffix(lines[0], ", 90 % of compute() at n = 80; calls = 0.5·n² − 0.5·n per op, exact at all 4 values") {
		t.Fatalf("callee lines %q", lines)
	}
	md := ModelMarkdown(op, time.Now())
	for _, want := range []string{"fitted on n in 10 … 80", "- " + lines[0], "At n = 800 (**extrapolated**", "pairs() cpu ≈ "} {
		if !strings.Contains(md, want) {
			t.Errorf("hover lacks %q:\n%s", want, md)
		}
	}
}

// The hover says how far the values depart from a curve fitted on
// scattered values, and says nothing of it for a curve through them.
func TestModelMarkdownDeparture(t *testing.T) {
	var pts []model.Point
	for i, n := range []float64{10, 20, 40, 80, 160, 320} {
		dev := 1.1
		if i%2 == 1 {
			dev = 0.9
		}
		pts = append(pts, model.Point{N: n, Figures: []float64{3 * n * dev, 3 * n * dev}})
	}
	d, err := model.FitDependency(model.Wall, pts)
	if err != nil {
		t.Fatal(err)
	}
	op := model.Operation{Workload: "p.C#gen(int)", Parameter: "n", Points: []model.PointFigs{{N: 10}, {N: 320}}, Dependencies: []model.Dependency{d}}
	md := ModelMarkdown(op, time.Unix(0, 0))
	if !regexp.MustCompile(`- wall ≈ .* \(values depart from it by 1[0-2] %, s\.d\.\)`).MatchString(md) {
		t.Errorf("hover lacks the values' departure (about 11 %%):\n%s", md)
	}
	for i := range pts {
		pts[i].Figures = []float64{3 * pts[i].N}
	}
	if d, err = model.FitDependency(model.Wall, pts); err != nil {
		t.Fatal(err)
	}
	op.Dependencies = []model.Dependency{d}
	if md := ModelMarkdown(op, time.Unix(0, 0)); strings.Contains(md, "depart") {
		t.Errorf("an exact curve's hover mentions a departure:\n%s", md)
	}
}
