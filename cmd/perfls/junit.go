package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
)

// JUnit XML as CI servers read it (Jenkins, GitLab, GitHub actions): one
// test suite per annotated method, one test case per formula instance. A
// violated instance is a failure and an undecided one is skipped, each with
// its evidence as the message.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
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
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes the verdicts of a check as JUnit XML to path.
func writeJUnit(path, dir string, methods []verdict.MethodResult, elapsed time.Duration) error {
	all := junitSuites{Name: "perfls check", Time: fmt.Sprintf("%.3f", elapsed.Seconds())}
	for _, m := range methods {
		s := junitSuite{Name: m.Class + "#" + m.Method + "(" + strings.Join(m.Params, ",") + ")", Timestamp: m.CheckedAt.UTC().Format("2006-01-02T15:04:05")}
		for _, in := range m.Instances {
			name := in.Formula
			if in.Instance != "" {
				name += " [" + in.Instance + "]"
			}
			c := junitCase{Name: name, Classname: m.Class, File: rel(dir, m.File), Line: in.Line}
			var evidence []string
			for _, cmp := range in.Comparisons {
				evidence = append(evidence, fmt.Sprintf("%s: %s: %s", cmp.Outcome, cmp.Text, report.Evidence(cmp)))
			}
			text := strings.Join(evidence, "\n")
			switch in.Outcome {
			case verdict.Violated:
				c.Failure = &junitMessage{Message: "formula violated", Type: "perfls.Violated", Text: text}
				s.Failures++
			case verdict.Undecided:
				c.Skipped = &junitMessage{Message: "formula undecided", Text: text}
				s.Skipped++
			default:
				c.SystemOut = text
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	if err := os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	return nil
}
