package dataset

import (
	"math"
	"os"
	"strings"
	"testing"
)

func read(t *testing.T, name string) []Measurement {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ms
}

func TestParseJMH(t *testing.T) {
	ms := read(t, "jmh.json")
	if len(ms) != 6 {
		t.Fatalf("%d measurements, want 6", len(ms))
	}
	q := ms[0]
	if q.Format != "jmh" || q.Class != "org.sample.Sorts" || q.Method != "quickSort" || strings.Join(q.Args, ",") != "100,random" {
		t.Errorf("first: %+v", q)
	}
	// Params in the order the JSON lists them ("size" before "kind").
	if len(q.Runs) != 3 || len(q.Runs[0]) != 5 {
		t.Errorf("rawData: %d forks × %d", len(q.Runs), len(q.Runs[0]))
	}
	// avgt us/op → ns/op: ×1000 (quickSort at size 100 ≈ 5 us/op).
	if v := q.Runs[0][0]; v < 4000 || v > 6000 {
		t.Errorf("avgt us/op not converted to ns: %g", v)
	}
	// thrpt ops/ms → ns/op: 1e6/score (hashGet ≈ 50,000 ops/ms = 20 ns/op).
	for _, m := range ms {
		if m.Method == "hashGet" {
			if v := m.Runs[1][2]; math.Abs(v-20) > 1.5 || len(m.Args) != 0 {
				t.Errorf("thrpt ops/ms not inverted to ns/op: %g (args %v)", v, m.Args)
			}
		}
	}
}

func TestJMHUnits(t *testing.T) {
	cases := []struct {
		mode, unit string
		in, want   float64
	}{
		{"avgt", "ns/op", 3, 3}, {"avgt", "ms/op", 2, 2e6}, {"ss", "s/op", 1.5, 1.5e9}, {"sample", "us/op", 1, 1000},
		{"thrpt", "ops/s", 1e6, 1000}, {"thrpt", "ops/us", 2, 500}, {"thrpt", "ops/ns", 0.5, 2},
	}
	for _, c := range cases {
		f, err := jmhToNs(c.mode, c.unit)
		if err != nil {
			t.Errorf("%s %s: %v", c.mode, c.unit, err)
			continue
		}
		if got := f(c.in); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s %g %s = %g ns/op, want %g", c.mode, c.in, c.unit, got, c.want)
		}
	}
	for _, bad := range [][2]string{{"thrpt", "ms/op"}, {"avgt", "ops/s"}, {"avgt", "furlongs/op"}, {"weird", "ns/op"}} {
		if _, err := jmhToNs(bad[0], bad[1]); err == nil {
			t.Errorf("%s %s accepted", bad[0], bad[1])
		}
	}
}

func TestParsePerfls(t *testing.T) {
	ms := read(t, "perfls.json")
	if len(ms) != 2 {
		t.Fatalf("%d measurements", len(ms))
	}
	m := ms[0]
	if m.Format != "perfls" || m.Class != "quickstart.Search" || m.Method != "binarySearch" ||
		strings.Join(m.Params, ",") != "int[],int" || m.WorkloadClass != "quickstart.Search" || m.WorkloadMethod != "lookups" ||
		strings.Join(m.Args, ",") != "10000" || len(m.Runs) != 3 || len(m.Runs[0]) != 30 {
		t.Errorf("parsed %+v", m)
	}
	single := read(t, "perfls-single.json")
	if len(single) != 1 || single[0].Args[0] != "100" {
		t.Errorf("single object: %+v", single)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"":             "empty",
		"[1, 2]":       "entry 0",
		`[{"foo": 1}]`: "neither a JMH result",
		`[{"benchmark": "NoDot", "mode": "avgt"}]`:                                          "not pkg.Class.method",
		`[{"benchmark": "a.B.c", "mode": "avgt", "primaryMetric": {"scoreUnit": "ns/op"}}]`: "no primaryMetric.rawData",
		`{"method": "a.B#m", "forks": []}`:                                                  "no forks",
		`{"method": "nohash", "forks": [{"ns_per_op": [1]}]}`:                               "not pkg.Class#method",
		`{`: "not a JSON",
	}
	for in, want := range cases {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

func TestFind(t *testing.T) {
	ms := append(read(t, "jmh.json"), read(t, "perfls.json")...)
	num := func(v float64, s string) Arg { return Arg{Text: s, Num: v, IsNum: true} }
	str := func(s string) Arg { return Arg{Text: s} }
	m, err := Find(ms, Query{Class: "org.sample.Sorts", Method: "insertionSort", JMH: true, Args: []Arg{num(1000, "1000"), str("random")}}, "x.json")
	if err != nil || m.Method != "insertionSort" || m.Args[0] != "1000" {
		t.Errorf("JMH lookup: %+v %v", m, err)
	}
	// Numeric arguments match by value: 1e3 = 1000.
	if _, err := Find(ms, Query{Class: "org.sample.Sorts", Method: "insertionSort", JMH: true, Args: []Arg{num(1000, "1e3"), str("random")}}, "x.json"); err != nil {
		t.Errorf("1e3: %v", err)
	}
	_, err = Find(ms, Query{Class: "org.sample.Sorts", Method: "quickSort", JMH: true, Args: []Arg{num(100, "100")}}, "x.json")
	if err == nil || !strings.Contains(err.Error(), "no benchmark org.sample.Sorts.quickSort with params (100) in x.json; available: org.sample.Sorts#quickSort[jmh](100, random)") {
		t.Errorf("missing params: %v", err)
	}
	_, err = Find(ms, Query{Class: "org.sample.Nope", Method: "x", JMH: true}, "x.json")
	if err == nil || !strings.Contains(err.Error(), "available:") || !strings.Contains(err.Error(), "hashGet") {
		t.Errorf("missing benchmark: %v", err)
	}
	// perfls: workload and overload optional; bare method name.
	m, err = Find(ms, Query{Class: "quickstart.Search", Method: "linearSearch", WorkloadClass: "quickstart.Search", WorkloadMethod: "lookups", Args: []Arg{num(10000, "10000")}}, "p.json")
	if err != nil || m.Method != "linearSearch" {
		t.Errorf("perfls lookup: %v", err)
	}
	if _, err := Find(ms, Query{Method: "binarySearch", Params: []string{"int[]", "int"}, Args: []Arg{num(10000, "10000")}}, "p.json"); err != nil {
		t.Errorf("bare name with params: %v", err)
	}
	if _, err := Find(ms, Query{Method: "binarySearch", Params: []string{"long[]"}, Args: []Arg{num(10000, "10000")}}, "p.json"); err == nil {
		t.Error("wrong overload matched")
	}
	if _, err := Find(ms, Query{Method: "binarySearch", WorkloadMethod: "other", Args: []Arg{num(10000, "10000")}}, "p.json"); err == nil {
		t.Error("wrong workload matched")
	}
}

func TestParseAcceptsAStreamOfDocuments(t *testing.T) {
	doc := `{"method":"p.C#m()","workload":"","args":[],"preliminary":true,"summary":{},"forks":[{"ns_per_op":[1,2,3]}]}`
	ms, err := Parse([]byte(doc + "\n" + strings.Replace(doc, "true", "false", 1) + "\n"))
	if err != nil || len(ms) != 2 {
		t.Fatalf("two documents, one per line: %d measurements, %v", len(ms), err)
	}
	if _, err := Parse([]byte(doc + "\n{broken")); err == nil {
		t.Error("a broken second document was accepted")
	}
	if _, err := Parse([]byte(`42`)); err == nil {
		t.Error("a number was accepted")
	}
}

// A time that cannot be one is refused with the line of its entry, the
// fork and the sample (issue 34).
func TestParseRefusesImpossibleTimes(t *testing.T) {
	jmh := func(unit, mode, score string) string {
		return `{"benchmark": "a.B.c", "mode": "` + mode + `", "primaryMetric": {"scoreUnit": "` + unit + `", "rawData": [[1, 2], [3, ` + score + `]]}}`
	}
	perfls := `{"method": "a.B#m", "forks": [{"ns_per_op": [1, 2]}, {"ns_per_op": [3, -4.5]}]}`
	for in, want := range map[string]string{
		"[\n" + jmh("ns/op", "avgt", "1") + ",\n" + jmh("ns/op", "avgt", "-2") + "\n]":    "line 3, entry 1: a.B.c: fork 2, iteration 2: score -2 ns/op is not a time per operation",
		"[" + jmh("ops/s", "thrpt", "0") + "]":                                            "line 1, entry 0: a.B.c: fork 2, iteration 2: score 0 ops/s is not a time per operation",
		"[" + jmh("ops/s", "thrpt", "-5") + "]":                                           "fork 2, iteration 2: score -5 ops/s",
		"\n\n" + perfls:                                                                   "line 3, entry 0: a.B#m: fork 2, sample 2: -4.5 ns/op is not a time per operation",
		perfls[:0] + `{"method": "a.B#m", "forks": [{"ns_per_op": [1]}]}` + "\n" + perfls: "line 2, entry 1: a.B#m: fork 2, sample 2",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", in, err, want)
		}
	}
	if _, err := Parse([]byte(`{"method": "a.B#m", "forks": [{"ns_per_op": [0, 1e-3]}]}`)); err != nil {
		t.Errorf("zero and tiny times: %v", err)
	}
}
