package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every input has a size cap, and a file past it is refused with a message
// naming the file, the cap and what to do (issue 34 item 4); bad values
// are refused where they are (item 7).
func TestInputCapsAndBadValues(t *testing.T) {
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(size) // refused by its size: nothing is read
		f.Close()
		return p
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model := sparse("model.json", 17<<20)
	results := sparse("results.json", 300<<20)
	hist := filepath.Join(dir, "history")
	sparse("history/r.csv", 300<<20)
	write("history/r.env", "cores=2\n")
	write("new/n.csv", "time,cpu\n0,1\n")
	write("new/n.env", "cores=2\n")
	negative := write("negative.json", `[
  {"benchmark": "a.B.f", "mode": "avgt", "primaryMetric": {"scoreUnit": "ns/op", "rawData": [[10, 11]]}},
  {"benchmark": "a.B.g", "mode": "avgt", "primaryMetric": {"scoreUnit": "ns/op", "rawData": [[10, -11]]}}
]`)
	bogus := write("bogus.json", `{"perfls_model": 1, "operations": [{"method": "a.B#m", "parameter": "n",
  "dependencies": [{"metric": "wall", "unit": "ns", "best": {"model": "bogus", "a": 12}}]}], "environment": {}}`)
	escapes := filepath.Join(dir, "escapes")
	write("escapes/r.csv", "time,\x1b]0;pwned\x07\n0,1\n")
	write("escapes/r.env", "cores=2\n")
	cell := filepath.Join(dir, "cell")
	write("cell/r.csv", "time,cpu\n0,"+strings.Repeat("9", 5000)+"x\n")
	write("cell/r.env", "cores=2\n")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"predict", "--model", model, "n=5"}, []string{model, "17 MiB, larger than 16 MiB, the most perfls reads of a model file", "is it the file perfls model wrote?"}},
		{[]string{"evaluate", "--data", results, "--formula", "a.B#f[jmh] <= a.B#g[jmh]"}, []string{results, "300 MiB, larger than 256 MiB, the most perfls reads of recorded results", "keep only the benchmarks"}},
		{[]string{"ensemble", "--history", hist, "--new", filepath.Join(dir, "new")}, []string{filepath.Join(hist, "r.csv"), "larger than 256 MiB, the most perfls reads of a CSV run"}},
		{[]string{"evaluate", "--data", negative, "--formula", "a.B#f[jmh] <= a.B#g[jmh]"}, []string{negative + ": line 3, entry 1: a.B.g: fork 1, iteration 2: score -11 ns/op is not a time per operation"}},
		{[]string{"predict", "--model", bogus, "n=5"}, []string{`unknown model kind "bogus": perfls knows "1", "log n", "n", "n log n", "n^2", "n^k", "exact"`}},
		{[]string{"ensemble", "--history", escapes, "--new", filepath.Join(dir, "new")}, []string{`column 2: "\x1b]0;pwned\a" holds control characters`}},
		{[]string{"ensemble", "--history", cell, "--new", filepath.Join(dir, "new")}, []string{`counter cpu: "999`, `"… (4937 bytes more) is not a finite number`}},
		{[]string{"lint", "--jdk-src", "/dev/zero", dir}, []string{"--jdk-src", "/dev/zero", "not a regular file (a character device)"}},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2\nstdout %s\nstderr %s", c.args[0], code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr %q does not say %q", c.args[0], errs, w)
			}
		}
		if strings.ContainsAny(errs, "\x1b\x07") || len(errs) > 2000 {
			t.Errorf("%v: stderr echoes the input raw or whole: %.300q", c.args[0], errs)
		}
	}
}
