package measure

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

func TestFindProjectConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "code", "a", "A.java"), "package a; public class A {}")
	writeFile(t, filepath.Join(dir, "other", "b", "B.java"), "package b; public class B {}")
	writeFile(t, filepath.Join(dir, "lib", "x.jar"), "")
	writeFile(t, filepath.Join(dir, "lib", "y.jar"), "")
	if err := os.MkdirAll(filepath.Join(dir, "deps"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ConfigFile), `{"classpath": ["lib/*.jar", "deps"], "sourceRoots": ["code"]}`)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sources) != 1 || !strings.HasSuffix(p.Sources[0], filepath.Join("code", "a", "A.java")) {
		t.Errorf("sources %v: want only those under the configured source root", p.Sources)
	}
	if len(p.SourceRoots) != 1 || p.SourceRoots[0] != filepath.Join(dir, "code") {
		t.Errorf("source roots %v", p.SourceRoots)
	}
	want := []string{filepath.Join(dir, "lib", "x.jar"), filepath.Join(dir, "lib", "y.jar"), filepath.Join(dir, "deps")}
	if strings.Join(p.Classpath, "|") != strings.Join(want, "|") {
		t.Errorf("classpath %v, want %v", p.Classpath, want)
	}

	for _, bad := range []string{`{"classpath": [`, `{"clspath": []}`, `{"classpath": ["missing.jar"]}`, `{"sourceRoots": ["nope"]}`} {
		writeFile(t, filepath.Join(dir, ConfigFile), bad)
		if _, err := FindProject(dir); err == nil || !strings.Contains(err.Error(), ConfigFile) {
			t.Errorf("%s: err = %v, want an error naming %s", bad, err, ConfigFile)
		}
	}
}

// TestCompileUsesFreshBuildOutput: Maven's target/classes (and test-classes)
// are used as they are while newer than every source, and perfls compiles
// itself once a source is edited.
func TestCompileUsesFreshBuildOutput(t *testing.T) {
	requireJDK(t)
	ctx := context.Background()
	dir := copyTree(t, "fixture")
	j, err := findJDK(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := compileLibrary(ctx, j, sharedCache)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mainSrc, testSrc []string
	for _, s := range p.Sources {
		if strings.Contains(s, filepath.Join("src", "test")) {
			testSrc = append(testSrc, s)
		} else {
			mainSrc = append(mainSrc, s)
		}
	}
	// Sources a second old, so that the classes are certainly newer.
	old := time.Now().Add(-2 * time.Second)
	for _, s := range p.Sources {
		if err := os.Chtimes(s, old, old); err != nil {
			t.Fatal(err)
		}
	}
	classes, testClasses := filepath.Join(dir, "target", "classes"), filepath.Join(dir, "target", "test-classes")
	if err := javac(ctx, j, classes, []string{lib}, mainSrc, 0); err != nil {
		t.Fatal(err)
	}
	if err := javac(ctx, j, testClasses, []string{lib, classes}, testSrc, 0); err != nil {
		t.Fatal(err)
	}

	p, err = FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compile(ctx, p, sharedCache)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Prebuilt || b.ClassesDir != classes || len(b.ClassDirs) != 1 || b.ClassDirs[0] != testClasses {
		t.Fatalf("build %+v: want Maven's fresh output used", b)
	}
	if b.Classpath[0] != classes || b.Classpath[1] != testClasses || b.Classpath[2] != lib {
		t.Errorf("classpath %v", b.Classpath)
	}
	// The prebuilt classes measure, package-private methods included.
	rs := resolveAll(t, b, "fixture.Work#hidden", "fixture.gen.Data#ints")
	w := NewWorker(ctx)
	defer w.Close()
	res, err := w.Measure(ctx, b, measured.Request{Method: rs[0], Generator: rs[1], Args: []measured.Arg{measured.IntArg(4)}}, Options{})
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}

	// Edit a source: the output is stale, perfls compiles.
	now := time.Now().Add(time.Second)
	if err := os.Chtimes(mainSrc[0], now, now); err != nil {
		t.Fatal(err)
	}
	b, err = Compile(ctx, p, sharedCache)
	if err != nil {
		t.Fatal(err)
	}
	if b.Prebuilt || b.ClassesDir == classes {
		t.Errorf("build %+v: want perfls's own compilation after an edit", b)
	}
	// A source without a class file: stale too.
	if err := os.Chtimes(mainSrc[0], old, old); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "src", "main", "java", "fixture", "New.java"), "package fixture; class New {}")
	if err := os.Chtimes(filepath.Join(dir, "src", "main", "java", "fixture", "New.java"), old, old); err != nil {
		t.Fatal(err)
	}
	p, err = FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, fresh := freshOutputs(p); fresh {
		t.Errorf("a source without a class file counted as fresh")
	}
}

// TestWarmupReportsJITSettling: forks report how warm-up ended and at least
// the minimum warm-up.
func TestWarmupReportsJITSettling(t *testing.T) {
	_, b := fixtureBuild(t)
	rs := resolveAll(t, b, "fixture.Work#fast", "fixture.gen.Data#arrays", "fixture.Work#sumLoop")
	opt := Options{Forks: 1, SamplesPerFork: 3, Warmup: 50 * time.Millisecond, MaxWarmup: 3 * time.Second}
	res, err := Measure(context.Background(), b, []measured.Request{
		{Method: rs[0], Generator: rs[1], Args: []measured.Arg{measured.IntArg(100)}},
		{Method: rs[2], Args: []measured.Arg{measured.IntArg(100)}},
	}, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		f := r.Forks[0]
		if f.Warmup < opt.Warmup {
			t.Errorf("%s: warm-up %v shorter than the minimum %v", r.Request.Key(), f.Warmup, opt.Warmup)
		}
		// HotSpot monitors compilation time: warm-up ends settled or capped, never "unknown".
		if f.WarmupSettled != 0 && f.WarmupSettled != 1 {
			t.Errorf("%s: warm-up settled = %d, want 0 or 1 on HotSpot", r.Request.Key(), f.WarmupSettled)
		}
		if f.WarmupCompileMs < 0 {
			t.Errorf("%s: compile time %d", r.Request.Key(), f.WarmupCompileMs)
		}
	}
}
