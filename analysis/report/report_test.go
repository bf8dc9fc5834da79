package report

import (
	"math"
	"testing"

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
	if got, want := Evidence(c), "18.2 ns/op vs 312 ns/op  ratio 0.0583 [0.055, 0.061]  p=1.000"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	c.Evidence.Left.Scale = 2
	if got, want := Evidence(c), "2 × 18.2 ns/op vs 312 ns/op  ratio 0.0583 [0.055, 0.061]  p=1.000"; got != want {
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
