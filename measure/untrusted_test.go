package measure

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/trust"
)

// Without trust ProjectClasspath runs no build tool: a kept answer of a
// trusted run serves, else the poms and the user's local repository read
// as files, and what is left out is said with what trust would add; a
// refused run is not remembered as the tool's failure.
func TestProjectClasspathUntrusted(t *testing.T) {
	runs := fakeMaven(t)
	cacheDir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home) // ~/.m2/repository: the local repository read as files
	repoJar := filepath.Join(home, ".m2", "repository", "org", "acme", "acme-util", "1.0", "acme-util-1.0.jar")
	writeFile(t, repoJar, "jar")
	writeFile(t, strings.TrimSuffix(repoJar, ".jar")+".pom", `<project><modelVersion>4.0.0</modelVersion><groupId>org.acme</groupId><artifactId>acme-util</artifactId><version>1.0</version></project>`)
	untrusted := trust.With(context.Background(), trust.Closed("not trusted here"))
	dep := `<dependency><groupId>org.acme</groupId><artifactId>acme-util</artifactId><version>1.0</version></dependency>`

	p := mavenProject(t, dep+`<dependency><groupId>org.gone</groupId><artifactId>gone</artifactId><version>2</version></dependency>`)
	got, err := ProjectClasspath(untrusted, p.Dir, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if n := countRuns(t, runs); n != 0 {
		t.Fatalf("mvn ran %d times without trust", n)
	}
	if !reflect.DeepEqual(got.Classpath, []string{repoJar}) || !strings.Contains(got.ClasspathFrom, "read as files") {
		t.Errorf("from files: %q from %q", got.Classpath, got.ClasspathFrom)
	}
	ns := got.ClasspathNotices()
	if len(ns) != 1 || !strings.Contains(ns[0], "did not run mvn: not trusted here") || !strings.Contains(ns[0], "org.gone:gone") ||
		!strings.Contains(ns[0], "a trusted run lets Maven resolve them") {
		t.Errorf("notices %q", ns)
	}

	// The refusal left nothing behind: a trusted run asks mvn, and its
	// answer then serves the untrusted one.
	jar := filepath.Join(t.TempDir(), "dep.jar")
	writeFile(t, jar, "x")
	t.Setenv("FAKE_CP", jar)
	t.Setenv("FAKE_MVN", "ok")
	if got, err = ProjectClasspath(context.Background(), p.Dir, cacheDir); err != nil || !reflect.DeepEqual(got.Classpath, []string{jar}) {
		t.Fatalf("trusted: %q, %v", got.Classpath, err)
	}
	if n := countRuns(t, runs); n != 1 {
		t.Errorf("%d mvn runs after the refusal, want 1", n)
	}
	if got, err = ProjectClasspath(untrusted, p.Dir, cacheDir); err != nil || !reflect.DeepEqual(got.Classpath, []string{jar}) || got.ClasspathProblem != "" {
		t.Errorf("untrusted after a trusted run: %q (problem %q), %v", got.Classpath, got.ClasspathProblem, err)
	}
	if n := countRuns(t, runs); n != 1 {
		t.Errorf("%d mvn runs, want still 1", n)
	}

	// Asked directly, the tool is refused with an error, not a cached
	// failure.
	p2 := mavenProject(t, dep)
	if err := ResolveClasspath(untrusted, p2, cacheDir); !errors.Is(err, trust.ErrUntrusted) {
		t.Errorf("ResolveClasspath without trust: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(cacheDir, "classpath")); len(entries) != 1 {
		t.Errorf("%d kept answers, want 1 (the refusal is not one)", len(entries))
	}
}
