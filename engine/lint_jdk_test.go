package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/cache/declindex"
	"github.com/perfls/perfls/internal/fixture"
)

const jdkSubclass = `package demo;

public class Names extends java.util.AbstractList<String> {
    public String get(int i) { return null; }
    public int size() { return 0; }
    public static Iterable<Object[]> gen(int n) { return null; }

    @SPL({"SELF[gen](1) <= demo.Names#subList[gen](1)",
          "SELF[gen](1) <= demo.Names#sublist[gen](1)",
          "SELF[gen](1) <= java.util.ArrayList#trimToSiz[gen](1)"})
    public static int m(int[] a) { return 0; }
}
`

// lintNotes lints paths as the CLI does with jdkSrc, and returns the
// errors and the notices.
func lintNotes(t *testing.T, paths []string, jdkSrc string) (errs, notes []string) {
	t.Helper()
	cfg := LintConfig{JDKSrc: jdkSrc, NoClasspath: true, Notef: func(format string, args ...any) {
		notes = append(notes, fmt.Sprintf(format, args...))
	}}
	diags, err := LintWith(context.Background(), paths, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return errorMessages(diags, false), notes
}

// Without src.zip the JDK's class data is read: a class extending a JDK
// class has its method names checked. Where the JDK cannot be read, one
// notice says how many references went unchecked and why.
func TestLintJDKClassData(t *testing.T) {
	fixture.Isolate(t)
	dir := fixture.Project(t, map[string]string{"src/demo/Names.java": jdkSubclass})
	wantErrs := []string{
		`demo.Names has no method "sublist"`,
		`java.util.ArrayList has no method "trimToSiz"; did you mean trimToSize?`,
	}
	for _, file := range []string{"ct.sym", "modules"} {
		t.Run(file, func(t *testing.T) {
			home := fixture.JDKHomeWith(t, file)
			t.Setenv("JAVA_HOME", home)
			errs, notes := lintNotes(t, []string{dir}, "")
			if strings.Join(errs, "\n") != strings.Join(wantErrs, "\n") || len(notes) > 0 {
				t.Errorf("JAVA_HOME with only %s: errors %q, notices %q", file, errs, notes)
			}
			// --jdk-src names the home, or the file itself.
			for _, p := range []string{home, filepath.Join(home, "lib", file)} {
				if errs, notes := lintNotes(t, []string{dir}, p); strings.Join(errs, "\n") != strings.Join(wantErrs, "\n") || len(notes) > 0 {
					t.Errorf("--jdk-src %s: errors %q, notices %q", p, errs, notes)
				}
			}
		})
	}

	// No JDK: nothing is certain, and one notice says so.
	empty := t.TempDir()
	t.Setenv("JAVA_HOME", empty)
	t.Setenv("PATH", t.TempDir())
	errs, notes := lintNotes(t, []string{dir}, "")
	want := "JDK classes not found (no src.zip, ct.sym or modules under " + empty + " (JAVA_HOME)): 3 method reference(s) to or through JDK types (classes extending them) are not checked; set JAVA_HOME to a JDK, or pass --jdk-src"
	if len(errs) != 0 || len(notes) != 1 || notes[0] != want {
		t.Errorf("no JDK: errors %q, notices:\n%q\nwant\n%q", errs, notes, want)
	}
	if _, notes := lintNotes(t, []string{dir}, "none"); len(notes) != 1 || !strings.HasPrefix(notes[0], "JDK classes not read (--jdk-src none): 3 method reference(s)") {
		t.Errorf("--jdk-src none: %q", notes)
	}
}

// One file is linted in its project's context: the classes of its package
// and of the project resolve, the other files' problems are not reported,
// and the declarations are kept for the next run (as the editor keeps them).
func TestLintOneFileInProject(t *testing.T) {
	cacheDir := fixture.Isolate(t)
	dir := fixture.Project(t, map[string]string{
		"perfls.json": `{}`,
		"src/demo/A.java": `package demo;

public class A {
    public static Iterable<Object[]> gen(int n) { return null; }

    @SPL({"SELF[gen](1) <= B#work[gen](1)", "SELF[gen](1) <= B#wrk[gen](1)", "SELF[gen](1) <= util.Help#assist[gen](1)"})
    public static int m(int[] a) { return 0; }
}
`,
		"src/demo/B.java": `package demo;

public class B {
    public static int work(int[] a) { return 0; }

    @SPL("SELF <= nosuch")
    public static int broken(int[] a) { return 0; }
}
`,
		"src/util/Help.java": "package util;\npublic class Help { public static int assist(int[] a) { return 0; } }\n",
	})
	a := filepath.Join(dir, "src", "demo", "A.java")
	diags, err := LintWith(context.Background(), []string{a}, LintConfig{JDKSrc: "none", NoClasspath: true, CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, filepath.Base(d.Path)+": "+d.Message)
	}
	want := []string{`A.java: demo.B has no method "wrk"; did you mean work?`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("one file:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(declindex.Path(cacheDir, dir)); err != nil {
		t.Errorf("the project's declarations are not kept: %v", err)
	}
	// Relative to the working directory, as a user types it.
	t.Chdir(filepath.Join(dir, "src"))
	diags, err = LintWith(context.Background(), []string{filepath.Join("demo", "A.java")}, LintConfig{JDKSrc: "none", NoClasspath: true, CacheDir: cacheDir})
	if err != nil || len(diags) != 1 || diags[0].Path != filepath.Join("demo", "A.java") {
		t.Errorf("relative path: %v %v", diags, err)
	}
}
