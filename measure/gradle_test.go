package measure

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Output of the init script and of a failed Gradle run.
const gradleLog = `PERFLS-PROJECT :
PERFLS-PROJECT :app
PERFLS-MISSING org.foo:bar:2.0
PERFLS-CP /home/u/.gradle/caches/modules-2/files-2.1/org.acme/acme-util/1.0/abc/acme-util-1.0.jar
PERFLS-CP /w/lib/build/libs/lib.jar
PERFLS-PROJECT :lib
PERFLS-CP /home/u/.gradle/caches/modules-2/files-2.1/org.acme/acme-util/1.0/abc/acme-util-1.0.jar

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':other:compileJava'.
> Could not resolve all files for configuration ':other:compileClasspath'.

* Try:
Run with --stacktrace option to get the stack trace.
`

func TestParseGradleOutput(t *testing.T) {
	o := parseGradleOutput(gradleLog)
	if want := []string{":", ":app", ":lib"}; !reflect.DeepEqual(o.modules, want) {
		t.Errorf("modules %q, want %q", o.modules, want)
	}
	want := []string{"/home/u/.gradle/caches/modules-2/files-2.1/org.acme/acme-util/1.0/abc/acme-util-1.0.jar", "/w/lib/build/libs/lib.jar"}
	if !reflect.DeepEqual(o.entries, want) {
		t.Errorf("entries %q, want %q", o.entries, want)
	}
	if want := []string{"org.foo:bar:2.0"}; !reflect.DeepEqual(o.missing, want) {
		t.Errorf("missing %q, want %q", o.missing, want)
	}
	if want := []string{"Execution failed for task ':other:compileJava'.", "Could not resolve all files for configuration ':other:compileClasspath'."}; !reflect.DeepEqual(o.errors, want) {
		t.Errorf("errors %q, want %q", o.errors, want)
	}
	p := gradle.problem("/w/gradlew", o, errExit1{}, false)
	if !strings.Contains(p, "org.foo:bar:2.0") || !strings.Contains(p, "gradle dependencies") {
		t.Errorf("problem: %s", p)
	}
}

func TestGradleCommand(t *testing.T) {
	scratch := t.TempDir()
	args, err := gradleArgs(true, scratch)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(scratch, "perfls-init.gradle")
	if want := []string{"-q", "--console=plain", "--continue", "--no-daemon", "--offline", "-I", script, "perflsClasspath"}; !reflect.DeepEqual(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	if b, err := os.ReadFile(script); err != nil || !strings.Contains(string(b), "perflsClasspath") || !strings.Contains(string(b), "testRuntimeClasspath") {
		t.Errorf("init script: %v\n%s", err, b)
	}
	if args, _ := gradleArgs(false, scratch); strings.Contains(strings.Join(args, " "), "--offline") {
		t.Errorf("online args %q", args)
	}

	// The project's wrapper comes before gradle on PATH.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "settings.gradle"), "rootProject.name = 'x'\n")
	t.Setenv("PATH", t.TempDir())
	if _, err := gradle.exe(dir); err == nil || !strings.Contains(err.Error(), "gradle is not installed") || !strings.Contains(err.Error(), "./gradlew") {
		t.Errorf("no gradle: %v", err)
	}
	writeFile(t, filepath.Join(dir, "gradlew"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(dir, "gradlew"), 0o755)
	if exe, err := gradle.exe(dir); err != nil || exe != filepath.Join(dir, "gradlew") {
		t.Errorf("wrapper: %q, %v", exe, err)
	}
	if detectBuildTool(dir) != "gradle" {
		t.Errorf("settings.gradle is not a Gradle build")
	}
}

// A stand-in gradlew runs the command perfls builds: the init script is
// there, the classpath is read, sibling outputs are dropped, and a missing
// artifact makes perfls try online and then explain.
func TestGradleWrapperClasspath(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(t.TempDir(), "dep.jar")
	writeFile(t, jar, "x")
	writeFile(t, filepath.Join(dir, "build.gradle"), "apply plugin: 'java'\ndependencies { implementation 'org.acme:acme-util:1.0' }\n")
	writeFile(t, filepath.Join(dir, "src/main/java/demo/A.java"), "package demo; class A {}")
	runs := filepath.Join(t.TempDir(), "runs")
	writeFile(t, filepath.Join(dir, "gradlew"), `#!/bin/sh
echo "$*" >> `+runs+`
for a in "$@"; do case "$prev" in -I) grep -q perflsClasspath "$a" || exit 9 ;; esac; prev="$a"; done
echo "PERFLS-PROJECT :"
echo "PERFLS-CP `+jar+`"
echo "PERFLS-CP `+filepath.Join(dir, "sub", "build", "libs", "sub.jar")+`"
if [ -n "$MISSING" ]; then echo "PERFLS-MISSING $MISSING"; fi
`)
	os.Chmod(filepath.Join(dir, "gradlew"), 0o755)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := ResolveClasspath(context.Background(), p, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Classpath, []string{jar}) || p.ClasspathProblem != "" || !strings.Contains(p.ClasspathFrom, "Gradle") {
		t.Fatalf("classpath %q from %q, problem %s", p.Classpath, p.ClasspathFrom, p.ClasspathProblem)
	}
	t.Setenv("MISSING", "org.foo:bar:2.0")
	p, _ = FindProject(dir)
	if err := ResolveClasspath(context.Background(), p, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(runs)
	if n := strings.Count(string(b), "\n"); n != 3 {
		t.Errorf("%d runs, want 3 (one, then offline and online)", n)
	}
	if !strings.Contains(p.ClasspathProblem, "org.foo:bar:2.0") || len(p.ClasspathNotices()) != 1 || !reflect.DeepEqual(p.Classpath, []string{jar}) {
		t.Errorf("missing: problem %s, classpath %q", p.ClasspathProblem, p.Classpath)
	}
}

// Real Gradle, when this machine has one that runs: a project with no
// dependencies resolves to an empty classpath without a problem.
func TestGradleReal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Gradle")
	}
	exe, err := exec.LookPath("gradle")
	if err != nil {
		t.Skip("no gradle on PATH (and no project wrapper here): the real-Gradle test is skipped; the command and parsing are tested with a stand-in")
	}
	if out, err := exec.Command(exe, "--version").CombinedOutput(); err != nil {
		t.Skipf("gradle does not run on this JDK (%v): the real-Gradle test is skipped\n%s", err, out)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "build.gradle"), "apply plugin: 'java'\n")
	writeFile(t, filepath.Join(dir, "settings.gradle"), "rootProject.name = 'demo'\n")
	writeFile(t, filepath.Join(dir, "src/main/java/demo/A.java"), "package demo; class A {}")
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := ResolveClasspath(context.Background(), p, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if p.ClasspathProblem != "" || len(p.Classpath) != 0 {
		t.Errorf("classpath %q, problem %s", p.Classpath, p.ClasspathProblem)
	}
}
