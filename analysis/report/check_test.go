package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/verdict"
)

// failedCheck has one instance of each kind: satisfied, violated, undecided
// for lack of evidence, and failed (an error left it undecided).
func failedCheck() *Check {
	ev := verdict.Evidence{Left: verdict.SideEvidence{MeanNs: 10, Samples: 30, Forks: 1}, Right: verdict.SideEvidence{MeanNs: 20, Samples: 30, Forks: 1}, Ratio: 0.5, P: 0.9, Alpha: 0.05}
	in := func(line int, o verdict.Outcome, failed bool, reason string) verdict.InstanceResult {
		c := verdict.ComparisonResult{Text: "SELF[g](1) <= p.A#o[g](1)", Outcome: o, Reason: reason, Failed: failed}
		if !failed {
			c.Evidence = ev
		}
		return verdict.InstanceResult{Formula: "SELF[g](1) <= p.A#o[g](1)", Line: line, Outcome: o, Failed: failed, Comparisons: []verdict.ComparisonResult{c}}
	}
	return &Check{Project: "/p", Alpha: 0.05, Elapsed: time.Second, Methods: []verdict.MethodResult{{
		File: "/p/src/A.java", Class: "p.A", Method: "m", Params: []string{"int"},
		Instances: []verdict.InstanceResult{
			in(3, verdict.Satisfied, false, ""),
			in(4, verdict.Violated, false, ""),
			in(5, verdict.Undecided, false, "too few samples to test"),
			in(6, verdict.Undecided, true, "left side: the measured method threw java.lang.IllegalStateException"),
		},
	}}}
}

func TestFailedInstancesInTextAndJUnit(t *testing.T) {
	c := failedCheck()
	var text bytes.Buffer
	WriteCheckText(&text, c)
	for _, want := range []string{"failed    src/A.java:6 ", "undecided src/A.java:5 ", "1 satisfied, 1 violated, 1 undecided, 1 failed (α = 0.05; 1.0s)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	b, err := JUnit(c)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests   int `xml:"tests,attr"`
		Errors  int `xml:"errors,attr"`
		Skipped int `xml:"skipped,attr"`
		Suites  []struct {
			Cases []struct {
				Line    int `xml:"line,attr"`
				Failure *struct{}
				Error   *struct {
					Text string `xml:",chardata"`
				} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	cases := doc.Suites[0].Cases
	if doc.Tests != 4 || doc.Errors != 1 || doc.Skipped != 1 || cases[3].Error == nil || !strings.Contains(cases[3].Error.Text, "IllegalStateException") || cases[2].Skipped == nil {
		t.Errorf("junit:\n%s", b)
	}
	if !strings.Contains(string(b), `failures="1"`) || !strings.Contains(string(b), `errors="1"`) {
		t.Errorf("junit counts:\n%s", b)
	}
}

func TestCommandLineQuoting(t *testing.T) {
	got := CommandLine([]string{"perfls", "check", "--html", "my report", "it's", "", "a/b"})
	want := `perfls check --html 'my report' 'it'\''s' '' a/b`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
