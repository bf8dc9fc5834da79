package report

import (
	"strings"
	"testing"
	"time"
)

// Results are placed by the commit's place on the first-parent line, not
// by when they were measured; one panel per workload and arguments, one
// series per machine class and JVM; results of no commit, of a dirty tree
// or of a commit off the line are counted, not placed.
func TestPlaceHistory(t *testing.T) {
	at := func(s int64) time.Time { return time.Unix(s, 0) }
	row := func(commit, machine, args string, when int64, mean float64) HistoryRow {
		return HistoryRow{Commit: commit, Machine: machine, JVM: "Debian 17", Workload: "p.A#gen(int)", Args: args, MeasuredAt: at(when), MeanNs: mean}
	}
	rows := []HistoryRow{
		row("c3", "x", "10", 100, 30), // measured first, latest on the line
		row("c1", "x", "10", 200, 10),
		row("c1", "y", "10", 300, 11),
		row("c2", "x", "100", 400, 200),
		{Commit: "c2", Dirty: true, Machine: "x", Workload: "p.A#gen(int)", Args: "10", MeanNs: 99},
		row("", "x", "10", 500, 5),
		row("elsewhere", "x", "10", 600, 7),
	}
	p := PlaceHistory("p.A#m", rows, []string{"c0", "c1", "c2", "c3"})
	var commits []string
	for _, c := range p.Commits {
		commits = append(commits, c.Commit)
	}
	if len(commits) != 3 || commits[0] != "c1" || commits[1] != "c2" || commits[2] != "c3" {
		t.Fatalf("commits %v, want c1 c2 c3 (line order, only those with results)", commits)
	}
	if p.Left != 3 || len(p.Rows) != len(rows) {
		t.Errorf("left out %d (want 3), rows %d", p.Left, len(p.Rows))
	}
	if len(p.Panels) != 2 || p.Panels[0].Args != "10" || p.Panels[1].Args != "100" {
		t.Fatalf("panels %+v", p.Panels)
	}
	s := p.Panels[0].Series
	if len(s) != 2 || s[0].Machine != "x" || s[1].Machine != "y" {
		t.Fatalf("series %+v", s)
	}
	if pts := s[0].Points; len(pts) != 2 || pts[0].X != 0 || pts[0].Row.MeanNs != 10 || pts[1].X != 2 || pts[1].Row.MeanNs != 30 {
		t.Errorf("machine x's points %+v, want c1 (x 0) then c3 (x 2)", pts)
	}
	// Outside git: commits in the order of their first result.
	p = PlaceHistory("p.A#m", rows, nil)
	if len(p.Commits) != 4 || p.Commits[0].Commit != "c3" || p.Commits[1].Commit != "c1" || p.Left != 2 {
		t.Errorf("without a line: commits %+v, left %d", p.Commits, p.Left)
	}
}

// The history table shows a time's interval clamped at 0, saying so, and
// none for one fork.
func TestHistoryTableClampsIntervals(t *testing.T) {
	rows := []HistoryRow{
		{ID: 1, Commit: "c1", Workload: "p.A#gen(int)", Args: "10", Forks: 3, MeanNs: 3174, CILowNs: -200, CIHighNs: 6150},
		{ID: 2, Commit: "c2", Workload: "p.A#gen(int)", Args: "10", Forks: 3, MeanNs: 2248, CILowNs: 2124, CIHighNs: 2372},
		{ID: 3, Commit: "c3", Workload: "p.A#gen(int)", Args: "10", Forks: 1, MeanNs: 2000},
	}
	var b strings.Builder
	WriteHistory(&b, rows)
	out := b.String()
	for _, want := range []string{"[0, 6150] (t-interval clamped at 0)", "[2124, 2372]"} {
		if !strings.Contains(out, want) {
			t.Errorf("history table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "-200") || strings.Contains(out, "[0, 0]") {
		t.Errorf("history table shows a negative bound or an interval for one fork:\n%s", out)
	}
}
