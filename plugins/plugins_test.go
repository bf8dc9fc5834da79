package plugins

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/internal/fixture"
)

// The Debian packages (bookworm's versions, which Maven Central also has)
// that build the Maven plugin offline; plugins/maven/pom.xml names them.
var pluginBuild = map[string]string{
	"org/apache/maven/plugins/maven-plugin-plugin/3.7.1":           "libmaven-plugin-tools-java",
	"org/apache/maven/plugin-tools/maven-plugin-annotations/3.7.1": "libmaven-plugin-tools-java",
	"org/apache/maven/plugins/maven-compiler-plugin/3.10.1":        "libmaven-compiler-plugin-java",
	"org/apache/maven/plugins/maven-resources-plugin/3.3.0":        "libmaven-resources-plugin-java",
	"org/apache/maven/plugins/maven-jar-plugin/3.3.0":              "libmaven-jar-plugin-java",
	"org/apache/maven/plugins/maven-surefire-plugin/2.22.3":        "libsurefire-java",
	"org/apache/maven/plugins/maven-install-plugin/3.1.0":          "libmaven-install-plugin-java",
	"org/apache/maven/maven-core/3.8.7":                            "libmaven3-core-java",
	"org/codehaus/plexus/plexus-utils/3.4.2":                       "libplexus-utils2-java",
}

// quick keeps the measurements short: few forks and samples, one look.
var quick = []string{"--forks", "2", "--samples", "5", "--warmup", "20ms", "--max-warmup", "2s", "--max-forks", "2"}

// The Maven plugin and the Gradle task run perfls check with the classpath
// their build tool resolved, and give the verdicts perfls check gives on
// the tutorial's project (docs/tutorial.md): the classpath they pass is the
// one perfls reads from the build tool itself, so the second run of each
// pair is answered from the cache, measurement for measurement. perfls's
// exit statuses become a failed build (1: violated) or a build error.
func TestMavenPluginAndGradleTask(t *testing.T) {
	m := fixture.NewMaven(t) // skips without mvn and Debian's Maven repository
	for dir, pkg := range pluginBuild {
		if _, err := os.Stat(filepath.Join(fixture.DebianMavenRepo, dir)); err != nil {
			t.Skipf("%s has no %s (apt-get install %s): the Maven plugin cannot be built offline; skipped", fixture.DebianMavenRepo, dir, pkg)
		}
	}
	bin := buildPerfls(t) // before Isolate, whose XDG_CACHE_HOME would also empty Go's build cache
	fixture.Isolate(t)
	installMavenPlugin(t, m)
	runOK(t, "", bin, "annotations", "--install", "--repo", m.LocalRepo)
	files := tutorialFiles(t)

	t.Run("maven", func(t *testing.T) {
		dir := t.TempDir()
		pom := strings.Replace(files["pom.xml"], "</project>", `  <build>
    <plugins>
      <plugin>
        <groupId>dev.perfls</groupId>
        <artifactId>perfls-maven-plugin</artifactId>
        <version>0.1.0</version>
      </plugin>
    </plugins>
  </build>
</project>`, 1)
		fixture.WriteFiles(t, dir, map[string]string{
			"pom.xml":                      pom,
			"src/main/java/demo/Text.java": files["src/main/java/demo/Text.java"],
			".mvn/maven.config":            "-s\n" + m.Settings + "\n" + offline + "\n",
		})
		want := checkJSON(t, dir, bin, append([]string{"check", "--format", "json"}, append(quick, dir)...)...)
		mvn := func(executable string, args ...string) (int, string) {
			return command(t, dir, "mvn", append([]string{"-B", "-q", "-o", "-Dstyle.color=never", "perfls:check", "-Dperfls.executable=" + executable}, args...)...)
		}
		code, out := mvn(bin, "-Dperfls.args=--format json "+strings.Join(quick, " "))
		got := parseCheck(t, "mvn perfls:check", out)
		sameVerdicts(t, "mvn perfls:check", want, got, code)
		cp, err := os.ReadFile(filepath.Join(dir, "target", "perfls-classpath.txt"))
		if err != nil || !strings.Contains(string(cp), "perfls-annotations-0.1.0.jar") {
			t.Errorf("target/perfls-classpath.txt: %v\n%s", err, cp)
		}

		// perfls's exit statuses, and what it was given, with a stand-in.
		for _, c := range []struct {
			exit int
			want string
		}{{1, "a formula is violated (exit status 1)"}, {2, "perfls check could not do its work (exit status 2)"}} {
			fake := standIn(t, c.exit)
			code, out := mvn(fake)
			if code == 0 || !strings.Contains(out, c.want) {
				t.Errorf("perfls exiting %d: mvn exit %d, want a failed build saying %q:\n%s", c.exit, code, c.want, out)
			}
			args, _ := os.ReadFile(fake + ".args")
			if wantArgs := "check\n--classpath-file\n" + filepath.Join(dir, "target", "perfls-classpath.txt") + "\n" + dir + "\n"; string(args) != wantArgs {
				t.Errorf("perfls was run with\n%s\nwant\n%s", args, wantArgs)
			}
		}
		if code, out := mvn(filepath.Join(t.TempDir(), "no-perfls")); code == 0 || !strings.Contains(out, "-Dperfls.executable") {
			t.Errorf("perfls missing: mvn exit %d, want a hint naming -Dperfls.executable:\n%s", code, out)
		}
	})

	t.Run("gradle", func(t *testing.T) {
		if _, err := exec.LookPath("gradle"); err != nil {
			t.Skip("gradle is not installed (apt-get install gradle): the Gradle task is not tested")
		}
		// Gradle's mavenLocal() is the test's repository: Gradle reads
		// user.home's settings, not $HOME's.
		gh := t.TempDir()
		fixture.WriteFiles(t, gh, map[string]string{"gradle.properties": "systemProp.maven.repo.local=" + m.LocalRepo + "\n"})
		t.Setenv("GRADLE_USER_HOME", gh)
		script, err := filepath.Abs(filepath.Join("gradle", "perfls.gradle"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		fixture.WriteFiles(t, dir, map[string]string{
			"settings.gradle": "rootProject.name = 'text'\n",
			"build.gradle": `apply plugin: 'java'
repositories { mavenLocal() }
dependencies { implementation 'dev.perfls:perfls-annotations:0.1.0' }
apply from: '` + filepath.ToSlash(script) + `'
`,
			"src/main/java/demo/Text.java": files["src/main/java/demo/Text.java"],
		})
		gradle := func(executable string, args ...string) (int, string) {
			return command(t, dir, "gradle", append([]string{"-q", "--offline", "--no-daemon", "perfls", "-Pperfls.executable=" + executable}, args...)...)
		}
		// The task first: perfls then uses the classes Gradle compiled, and
		// so does perfls check after it.
		code, out := gradle(bin, "-Pperfls.args=--format json "+strings.Join(quick, " "))
		got := parseCheck(t, "gradle perfls", out)
		want := checkJSON(t, dir, bin, append([]string{"check", "--format", "json"}, append(quick, dir)...)...)
		sameVerdicts(t, "perfls check after gradle perfls", got, want, code)

		fake := standIn(t, 1)
		if code, out := gradle(fake); code == 0 || !strings.Contains(out, "a formula is violated (exit status 1)") {
			t.Errorf("perfls exiting 1: gradle exit %d, want a failed build saying a formula is violated:\n%s", code, out)
		}
		args, _ := os.ReadFile(fake + ".args")
		if wantArgs := "check\n--classpath-file\n" + filepath.Join(dir, "build", "perfls-classpath.txt") + "\n" + dir + "\n"; string(args) != wantArgs {
			t.Errorf("perfls was run with\n%s\nwant\n%s", args, wantArgs)
		}
	})
}

// offline lets mvn -o read Debian's repository, a file:// mirror.
const offline = "-Daether.offline.protocols=file"

func buildPerfls(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "perfls")
	runOK(t, "", "go", "build", "-o", bin, "../cmd/perfls")
	return bin
}

// installMavenPlugin builds plugins/maven in a copy (no target/ in the
// tree) and installs it into m's local repository.
func installMavenPlugin(t *testing.T, m *fixture.Maven) {
	t.Helper()
	dir := t.TempDir()
	copied := map[string]string{}
	err := filepath.WalkDir("maven", func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "target":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("maven", p)
		copied[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	fixture.WriteFiles(t, dir, copied)
	runOK(t, dir, "mvn", "-B", "-q", "-o", offline, "-Dstyle.color=never", "-s", m.Settings, "install")
}

// tutorialFiles are the files docs/tutorial.md writes (```lang title=PATH).
func tutorialFiles(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, m := range regexp.MustCompile("(?ms)^```[a-z]+ title=(\\S+)\n(.*?)^```\n").FindAllStringSubmatch(string(b), -1) {
		files[m[1]] = m[2]
	}
	for _, f := range []string{"pom.xml", "src/main/java/demo/Text.java"} {
		if files[f] == "" {
			t.Fatalf("docs/tutorial.md no longer writes %s; this test builds on its project", f)
		}
	}
	return files
}

// standIn is a perfls that writes its arguments, one a line, to PATH.args
// and exits with code.
func standIn(t *testing.T, code int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "perfls")
	fixture.WriteFiles(t, filepath.Dir(p), map[string]string{"perfls": "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$0.args\"\nexit " + strconv.Itoa(code) + "\n"})
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// command runs name in dir and returns its exit status and its stdout
// followed by its stderr.
func command(t *testing.T, dir, name string, args ...string) (int, string) {
	t.Helper()
	code, stdout, stderr := fixture.Command(t, dir, nil, 10*time.Minute, name, args...)
	return code, stdout + stderr
}

func runOK(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	if code, out := command(t, dir, name, args...); code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
}

// checkJSON runs perfls check and returns its JSON document.
func checkJSON(t *testing.T, dir, bin string, args ...string) report.CheckDocument {
	t.Helper()
	code, out := command(t, dir, bin, args...)
	if code != 0 && code != 1 {
		t.Fatalf("perfls %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return parseCheck(t, "perfls check", out)
}

// parseCheck reads the JSON document at the start of out (stdout; stderr
// follows it).
func parseCheck(t *testing.T, what, out string) report.CheckDocument {
	t.Helper()
	var doc report.CheckDocument
	start := strings.Index(out, "{")
	if start < 0 {
		t.Fatalf("%s printed no check document:\n%s", what, out)
	}
	if err := json.NewDecoder(strings.NewReader(out[start:])).Decode(&doc); err != nil || doc.Summary.Measurements == 0 {
		t.Fatalf("%s printed no check document (%v):\n%s", what, err, out)
	}
	return doc
}

// sameVerdicts compares the second run of a pair with the first: the
// same counts, every measurement answered by the cache (the same
// classpath, the same classes), and the build's exit status as perfls's.
func sameVerdicts(t *testing.T, what string, first, second report.CheckDocument, buildExit int) {
	t.Helper()
	a, b := first.Summary, second.Summary
	if a.Result != b.Result || a.Satisfied != b.Satisfied || a.Violated != b.Violated || a.Undecided != b.Undecided || a.Failed != b.Failed {
		t.Errorf("%s: verdicts differ:\n first %+v\nsecond %+v", what, a, b)
	}
	if b.Cached != b.Measurements {
		t.Errorf("%s: %d of %d measurements from the cache, want all: the classpath or the classes differ from the first run's", what, b.Cached, b.Measurements)
	}
	if (buildExit == 0) != (a.Result == "passed") {
		t.Errorf("%s: build exit %d for a check whose result is %s", what, buildExit, a.Result)
	}
}
