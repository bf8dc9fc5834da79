package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/trust"
)

const lintJarLib = `package org.acme.xml;

public class Builder {
    public Object build(java.io.File f) { return null; }
    public Object build(String s) { return null; }
    public static Builder create() { return new Builder(); }
}
`

// TestLintClasspath: perfls lint checks references into the jars of
// perfls.json's classpath, with suggestions; packages on no classpath stay
// unchecked.
func TestLintClasspath(t *testing.T) {
	fixture.Isolate(t)
	dir := fixture.Project(t, map[string]string{
		"perfls.json": `{"classpath": ["lib/*.jar"]}`,
		"src/demo/Main.java": `package demo;

import org.acme.xml.Builder;

public class Main {
    public static Iterable<Object[]> gen(int n) { return null; }

    @SPL({"SELF[gen](1) <= Builder#buildd[gen](1)",
          "SELF[gen](1) <= org.acme.xml.NoSuchClass#x[gen](1)",
          "SELF[gen](1) <= Builder#build(String)[gen](1)",
          "SELF[gen](1) <= Builder#build(int)[gen](1)",
          "SELF[gen](1) <= org.elsewhere.Thing#x[gen](1)"})
    public static int m(int[] a) { return 0; }
}
`,
	})
	fixture.Jar(t, filepath.Join(dir, "lib", "acme-xml-1.0.jar"), map[string]string{"org/acme/xml/Builder.java": lintJarLib}, false)
	got := lintErrors(t, dir, true)
	want := []string{
		`unknown-method: org.acme.xml.Builder has no method "buildd"; did you mean build?`,
		`unknown-class: unknown class org.acme.xml.NoSuchClass: package org.acme.xml on the classpath (acme-xml-1.0.jar) has no such class`,
		`no-overload: org.acme.xml.Builder has no overload build(int); candidates: build(File); build(String)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without the classpath, as before: nothing is certain.
	diags, err := LintWith(context.Background(), []string{dir}, LintConfig{JDKSrc: "", NoClasspath: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		if d.Severity == workspace.Error {
			t.Errorf("without the classpath: %s", d.Message)
		}
	}
}

// TestLintMavenDependency: with no perfls.json, a Maven project's
// dependencies are checked — by perfls lint from the poms and the user's
// local repository read as files (it runs no mvn), and by a trusted lint
// (the editor's) from mvn, whose answer the untrusted one then reuses.
func TestLintMavenDependency(t *testing.T) {
	m := fixture.NewMaven(t)
	fixture.Isolate(t)
	dir := mavenDependencyProject(t, m)
	want := `org.acme.util.Sum has no method "off"; did you mean of?`
	m.UserSettings(t)
	if got := lintErrors(t, dir, false); len(got) != 1 || got[0] != want {
		t.Errorf("from files: got %q, want %q", got, want)
	}
	// Trusted, as the editor's lint with allowMeasuring: mvn answers
	// (with the project's own .mvn/maven.config), and perfls keeps it.
	m.Configure(t, dir)
	t.Setenv("HOME", t.TempDir()) // no user settings: only mvn knows the repository now
	cacheDir, _ := cache.Dir()
	diags, err := LintWith(context.Background(), []string{dir}, LintConfig{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	if got := errorMessages(diags, false); len(got) != 1 || got[0] != want {
		t.Errorf("trusted: got %q, want %q", got, want)
	}
	if got := lintErrors(t, dir, false); len(got) != 1 || got[0] != want {
		t.Errorf("untrusted after a trusted run (the kept answer): got %q, want %q", got, want)
	}
}

func mavenDependencyProject(t *testing.T, m *fixture.Maven) string {
	t.Helper()
	return fixture.Project(t, map[string]string{
		"pom.xml": fixture.POM("demo", m.Dependency),
		"src/main/java/demo/Main.java": `package demo;

import org.acme.util.Sum;

public class Main {
    public static Iterable<Object[]> gen(int n) { return null; }

    @SPL({"SELF[gen](1) <= Sum#of[gen](1)", "SELF[gen](1) <= Sum#off[gen](1)"})
    public static long m(int[] a) { return 0; }
}
`,
	})
}

// lintErrors lints dir as perfls lint does and returns the errors'
// messages, prefixed by their codes when withCodes.
func lintErrors(t *testing.T, dir string, withCodes bool) []string {
	t.Helper()
	diags, err := lintAsTheCLI([]string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	return errorMessages(diags, withCodes)
}

// errorMessages are the errors' messages, prefixed by their codes when
// withCodes.
func errorMessages(diags []workspace.Diagnostic, withCodes bool) []string {
	var got []string
	for _, d := range diags {
		if d.Severity == workspace.Error {
			if withCodes {
				got = append(got, d.Code+": "+d.Message)
			} else {
				got = append(got, d.Message)
			}
		}
	}
	return got
}

// lintAsTheCLI lints as perfls lint does: with the user's cache directory
// for the build tool's kept classpath, and no trust.
func lintAsTheCLI(paths []string, jdkSrc string) ([]workspace.Diagnostic, error) {
	dir, _ := cache.Dir()
	ctx := trust.With(context.Background(), trust.Closed("perfls lint reads files only"))
	return LintWith(ctx, paths, LintConfig{JDKSrc: jdkSrc, CacheDir: dir})
}
