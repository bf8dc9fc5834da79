package measure

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	fx "github.com/perfls/perfls/internal/fixture"
)

// Output of Maven 3.8.7 (shortened), as perfls runs it.
const mavenReactorLog = `[INFO] Scanning for projects...
[INFO] ------------------------------------------------------------------------
[INFO] Reactor Build Order:
[INFO] 
[INFO] parent                                                             [pom]
[INFO] a                                                                  [jar]
[INFO] 
[INFO] ----------------------------< m:parent >-----------------------------
[INFO] Building parent 1                                                  [1/3]
[INFO] --------------------------------[ pom ]---------------------------------
[INFO] 
[INFO] --- maven-dependency-plugin:3.5.0:build-classpath (default-cli) @ parent ---
[INFO] Dependencies classpath:

[INFO] 
[INFO] -------------------------------< m:a >--------------------------------
[INFO] Building a 1                                                       [2/3]
[INFO] --------------------------------[ jar ]---------------------------------
[WARNING] The POM for org.apache.maven.plugins:maven-clean-plugin:jar:2.5 is missing, no dependency information available
[INFO] --- maven-dependency-plugin:3.5.0:build-classpath (default-cli) @ a ---
[INFO] Dependencies classpath:
/r/org/acme/acme-util/1.0/acme-util-1.0.jar:/r/junit/junit/4.13.2/junit-4.13.2.jar
[INFO] 
[INFO] -------------------------------< m:b >--------------------------------
[INFO] Building b 1                                                       [3/3]
[INFO] --------------------------------[ jar ]---------------------------------
[INFO] --- maven-dependency-plugin:3.5.0:build-classpath (default-cli) @ b ---
[INFO] Dependencies classpath:
/r/org/acme/acme-util/1.0/acme-util-1.0.jar:/r/org/other/x/2/x-2.jar
[ERROR] Failed to execute goal on project c: Could not resolve dependencies for project m:c:jar:1: Cannot access debian (file:///usr/share/maven-repo) in offline mode and the artifact m:a:jar:1 has not been downloaded from it before. -> [Help 1]
[ERROR] Failed to execute goal on project d: Could not resolve dependencies for project m:d:jar:1: The following artifacts could not be resolved: org.foo:bar:jar:2.0, org.foo:baz:jar:tests:2.0: Could not find artifact org.foo:bar:jar:2.0 in central (https://repo.maven.apache.org/maven2) -> [Help 1]
[ERROR] 
[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.
[ERROR] Re-run Maven using the -X switch to enable full debug logging.
`

func TestParseMavenOutput(t *testing.T) {
	o := parseMavenOutput(stripANSI(strings.ReplaceAll(mavenReactorLog, "[INFO]", "\x1b[1;34mINFO\x1b[m]")))
	o = parseMavenOutput(mavenReactorLog)
	if want := []string{"m:parent", "m:a", "m:b"}; !reflect.DeepEqual(o.modules, want) {
		t.Errorf("modules %q, want %q", o.modules, want)
	}
	want := []string{"/r/org/acme/acme-util/1.0/acme-util-1.0.jar", "/r/junit/junit/4.13.2/junit-4.13.2.jar", "/r/org/other/x/2/x-2.jar"}
	if !reflect.DeepEqual(o.entries, want) {
		t.Errorf("entries %q, want %q (the union, without duplicates)", o.entries, want)
	}
	if want := []string{"m:a:jar:1", "org.foo:bar:jar:2.0", "org.foo:baz:jar:tests:2.0"}; !reflect.DeepEqual(o.missing, want) {
		t.Errorf("missing %q, want %q (not the failing projects m:c, m:d)", o.missing, want)
	}
	if len(o.errors) != 2 {
		t.Errorf("errors %q, want the two failures only", o.errors)
	}
	p := maven.problem("/usr/bin/mvn", o, errExit1{}, true)
	for _, s := range []string{"org.foo:bar:jar:2.0", "mvn dependency:resolve", ConfigFile, "m:a:jar:1 is a module of this build", "mvn install -DskipTests", "offline, then online"} {
		if !strings.Contains(p, s) {
			t.Errorf("problem does not say %q:\n%s", s, p)
		}
	}

	// No dependency plugin in the local repository.
	o = parseMavenOutput("[ERROR] No plugin found for prefix 'dependency' in the current project and in the plugin groups [org.apache.maven.plugins, org.codehaus.mojo] available from the repositories [local (/r), central (https://repo.maven.apache.org/maven2)] -> [Help 1]\n")
	if want := []string{"the maven-dependency-plugin"}; !reflect.DeepEqual(o.missing, want) {
		t.Errorf("missing %q, want %q", o.missing, want)
	}
	// A broken pom: its error is quoted.
	o = parseMavenOutput("[ERROR] Non-parseable POM /p/pom.xml: end tag name </project> must match start tag name <dependencies> (position: END_TAG seen ...</dependencies>\\n</project>... @3:11)  @ line 3, column 11\n")
	if p := maven.problem("mvn", o, errExit1{}, false); !strings.Contains(p, "Non-parseable POM") || !strings.Contains(p, "Fix the build") {
		t.Errorf("broken pom: %s", p)
	}
}

type errExit1 struct{}

func (errExit1) Error() string { return "exit status 1" }

// fakeMaven puts a shell script called mvn first on PATH. It logs each run
// to the returned file and does what FAKE_MVN says: print a classpath
// (ok), fail naming a missing artifact (fail), or hang with a child (hang).
func fakeMaven(t *testing.T) (runs string) {
	t.Helper()
	bin := t.TempDir()
	runs = filepath.Join(bin, "runs")
	writeFile(t, filepath.Join(bin, "mvn"), `#!/bin/sh
echo "$*" >> "`+runs+`"
case "$FAKE_MVN" in
ok) printf '[INFO] ------< org.example:demo >------\n[INFO] Dependencies classpath:\n%s\n' "$FAKE_CP" ;;
fail) echo "[ERROR] Failed to execute goal on project demo: Could not resolve dependencies for project org.example:demo:jar:1.0: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.foo:bar:jar:2.0 has not been downloaded from it before. -> [Help 1]"; exit 1 ;;
hang) sleep 30 & echo $! > "`+filepath.Join(bin, "child")+`"; wait ;;
esac
`)
	if err := os.Chmod(filepath.Join(bin, "mvn"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return runs
}

func countRuns(t *testing.T, runs string) int {
	b, err := os.ReadFile(runs)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func mavenProject(t *testing.T, deps string) *Project {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pom.xml"), fx.POM("demo", deps))
	writeFile(t, filepath.Join(dir, "src/main/java/demo/A.java"), "package demo; class A {}")
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.BuildTool != "maven" {
		t.Fatalf("BuildTool = %q, want maven", p.BuildTool)
	}
	return p
}

// The classpath is read once per pom content; failures say what is missing
// and what to do; a hanging mvn is killed with its children.
func TestMavenClasspathCachedAndFailures(t *testing.T) {
	runs := fakeMaven(t)
	cache := t.TempDir()
	jar := filepath.Join(t.TempDir(), "dep.jar")
	writeFile(t, jar, "x")
	t.Setenv("FAKE_CP", jar)
	t.Setenv("FAKE_MVN", "ok")
	ctx := context.Background()

	p := mavenProject(t, "<dependency>…</dependency>")
	if err := ResolveClasspath(ctx, p, cache); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Classpath, []string{jar}) || p.ClasspathProblem != "" || !strings.Contains(p.ClasspathFrom, "Maven") {
		t.Fatalf("classpath %q from %q, problem %q", p.Classpath, p.ClasspathFrom, p.ClasspathProblem)
	}
	if n := countRuns(t, runs); n != 1 {
		t.Errorf("%d mvn runs, want 1 (offline succeeded)", n)
	}
	if args, _ := os.ReadFile(runs); !strings.Contains(string(args), "-o dependency:build-classpath -Dmdep.includeScope=test") {
		t.Errorf("mvn arguments %q", args)
	}
	// Again, in a new project value: from the cache.
	p2, _ := FindProject(p.Dir)
	if err := ResolveClasspath(ctx, p2, cache); err != nil {
		t.Fatal(err)
	}
	if n := countRuns(t, runs); n != 1 || !reflect.DeepEqual(p2.Classpath, []string{jar}) {
		t.Errorf("cached: %d runs, classpath %q", n, p2.Classpath)
	}
	// An edited pom asks Maven again; a failure is explained, offline
	// then online.
	writeFile(t, filepath.Join(p.Dir, "pom.xml"), fx.POM("demo", "<dependency>org.foo:bar</dependency>"))
	t.Setenv("FAKE_MVN", "fail")
	p3, _ := FindProject(p.Dir)
	if err := ResolveClasspath(ctx, p3, cache); err != nil {
		t.Fatal(err)
	}
	if n := countRuns(t, runs); n != 3 {
		t.Errorf("%d runs, want 3 (offline and online after the edit)", n)
	}
	if !strings.Contains(p3.ClasspathProblem, "org.foo:bar:jar:2.0") || !strings.Contains(p3.ClasspathProblem, "mvn dependency:resolve") {
		t.Errorf("problem: %s", p3.ClasspathProblem)
	}
	if ns := p3.ClasspathNotices(); len(ns) != 1 || !strings.Contains(ns[0], "incomplete") {
		t.Errorf("notices %q", ns)
	}
	// The failure is remembered for a while, not retried at every request.
	p4, _ := FindProject(p.Dir)
	if err := ResolveClasspath(ctx, p4, cache); err != nil || countRuns(t, runs) != 3 || p4.ClasspathProblem != p3.ClasspathProblem {
		t.Errorf("failure not cached: %v, %d runs", err, countRuns(t, runs))
	}

	// mvn missing.
	t.Setenv("PATH", t.TempDir())
	p5 := mavenProject(t, "<dependency>x</dependency>")
	if err := ResolveClasspath(ctx, p5, cache); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p5.ClasspathProblem, "mvn is not installed") || !strings.Contains(p5.ClasspathProblem, `"classpath"`) {
		t.Errorf("no mvn: %s", p5.ClasspathProblem)
	}
}

func TestMavenHangingIsKilled(t *testing.T) {
	fakeMaven(t)
	t.Setenv("FAKE_MVN", "hang")
	t.Setenv(OfflineEnv, "1")
	old := buildToolOfflineTimeout
	buildToolOfflineTimeout = time.Second
	defer func() { buildToolOfflineTimeout = old }()
	p := mavenProject(t, "")
	if err := ResolveClasspath(context.Background(), p, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.ClasspathProblem, "did not finish within 1s") || !strings.Contains(p.ClasspathProblem, OfflineEnv) {
		t.Errorf("problem: %s", p.ClasspathProblem)
	}
	if ns := p.ClasspathNotices(); ns != nil {
		t.Errorf("a pom without dependencies needs no notice: %q", ns)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(strings.Split(os.Getenv("PATH"), string(os.PathListSeparator))[0]), filepath.Base(strings.Split(os.Getenv("PATH"), string(os.PathListSeparator))[0]), "child"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("mvn's child %d outlived the time limit", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// Real Maven against Debian's plugin repository: a project with a
// dependency the repositories have and one they lack. Offline, the fresh
// local repository lacks even the dependency plugin; online (the file://
// mirror) Maven names the missing artifact. The end-to-end test in
// cmd/perfls checks the successful case.
func TestMavenRealMissingArtifact(t *testing.T) {
	m := fx.NewMaven(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pom.xml"), fx.POM("demo", m.Dependency+
		`<dependency><groupId>org.acme</groupId><artifactId>acme-gone</artifactId><version>9.9</version></dependency>`))
	writeFile(t, filepath.Join(dir, "src/main/java/demo/A.java"), "package demo; class A {}")
	m.Configure(t, dir)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := ResolveClasspath(context.Background(), p, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"org.acme:acme-gone:jar:9.9", "offline, then online", "mvn dependency:resolve", `"classpath"`} {
		if !strings.Contains(p.ClasspathProblem, s) {
			t.Errorf("problem does not say %q: %s", s, p.ClasspathProblem)
		}
	}
	if strings.Contains(p.ClasspathProblem, "acme-util") {
		t.Errorf("problem names the dependency that resolved: %s", p.ClasspathProblem)
	}
}
