// Package profilecases lists the methods profiles are validated on
// (issue #20): examples/profiling's programs, each with one seeded cause
// marked "// cause: <kind>" on its line, and the clean methods of
// examples/quickstart and examples/oracle. The profiling tests of package
// measure and the profile part of bench share it.
package profilecases

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Case is one method to profile.
type Case struct {
	Project string // directory under examples/ (when Dir is "")
	Method  string // pkg.Class#name
	Gen     string // generator pkg.Class#name, taking one int
	Arg     int
	Cause   string // the expected finding's kind; "" for a clean method
	// Dir is the project's directory relative to the repository root when
	// it is not under examples/ (the cases written for the findings'
	// validation, in bench/java).
	Dir string
}

// ProjectDir is the case's project directory relative to the repository
// root.
func (c Case) ProjectDir() string {
	if c.Dir != "" {
		return c.Dir
	}
	return filepath.Join("examples", c.Project)
}

// All are the validation cases: the five seeded causes first.
var All = []Case{
	{"profiling", "profiling.Duplicates#countRepeats", "profiling.Duplicates#values", 2000, "circuitous-treasure-hunt", ""},
	{"profiling", "profiling.Visitors#visit", "profiling.Visitors#names", 100, "ramp", ""},
	{"profiling", "profiling.Tally#addAll", "profiling.Tally#values", 64, "one-lane-bridge", ""},
	{"profiling", "profiling.Totals#sum", "profiling.Totals#values", 1000, "excessive-allocation", ""},
	{"profiling", "profiling.Orders#value", "profiling.Orders#items", 20, "empty-semi-trucks", ""},
	{"quickstart", "quickstart.Search#binarySearch", "quickstart.Search#lookups", 10000, "", ""},
	{"quickstart", "quickstart.Search#linearSearch", "quickstart.Search#lookups", 10000, "", ""},
	{"quickstart", "quickstart.Strings#joinWithBuilder", "quickstart.Strings#words", 2000, "", ""},
	{"quickstart", "quickstart.Strings#joinWithPlus", "quickstart.Strings#words", 2000, "", ""},
	{"oracle", "oracle.Caching#strong", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Caching#soft", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Leak#clean", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Leak#leaky", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Plugins#reuse", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Plugins#reload", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Pipeline#balanced", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Pipeline#lagging", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Work#base", "oracle.Calls#calls", 1000, "", ""},
	{"oracle", "oracle.Work#more", "oracle.Calls#calls", 1000, "", ""},
}

// Findings are the cases written for the findings' validation (issue 35,
// bench/java/src/findings): a ramp of about 20 % over a profile, a treasure
// hunt whose calls per element grow with n, and clean methods that look
// like them — a recursive walk that visits each node once, a flat cost, an
// index lookup per element, a sort with a binary search per element, a
// cache that fills and then is only read.
var Findings = []Case{
	{Dir: "bench/java", Method: "findings.Growing#record", Gen: "findings.Growing#keys", Arg: 1000, Cause: "ramp"},
	{Dir: "bench/java", Method: "findings.Matches#countShared", Gen: "findings.Matches#values", Arg: 2000, Cause: "circuitous-treasure-hunt"},
	{Dir: "bench/java", Method: "findings.Tree#render", Gen: "findings.Tree#trees", Arg: 2000},
	{Dir: "bench/java", Method: "findings.Flat#mix", Gen: "findings.Flat#seeds", Arg: 100},
	{Dir: "bench/java", Method: "findings.Index#countShared", Gen: "findings.Matches#values", Arg: 2000},
	{Dir: "bench/java", Method: "findings.Sorted#ranks", Gen: "findings.Matches#values", Arg: 2000},
	{Dir: "bench/java", Method: "findings.Memo#cost", Gen: "findings.Growing#keys", Arg: 4096},
}

// Validation are the cases bench profile-validation runs: All's seeded
// causes, Findings' seeded causes, then every clean method.
func Validation() []Case {
	var seeded, clean []Case
	for _, c := range append(append([]Case(nil), All...), Findings...) {
		if c.Cause != "" {
			seeded = append(seeded, c)
		} else {
			clean = append(clean, c)
		}
	}
	return append(seeded, clean...)
}

// CauseLine finds the line marked "// cause: <kind>" in the source of the
// case's class under examples (the examples directory): the file relative
// to the project, as profiles name it, and the 1-based line.
func (c Case) CauseLine(examples string) (string, int, error) {
	return c.CauseLineIn(filepath.Join(examples, c.Project))
}

// CauseLineIn is CauseLine with the case's project directory given; the
// class's source is under src/main/java or src.
func (c Case) CauseLineIn(project string) (string, int, error) {
	cls, _, _ := strings.Cut(c.Method, "#")
	var rel string
	var data []byte
	var err error
	for _, root := range []string{"src/main/java/", "src/"} {
		rel = root + strings.ReplaceAll(cls, ".", "/") + ".java"
		if data, err = os.ReadFile(filepath.Join(project, filepath.FromSlash(rel))); err == nil {
			break
		}
	}
	if err != nil {
		return "", 0, err
	}
	i := bytes.Index(data, []byte("// cause: "+c.Cause))
	if i < 0 || c.Cause == "" {
		return "", 0, fmt.Errorf("%s: no line marked // cause: %s", rel, c.Cause)
	}
	return rel, 1 + bytes.Count(data[:i], []byte("\n")), nil
}

// Overhead are the methods the cost of recording is measured on: about
// 1 ms of arithmetic (without a generator), a binary search, the boxing
// loop, the contended monitor and the round trips.
var Overhead = []Case{
	{Project: "oracle", Method: "oracle.Work#spin", Arg: 300000},
	{Project: "quickstart", Method: "quickstart.Search#binarySearch", Gen: "quickstart.Search#lookups", Arg: 10000},
	{Project: "profiling", Method: "profiling.Totals#sum", Gen: "profiling.Totals#values", Arg: 1000},
	{Project: "profiling", Method: "profiling.Tally#addAll", Gen: "profiling.Tally#values", Arg: 64},
	{Project: "profiling", Method: "profiling.Orders#value", Gen: "profiling.Orders#items", Arg: 20},
}

// OneMs is a method of about 1 ms per call (Duplicates#countRepeats on
// 3,600 values), for the time to a profile.
var OneMs = Case{Project: "profiling", Method: "profiling.Duplicates#countRepeats", Gen: "profiling.Duplicates#values", Arg: 3600}
