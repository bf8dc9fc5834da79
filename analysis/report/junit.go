package report

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/verdict"
)

// JUnit XML as CI servers read it (Jenkins, GitLab, GitHub actions): one
// test suite per annotated method, one test case per formula instance. A
// violated instance is a failure; one that could not be decided because of
// an error (a failed measurement, an unresolved reference) is an error; one
// undecided for lack of evidence is skipped. Each carries its evidence.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit renders the verdicts of a check as a JUnit XML document.
func JUnit(c *Check) ([]byte, error) {
	all := junitSuites{Name: "perfls check", Time: fmt.Sprintf("%.3f", c.Elapsed.Seconds())}
	for _, m := range c.Methods {
		s := junitSuite{Name: m.Class + "#" + m.Method + "(" + strings.Join(m.Params, ",") + ")", Timestamp: m.CheckedAt.UTC().Format("2006-01-02T15:04:05")}
		for _, in := range m.Instances {
			s.Cases = append(s.Cases, junitCaseOf(c, m, in, &s))
			s.Tests++
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit report: %w", err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

func junitCaseOf(c *Check, m verdict.MethodResult, in verdict.InstanceResult, s *junitSuite) junitCase {
	name := in.Formula
	if in.Instance != "" {
		name += " [" + in.Instance + "]"
	}
	jc := junitCase{Name: name, Classname: m.Class, File: c.Rel(m.File), Line: in.Line}
	var evidence []string
	for _, cmp := range in.Comparisons {
		line := fmt.Sprintf("%s: %s: %s", cmp.Outcome, cmp.Text, Evidence(cmp))
		if cmp.Failed {
			line = fmt.Sprintf("failed: %s: %s", cmp.Text, cmp.Reason)
		}
		evidence = append(evidence, line)
	}
	text := strings.Join(evidence, "\n")
	switch {
	case in.Failed:
		jc.Error = &junitMessage{Message: "formula could not be decided: an error", Type: "perfls.Failed", Text: text}
		s.Errors++
	case in.Outcome == verdict.Violated:
		jc.Failure = &junitMessage{Message: "formula violated", Type: "perfls.Violated", Text: text}
		s.Failures++
	case in.Outcome == verdict.Undecided:
		jc.Skipped = &junitMessage{Message: "formula undecided: not enough evidence", Text: text}
		s.Skipped++
	default:
		jc.SystemOut = text
	}
	return jc
}

// DiffJUnit renders perfls diff's result as JUnit XML: one test suite,
// one test case per compared workload. Slower is a failure, a measurement
// failure an error, undecided skipped; faster, same and unchanged
// workloads pass (unchanged ones were not measured: their code is the
// base's).
func DiffJUnit(d *Diff, elapsed time.Duration) ([]byte, error) {
	head := d.Head
	if head != "worktree" {
		head = fmt.Sprintf("%.12s", head)
	}
	s := junitSuite{Name: fmt.Sprintf("perfls diff %.12s..%s", d.Base, head), Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05")}
	for _, c := range d.Changes {
		jc := junitCase{Name: fmt.Sprintf("%s[%s](%s)", c.Method, c.Workload, c.Args), Classname: classOf(c.Method)}
		text := diffLine(c)
		switch {
		case c.Failed:
			jc.Error = &junitMessage{Message: "measurement failed", Type: "perfls.Failed", Text: text}
			s.Errors++
		case c.Verdict == Slower:
			jc.Failure = &junitMessage{Message: "slower than the base", Type: "perfls.Slower", Text: text}
			s.Failures++
		case c.Verdict == Undecided:
			jc.Skipped = &junitMessage{Message: "undecided: not enough evidence", Text: text}
			s.Skipped++
		default:
			jc.SystemOut = text
		}
		s.Cases = append(s.Cases, jc)
	}
	for _, u := range d.Unchanged {
		s.Cases = append(s.Cases, junitCase{Name: u, Classname: classOf(u), SystemOut: "unchanged: the code is the base's; not measured"})
	}
	s.Tests = len(s.Cases)
	all := junitSuites{Name: "perfls diff", Time: fmt.Sprintf("%.3f", elapsed.Seconds()), Tests: s.Tests,
		Failures: s.Failures, Errors: s.Errors, Skipped: s.Skipped, Suites: []junitSuite{s}}
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit report: %w", err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// classOf is the class of "pkg.C#m(…)".
func classOf(method string) string {
	c, _, _ := strings.Cut(method, "#")
	return c
}
