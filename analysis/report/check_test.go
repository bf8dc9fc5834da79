package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/stats"
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

// The JSON document's summary says what the exit status says: failed before
// violated before passed.
func TestCheckJSONSummaryResult(t *testing.T) {
	c := failedCheck()
	doc := CheckJSON(c)
	s := doc.Summary
	if s.Result != FailedErrors || s.Satisfied != 1 || s.Violated != 1 || s.Undecided != 1 || s.Failed != 1 || s.Seconds != 1 || len(doc.Methods) != 1 {
		t.Errorf("failed check: summary %+v, %d methods", s, len(doc.Methods))
	}
	c.Methods[0].Instances = c.Methods[0].Instances[:3] // drop the failed instance
	if got := CheckJSON(c).Summary.Result; got != ViolatedRun {
		t.Errorf("violated check: result %q", got)
	}
	c.Methods[0].Instances = append(c.Methods[0].Instances[:1], c.Methods[0].Instances[2])
	if got := CheckJSON(c).Summary.Result; got != Passed {
		t.Errorf("satisfied and undecided: result %q", got)
	}
	c.FormulaErrors = 1
	if got := CheckJSON(c).Summary.Result; got != FailedErrors {
		t.Errorf("a formula error: result %q", got)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, CheckJSON(c)); err != nil || !strings.HasPrefix(b.String(), "{\n  \"format_version\": 2,\n  \"summary\": {") || !strings.Contains(b.String(), "<=") {
		t.Errorf("JSON %v:\n%s", err, b.String())
	}
}

// Outcomes are coloured only when asked (a terminal without NO_COLOR), and
// the columns stay aligned either way.
func TestCheckTextColour(t *testing.T) {
	c := failedCheck()
	var plain, coloured bytes.Buffer
	WriteCheckText(&plain, c)
	c.Colour = true
	WriteCheckText(&coloured, c)
	if strings.Contains(plain.String(), "\033[") {
		t.Errorf("plain output has escape codes:\n%q", plain.String())
	}
	for _, want := range []string{"\033[32msatisfied\033[0m", "\033[31mviolated \033[0m", "\033[1;31mfailed   \033[0m", "\033[33mundecided\033[0m"} {
		if !strings.Contains(coloured.String(), want) {
			t.Errorf("coloured output lacks %q:\n%q", want, coloured.String())
		}
	}
	strip := strings.NewReplacer("\033[32m", "", "\033[31m", "", "\033[1;31m", "", "\033[33m", "", "\033[0m", "")
	if strip.Replace(coloured.String()) != plain.String() {
		t.Errorf("colour changed the text:\n%s\n---\n%s", coloured.String(), plain.String())
	}
}

// The hover's closing line names the test that decided and its margin,
// not a test perfls no longer runs.
func TestMeaningOfSatisfiedNamesTheDecidingTest(t *testing.T) {
	res := &verdict.MethodResult{Instances: []verdict.InstanceResult{{Comparisons: []verdict.ComparisonResult{{
		Evidence: verdict.Evidence{Test: "parametric mean-value test (run means, between-run variance), one-sided", Alpha: 0.05 / 3, Margin: 0.05}}}}}}
	got := meaningOfSatisfied(res)
	want := "*satisfied* means the data show the formula holds within a 5 % margin (parametric mean-value test (run means, between-run variance), one-sided, α = 0.0167)."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Cost models are shown for three or more argument values, not for the
// two a formula's quantifier happens to measure: those say "2 values: no
// model" where the section is printed, and nothing else.
func TestCostModelsNeedThreeValues(t *testing.T) {
	fit := &stats.CostModels{Best: "log n", Indistinct: []string{"log n", "n"}}
	two := Cost{Subject: "p.A#m[g]", Points: []CostPoint{{N: 200}, {N: 2000}}, Fit: fit}
	three := Cost{Subject: "p.A#k[g]", Points: []CostPoint{{N: 10}, {N: 100}, {N: 1000}}, Fit: &stats.CostModels{Best: "n"}}
	var b bytes.Buffer
	writeCosts(&b, []Cost{two})
	if b.Len() != 0 {
		t.Errorf("two values:\n%s", b.String())
	}
	writeCosts(&b, []Cost{three, two})
	for _, want := range []string{"p.A#k[g]: n fits best", "p.A#m[g]: 2 values: no model (a cost model needs 3 or more argument values)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "log n") {
		t.Errorf("a model named from two values:\n%s", b.String())
	}
}
