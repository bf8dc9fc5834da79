package csvrun

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/internal/input"
)

func TestParse(t *testing.T) {
	tb, err := Parse(strings.NewReader("time,cpu, throughput\n0,10.5,100\n\n5,11,101\n"), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tb.Counters, []string{"cpu", "throughput"}) || !reflect.DeepEqual(tb.Times, []float64{0, 5}) || !reflect.DeepEqual(tb.Rows, [][]float64{{10.5, 100}, {11, 101}}) {
		t.Errorf("parsed %+v", tb)
	}
	ts, err := Parse(strings.NewReader("t,x\n2026-01-01T00:00:00Z,1\n2026-01-01T00:00:05Z,2\n"), "ts.csv")
	if err != nil || ts.Times[1]-ts.Times[0] != 5 {
		t.Errorf("RFC 3339 times: %+v, %v", ts, err)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "r.csv: empty file",
		"time\n1\n":              "r.csv:1: header has 1 column",
		"time,a,a\n1,2,3\n":      `counter "a" appears twice`,
		"time,a,\n1,2,3\n":       "column 3 has no name",
		"time,a\n":               "no data rows",
		"time,a\n1,2\n2,x\n":     `r.csv:3: counter a: "x" is not a finite number`,
		"time,a\n1,NaN\n":        `r.csv:2: counter a: "NaN" is not a finite number`,
		"time,a\n1,2,3\n":        "r.csv:2: 3 fields, the header has 2",
		"time,a\nnoon,2\n":       `r.csv:2: time "noon"`,
		"time,a\n1,\"2\n":        "r.csv",
		"time,a\n5,1\n4,2\n":     "r.csv:3: time \"4\" is before",
		"time,a\n1,+Inf\n":       "not a finite number",
		"time,a\n1,1e999\n":      "not a finite number",
		"time,a,b\n1,2\n3,4,5\n": "r.csv:2: 2 fields",
	} {
		if _, err := Parse(strings.NewReader(in), "r.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}

// Nothing of the file reaches the output raw or whole: a long cell is
// quoted cut, a name with a terminal escape or longer than MaxName is
// refused, and so is a line longer than MaxLine (issue 34).
func TestParseEchoesNoInputRaw(t *testing.T) {
	cell := strings.Repeat("9", 5<<20) + "x"
	for in, want := range map[string]string{
		"time,a\n1,\x1b[2J\n":                           `r.csv:2: counter a: "\x1b[2J" is not a finite number`,
		"time,a\n1," + strings.Repeat("z", 1000) + "\n": `"` + strings.Repeat("z", input.MaxQuote) + `"… (936 bytes more) is not a finite number`,
		"time,a\n1,1\n2," + cell + "\n":                 "r.csv:3: a line longer than 1 MiB",
		"time,\x1b]0;title\x07\n1,2\n":                  `r.csv:1: column 2: "\x1b]0;title\a" holds control characters`,
		"time," + strings.Repeat("c", 300) + "\n1,2\n":  "r.csv:1: column 2: " + `"` + strings.Repeat("c", input.MaxQuote) + `"… (236 bytes more): 300 bytes, longer than the 256`,
		"\x1b[31mtime,a\n1,2\n":                         "",
	} {
		_, err := Parse(strings.NewReader(in), "r.csv")
		if want == "" { // the time column's name is not shown anywhere
			if err != nil {
				t.Errorf("Parse(%.40q) = %v", in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%.40q) = %.200v, want %q", in, err, want)
		}
		if err != nil && (len(err.Error()) > 300 || strings.ContainsAny(err.Error(), "\x1b\x07")) {
			t.Errorf("Parse(%.40q): the message echoes the input: %.300q", in, err)
		}
	}
	for in, want := range map[string]string{
		"jvm=\x1b[2J21\n":                       `r.env:1: "\x1b[2J21" holds control characters`,
		"k" + strings.Repeat("x", 300) + "=1\n": "r.env:1: \"kxxx",
	} {
		if _, err := ParseEnv(strings.NewReader(in), "r.env"); err == nil || !strings.Contains(err.Error(), want) || strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("ParseEnv(%.40q) = %v, want %q", in, err, want)
		}
	}
}

func TestParseEnv(t *testing.T) {
	env, err := ParseEnv(strings.NewReader("# lab 3\ncores = 8\nmemory=16g\n\njvm=21\n"), "r.env")
	if err != nil || !reflect.DeepEqual(env, ensemble.Environment{"cores": "8", "memory": "16g", "jvm": "21"}) {
		t.Errorf("env %v, %v", env, err)
	}
	for in, want := range map[string]string{"cores 8\n": "r.env:1", "a=1\n=2\n": "r.env:2", "a=1\na=2\n": "given twice"} {
		if _, err := ParseEnv(strings.NewReader(in), "r.env"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseEnv(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	hist, cur := filepath.Join(dir, "history"), filepath.Join(dir, "new")
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(hist, "a.csv"), "t,x\n0,1\n1,3\n2,2\n5,7\n")
	write(filepath.Join(hist, "a.env"), "cores=4\n")
	write(filepath.Join(cur, "n.csv"), "t,x\n0,1\n")
	if _, _, err := Load(context.Background(), hist, cur, ensemble.Phase1{}); err == nil || !strings.Contains(err.Error(), "no environment file n.env") {
		t.Errorf("missing .env: %v", err)
	}
	write(filepath.Join(cur, "n.env"), "")
	h, n, err := Load(context.Background(), hist, cur, ensemble.Phase1{Interval: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || h[0].Name != "a" || h[0].Env["cores"] != "4" || !reflect.DeepEqual(h[0].Intervals, [][]float64{{2}, {7}}) || n.Name != "n" {
		t.Errorf("loaded %+v and %+v", h, n)
	}
	// Expected duration 5: the row at t = 5 is outside the test and dropped.
	if h, _, err := Load(context.Background(), hist, cur, ensemble.Phase1{Duration: 5, Interval: 5}); err != nil || !reflect.DeepEqual(h[0].Intervals, [][]float64{{2}}) {
		t.Errorf("duration 5, interval 5: %v, %v", h, err)
	}
	if _, _, err := Load(context.Background(), filepath.Join(dir, "none"), cur, ensemble.Phase1{}); err == nil {
		t.Error("a missing history directory is accepted")
	}
	if _, _, err := Load(context.Background(), cur, dir, ensemble.Phase1{}); err == nil || !strings.Contains(err.Error(), "no .csv files") {
		t.Errorf("empty new directory: %v", err)
	}
}

// FuzzParse: no input panics the CSV reader, and what it accepts is a
// usable table (one finite value per counter per row, times in order).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"time,cpu,throughput\n0,10.5,100\n5,11,101\n",
		"t,x\n2026-01-01T00:00:00Z,1\n",
		"time,a\n1,NaN\n", "time\n", "", "time,a,a\n1,2,3\n", "t,x\n\"1\",\"2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := Parse(strings.NewReader(string(data)), "fuzz.csv")
		if err != nil {
			return
		}
		if len(tb.Rows) == 0 || len(tb.Rows) != len(tb.Times) {
			t.Fatalf("accepted %d rows, %d times", len(tb.Rows), len(tb.Times))
		}
		for i, r := range tb.Rows {
			if len(r) != len(tb.Counters) {
				t.Fatalf("row %d has %d values for %d counters", i, len(r), len(tb.Counters))
			}
			if i > 0 && tb.Times[i] < tb.Times[i-1] {
				t.Fatalf("times out of order at row %d", i)
			}
		}
	})
}
