package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// TestSelectorRefusals: the commands take the project as DIR or --project
// (not two different ones), and the workload commands refuse, saying why
// and what to do, what they cannot act on — before measuring anything.
func TestSelectorRefusals(t *testing.T) {
	fixture.Isolate(t)
	dir := fixture.Project(t, fixture.WorkloadForms)
	other := t.TempDir()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"measure", "--method", "w.Hot#compute", "--project", other, dir}, []string{"two projects named"}},
		{[]string{"profile", "--method", "w.Hot#compute", dir, other}, []string{"accepts at most 1 arg"}},
		{[]string{"check", "--project", other, dir}, []string{"two projects named"}},
		{[]string{"diff", "--project", other, dir}, []string{"two projects named"}},
		{[]string{"regressions", "--project", other, dir}, []string{"two projects named"}},
		{[]string{"measure", "--method", "w.Hot#compute", "--project", other + "/nosuch"}, []string{"--project " + other + "/nosuch is not a directory"}},
		{[]string{"measure", "--method", "w.Hot#bareSum", dir}, []string{"no documented minimum", "--args", "--workload none"}},
		{[]string{"profile", "--method", "w.Hot#bareSum", dir}, []string{"no documented minimum"}},
		{[]string{"calibrate", "--method", "w.Hot#bareSum", dir}, []string{"no documented minimum"}},
		{[]string{"model", "--method", "w.Hot#twice", "--values", "10,20,40", dir}, []string{"2 workloads", "--workload"}},
		{[]string{"model", "--method", "w.Hot#compute", "--workload", "none", "--values", "10,20,40", dir}, []string{"--workload none names none", "leave it out"}},
		{[]string{"verify", "--method", "w.Hot#compute", dir}, []string{"no calibrated workload", "perfls calibrate --method w.Hot#compute"}},
		{[]string{"calibrate", "--rebuild", "--method", "w.Hot#compute", dir}, []string{"no calibrated workload"}},
		{[]string{"predict", "--method", "w.Hot#compute", "n=5"}, []string{"perfls model --method w.Hot#compute"}},
		{[]string{"predict", "n=5"}, []string{"--model FILE", "--method"}},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args, code, exitUsage, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, errs)
			}
		}
	}
}

// TestMeasureProfileDefaults runs measure on annotated methods named by
// --method alone, in a project given as DIR (each of a method's bindings
// in turn), and profile on a four-thread workload loop with a DIR argument,
// as the command did.
func TestMeasureProfileDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "measure-profile-defaults")
	dir := fixture.Project(t, fixture.WorkloadForms)
	small := []string{"--forks", "1", "--samples", "3", "--warmup", "20ms", "--max-warmup", "300ms", "--format", "json"}
	code, out, errs := runCLI(t, append([]string{"measure", "--method", "w.Hot#twice", dir}, small...)...)
	if code != exitOK {
		t.Fatalf("measure: exit %d\n%s\n%s", code, out, errs)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			Workload string
			Args     []any
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, m.Workload)
	}
	if strings.Join(got, " ") != "w.Hot#ints(int) w.Hot#shuffled(int)" || !strings.Contains(errs, "2 workloads from the source") {
		t.Errorf("measured %v\n%s", got, errs)
	}
	code, out, errs = runCLI(t, "profile", "--method", "w.Lock#cross", "--workload", "w.Lock#traffic", "--args", "200", "--samples", "4", "--warmup", "200ms", dir)
	if code != exitOK || !strings.Contains(out, "where threads wait") || !strings.Contains(out, "w.Lock$Counter") {
		t.Errorf("profile of a loop: exit %d\n%s\n%s", code, out, errs)
	}
}
