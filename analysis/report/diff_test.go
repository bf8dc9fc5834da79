package report

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

func sampleDiff() *Diff {
	fig := func(ns float64) *DiffFigures {
		return &DiffFigures{MeanNs: Float(ns), LowNs: Float(ns * 0.97), HighNs: Float(ns * 1.03), Forks: 5, Samples: 10}
	}
	return &Diff{Base: strings.Repeat("a", 40), BaseName: "main", Head: "worktree", Alpha: 0.05, Margin: 0.05,
		Changes: []DiffChange{
			{Method: "p.A#slow(int)", Workload: "p.A#gen(int)", Args: "100", Base: fig(100), Head: fig(180), Ratio: 1.8, Low: 1.7, High: 1.9, Verdict: Slower},
			{Method: "p.A#fast(int)", Workload: "p.A#gen(int)", Args: "100", Base: fig(100), Head: fig(50), Ratio: 0.5, Low: 0.45, High: 0.55, Verdict: Faster},
			{Method: "p.A#flat(int)", Workload: "p.A#gen(int)", Args: "100", Base: fig(100), Head: fig(101), Ratio: 1.01, Low: 0.99, High: 1.03, Verdict: Same},
			{Method: "p.A#noisy(int)", Workload: "p.A#gen(int)", Args: "100", Base: fig(100), Head: fig(104), Ratio: 1.04, Low: 0.8, High: 1.3, Verdict: Undecided},
			{Method: "p.A#boom(int)", Workload: "p.A#gen(int)", Args: "100", Verdict: Undecided, Failed: true, Reason: "the workload threw"},
		},
		Unchanged: []string{"p.B#same(int)[p.B#gen(int)](10)"},
	}
}

// diff's JUnit: slower fails, a failed measurement errs, undecided is
// skipped, the rest (unchanged included) pass.
func TestDiffJUnit(t *testing.T) {
	b, err := DiffJUnit(sampleDiff(), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b)
	}
	if doc.Tests != 6 || doc.Failures != 1 || doc.Errors != 1 || doc.Skipped != 1 || len(doc.Suites) != 1 {
		t.Fatalf("tests %d failures %d errors %d skipped %d suites %d\n%s", doc.Tests, doc.Failures, doc.Errors, doc.Skipped, len(doc.Suites), b)
	}
	cases := doc.Suites[0].Cases
	if c := cases[0]; c.Failure == nil || c.Classname != "p.A" || !strings.Contains(c.Failure.Text, "ratio 1.8") {
		t.Errorf("slower case: %+v", c)
	}
	if c := cases[4]; c.Error == nil || !strings.Contains(c.Error.Text, "the workload threw") {
		t.Errorf("failed case: %+v", c)
	}
	if c := cases[5]; c.Failure != nil || c.Error != nil || c.Skipped != nil || !strings.Contains(c.SystemOut, "unchanged") {
		t.Errorf("unchanged case: %+v", c)
	}
}
