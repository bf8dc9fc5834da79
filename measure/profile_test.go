package measure

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/profile"
)

// summaryText is a small summary as JfrSummary writes it, among other lines
// of a fork's output.
const summaryText = `perfls-hello 2 4242
[0.4s][info][jfr,startup] Started recording 1.
perfls-driver-nsperop 1234.5
perfls-prof-begin 1
perfls-prof-meta period.ns 1000000
perfls-prof-meta window.ns 900000000
perfls-prof-meta segments 2
perfls-prof-meta alloc sample
perfls-prof-meta threads all
perfls-prof-meta truncated 3
perfls-prof-meta java.version 17.0.15
perfls-prof-meta some.future.key whatever
perfls-prof-iter 0 450000000 1000 0 440000000 1600000
perfls-prof-iter 1 450000000 1000 450000000 -1 -1
perfls-prof-thread 1 main 800 1
perfls-prof-thread 15 tally\sworker 20 0
perfls-prof-method 0 pkg.A m ([I)I
perfls-prof-method 1 java.lang.Long valueOf (J)Ljava/lang/Long;
perfls-prof-frame 0 0 21 14 1
perfls-prof-frame 1 1 1211 20 0
perfls-prof-stack cpu 800 800 400,400 \e 1 0
perfls-prof-stack alloc 40 3200000 1600000,1600000 java.lang.Long 1 1,0
perfls-prof-stack park 2 5000 0,5000 \e 15 -
perfls-prof-newkind something
perfls-prof-gc 12 3000000 2000000 2100000
perfls-prof-cpu 0.5 0.01 0.6
perfls-prof-end 23
perfls-end
`

func TestParseSummary(t *testing.T) {
	s, err := ParseSummary(strings.NewReader(summaryText))
	if err != nil {
		t.Fatal(err)
	}
	want := &profile.Summary{
		Version: 1, PeriodNs: 1_000_000, WindowNs: 900_000_000, Segments: 2, Alloc: "sample", ThreadScope: "all",
		Truncated: 3, JavaVersion: "17.0.15",
		Iterations: []profile.Iteration{{Ns: 450_000_000, Ops: 1000, CPUNs: 440_000_000, AllocBytes: 1_600_000}, {Ns: 450_000_000, Ops: 1000, StartNs: 450_000_000, CPUNs: -1, AllocBytes: -1}},
		Threads:    []profile.Thread{{ID: 1, Name: "main", Samples: 800, Marked: true}, {ID: 15, Name: "tally worker", Samples: 20}},
		Methods:    []profile.Method{{Class: "pkg.A", Name: "m", Descriptor: "([I)I"}, {Class: "java.lang.Long", Name: "valueOf", Descriptor: "(J)Ljava/lang/Long;"}},
		Frames:     []profile.Frame{{Method: 0, Line: 21, BCI: 14, InLoop: 1}, {Method: 1, Line: 1211, BCI: 20, InLoop: 0}},
		Stacks: []profile.Stack{
			{Kind: "cpu", Thread: 1, Count: 800, Weight: 800, Segments: []int64{400, 400}, Frames: []int{0}},
			{Kind: "alloc", Class: "java.lang.Long", Thread: 1, Count: 40, Weight: 3_200_000, Segments: []int64{1_600_000, 1_600_000}, Frames: []int{1, 0}},
			{Kind: "park", Thread: 15, Count: 2, Weight: 5000, Segments: []int64{0, 5000}},
		},
		GC:  profile.GC{Count: 12, PauseNs: 3_000_000, HeapAfterFirst: 2_000_000, HeapAfterLast: 2_100_000},
		CPU: profile.CPULoad{JVMUser: 0.5, JVMSystem: 0.01, Machine: 0.6},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
}

// TestParseSummaryRamp reads the ramp control's rounds and why they
// stopped, or why there are none.
func TestParseSummaryRamp(t *testing.T) {
	rounds := "perfls-prof-ramp 0 400 100 5000 5000 8000 7900 2000 1990 100 1800 1790\n" +
		"perfls-prof-ramp 1 400 100 5400 5100 8100 8000 2000 1995\n" +
		"perfls-prof-ramp-stopped the\\sheap\\sfilling\\sup\n"
	text := strings.Replace(summaryText, "perfls-prof-end 23", rounds+"perfls-prof-end 26", 1)
	s, err := ParseSummary(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := &profile.RampControl{Stopped: "the heap filling up", Rounds: []profile.RampRound{
		{OpsA: 400, OpsB: 100, CallsA: 5000, CallsB: 5000, A: profile.RampTime{Ns: 8000, CPUNs: 7900}, B: profile.RampTime{Ns: 2000, CPUNs: 1990},
			OpsM: 100, M: profile.RampTime{Ns: 1800, CPUNs: 1790}},
		{OpsA: 400, OpsB: 100, CallsA: 5400, CallsB: 5100, A: profile.RampTime{Ns: 8100, CPUNs: 8000}, B: profile.RampTime{Ns: 2000, CPUNs: 1995}},
	}}
	if !reflect.DeepEqual(s.Ramp, want) {
		t.Errorf("ramp %+v\nwant %+v", s.Ramp, want)
	}
	stacks := strings.Replace(text, "perfls-prof-ramp 0 ", "perfls-prof-ramp-stack A 30 0\nperfls-prof-ramp-stack B 9 1,0\nperfls-prof-ramp 0 ", 1)
	stacks = strings.Replace(stacks, "perfls-prof-end 26", "perfls-prof-end 28", 1)
	if s, err := ParseSummary(strings.NewReader(stacks)); err != nil || !reflect.DeepEqual(s.Ramp.Stacks, []profile.RampStack{{Copy: "A", Count: 30, Frames: []int{0}}, {Copy: "B", Count: 9, Frames: []int{1, 0}}}) {
		t.Errorf("ramp stacks: %+v, %v", s, err)
	}
	if _, err := ParseSummary(strings.NewReader(strings.Replace(stacks, "ramp-stack B 9 1,0", "ramp-stack B 9 1,7", 1))); err == nil {
		t.Error("a ramp stack naming an undefined frame parsed")
	}
	none := strings.Replace(summaryText, "perfls-prof-end 23", "perfls-prof-ramp-none the\\scontrol\\scopy\\sfailed\nperfls-prof-end 24", 1)
	if s, err := ParseSummary(strings.NewReader(none)); err != nil || s.Ramp == nil || s.Ramp.Skipped != "the control copy failed" {
		t.Errorf("none: %+v, %v", s, err)
	}
	for name, bad := range map[string]string{
		"out of order":   strings.Replace(text, "perfls-prof-ramp 1 ", "perfls-prof-ramp 3 ", 1),
		"before rounds":  strings.Replace(summaryText, "perfls-prof-end 23", "perfls-prof-ramp-stopped x\nperfls-prof-end 24", 1),
		"negative calls": strings.Replace(text, "400 100 5400 5100", "400 100 -5 5100", 1),
	} {
		if _, err := ParseSummary(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestSummaryReaderLineByLine feeds the lines one at a time, as a fork
// launcher does, and gets what ParseSummary gets.
func TestSummaryReaderLineByLine(t *testing.T) {
	r := NewSummaryReader()
	if _, err := r.Summary(); err == nil {
		t.Error("a summary before any line")
	}
	for _, l := range strings.Split(summaryText, "\n") {
		r.Line(l)
	}
	got, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ParseSummary(strings.NewReader(summaryText))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("line by line %+v\nparsed %+v", got, want)
	}
}

func TestParseSummaryErrors(t *testing.T) {
	replace := func(old, new string) string { return strings.Replace(summaryText, old, new, 1) }
	cases := []struct {
		name, text, want string
	}{
		{"none", "perfls-hello 2 1\nperfls-end\n", "none in the output"},
		{"cut", summaryText[:strings.Index(summaryText, "perfls-prof-gc")], "incomplete"},
		{"count", replace("perfls-prof-end 23", "perfls-prof-end 30"), "30 summary lines, 23 arrived"},
		{"version", replace("perfls-prof-begin 1", "perfls-prof-begin 9"), "summary version 9"},
		{"frame range", replace("perfls-prof-stack cpu 800 800 400,400 \\e 1 0", "perfls-prof-stack cpu 800 800 400,400 \\e 1 7"), "frame 7 is not defined"},
		{"method range", replace("perfls-prof-frame 1 1 1211", "perfls-prof-frame 1 5 1211"), "names method 5"},
		{"segments", replace("400,400", "800"), "1 segment weights, expected 2"},
		{"not a number", replace("perfls-prof-iter 0 450000000", "perfls-prof-iter 0 4.5e8"), "not an integer"},
		{"fields", replace("perfls-prof-gc 12 3000000 2000000 2100000", "perfls-prof-gc 12"), "1 fields, expected 4"},
		{"order", replace("perfls-prof-iter 1 ", "perfls-prof-iter 5 "), "out of order"},
		{"error", "perfls-prof-error read\\s/tmp/x.jfr:\\sjava.io.IOException:\\sNot\\sa\\sFlight\\sRecorder\\sfile\n", "Not a Flight Recorder file"},
		{"before begin", "perfls-prof-iter 0 1 1 0 1 1\n", "before perfls-prof-begin"},
	}
	for _, c := range cases {
		_, err := ParseSummary(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// FuzzParseSummary: damaged summaries give errors, never panics, and what
// parses is valid for analysis/profile.
func FuzzParseSummary(f *testing.F) {
	f.Add(summaryText)
	f.Add("perfls-prof-begin 1\nperfls-prof-end 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSummary(strings.NewReader(text))
		if err != nil {
			return
		}
		p, err := profile.New(s, nil, profile.Target{})
		if err != nil {
			t.Fatalf("parsed but invalid: %v", err)
		}
		p.Report(profile.Thresholds{})
	})
}

func TestProfileSettingsAndArgs(t *testing.T) {
	dir := t.TempDir()
	p1, err := WriteProfileSettings(dir, 11)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := WriteProfileSettings(dir, 11)
	if err != nil || p1 != p2 {
		t.Fatalf("second write: %q, %v (first %q)", p2, err, p1)
	}
	data, err := os.ReadFile(p1)
	if err != nil || string(data) != string(ProfileSettings(11)) {
		t.Fatalf("settings file: %v", err)
	}
	common := []string{"jdk.ExecutionSample", "jdk.ObjectAllocationSample", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait",
		"jdk.ThreadPark", "jdk.GarbageCollection", "jdk.GCHeapSummary", "jdk.CPULoad", "jdk.ActiveSetting", "dev.perfls.Iteration"}
	for _, feature := range []int{0, 11, 16, 17, 25} {
		s := ProfileSettings(feature)
		var cfg struct {
			Events []struct {
				Name     string `xml:"name,attr"`
				Settings []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:",chardata"`
				} `xml:"setting"`
			} `xml:"event"`
		}
		if err := xml.Unmarshal(s, &cfg); err != nil {
			t.Fatalf("JDK %d: settings are not XML: %v", feature, err)
		}
		names := map[string]bool{}
		for _, e := range cfg.Events {
			names[e.Name] = true
		}
		for _, ev := range common {
			if !names[ev] {
				t.Errorf("JDK %d: settings lack %s", feature, ev)
			}
		}
		if tlab := names["jdk.ObjectAllocationInNewTLAB"] && names["jdk.ObjectAllocationOutsideTLAB"]; tlab != (feature < 16) {
			t.Errorf("JDK %d: TLAB events present = %v", feature, tlab)
		}
	}
	if p3, err := WriteProfileSettings(dir, 17); err != nil || p3 == p1 {
		t.Errorf("JDK 17 settings: %q, %v", p3, err)
	}
	if _, err := ProfileJVMArgs(context.Background(), "", filepath.Join(dir, "a,b")); err == nil {
		t.Error("a directory with a comma was accepted")
	}
}
