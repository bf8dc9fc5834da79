package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// TestDeviationArithmetic reproduces PADprof's printed deviations (seed 003
// L803): method count 53 against 31 is +70.97 % (the tool truncates to
// 70.96), CPU 95.7 % against 65.52 % is +30.18 points.
func TestDeviationArithmetic(t *testing.T) {
	if d := deviation(53, 31); math.Abs(100*d-70.967) > 0.001 {
		t.Errorf("53 vs 31: %.4f %%", 100*d)
	}
	if p := 95.7 - 65.52; math.Abs(p-30.18) > 1e-9 {
		t.Errorf("95.7 vs 65.52: %.4f points", p)
	}
}

// treeProfile: the target pkg.C#m calls each callee with the given samples
// (callees absent when 0), at wall time nsPerOp.
func treeProfile(t *testing.T, callees map[string]int64, self int64, nsPerOp float64) *Profile {
	b := newBuilder()
	h := b.harness()
	m := b.frame("pkg.C", "m", "()V", 10, 5, 0)
	names := make([]string, 0, len(callees))
	for n := range callees {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		if callees[n] == 0 {
			continue
		}
		c := b.frame("pkg.C", n, "()V", 20+i, 1, 0)
		b.stack(KindCPU, "", 1, callees[n], callees[n], c, b.frame("pkg.C", "m", "()V", 11+i, 7+i, 0), h)
	}
	b.stack(KindCPU, "", 1, self, self, m, h)
	b.thread(1, "main", true)
	b.iterations(flat(20, nsPerOp)...)
	var decls []Declaration
	decls = append(decls, Declaration{File: "C.java", Class: "pkg.C", Method: "m", StartLine: 9, EndLine: 18, NameLine: 9})
	for i, n := range names {
		decls = append(decls, Declaration{File: "C.java", Class: "pkg.C", Method: n, StartLine: 20 + i, EndLine: 20 + i, NameLine: 20 + i})
	}
	return mustNew(t, b.s, decls, Target{Class: "pkg.C", Name: "m"})
}

func TestCompareCalleeGrew(t *testing.T) {
	th := DefaultThresholds()
	base := treeProfile(t, map[string]int64{"parse": 200, "check": 300}, 500, 1000)
	cur := treeProfile(t, map[string]int64{"parse": 500, "check": 300}, 500, 1300)
	c := Compare(cur, []*Profile{base}, th)
	if !c.Comparable || len(c.Findings) != 1 {
		t.Fatalf("comparison %+v", c)
	}
	f := c.Findings[0]
	if f.Kind != FindingCalleeGrew || f.Evidence["callee"] != "pkg.C#parse()" || f.Line != 21 || f.File != "C.java" {
		t.Errorf("finding %+v", f)
	}
	// 500/1300 against 200/1000: +18.5 points, +92 %.
	if pts := f.Evidence["points"].(float64); math.Abs(pts-(500.0/1300-0.2)) > 1e-4 {
		t.Errorf("points %v", pts)
	}
}

func TestCompareNeedsAbsoluteDifference(t *testing.T) {
	th := DefaultThresholds()
	// +33 % relative but only 1 sample in 1000 more: the seed's 3-vs-4 case.
	base := treeProfile(t, map[string]int64{"a": 3, "b": 497}, 500, 1000)
	cur := treeProfile(t, map[string]int64{"a": 4, "b": 496}, 500, 1000)
	if c := Compare(cur, []*Profile{base}, th); len(c.Findings) != 0 {
		t.Errorf("3 vs 4 fired: %+v", c.Findings)
	}
	// A call subtree 4 methods against 3 (+33 %) with time +30 %: no treasure hunt.
	base = treeProfile(t, map[string]int64{"a": 100, "b": 100, "c": 100}, 700, 1000)
	cur = treeProfile(t, map[string]int64{"a": 100, "b": 100, "c": 100, "d": 100}, 600, 1300)
	c := Compare(cur, []*Profile{base}, th)
	if f := findingOf(c.Findings, FindingTreasureHunt); f != nil {
		t.Errorf("subtree 4 vs 3 fired: %+v", f)
	}
	// Subtree 10 against 3 with time +30 %: it fires.
	big := map[string]int64{}
	for i := 0; i < 10; i++ {
		big[fmt.Sprintf("x%d", i)] = 60
	}
	cur = treeProfile(t, big, 400, 1300)
	c = Compare(cur, []*Profile{base}, th)
	if f := findingOf(c.Findings, FindingTreasureHunt); f == nil || f.Evidence["subtree"].(float64) != 10 || f.Line != 9 {
		t.Errorf("subtree 10 vs 3: %+v", c.Findings)
	}
}

func TestCompareNotComparable(t *testing.T) {
	th := DefaultThresholds()
	base := treeProfile(t, map[string]int64{"parse": 200}, 800, 1000)
	cur := treeProfile(t, map[string]int64{"parse": 200, "fresh": 400}, 400, 1300)
	c := Compare(cur, []*Profile{base}, th)
	if !c.Comparable || len(c.NotComparable) != 1 || c.NotComparable[0].Method != "pkg.C#fresh()" {
		t.Fatalf("comparison %+v", c)
	}
	for _, f := range c.Findings {
		if f.Evidence["callee"] == "pkg.C#fresh()" {
			t.Errorf("a callee missing from the baseline became a finding: %+v", f)
		}
	}
	// A baseline without the method at all.
	other := mustNew(t, base.s, base.attr.decls, Target{Class: "pkg.C", Name: "gone"})
	if c := Compare(cur, []*Profile{other}, th); c.Comparable || len(c.Findings) != 0 || c.Reason == "" {
		t.Errorf("baseline without the method: %+v", c)
	}
	r := &Report{}
	r.AddComparison(Compare(cur, nil, th))
	if len(r.Notes) != 1 {
		t.Errorf("no baseline: notes %v", r.Notes)
	}
}

// TestReportJSONShape pins the JSON the CLI prints: field names of hot,
// allocations and findings entries.
func TestReportJSONShape(t *testing.T) {
	p := allocProfile(t, "java.lang.Long", 16000, 3000)
	data, err := json.Marshal(p.Report(Thresholds{}))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	keys := func(v any) []string {
		var out []string
		for k := range v.(map[string]any) {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	want := map[string][]string{
		"hot":         {"file", "line", "method", "ns_per_op", "own_share", "samples", "share"},
		"allocations": {"boxed_bytes_per_op", "bytes_per_op", "file", "line", "method", "project", "share", "top_class"},
		"findings":    {"evidence", "file", "kind", "line", "message", "method"},
	}
	for list, fields := range want {
		entries, ok := m[list].([]any)
		if !ok || len(entries) == 0 {
			t.Fatalf("%s: %v", list, m[list])
		}
		if got := keys(entries[0]); !reflect.DeepEqual(got, fields) {
			t.Errorf("%s entry keys %v, want %v", list, got, fields)
		}
	}
	for _, k := range []string{"method", "samples", "ops", "ns_per_op", "bytes_per_op", "hot_library", "blocking", "iteration_ns_per_op", "gc", "cpu_load", "alloc_calibrated"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, data)
		}
	}
}

func TestPprofRoundTrip(t *testing.T) {
	p := allocProfile(t, "java.lang.Long", 16000, 3000)
	var buf bytes.Buffer
	if err := p.Pprof().Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := pprof.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var cpu, alloc int64
	var siteLine int64
	var siteFile string
	for _, s := range got.Sample {
		cpu += s.Value[0]
		alloc += s.Value[2]
		if s.Label["kind"][0] == KindAlloc {
			siteLine, siteFile = s.Location[1].Line[0].Line, s.Location[1].Line[0].Function.Filename
			if s.Label["class"][0] != "java.lang.Long" {
				t.Errorf("class label %v", s.Label)
			}
		}
	}
	if cpu != 600 || alloc != 16000*20*1000 || siteLine != 20 || siteFile != "S.java" {
		t.Errorf("cpu %d, alloc %d, site %s:%d", cpu, alloc, siteFile, siteLine)
	}
	if got.SampleType[1].Type != "cpu" || got.DefaultSampleType != "cpu" || got.Period != 1_000_000 {
		t.Errorf("sample types %v, period %d", got.SampleType, got.Period)
	}
}

func TestTextAndMarkdown(t *testing.T) {
	r := allocProfile(t, "java.lang.Long", 16000, 3000).Report(Thresholds{})
	for _, out := range []string{r.Text(5), r.Markdown(5)} {
		for _, want := range []string{"S.java:20", "java.lang.Long", FindingAllocation} {
			if !bytes.Contains([]byte(out), []byte(want)) {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
	}
}

// CalleeSamples gives the method's samples and each project callee's
// inclusive samples (what analysis/model apportions its demand by).
func TestCalleeSamples(t *testing.T) {
	p := treeProfile(t, map[string]int64{"a": 60, "b": 30}, 10, 1000)
	total, by := p.CalleeSamples()
	if total != 100 || len(by) != 2 {
		t.Fatalf("total %g, callees %v", total, by)
	}
	for name, n := range by {
		if want := map[string]float64{"a": 60, "b": 30}[name[strings.Index(name, "#")+1:][:1]]; n != want {
			t.Errorf("%s: %g samples, want %g", name, n, want)
		}
	}
}
