package measure

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

func TestParseJavacOutput(t *testing.T) {
	out := "/p/src/a/A.java:3: error: cannot find symbol\n" +
		"        foo(1);\n" +
		"        ^\n" +
		"  symbol:   method foo(int)\n" +
		"  location: class A\n" +
		"/p/src/a/B.java:7: warning: [removal] Integer(int) in Integer has been deprecated\n" +
		"\tInteger x = new Integer(1);\n" +
		"\t            ^\n" +
		"error: invalid flag: --bogus\n" +
		"Note: Some input files use unchecked or unsafe operations.\n" +
		"1 error\n1 warning\n"
	got := parseJavacOutput(out)
	want := []measured.CompilerMessage{
		{File: "/p/src/a/A.java", Line: 3, Column: 9, Severity: "error", Message: "cannot find symbol; symbol: method foo(int); location: class A"},
		{File: "/p/src/a/B.java", Line: 7, Column: 14, Severity: "warning", Message: "[removal] Integer(int) in Integer has been deprecated"},
		{Severity: "error", Message: "invalid flag: --bogus"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	e := &CompileError{Messages: got}
	if s := e.Error(); !strings.Contains(s, "/p/src/a/A.java:3: cannot find symbol") || strings.Contains(s, "deprecated") {
		t.Errorf("Error() = %q", s)
	}
}

func TestParseJavacVersion(t *testing.T) {
	for in, want := range map[string]int{"javac 17.0.15\n": 17, "javac 1.8.0_292": 8, "javac 21": 21, "Picked up JAVA_TOOL_OPTIONS: x\njavac 11.0.2": 11, "nope": 0} {
		if _, got := parseJavacVersion(in); got != want {
			t.Errorf("parseJavacVersion(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestCompile(t *testing.T) {
	requireJDK(t)
	ctx := context.Background()
	dir := t.TempDir()
	a := filepath.Join(dir, "src/main/java/app/A.java")
	writeFile(t, a, "package app;\n\npublic class A {\n    public static int one() { return B.ONE; }\n    public static int uses() { return dev.perfls.SPL.class.hashCode(); }\n}\n")
	writeFile(t, filepath.Join(dir, "src/test/java/app/B.java"), "package app;\n\nclass B {\n    static final int ONE = 1;\n}\n")
	writeFile(t, filepath.Join(dir, "src/main/java/module-info.java"), "module app {\n    requires java.sql;\n}\n")
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(sharedCache, "compile-test")
	b, err := Compile(ctx, p, cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"app/A.class", "app/B.class"} {
		if _, err := os.Stat(filepath.Join(b.ClassesDir, c)); err != nil {
			t.Errorf("missing %s: %v", c, err)
		}
	}
	if len(b.Classpath) != 2 || b.Classpath[0] != b.ClassesDir {
		t.Errorf("Classpath = %q", b.Classpath)
	}
	if _, err := os.Stat(filepath.Join(b.Classpath[1], "dev/perfls/SPLController.class")); err != nil {
		t.Errorf("library not compiled: %v", err)
	}

	// Unchanged sources: nothing is recompiled.
	marker := filepath.Join(b.ClassesDir, "marker")
	writeFile(t, marker, "")
	if _, err := Compile(ctx, p, cache); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("unchanged project was recompiled: %v", err)
	}

	// A changed source is compiled again; a compile error is reported by file:line.
	writeFile(t, a, "package app;\n\npublic class A {\n    public static int one() {\n        return missing(1);\n    }\n}\n")
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(a, future, future)
	_, err = Compile(ctx, p, cache)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("Compile of a broken file = %v, want *CompileError", err)
	}
	if len(ce.Messages) == 0 {
		t.Fatalf("no messages parsed from %q", ce.Output)
	}
	m := ce.Messages[0]
	if m.File != a || m.Line != 5 || m.Column != 16 || m.Severity != "error" || !strings.Contains(m.Message, "cannot find symbol") {
		t.Errorf("message = %+v", m)
	}
	if !strings.Contains(err.Error(), a+":5: cannot find symbol") {
		t.Errorf("Error() = %q", err.Error())
	}
	// The previous classes survive a failed compilation.
	if _, err := os.Stat(filepath.Join(b.ClassesDir, "app/A.class")); err != nil {
		t.Errorf("classes lost after a failed compilation: %v", err)
	}

	// Fixed again: recompiled, stale output gone.
	writeFile(t, a, "package app;\n\npublic class A {}\n")
	os.Chtimes(a, future.Add(time.Second), future.Add(time.Second))
	if _, err := Compile(ctx, p, cache); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("changed project was not recompiled")
	}
}

func TestMissingJDK(t *testing.T) {
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", t.TempDir())
	_, err := Compile(context.Background(), &Project{Dir: t.TempDir()}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "JDK >= 11") || !strings.Contains(err.Error(), "JAVA_HOME") {
		t.Fatalf("Compile without a JDK = %v", err)
	}
}

// The version read from the JDK's release file is the one javac prints,
// for every JDK on the machine; a javac outside a JDK has none.
func TestReleaseVersionIsJavacs(t *testing.T) {
	javacs, _ := filepath.Glob("/usr/lib/jvm/*/bin/javac")
	if p, err := exec.LookPath("javac"); err == nil {
		javacs = append(javacs, p)
	}
	if len(javacs) == 0 {
		t.Skip("no javac")
	}
	for _, javac := range javacs {
		out, err := exec.Command(javac, "-version").CombinedOutput()
		if err != nil {
			t.Fatalf("%s -version: %v", javac, err)
		}
		wantVersion, wantMajor := parseJavacVersion(string(out))
		gotVersion, gotMajor := parseJavacVersion(releaseVersion(javac))
		if gotVersion != wantVersion || gotMajor != wantMajor {
			t.Errorf("%s: release file gives %q (%d), javac -version %q (%d)", javac, gotVersion, gotMajor, wantVersion, wantMajor)
		}
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin", "javac")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755)
	if v := releaseVersion(fake); v != "" {
		t.Errorf("no release file: %q", v)
	}
	os.WriteFile(filepath.Join(dir, "release"), []byte("IMPLEMENTOR=\"X\"\nJAVA_VERSION=\"21.0.2\"\n"), 0o644)
	if v, major := parseJavacVersion(releaseVersion(fake)); v != "21.0.2" || major != 21 {
		t.Errorf("release file of a fake JDK: %q %d", v, major)
	}
}
