package main

import (
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
