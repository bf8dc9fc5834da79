package measure

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

func TestJavaFeatureFromReleaseFile(t *testing.T) {
	home := t.TempDir()
	java := filepath.Join(home, "bin", "java")
	if err := os.MkdirAll(filepath.Dir(java), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(java, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := javaFeature(java); got != 0 {
		t.Errorf("no release file: %d, want 0", got)
	}
	if err := os.WriteFile(filepath.Join(home, "release"), []byte("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"11.0.2\"\nOS_NAME=\"Linux\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := javaFeature(java); got != 11 {
		t.Errorf("JAVA_VERSION=11.0.2: %d, want 11", got)
	}
	j := &jdk{java: "/other/java", major: 17}
	if got := j.releaseFor(java); got != 11 {
		t.Errorf("releaseFor an older JVM: %d, want 11", got)
	}
	if got := (&jdk{java: "/other/java", major: 11}).releaseFor(java); got != 0 {
		t.Errorf("releaseFor the same release: %d, want 0", got)
	}
	if got := j.releaseFor(""); got != 0 {
		t.Errorf("releaseFor the default java: %d, want 0", got)
	}
}

// TestMeasureOnOlderJVM measures with a JVM older than the compiling JDK:
// the project and harness classes must be compiled for the JVM's release
// (else it refuses them with UnsupportedClassVersionError). It needs two
// JDKs: PERFLS_OLDER_JAVA names the older java, else the test looks in
// /usr/lib/jvm and skips when it finds none.
func TestMeasureOnOlderJVM(t *testing.T) {
	j, err := findJDK(context.Background())
	if err != nil {
		t.Skip(err)
	}
	older := os.Getenv("PERFLS_OLDER_JAVA")
	if older == "" {
		homes, _ := filepath.Glob("/usr/lib/jvm/*")
		for _, h := range homes {
			if v := javaFeature(filepath.Join(h, "bin", "java")); v >= 11 && v < j.major {
				older = filepath.Join(h, "bin", "java")
				break
			}
		}
	}
	if older == "" || j.releaseFor(older) == 0 {
		t.Skipf("no JVM older than javac %d found (set PERFLS_OLDER_JAVA)", j.major)
	}
	ctx := context.Background()
	p, err := FindProject(filepath.Join("testdata", "args"))
	if err != nil {
		t.Fatal(err)
	}
	opt := argsOptions()
	opt.Java = older
	if p.Release, err = ForkRelease(ctx, opt); err != nil || p.Release == 0 {
		t.Fatalf("ForkRelease: %d, %v", p.Release, err)
	}
	b, err := Compile(ctx, p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rs := resolveAll(t, b, "a.A#plain")
	res, err := Measure(ctx, b, []measured.Request{{Method: rs[0], Args: []measured.Arg{measured.StringArg("b"), measured.IntArg(2)}}}, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil {
		t.Fatalf("measure on %s (release %d): %v", older, p.Release, res[0].Err)
	}
	if out := outputOf(t, "older JVM", res[0]); !strings.Contains(out, "args:") {
		t.Errorf("output %q", out)
	}
}
