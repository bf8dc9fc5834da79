package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/verdict"
)

// checkEvidence is a comparison decided by a check at α = 0.05 over 3
// looks: each look at 0.05/3, the look's interval 1 − 2·0.05/3 = 96.7 %.
func checkEvidence() verdict.Evidence {
	a := 0.05 / 3
	return verdict.Evidence{Left: verdict.SideEvidence{MeanNs: 33, Samples: 90, Forks: 3}, Right: verdict.SideEvidence{MeanNs: 100, Samples: 90, Forks: 3},
		Ratio: 0.33, RatioLow: 0.28, RatioHigh: 0.387, RatioLevel: 1 - 2*a, Looks: 3, Alpha: a, P: 0.999, PHolds: 0.001, Margin: 0.05, Test: "parametric"}
}

// Issue 40: the page said intervals are 95 % while a value read "(96.7 %)",
// evaluate printed 90 % and α read 0.016666666666666666. One rule now: every
// interval is labelled at 1 − α (95 %), a ratio's as one-sided bounds, with
// the per-look level and what a look is said once, beside the summary.
func TestConfidenceLabelsAgree(t *testing.T) {
	ev := checkEvidence()
	line := Evidence(verdict.ComparisonResult{Outcome: verdict.Satisfied, Evidence: ev})
	if !strings.Contains(line, "ratio 0.33 [0.28, 0.387] (95 % bounds)") {
		t.Errorf("check evidence: %q", line)
	}
	// evaluate decides in one look at α = 0.05: the test's interval is
	// 90 % two-sided, each bound 95 %; it reads as check's does.
	one := verdict.Evidence{Left: verdict.SideEvidence{MeanNs: 33, Samples: 90}, Right: verdict.SideEvidence{MeanNs: 100, Samples: 90}, Ratio: 0.33, RatioLow: 0.29, RatioHigh: 0.37, RatioLevel: 0.9, Alpha: 0.05}
	if got := Ratio(one); got != "0.33 [0.29, 0.37] (95 % bounds)" {
		t.Errorf("evaluate's ratio: %q", got)
	}
	if got := EvidenceAlpha(ev); got != "α = 0.0167 per look: 0.05 over 3 looks, a look deciding again after adding forks" {
		t.Errorf("EvidenceAlpha: %q", got)
	}

	c := &Check{Project: "/p", Alpha: 0.05, Looks: 3, ExtraForks: 6, Elapsed: time.Second, Methods: []verdict.MethodResult{{
		File: "/p/A.java", Class: "p.A", Method: "m", Instances: []verdict.InstanceResult{{Formula: "f", Line: 3, Outcome: verdict.Satisfied,
			Comparisons: []verdict.ComparisonResult{{Text: "f", Outcome: verdict.Satisfied, Evidence: ev}}}}}}}
	var b bytes.Buffer
	WriteCheckText(&b, c)
	text := b.String()
	for _, want := range []string{
		"(95 % bounds)",
		"(α = 0.05 over up to 3 looks, 0.0167 each; 6 forks added to decide; 1.0s)",
		"intervals: 95 %; a ratio's [low, high] are one-sided 95 % bounds over up to 3 looks (a look decides again after adding forks), 96.7 % per look; docs/statistics.md",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("check text lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"(96.7 %)", "0.016666"} {
		if strings.Contains(text, bad) {
			t.Errorf("check text has %q:\n%s", bad, text)
		}
	}

	var e bytes.Buffer
	WriteEvaluationText(&e, &Evaluation{Result: verdict.Satisfied, Alpha: 0.05, Instances: []EvaluatedInstance{{Formula: "f", Result: verdict.Satisfied,
		Comparisons: []EvaluatedComparison{{ComparisonResult: verdict.ComparisonResult{Text: "f", Outcome: verdict.Satisfied, Evidence: one}}}}}})
	if s := e.String(); !strings.Contains(s, "(95 % bounds)") || strings.Contains(s, "90 %") ||
		!strings.Contains(s, "intervals: 95 %; a ratio's [low, high] are one-sided 95 % bounds; docs/statistics.md\nsatisfied (α = 0.05)\n") {
		t.Errorf("evaluate text:\n%s", s)
	}

	// The hover names the level per look and over the looks, rounded.
	src := "package p;\nclass A {\n    @SPL(\"SELF[g](1) <= p.A#o[g](1)\")\n    static int m() { return 0; }\n}\n"
	f, err := javasrc.Parse("/p/A.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := c.Methods[0]
	res.Method, res.Params = "m", nil
	md := MethodHover(f, f.Methods[0], nil, []verdict.MethodResult{res})
	if !strings.Contains(md, "α = 0.0167 per look: 0.05 over 3 looks, a look deciding again after adding forks") || strings.Contains(md, "0.016666") {
		t.Errorf("hover:\n%s", md)
	}
}

// Issue 40: measure printed "gc time 111 ns (−86.0 ns … 308 ns)" and "gc
// count 0.00 (−0.00 … 0.00)" for quantities that cannot be negative. A lower
// bound below 0 is shown as 0 with the method named; others are unchanged.
func TestNonNegativeBoundsAreClamped(t *testing.T) {
	gc := model.Demand{Metric: model.GCTime, Unit: "ns", Mean: 111, CI95: model.Interval{-86, 308}}
	if got, want := DemandText(gc), "gc time 111 ns (0 ns … 308 ns, t-interval clamped at 0)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	count := model.Demand{Metric: model.GCCount, Unit: "", Mean: 0.001, CI95: model.Interval{-0.002, 0.004}}
	if got := DemandText(count); strings.Contains(got, "(−") || strings.Contains(got, "(-") || !strings.Contains(got, ClampNote) {
		t.Errorf("gc count: %q", got)
	}
	cpu := model.Demand{Metric: model.CPU, Unit: "ns", Mean: 1210, CI95: model.Interval{1190, 1230}}
	if got, want := DemandText(cpu), "cpu 1.21 µs (1.19 µs … 1.23 µs)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// The hover's time per operation, from a stored measurement.
	var b strings.Builder
	writeMeasurements(&b, []verdict.Measurement{{Workload: "g", Args: "1", MeanNs: 40, CILowNs: -10, CIHighNs: 90, MedianNs: 39, Forks: 2, Samples: 20}})
	if !strings.Contains(b.String(), "| g(1) | 40.0 ns (0 ns … 90.0 ns, t-interval clamped at 0) |") {
		t.Errorf("hover:\n%s", b.String())
	}
}
