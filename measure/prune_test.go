package measure

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

// TestPruneFiles lays out a cache directory with entries last used long
// ago and recently, left-over temporary directories and crash logs, and
// checks what PruneFiles removes.
func TestPruneFiles(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-40 * 24 * time.Hour)
	recent := time.Now().Add(-2 * time.Hour)
	mk := func(rel string, at time.Time, dir bool) string {
		p := filepath.Join(root, rel)
		if dir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Harness classes: one old, one used recently (its marker touched),
	// one of the older layout (marker under classes/).
	mk("harness/aaa/classes/H.class", old, false)
	mk("harness/aaa/.complete", old, false)
	mk("harness/bbb/classes/H.class", old, false)
	mk("harness/bbb/.complete", recent, false)
	mk("harness/ccc/classes/.complete", old, false)
	mk("harness/tmp-123", old, true)
	mk("harness/tmp-456", time.Now(), true) // being written right now
	mk("javalib/lib1/.complete", old, false)
	mk("javalib/lib2/.complete", recent, false)
	mk("build/p1/stamp", old, false)
	mk("build/p2/stamp", recent, false)
	mk("build/p2/classes.tmp-9", old, true)
	mk("crash/hs_err_1.log", old, false)
	mk("crash/hs_err_2.log", recent, false)
	// Git revisions' trees (package revision).
	mk("revisions/c0ffee/src/A.java", old, false)
	mk("revisions/c0ffee/.complete", old, false)
	mk("revisions/decade/.complete", recent, false)
	mk("revisions/tmp-decade-1", old, true)
	// Sources extracted for go-to-definition.
	mk("sources/acme-1.0-sources-abc/org/acme/A.java", old, false)
	mk("sources/acme-1.0-sources-abc/.used", old, false)
	mk("sources/acme-2.0-sources-def/.used", recent, false)

	p, err := PruneFiles(root, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	gone := []string{"harness/aaa", "harness/ccc", "harness/tmp-123", "javalib/lib1", "build/p1", "build/p2/classes.tmp-9", "crash/hs_err_1.log",
		"revisions/c0ffee", "revisions/tmp-decade-1", "sources/acme-1.0-sources-abc"}
	kept := []string{"harness/bbb/classes/H.class", "harness/tmp-456", "javalib/lib2", "build/p2/stamp", "crash/hs_err_2.log", "revisions/decade/.complete", "sources/acme-2.0-sources-def/.used"}
	for _, g := range gone {
		if fileExists(filepath.Join(root, g)) {
			t.Errorf("%s was kept", g)
		}
	}
	for _, k := range kept {
		if !fileExists(filepath.Join(root, k)) {
			t.Errorf("%s was removed", k)
		}
	}
	if p.Entries != 6 || p.Temp != 4 || p.Bytes <= 0 {
		t.Errorf("pruned %+v, want 6 entries, 4 temporary items and some bytes", p)
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, "*", ".prune-*"))
	if len(leftovers) != 0 {
		t.Errorf("renamed-aside entries left: %v", leftovers)
	}
}

// TestUseTouchesMarker: a harness used again counts as recently used.
func TestUseTouchesMarker(t *testing.T) {
	m := filepath.Join(t.TempDir(), ".complete")
	if err := os.WriteFile(m, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-40 * 24 * time.Hour)
	if err := os.Chtimes(m, old, old); err != nil {
		t.Fatal(err)
	}
	touch(m)
	if olderThan(m, time.Now().Add(-time.Hour)) {
		t.Errorf("touch did not update the marker's time")
	}
}

// TestMeasureTouchesItsHarness: a Measure that reuses a compiled harness
// marks it used, so PruneFiles keeps it however old its compilation.
func TestMeasureTouchesItsHarness(t *testing.T) {
	b := freshHarnessBuild(t)
	rs := resolveAll(t, b, "a.A#plain")
	req := measured.Request{Method: rs[0], Args: []measured.Arg{measured.StringArg("b"), measured.IntArg(2)}}
	if _, err := Measure(context.Background(), b, []measured.Request{req}, argsOptions(), nil); err != nil {
		t.Fatal(err)
	}
	dirs := harnessDirs(t, b)
	if len(dirs) != 1 {
		t.Fatalf("%d harness directories, want 1", len(dirs))
	}
	old := time.Now().Add(-40 * 24 * time.Hour)
	if err := os.Chtimes(dirs[0], old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Measure(context.Background(), b, []measured.Request{req}, argsOptions(), nil); err != nil {
		t.Fatal(err)
	}
	if p, err := PruneFiles(b.CacheDir, 30*24*time.Hour); err != nil || p.Entries != 0 {
		t.Fatalf("prune after use: %+v, %v; want nothing removed", p, err)
	}
	if !fileExists(dirs[0]) {
		t.Fatalf("the harness just used was removed")
	}
}
