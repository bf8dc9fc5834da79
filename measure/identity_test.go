package measure

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The classpath's content is part of the cache key (issue #15, item 3): a
// jar replaced by another version, or a rebuilt class folder, changes the
// digest; the same content gives the same digest; a missing entry is not an
// error.
func TestClasspathDigestFollowsContent(t *testing.T) {
	dir := t.TempDir()
	jar, classes := filepath.Join(dir, "lib.jar"), filepath.Join(dir, "classes")
	os.MkdirAll(filepath.Join(classes, "p"), 0o755)
	write := func(path, text string, at time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, at, at)
	}
	digest := func() string {
		t.Helper()
		d, err := ClasspathDigest([]string{jar, classes, filepath.Join(dir, "missing.jar")})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	t0 := time.Now().Add(-time.Hour)
	write(jar, "jdom 2.0.0", t0)
	write(filepath.Join(classes, "p", "A.class"), "class A v1", t0)
	v1 := digest()
	if again := digest(); again != v1 {
		t.Errorf("same content, digests %s and %s", v1, again)
	}
	write(jar, "jdom HEAD!", t0.Add(time.Minute)) // same size, another version
	if v2 := digest(); v2 == v1 {
		t.Error("a replaced jar left the digest unchanged")
	}
	write(jar, "jdom 2.0.0", t0.Add(2*time.Minute))
	if back := digest(); back != v1 {
		t.Errorf("the first jar back: digest %s, want %s", back, v1)
	}
	write(filepath.Join(classes, "p", "A.class"), "class A v2", t0.Add(3*time.Minute))
	if rebuilt := digest(); rebuilt == v1 {
		t.Error("a rebuilt class folder left the digest unchanged")
	}
}

// The harness settings in the key name the warm-up rules and the sample
// length, not how many forks or samples were taken.
func TestHarnessSettingsNameHowSamplesAreTaken(t *testing.T) {
	base := HarnessSettings(Options{})
	if HarnessSettings(Options{Forks: 9, SamplesPerFork: 7}) != base {
		t.Error("forks and samples changed the harness settings")
	}
	for _, o := range []Options{{Warmup: 5 * time.Second}, {MaxWarmup: 7 * time.Second}, {MinSampleTime: 10 * time.Millisecond}, {WarmupQuiet: time.Second}} {
		if HarnessSettings(o) == base {
			t.Errorf("%+v: same harness settings as the defaults", o)
		}
	}
}

// The JVM identity holds the flags: the collector and heap the forks run
// with are part of the key.
func TestJVMIdentityHoldsTheFlags(t *testing.T) {
	requireJDK(t)
	base, err := JVMIdentity(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{JVMArgs: []string{"-XX:+UseSerialGC"}}, {HeapMB: 512}} {
		id, err := JVMIdentity(o)
		if err != nil || id == base {
			t.Errorf("%+v: identity %q (%v), the same as the default's", o, id, err)
		}
	}
}
