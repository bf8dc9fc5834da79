package measure

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

// A compile that fails on a missing package says where the classpath came
// from and how to add the dependency.
func TestCompileErrorNamesMissingDependency(t *testing.T) {
	requireJDK(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src/main/java/demo/A.java"), `package demo;

import org.foo.Bar;

class A { Bar b; }
`)
	writeFile(t, filepath.Join(dir, ConfigFile), `{"classpath": []}`)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(context.Background(), p, sharedCache)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a compile error", err)
	}
	for _, s := range []string{"javac cannot find org.foo, Bar", `came from perfls.json "classpath"`, `"classpathFile"`} {
		if !strings.Contains(ce.Hint, s) {
			t.Errorf("hint does not say %q: %s", s, ce.Hint)
		}
	}
	if !strings.Contains(ce.Error(), ce.Hint) {
		t.Errorf("the error does not carry the hint: %v", ce)
	}
}

func TestDependencyHintByClasspathSource(t *testing.T) {
	msgs := []measured.CompilerMessage{
		{Severity: "error", Message: "package org.acme.util does not exist"},
		{Severity: "error", Message: "cannot access org.x.Y; class file for org.x.Y not found"},
		{Severity: "warning", Message: "package org.w does not exist"},
	}
	maven := &Project{Dir: "/p", BuildTool: "maven", ClasspathFrom: "Maven (mvn dependency:build-classpath on pom.xml)", Classpath: []string{"/r/a.jar"}}
	h := DependencyHint(maven, msgs)
	for _, s := range []string{"org.acme.util, org.x.Y:", "(1 entries) came from Maven", "<dependency> in pom.xml", "mvn dependency:resolve"} {
		if !strings.Contains(h, s) {
			t.Errorf("maven hint does not say %q: %s", s, h)
		}
	}
	if strings.Contains(h, "org.w") {
		t.Errorf("hint names a warning's package: %s", h)
	}
	failed := &Project{Dir: "/p", BuildTool: "maven", ClasspathProblem: "mvn is not installed (…)"}
	if h := DependencyHint(failed, msgs); !strings.Contains(h, "as Maven gave none") || !strings.Contains(h, "mvn is not installed") {
		t.Errorf("failed maven hint: %s", h)
	}
	none := &Project{Dir: "/p"}
	if h := DependencyHint(none, msgs); !strings.Contains(h, "no pom.xml or build.gradle") || !strings.Contains(h, `"classpath"`) {
		t.Errorf("no classpath hint: %s", h)
	}
	if h := DependencyHint(none, []measured.CompilerMessage{{Severity: "error", Message: "';' expected"}}); h != "" {
		t.Errorf("a syntax error got a hint: %s", h)
	}
}
