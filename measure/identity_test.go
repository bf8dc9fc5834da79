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

// Two clones of a project in different directories (two machines, two
// users, two cache directories for perfls's library) with the same
// classpath content have the same digest (issue #22: a result measured by
// one client is reused by another); a different jar still tells them apart.
func TestClasspathDigestIgnoresLocation(t *testing.T) {
	clone := func(jarText string) string {
		t.Helper()
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "classes", "p"), 0o755)
		os.WriteFile(filepath.Join(dir, "lib.jar"), []byte(jarText), 0o644)
		os.WriteFile(filepath.Join(dir, "classes", "p", "A.class"), []byte("class A"), 0o644)
		d, err := ClasspathDigest([]string{filepath.Join(dir, "lib.jar"), filepath.Join(dir, "classes"), filepath.Join(dir, "missing.jar")})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := clone("jdom 2.0.0"), clone("jdom 2.0.0")
	if a != b {
		t.Errorf("same content in two directories: digests %s and %s", a, b)
	}
	if c := clone("jdom 2.0.1"); c == a {
		t.Error("another jar in another directory: same digest")
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
