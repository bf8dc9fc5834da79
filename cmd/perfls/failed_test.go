package main

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/internal/fixture"
)

// A formula instance that an error leaves undecided fails the check (exit
// 2, "failed", a JUnit error), whatever the error; one undecided for lack
// of evidence does not (exit 0, a skipped JUnit case). Issue #16, item 2.
// Each case is a class of one project, compiled once, checked as a FILE.
func TestCheckFailsWhenErrorsLeaveFormulasUndecided(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	small := []string{"--forks", "1", "--samples", "3", "--warmup", "20ms"}
	cases := []struct {
		name, class, formula, method, reason string
		extra                                []string
		want                                 int
	}{
		{"every workload throws", "Throwing", "for n in {10} SELF[gen](n) <= p.Throwing#other[gen](n)",
			`throw new IllegalStateException("always");`, "threw java.lang.IllegalStateException: always", nil, exitUsage},
		{"mistyped method", "Mistyped", "for n in {10} SELF[gen](n) <= p.Mistyped#othr[gen](n)",
			"return n;", `unknown method "othr"`, nil, exitUsage},
		{"mistyped generator", "MistypedGen", "for n in {10} SELF[gne](n) <= p.MistypedGen#other[gen](n)",
			"return n;", `unknown generator method or alias "gne"`, nil, exitUsage},
		{"no workload", "NoWorkload", "for n in {10} SELF(n) <= other(n)",
			"return n;", "no workload: write the generator in brackets", nil, exitUsage},
		{"lack of evidence", "Fine", "for n in {10} SELF[gen](n) <= p.Fine#other[gen](n)",
			"return n;", "parametric needs ≥ 2 forks per side", []string{"--interpretation", "parametric", "--max-forks", "1"}, exitOK},
	}
	fixture.Isolate(t)
	replayed(t, "check-errors-undecided")
	dir := t.TempDir()
	files := map[string]string{}
	for _, c := range cases {
		files["p/"+c.class+".java"] = `package p;
import dev.perfls.SPL;
public class ` + c.class + ` {
    @SPL("` + c.formula + `")
    public static int m(int n) { ` + c.method + ` }
    public static int other(int n) { return n; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
	}
	fixture.WriteFiles(t, dir, files)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, "p", c.class+".java")
			checkFailed(t, dir, append(append(small, c.extra...), file), c.want, c.reason)
		})
	}
}

// A dependency missing from the classpath at run time
// (NoClassDefFoundError) fails the check too.
func TestCheckFailsOnAMissingDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "check-missing-dependency")
	dir, lib := t.TempDir(), t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{"src/main/java/p/B.java": `package p;
import dev.perfls.SPL;
public class B {
    @SPL("SELF[gen](5) <= p.B#same[gen](5)")
    public static int twice(int n) { return dep.Lib.twice(n); }
    public static int same(int n) { return n; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`})
	fixture.WriteFiles(t, lib, map[string]string{"dep/Lib.java": "package dep;\npublic class Lib { public static int twice(int n) { return 2 * n; } }\n",
		"dev/perfls/SPL.java": "package dev.perfls;\npublic @interface SPL { String[] value(); }\n"})
	// The build tool's fresh output, which perfls uses as it is, lacks the
	// dependency's class.
	classes := filepath.Join(dir, "target", "classes")
	out, err := exec.Command("javac", "-sourcepath", lib, "-d", classes,
		filepath.Join(dir, "src/main/java/p/B.java"), filepath.Join(lib, "dep/Lib.java")).CombinedOutput()
	if err != nil {
		t.Skipf("javac: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(classes, "dep"))
	os.RemoveAll(filepath.Join(classes, "dev"))
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(classes, "p", "B.class"), later, later)
	checkFailed(t, dir, []string{"--forks", "1", "--samples", "3", "--warmup", "20ms", dir}, exitUsage, "NoClassDefFoundError")
}

// checkFailed runs perfls check with args and checks the exit status, the
// text and the JUnit report: failed (an error) or undecided (no error).
func checkFailed(t *testing.T, dir string, args []string, want int, reason string) {
	t.Helper()
	junit := filepath.Join(t.TempDir(), "perfls.xml")
	code, out, errs := runCLI(t, append([]string{"check", "--junit", junit}, args...)...)
	state := map[int]string{exitUsage: "failed", exitOK: "undecided"}[want]
	if code != want || !strings.HasPrefix(out, state+" ") || !strings.Contains(out, reason) {
		t.Fatalf("exit %d, want %d with %q and %q\nstdout:\n%s\nstderr:\n%s", code, want, state, reason, out, errs)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Errors  int `xml:"errors,attr"`
		Skipped int `xml:"skipped,attr"`
	}
	if err := xml.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	if wantErrors := map[int]int{exitUsage: 1}[want]; report.Errors != wantErrors || report.Skipped != 1-wantErrors {
		t.Errorf("junit: %d errors, %d skipped, want %d errors\n%s", report.Errors, report.Skipped, wantErrors, b)
	}
}

// A comparison one fork cannot decide makes check add forks (as many as
// the first round each time, up to --max-forks) and decide again, with α
// spread over the looks (issue #15, item 4).
func TestCheckAddsForksWhenUndecided(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "check-adds-forks")
	dir := t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{"p/A.java": `package p;
import dev.perfls.SPL;
public class A {
    @SPL("SELF[gen](10) <= p.A#other[gen](10)")
    public static int same(int n) { return n; }
    public static int other(int n) { return n; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`})
	code, out, errs := runCLI(t, "check", "--format", "json", "--forks", "1", "--max-forks", "3", "--samples", "5", "--warmup", "20ms", dir)
	if code != exitOK && code != exitViolated {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var doc report.CheckDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Methods) != 1 || len(doc.Methods[0].Instances) != 1 {
		t.Fatalf("output %v:\n%s", err, out)
	}
	methods := doc.Methods
	ev := methods[0].Instances[0].Comparisons[0].Evidence
	// One fork cannot decide (the between-fork variance is unknown): a
	// second look has 2 forks per side, a third 3.
	if ev.Left.Forks < 2 || ev.Right.Forks != ev.Left.Forks || math.Abs(ev.Alpha-0.05/3) > 1e-12 {
		t.Errorf("evidence %+v: want ≥ 2 forks per side and α = 0.05/3 per look", ev)
	}
	code, text, _ := runCLI(t, "check", "--forks", "1", "--max-forks", "3", "--samples", "5", "--warmup", "20ms", dir)
	if !strings.Contains(text, "over up to 3 looks") {
		t.Errorf("exit %d, summary does not say how α was spread:\n%s", code, text)
	}
}
