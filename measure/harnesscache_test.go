package measure

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

// freshHarnessBuild returns the args fixture's build with a cache directory
// of its own, so that no other test's harnesses are in it.
func freshHarnessBuild(t *testing.T) *Build {
	b := *argsBuild(t)
	b.CacheDir = t.TempDir()
	return &b
}

// harnessDirs lists the harness cache directories complete under b's cache.
func harnessDirs(t *testing.T, b *Build) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(b.CacheDir, "harness", "*", ".complete"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestHarnessCachedPerClass: each harness class is cached on its own, so a
// Measure of a subset of an earlier call's requests compiles nothing, and one
// that adds a request compiles only that request's class.
func TestHarnessCachedPerClass(t *testing.T) {
	b := freshHarnessBuild(t)
	rs := resolveAll(t, b, "a.A#loop", "a.A#plain", "a.A#id", "a.A#gen")
	reqA := measured.Request{Method: rs[0], Args: []measured.Arg{measured.StringArg("a"), measured.IntArg(1)}}
	reqB := measured.Request{Method: rs[1], Args: []measured.Arg{measured.StringArg("b"), measured.IntArg(2)}}
	c := genCases()[0]
	reqC := measured.Request{Method: rs[2], Generator: rs[3], Args: c.args}
	wants := map[string]string{
		reqA.Key(): "args: " + jstr("String", "a") + " Long=1",
		reqB.Key(): "args: " + jstr("String", "b") + " Integer=2",
		reqC.Key(): c.want,
	}
	// measure returns the javac runs and the classes given to javac.
	measure := func(what string, reqs ...measured.Request) (runs, units int64) {
		t.Helper()
		r0, u0 := harnessJavacRuns.Load(), harnessJavacUnits.Load()
		res, err := Measure(context.Background(), b, reqs, argsOptions(), nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i, r := range res {
			want := wants[reqs[i].Key()]
			if out := outputOf(t, what+" "+reqs[i].Key(), r); !strings.Contains(out, want+"\n") {
				t.Errorf("%s: %s printed %q, want the line %q", what, reqs[i].Key(), out, want)
			}
		}
		return harnessJavacRuns.Load() - r0, harnessJavacUnits.Load() - u0
	}

	if runs, units := measure("{A, B}", reqA, reqB); runs != 1 || units != 2 {
		t.Errorf("{A, B}: %d javac runs on %d classes, want 1 on 2", runs, units)
	}
	if n := len(harnessDirs(t, b)); n != 2 {
		t.Errorf("%d harness cache directories after {A, B}, want 2", n)
	}
	if runs, units := measure("{A}", reqA); runs != 0 || units != 0 {
		t.Errorf("{A} after {A, B}: %d javac runs on %d classes, want none", runs, units)
	}
	if runs, units := measure("{A, C}", reqA, reqC); runs != 1 || units != 1 {
		t.Errorf("{A, C}: %d javac runs on %d classes, want 1 on 1 (C's)", runs, units)
	}
	if n := len(harnessDirs(t, b)); n != 3 {
		t.Errorf("%d harness cache directories after {A, C}, want 3", n)
	}

	// The warm worker finds B's class too.
	r0 := harnessJavacRuns.Load()
	w := NewWorker(context.Background())
	defer w.Close()
	quick, err := w.Measure(context.Background(), b, reqB, argsOptions())
	if err != nil {
		t.Fatal(err)
	}
	if out := outputOf(t, "quick B", quick); !strings.Contains(out, wants[reqB.Key()]+"\n") {
		t.Errorf("the worker's B printed %q", out)
	}
	if n := harnessJavacRuns.Load() - r0; n != 0 {
		t.Errorf("the quick phase of B ran javac %d time(s)", n)
	}
}

// TestHarnessCacheConcurrent: preparations of the same classes at once (as
// the CLI and the daemon may) all succeed and end with one complete cache
// directory per class, which each uses once its own copy lost the race.
func TestHarnessCacheConcurrent(t *testing.T) {
	b := freshHarnessBuild(t)
	rs := resolveAll(t, b, "a.A#loop", "a.A#plain")
	reqs := []measured.Request{{Method: rs[0], Args: []measured.Arg{measured.StringArg("a"), measured.IntArg(1)}}, {Method: rs[1], Args: []measured.Arg{measured.StringArg("b"), measured.IntArg(2)}}}
	ctx := context.Background()
	j, err := findJDK(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := runtimeClasspath(ctx, j, b)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	sets := make([]*harnessSet, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sets[k], errs[k] = prepareHarnesses(ctx, j, 0, b, cp, reqs)
		}()
	}
	wg.Wait()
	for k, hs := range sets {
		if errs[k] != nil {
			t.Fatalf("preparation %d: %v", k, errs[k])
		}
		defer hs.cleanup()
	}
	for k, hs := range sets {
		for i := range reqs {
			if hs.errs[i] != nil {
				t.Fatalf("preparation %d, request %d: %v", k, i, hs.errs[i])
			}
			if hs.classes[i] != sets[0].classes[i] {
				t.Errorf("preparation %d, request %d: classes in %s, preparation 0's in %s", k, i, hs.classes[i], sets[0].classes[i])
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(hs.classes[i]), ".complete")); err != nil {
				t.Errorf("preparation %d, request %d: %s is not a complete cache directory: %v", k, i, hs.classes[i], err)
			}
			class := filepath.Join(hs.classes[i], filepath.FromSlash(strings.ReplaceAll(hs.mains[i], ".", "/"))+".class")
			if _, err := os.Stat(class); err != nil {
				t.Errorf("preparation %d, request %d: %v", k, i, err)
			}
		}
	}
	if got := len(harnessDirs(t, b)); got != len(reqs) {
		t.Errorf("%d harness cache directories, want %d", got, len(reqs))
	}
}
