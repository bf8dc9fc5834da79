package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/cache"
)

// TestCacheGCPrunesCompiledCode: perfls cache gc removes a harness not
// used for longer than --max-age-days and keeps a recent one.
func TestCacheGCPrunesCompiledCode(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", dir)
	for name, age := range map[string]time.Duration{"old": 10 * 24 * time.Hour, "new": time.Minute} {
		m := filepath.Join(dir, "harness", name, ".complete")
		if err := os.MkdirAll(filepath.Dir(m), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(m, at, at); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"cache", "gc", "--max-age-days", "7"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "removed 1 compiled harnesses, libraries or projects unused for 7 days") {
		t.Errorf("output %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "harness", "old")); err == nil {
		t.Errorf("the old harness was kept")
	}
	if _, err := os.Stat(filepath.Join(dir, "harness", "new")); err != nil {
		t.Errorf("the recent harness was removed: %v", err)
	}
	var bad bytes.Buffer
	if code := run(context.Background(), []string{"cache", "gc", "--max-age-days", "0"}, nil, &bad, &bad); code == 0 {
		t.Errorf("--max-age-days 0 accepted")
	}
}

// TestCacheClearOnACorruptFile: perfls cache clear used to fail with
// "database disk image is malformed" on a damaged store; it now clears
// whatever the file holds and leaves a working, empty store.
func TestCacheClearOnACorruptFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", dir)
	db := filepath.Join(dir, "perfls.db")
	if err := os.WriteFile(db, bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"cache", "clear"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "cleared "+db) {
		t.Errorf("output %q", out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"cache", "ls"}, nil, &out, &errb); code != 0 {
		t.Fatalf("the store does not work after clear: exit %d: %s%s", code, out.String(), errb.String())
	}
	if left, _ := filepath.Glob(db + ".unusable-*"); len(left) != 0 {
		t.Errorf("set-aside files left after clear: %v", left)
	}
}

// perfls cache ls lists the newest --limit measurements (100 by default)
// and says how many there are; --limit 0 lists all.
func TestCacheListLimit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", dir)
	st, _, err := cache.OpenStore(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Args: strconv.Itoa(i), Code: "c", JVM: "17", Harness: "1", Machine: "m"},
			CreatedAt: time.Unix(int64(100+i), 0), Forks: []measured.Fork{{NsPerOp: []float64{10, 11}}}}
		if err := st.Put(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	db := filepath.Join(dir, "perfls.db")
	for _, c := range []struct {
		args    []string
		rows    int
		summary string
	}{
		{[]string{"cache", "ls", "--limit", "2"}, 2, "the newest 2 of 3 measurements in " + db + " (--limit 0 lists all)"},
		{[]string{"cache", "ls", "--limit", "0"}, 3, "3 measurements in " + db},
		{[]string{"cache", "ls"}, 3, "3 measurements in " + db},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), c.args, nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s%s", c.args, code, out.String(), errb.String())
		}
		if rows := strings.Count(out.String(), "p.A#m(int)"); rows != c.rows || strings.TrimSpace(errb.String()) != c.summary {
			t.Errorf("%v: %d rows, %q; want %d and %q\n%s", c.args, rows, errb.String(), c.rows, c.summary, out.String())
		}
	}
}

// TestCacheVerify: perfls cache verify checks the whole file and says so.
func TestCacheVerify(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PERFLS_CACHE_DIR", dir)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"cache", "verify"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if want := filepath.Join(dir, "perfls.db") + ": every page checked, no damage found"; !strings.Contains(out.String(), want) {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}
