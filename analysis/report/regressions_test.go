package report

import (
	"strings"
	"testing"
)

// The text lists each change point with its commit, change and class, the
// environment shifts apart, and what was left out; only a slow-down after
// --since makes exit status 1.
func TestRegressionsText(t *testing.T) {
	id := SeriesID{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Metric: "time", Unit: "ns/op", Machine: "x, 2 cores", JVM: "Debian 17"}
	r := &Regressions{Head: "0123456789abcdef", Since: "fedcba9876543210", Commits: 20, Results: 25, Series: 2,
		Changes: []RegressionChange{{SeriesID: id, Commit: "aaaaaaaaaaaa", Subject: "make it slow", Before: 1000, After: 1300, Magnitude: 0.3,
			PValue: 1e-6, Slower: true}},
		Environment: []EnvironmentShift{{SeriesID: SeriesID{Method: "p.A#m(int)", Metric: "alloc", Unit: "B/op", Machine: "y", JVM: "Debian 17"},
			Commit: "bbbbbbbbbbbb", Subject: "s", OtherMachine: "x, 2 cores", OtherJVM: "Debian 17", Before: 24, After: 48, Magnitude: 1, PValue: 1e-9}},
		LeftOut: LeftOut{Dirty: 1, OffLine: 2}}
	var b strings.Builder
	r.WriteText(&b)
	for _, want := range []string{
		"1 change point in 2 series (25 results on 20 commits of the first-parent line of 0123456789, counted after fedcba9876)",
		`slower (before --since) since aaaaaaaaaa "make it slow": p.A#m(int) [p.A#gen(int) 10] time +30.0 % (1.00 µs/op → 1.30 µs/op), p = 1e-06`,
		"on x, 2 cores / Debian 17",
		"environment differs (not regressions",
		`p.A#m(int) alloc +100.0 % at bbbbbbbbbb "s": 48.0 B/op on y / Debian 17 against 24.0 B/op on x, 2 cores / Debian 17`,
		"left out: 1 result of trees with changes, 2 of commits not on the first-parent line, 0 without a commit",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
	if r.ExitStatus() != 0 {
		t.Error("a slow-down before --since: exit 1")
	}
	r.Changes[0].InSince = true
	if r.ExitStatus() != 1 {
		t.Error("a slow-down after --since: exit 0")
	}
	r.Changes[0].Slower = false
	if r.ExitStatus() != 0 {
		t.Error("a speed-up: exit 1")
	}
}
