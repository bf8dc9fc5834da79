package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/internal/fixture"
)

// A Maven project with one dependency, used by the measured method, and no
// perfls.json: check reads the classpath from real mvn (Debian's plugin
// repository as a file:// mirror, the library in a local repository of the
// test's own) and gives a verdict from forked JVMs. The second check takes
// the classpath from the cache: a failing mvn first on PATH is not run.
func TestCheckMavenProjectWithoutConfig(t *testing.T) {
	m := fixture.NewMaven(t)
	cache := fixture.Isolate(t)
	dir := fixture.Project(t, map[string]string{
		"pom.xml": fixture.POM("sums", m.Dependency),
		"src/main/java/demo/Sums.java": `package demo;

import dev.perfls.SPL;
import java.util.Arrays;
import java.util.Collections;
import org.acme.util.Sum;

public final class Sums {
    private Sums() {}

    // Summing once is cheaper than sorting a copy first.
    @SPL("for n in {1000} SELF[ints](n) <= sortThenSum[ints](n)")
    public static long sum(int[] a) {
        return Sum.of(a);
    }

    public static long sortThenSum(int[] a) {
        int[] c = a.clone();
        Arrays.sort(c);
        return Sum.of(c);
    }

    public static Iterable<Object[]> ints(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = (i * 7919) % 1000;
        }
        return Collections.singletonList(new Object[] {a});
    }
}
`,
	})
	m.Configure(t, dir)
	args := []string{"check", "--format", "json", "--forks", "2", "--samples", "5", "--warmup", "20ms", dir}
	start := time.Now()
	code, out, errs := runCLI(t, args...)
	first := time.Since(start)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	outcome := func(out string) verdict.Outcome {
		t.Helper()
		var doc report.CheckDocument
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("json output: %v\n%s", err, out)
		}
		methods := doc.Methods
		if len(methods) != 1 || len(methods[0].Instances) != 1 {
			t.Fatalf("want one method with one instance: %s", out)
		}
		in := methods[0].Instances[0]
		if in.Failed {
			t.Fatalf("instance failed: %+v", in)
		}
		return in.Outcome
	}
	got := outcome(out)
	if got != verdict.Satisfied {
		t.Errorf("outcome %s, want satisfied (a sum against a sort and a sum)", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "perfls.json")); err == nil {
		t.Error("check wrote a perfls.json")
	}
	results, _ := filepath.Glob(filepath.Join(cache, "classpath", "*", "result.json"))
	if len(results) != 1 {
		t.Fatalf("%d cached classpaths, want 1", len(results))
	}
	b, _ := os.ReadFile(results[0])
	if !strings.Contains(string(b), m.Jar) {
		t.Errorf("cached classpath %s does not hold %s", b, m.Jar)
	}
	t.Logf("first check (mvn, javac, forks) in %s: %s", first.Round(time.Millisecond), got)

	// Again, with an mvn that fails and leaves a mark: the classpath comes
	// from the cache, the verdict from the measurement cache.
	bin := t.TempDir()
	mark := filepath.Join(bin, "ran")
	fixture.WriteFiles(t, bin, map[string]string{"mvn": "#!/bin/sh\ntouch " + mark + "\nexit 3\n"})
	if err := os.Chmod(filepath.Join(bin, "mvn"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	start = time.Now()
	code, out, errs = runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("second check: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the second check ran mvn")
	}
	if got := outcome(out); got != verdict.Satisfied {
		t.Errorf("second check: %s", got)
	}
	t.Logf("second check (cached classpath and measurements) in %s", time.Since(start).Round(time.Millisecond))
}
