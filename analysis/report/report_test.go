package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/verdict"
)

func TestDuration(t *testing.T) {
	cases := map[float64]string{
		0.5: "0.50 ns", 18.24: "18.2 ns", 312.4: "312 ns", 1520: "1.52 µs", 24_800: "24.8 µs",
		4_500_000: "4.50 ms", 2.5e9: "2.50 s", math.NaN(): "n/a",
	}
	for ns, want := range cases {
		if got := Duration(ns); got != want {
			t.Errorf("Duration(%g) = %q, want %q", ns, got, want)
		}
	}
}

func TestEvidenceLine(t *testing.T) {
	c := verdict.ComparisonResult{Outcome: verdict.Satisfied, Evidence: verdict.Evidence{
		Left: verdict.SideEvidence{MeanNs: 18.2, Samples: 90}, Right: verdict.SideEvidence{MeanNs: 312, Samples: 90},
		Ratio: 0.0583, RatioLow: 0.055, RatioHigh: 0.061, P: 1,
	}}
	if got, want := Evidence(c), "18.2 ns/op vs 312 ns/op  ratio 0.0583 [0.055, 0.061] (95 %)  p=1.000"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	c.Evidence.Left.Scale = 2
	if got, want := Evidence(c), "2 × 18.2 ns/op vs 312 ns/op  ratio 0.0583 [0.055, 0.061] (95 %)  p=1.000"; got != want {
		t.Errorf("scaled: got %q, want %q", got, want)
	}
	u := verdict.ComparisonResult{Reason: "right side: workload threw"}
	if got := Evidence(u); got != "right side: workload threw" {
		t.Errorf("undecided: %q", got)
	}
	if got := PValue(3e-20); got != "<1e-16" {
		t.Errorf("PValue: %q", got)
	}
}

func TestHoverDocumentsMeasurements(t *testing.T) {
	src := "package p;\nclass A {\n    @SPL(\"for n in {10, 100, 1000} SELF[gen](n) <= p.A#b[gen](n)\")\n    static int a(int[] x) { return 0; }\n}\n"
	f, err := javasrc.Parse("/p/A.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Methods[0]
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	res := verdict.MethodResult{File: "/p/A.java", Class: "p.A", Method: "a", Params: []string{"int[]"}, CheckedAt: at, Source: m.SourceHash(f),
		Measurements: []verdict.Measurement{
			{Workload: "gen", Args: "10", N: 10, MeanNs: 20, CILowNs: 19, CIHighNs: 21, MedianNs: 20, AllocBytes: 0, Forks: 3, Samples: 30, MeasuredAt: at, ForkMeansNs: []float64{19.5, 20, 20.5}},
			{Workload: "gen", Args: "100", N: 100, MeanNs: 200, CILowNs: 190, CIHighNs: 210, MedianNs: 199, AllocBytes: 16, Forks: 3, Samples: 30, MeasuredAt: at, ForkMeansNs: []float64{196, 200, 204}},
			{Workload: "gen", Args: "1000", N: 1000, MeanNs: 2000, MedianNs: 2000, AllocBytes: -1, Forks: 3, Samples: 30, MeasuredAt: at, ForkMeansNs: []float64{1950, 2000, 2050}},
		}}
	md := MethodHover(f, m, nil, []verdict.MethodResult{res})
	for _, want := range []string{
		"| gen(10) | 20.0 ns (19.0 ns … 21.0 ns) | 20.0 ns | 0 B | 3 × 30 |",
		"| gen(1000) | 2.00 µs | 2.00 µs | n/a | 3 × 30 |",
		"```text\n  10 █ 20.0 ns\n 100 " + strings.Repeat("█", 13) + " 200 ns\n1000 " + strings.Repeat("█", 24) + " 2.00 µs\n```",
		"Cost model: **n", // linear data (n, or n^k with k ≈ 1); with only the three means no model could be ranked
	} {
		if !strings.Contains(md, want) {
			t.Errorf("hover lacks %q:\n%s", want, md)
		}
	}
	// Without fork means there are three points: too few to rank two-parameter models.
	means := res
	means.Measurements = append([]verdict.Measurement(nil), res.Measurements...)
	for i := range means.Measurements {
		means.Measurements[i].ForkMeansNs = nil
	}
	if md := MethodHover(f, m, nil, []verdict.MethodResult{means}); strings.Contains(md, "Cost model") {
		t.Errorf("a cost model named from three points:\n%s", md)
	}
	// Two argument values (linearSearch at n = 10⁴ and 10⁵) fit every
	// two-parameter model exactly: no model is named.
	two := res
	two.Measurements = append([]verdict.Measurement(nil), res.Measurements[:2]...)
	if md := MethodHover(f, m, nil, []verdict.MethodResult{two}); !strings.Contains(md, "Cost model: 2 values: no model") || strings.Contains(md, "fits best") {
		t.Errorf("two values:\n%s", md)
	}
	if strings.Contains(md, "Stale") {
		t.Errorf("fresh result shown as stale:\n%s", md)
	}
	if strings.Contains(md, "demands per op") {
		t.Errorf("a demand table without demands:\n%s", md)
	}
	// The demands beside time: CPU, process CPU, CPU share with intervals.
	for i, n := range []float64{10, 100, 1000} {
		res.Measurements[i].Demands = append(res.Measurements[i].Demands[:0:0], model.Demand{Metric: model.CPU, Unit: "ns", Mean: 2 * n, CI95: model.Interval{1.9 * n, 2.1 * n},
			ForkMeans: []float64{1.98 * n, 2 * n, 2.02 * n}})
	}
	res.Measurements[0].Demands = append(res.Measurements[0].Demands,
		model.Demand{Metric: model.CPUShare, Unit: "1", Mean: 0.9, CI95: model.Interval{0.85, 0.95}},
		model.Demand{Metric: model.ProcessCPU, Unit: "ns", Mean: 25, CI95: model.Interval{math.NaN(), math.NaN()}, Coarse: "ticks"})
	md = MethodHover(f, m, nil, []verdict.MethodResult{res})
	if want := "Demands per op: cpu ≈ 2·n"; !strings.Contains(md, want) {
		t.Errorf("hover lacks %q:\n%s", want, md)
	}
	if want := "| gen(10) | cpu 20.0 ns (19.0 ns … 21.0 ns); cpu share 0.90 (0.85 … 0.95); process cpu 25.0 ns [coarse] |"; !strings.Contains(md, want) {
		t.Errorf("hover lacks %q:\n%s", want, md)
	}
	// An edited method makes the same record stale.
	edited, _ := javasrc.Parse("/p/A.java", []byte(strings.Replace(src, "return 0;", "return 1;", 1)))
	if md := MethodHover(edited, edited.Methods[0], nil, []verdict.MethodResult{res}); !strings.Contains(md, "**Stale**") {
		t.Errorf("edited method not marked stale:\n%s", md)
	}
}

// Under the default semantics a method whose formulas are violated (no
// test showing a relation holds ran) still reads what satisfied means: shown
// within the margin, never "no significant evidence".
func TestHoverSaysWhatSatisfiedMeansWhenViolated(t *testing.T) {
	src := "package p;\nclass A {\n    @SPL(\"SELF[gen](1) <= p.A#b[gen](1)\")\n    static int a(int x) { return 0; }\n}\n"
	f, err := javasrc.Parse("/p/A.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Methods[0]
	ev := verdict.Evidence{Left: verdict.SideEvidence{MeanNs: 300, Samples: 5}, Right: verdict.SideEvidence{MeanNs: 100, Samples: 5},
		Ratio: 3, RatioLow: 2.5, RatioHigh: 3.5, P: 1e-6, Alpha: 0.05, Test: "parametric mean-value test", Semantics: "shown"}
	res := verdict.MethodResult{File: "/p/A.java", Class: "p.A", Method: "a", Params: []string{"int"}, Source: m.SourceHash(f),
		Instances: []verdict.InstanceResult{{Outcome: verdict.Violated, Comparisons: []verdict.ComparisonResult{{Outcome: verdict.Violated, Evidence: ev}}}}}
	md := MethodHover(f, m, nil, []verdict.MethodResult{res})
	if !strings.Contains(md, "*satisfied* means the data show the formula holds within a 5 % margin") || strings.Contains(md, "no significant evidence") {
		t.Errorf("hover of a violated method under the default semantics:\n%s", md)
	}
}

// A verdict decided under the classic semantics says so in the CLI line,
// the hover and the check summary; the default's shows nothing more.
func TestClassicSemanticsIsShown(t *testing.T) {
	ev := verdict.Evidence{Left: verdict.SideEvidence{MeanNs: 103, Samples: 5}, Right: verdict.SideEvidence{MeanNs: 100, Samples: 5},
		Ratio: 1.03, RatioLow: 0.97, RatioHigh: 1.09, P: 0.19, Alpha: 0.05, Test: "Welch t-test, pooled samples, one-sided", Semantics: "classic"}
	c := verdict.ComparisonResult{Outcome: verdict.Satisfied, Evidence: ev}
	if got := Evidence(c); !strings.HasSuffix(got, "p=0.190  [classic]") {
		t.Errorf("classic evidence line %q", got)
	}
	c.Evidence.Semantics = "shown"
	if got := Evidence(c); strings.Contains(got, "classic") {
		t.Errorf("default evidence line %q", got)
	}
	src := "package p;\nclass A {\n    @SPL(\"SELF[gen](1) <= p.A#b[gen](1)\")\n    static int a(int x) { return 0; }\n}\n"
	f, err := javasrc.Parse("/p/A.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Methods[0]
	res := verdict.MethodResult{File: "/p/A.java", Class: "p.A", Method: "a", Params: []string{"int"}, Source: m.SourceHash(f),
		Instances: []verdict.InstanceResult{{Outcome: verdict.Satisfied, Comparisons: []verdict.ComparisonResult{{Outcome: verdict.Satisfied, Evidence: ev}}}}}
	if md := MethodHover(f, m, nil, []verdict.MethodResult{res}); !strings.Contains(md, "Classic semantics (the SPL paper's reading): *satisfied* means no significant evidence against the formula") {
		t.Errorf("hover does not name the classic semantics:\n%s", md)
	}
	var b strings.Builder
	WriteCheckText(&b, &Check{Alpha: 0.05, Semantics: verdict.Classic, Looks: 1, Methods: []verdict.MethodResult{res}})
	if !strings.Contains(b.String(), "(α = 0.05, "+ClassicNote+";") {
		t.Errorf("check summary:\n%s", b.String())
	}
	if doc := CheckJSON(&Check{Alpha: 0.05}); doc.Summary.Semantics != "shown" {
		t.Errorf("JSON summary semantics %q, want shown", doc.Summary.Semantics)
	}
}
