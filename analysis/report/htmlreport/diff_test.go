package htmlreport

import (
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/report"
)

// The diff page holds the counts, one row per change with both trees'
// figures, the ratio plot (the failed change, which has no ratio, left
// out of it) and the unchanged workloads.
func TestRenderDiff(t *testing.T) {
	fig := func(ns float64) *report.DiffFigures {
		return &report.DiffFigures{MeanNs: report.Float(ns), LowNs: report.Float(ns * 0.97), HighNs: report.Float(ns * 1.03), Forks: 5}
	}
	d := &report.Diff{Base: strings.Repeat("b", 40), BaseName: "main", Head: "worktree", Alpha: 0.05, Margin: 0.05,
		Changes: []report.DiffChange{
			{Method: "p.A#slow(int)", Workload: "p.A#gen(int)", Args: "100", Base: fig(100), Head: fig(180), Ratio: 1.8, Low: 1.7, High: 1.9, Verdict: report.Slower},
			{Method: "p.A#fast(int)", Workload: "p.A#gen(int)", Args: "100", Base: fig(100), Head: fig(50), Ratio: 0.5, Low: 0.45, High: 0.55, Verdict: report.Faster},
			{Method: "p.A#boom(int)", Workload: "p.A#gen(int)", Args: "7", Verdict: report.Undecided, Failed: true, Reason: "the workload threw"},
		},
		Unchanged: []string{"p.B#same(int)[p.B#gen(int)](10)"},
	}
	b, err := RenderDiff(d, "perfls diff --html out", time.Unix(0, 0), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`1 slower</span>`, `1 faster</span>`, `1 failed</span>`, "p.A#slow(int)[p.A#gen(int)](100)", "1.8 [1.7, 1.9]",
		"100 ns/op [97.0 ns, 103 ns], 5 forks", "the workload threw", "p.B#same(int)[p.B#gen(int)](10)", "<svg", "A#slow(100)", "A#fast(100)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "A#boom(7)") {
		t.Error("the failed change, which has no ratio, is in the plot")
	}
	if svg, err := RatioSVG(&report.Diff{Changes: d.Changes[2:]}); err != nil || svg != nil {
		t.Errorf("no ratios: %d bytes, %v; want no plot", len(svg), err)
	}
}
