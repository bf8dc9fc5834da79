package main

import (
	"bytes"
	"context"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// lint builds one index over every file it is given, so references
// resolve across files, and reports the ones that do not resolve.
func TestLintResolvesAcrossFiles(t *testing.T) {
	dir := fixture.Project(t, map[string]string{
		"src/a/Gen.java": "package a;\npublic class Gen {\n    public static Iterable<Object[]> data(int n) { return null; }\n}\n",
		"src/b/Main.java": `package b;
import a.Gen;
class Main {
    @SPL("for n in {10} SELF[Gen#data](n) <= a.Gen#data[Gen#data](n)")
    static int ok(int[] x) { return 0; }
    @SPL("for n in {10} SELF[Gen#dta](n) <= ok[a.Gen#data](n, n)")
    static int bad(int[] x) { return 0; }
}
`})
	main := filepath.Join(dir, "src/b/Main.java")
	code, out, _ := runCLI(t, "lint", "--jdk-src", "none", dir)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d:\n%s", code, exitViolated, out)
	}
	line := `    @SPL("for n in {10} SELF[Gen#dta](n) <= ok[a.Gen#data](n, n)")`
	col := func(sub string) string { return strconv.Itoa(strings.Index(line, sub) + 1) }
	want := []string{
		main + `:6:` + col("Gen#dta") + `: error: a.Gen has no generator method "dta"; did you mean data?`,
		main + `:6:` + col("n, n)") + `: error: generator a.Gen.data(int) takes 1 argument(s) but 2 given`,
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

// A binary file named .java gets one located diagnostic and is not parsed
// (parsing a megabyte of random bytes took minutes); the other files are
// linted as usual.
func TestLintReportsBinaryFile(t *testing.T) {
	bin := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(bin)
	bin[0] = 'x' // the first byte that is not text comes later
	dir := fixture.Project(t, map[string]string{
		"src/X.java": string(bin),
		"src/b/Main.java": `package b;
class Main {
    @SPL("for n in {10} SELF(n) <= nosuch(n)")
    static int m(int n) { return 0; }
}
`})
	code, out, errs := runCLI(t, "lint", "--jdk-src", "none", dir)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d:\n%s%s", code, exitViolated, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want two diagnostics, got:\n%s", out)
	}
	if !strings.HasPrefix(lines[0], filepath.Join(dir, "src/X.java")+":1:") || !strings.HasSuffix(lines[0], "error: binary file: not parsed") {
		t.Errorf("binary file: %s", lines[0])
	}
	if !strings.HasPrefix(lines[1], filepath.Join(dir, "src/b/Main.java")+":3:") {
		t.Errorf("other file: %s", lines[1])
	}
}

// An interrupted lint exits 130, not 0.
func TestLintInterrupted(t *testing.T) {
	dir := fixture.Project(t, map[string]string{"A.java": "class A {}\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"lint", "--jdk-src", "none", dir}, strings.NewReader(""), &out, &errb)
	if code != 130 {
		t.Fatalf("exit %d, want 130\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}

// lint reports a formula with more instances than check expands.
func TestLintTooManyInstances(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("m := p.F#m\nfor n in {1")
	for i := 2; i <= 100001; i++ {
		sb.WriteString("," + strconv.Itoa(i))
	}
	sb.WriteString("} m(n) <= m(n)\n")
	dir := fixture.Project(t, map[string]string{"F.spl": sb.String()})
	code, out, errs := runCLI(t, "lint", "--jdk-src", "none", dir)
	want := filepath.Join(dir, "F.spl") + ":2:1: error: the quantifiers produce more than 100000 instances, so the formula is not expanded; use fewer values"
	if code != exitViolated || strings.TrimSpace(out) != want {
		t.Fatalf("exit %d, output:\n%s%s\nwant:\n%s", code, out, errs, want)
	}
}
