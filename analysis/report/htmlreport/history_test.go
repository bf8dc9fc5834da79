package htmlreport

import (
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/report"
)

// The history page plots each workload's results over the commits, one
// series per machine class and JVM with its legend, lists the commits in
// line order and every result, says how many were not plotted and escapes
// what it shows.
func TestRenderHistory(t *testing.T) {
	row := func(commit, machine string, mean float64, forks int) report.HistoryRow {
		r := report.HistoryRow{Commit: commit, Machine: machine, JVM: "Debian 17.0.9", Workload: "p.A#gen(int)", Args: "100",
			MeasuredAt: time.Unix(1700000000, 0), MeanNs: mean, Forks: forks}
		if forks > 1 {
			r.CILowNs, r.CIHighNs = mean*0.9, mean*1.1
		}
		return r
	}
	rows := []report.HistoryRow{row("aaaaaaa1", "Xeon <x>, 2 cores", 100, 3), row("bbbbbbb2", "Xeon <x>, 2 cores", 150, 3),
		row("aaaaaaa1", "EPYC, 8 cores", 80, 1), {Commit: "ccccccc3", Dirty: true, Machine: "EPYC, 8 cores", MeanNs: 1}}
	rows[1].ID, rows[1].Review = 42, "regression"
	rows[0].CILowNs = -20 // a wide interval of a time: shown clamped at 0
	p := report.PlaceHistory("p.A#m(int)", rows, []string{"aaaaaaa1", "bbbbbbb2"})
	p.Commits[1].Subject = "make <m> slower"
	b, err := RenderHistory(p, "perfls history --method p.A#m --html out", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<svg", "p.A#gen(int)(100)", "Xeon &lt;x&gt;, 2 cores · Debian 17.0.9", "EPYC, 8 cores · Debian 17.0.9",
		"aaaaaaa", "bbbbbbb", "make &lt;m&gt; slower", "2 commits plotted, 1 not plotted", "ccccccc3&#43;dirty", "[135 ns, 165 ns]", "[0 ns, 110 ns] (t-interval clamped at 0)", "first-parent line", "<td>42</td>", "<td>regression</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<m>") || strings.Contains(page, "<x>") {
		t.Error("user text is not escaped")
	}
	if err := wellFormed(page); err != nil {
		t.Error(err)
	}
	if i, j := strings.Index(page, ">aaaaaaa1<"), strings.Index(page, ">bbbbbbb2<"); i < 0 || j < i {
		t.Errorf("commits not listed in line order (%d, %d)", i, j)
	}
	empty, err := RenderHistory(report.PlaceHistory("p.A#m", nil, nil), "perfls history", time.Unix(0, 0))
	if err != nil || !strings.Contains(string(empty), "No result to plot") || strings.Contains(string(empty), "<svg") {
		t.Errorf("no results: %v\n%s", err, empty)
	}
}
