package verdict

import (
	"errors"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
)

// instance parses src (one formula without quantifiers) and returns its one
// instance's body and comparisons.
func instance(t *testing.T, src string) (spl.Expr, []*spl.Comparison) {
	t.Helper()
	unit, diags := spl.ParseAndLint(src)
	for _, d := range diags {
		if d.Severity == spl.Error {
			t.Fatalf("%s: %s", src, d.Message)
		}
	}
	insts, _ := spl.Expand(unit.Formulas[0])
	if len(insts) != 1 {
		t.Fatalf("%s: %d instances", src, len(insts))
	}
	return insts[0].Body, spl.Comparisons(insts[0].Body)
}

// TestDecideInstanceTellsErrorsFromLackOfEvidence: an instance left
// undecided by a failed side is Failed; one undecided for too few samples
// is not; a failed side does not hide a violation it cannot change.
func TestDecideInstanceTellsErrorsFromLackOfEvidence(t *testing.T) {
	fast := Side{Runs: [][]float64{{10, 11, 10, 12, 11}, {11, 10, 12, 11, 10}}}
	slow := Side{Runs: [][]float64{{50, 52, 51, 50, 53}, {51, 50, 52, 53, 50}}}
	thin := Side{Runs: [][]float64{{10}}}
	broken := Side{Err: errors.New("java.lang.NoClassDefFoundError: dep/Lib")}
	opt := Options{Interpretation: "quick"}
	cases := []struct {
		name        string
		src         string
		sides       [][2]Side // per comparison
		want        Outcome
		wantFailed  bool
		failedComps int
	}{
		{"satisfied", "a[g](1) <= b[g](1)", [][2]Side{{fast, slow}}, Satisfied, false, 0},
		{"error", "a[g](1) <= b[g](1)", [][2]Side{{broken, slow}}, Undecided, true, 1},
		{"lack of evidence", "a[g](1) <= b[g](1)", [][2]Side{{thin, thin}}, Undecided, false, 0},
		{"error beside a violation", "a[g](1) <= b[g](1) and c[g](1) <= d[g](1)", [][2]Side{{broken, slow}, {slow, fast}}, Violated, false, 1},
		{"error beside a satisfied disjunct", "a[g](1) <= b[g](1) or c[g](1) <= d[g](1)", [][2]Side{{broken, slow}, {fast, slow}}, Satisfied, false, 1},
		{"error beside lack of evidence", "a[g](1) <= b[g](1) and c[g](1) <= d[g](1)", [][2]Side{{broken, slow}, {thin, thin}}, Undecided, true, 1},
	}
	var counts Counts
	for _, c := range cases {
		body, comps := instance(t, c.src)
		var in []Input
		for i, cmp := range comps {
			in = append(in, Input{Node: cmp, Text: cmp.String(), Left: c.sides[i][0], Right: c.sides[i][1]})
		}
		got := DecideInstance(body, in, opt)
		failed := 0
		for _, cr := range got.Comparisons {
			if cr.Failed {
				failed++
			}
		}
		if got.Outcome != c.want || got.Failed != c.wantFailed || failed != c.failedComps || len(got.Comparisons) != len(comps) {
			t.Errorf("%s: %s failed=%v (%d failed comparisons), want %s failed=%v (%d)", c.name, got.Outcome, got.Failed, failed, c.want, c.wantFailed, c.failedComps)
		}
		counts.Add(got)
	}
	want := Counts{Satisfied: 2, Violated: 1, Undecided: 1, Failed: 2}
	if counts != want || counts.Overall() != Violated || counts.String() != "2 satisfied, 1 violated, 1 undecided, 2 failed" {
		t.Errorf("counts %+v %q", counts, counts)
	}
	if (Counts{Satisfied: 3}).Overall() != Satisfied || (Counts{Satisfied: 3, Failed: 1}).Overall() != Undecided {
		t.Error("overall")
	}
}
