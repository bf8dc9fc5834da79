package cache

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// corruptPage overwrites page n (1-based, 4 KiB pages) of the file with
// random bytes.
func corruptPage(t *testing.T, path string, n int) []byte {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(uint64(n), 16))
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	if _, err := f.WriteAt(junk, int64(n-1)*4096); err != nil {
		t.Fatal(err)
	}
	return junk
}

// twentyResults is an open store in dir with 20 results of 3 forks × 100
// samples.
func twentyResults(t *testing.T, dir string) *Store {
	t.Helper()
	s := open(t, dir)
	for i := 0; i < 20; i++ {
		k := baseKey
		k.Args = strings.Repeat("x", i)
		if err := s.Put(context.Background(), sampleMeasurement(k, 3, 100)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestCorruptPageOnOpenIsSetAsideAndRebuilt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _, err := OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		k := baseKey
		k.Args = strings.Repeat("x", i)
		if err := s.Put(ctx, sampleMeasurement(k, 3, 100)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	path := filepath.Join(dir, "perfls.db")
	junk := corruptPage(t, path, 2)

	s, notice, err := OpenStore(ctx, dir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	if !strings.Contains(notice, "moved to") {
		t.Fatalf("a corrupt page was not detected on open: notice %q", notice)
	}
	aside, _ := filepath.Glob(path + ".unusable-*")
	if len(aside) != 1 || !strings.Contains(notice, aside[0]) {
		t.Fatalf("set-aside files %v, notice %q", aside, notice)
	}
	if b, err := os.ReadFile(aside[0]); err != nil || string(b[4096:8192]) != string(junk) {
		t.Errorf("the corrupt file was not kept as it was: %v", err)
	}
	m := sampleMeasurement(baseKey, 1, 3)
	if err := s.Put(ctx, m); err != nil {
		t.Fatalf("the rebuilt store does not take writes: %v", err)
	}
	if got, _, err := s.Lookup(ctx, baseKey); err != nil || got == nil || got.ID != m.ID {
		t.Errorf("lookup in the rebuilt store: %v %v", got, err)
	}
}

// TestCorruptionFoundLaterIsRecovered: a store already open (a daemon, an
// editor) meets a damaged file; the failed operation sets it aside, starts
// a new store and succeeds there, and Notices says what happened.
func TestCorruptionFoundLaterIsRecovered(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := twentyResults(t, dir)
	if _, err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	// Every operation on a fresh connection, which reads the damaged page
	// from the file rather than from a connection's page cache.
	s.db.SetMaxIdleConns(0)
	path := filepath.Join(dir, "perfls.db")
	junk := corruptPage(t, path, 2)
	if _, err := s.List(ctx); err != nil {
		t.Fatalf("list after the damage: %v", err)
	}
	notices := s.Notices()
	if len(notices) != 1 || !strings.Contains(notices[0], "corrupt") || !strings.Contains(notices[0], "moved to "+path+".unusable-") {
		t.Fatalf("notices %q", notices)
	}
	aside, _ := filepath.Glob(path + ".unusable-*[0-9Z]")
	if len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}
	if b, err := os.ReadFile(aside[0]); err != nil || string(b[4096:8192]) != string(junk) {
		t.Errorf("the corrupt file was not kept as it was: %v", err)
	}
	m := sampleMeasurement(baseKey, 2, 10)
	if err := s.Put(ctx, m); err != nil {
		t.Fatalf("put in the new store: %v", err)
	}
	if got, _, err := s.Lookup(ctx, baseKey); err != nil || got == nil || got.ID != m.ID {
		t.Errorf("lookup: %v %v", got, err)
	}
	if n := s.Notices(); len(n) != 0 {
		t.Errorf("more notices: %q", n)
	}
}

// TestStoreFollowsAReplacedFile: another process set the file aside (or the
// user deleted it) while this store had it open; this store's writes go to
// the file the path names now, where everyone else reads.
func TestStoreFollowsAReplacedFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	if err := a.Put(ctx, sampleMeasurement(baseKey, 1, 3)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "perfls.db")
	if _, err := setAside(path); err != nil {
		t.Fatal(err)
	}
	m := sampleMeasurement(baseKey, 2, 5)
	if err := b.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, _, err := a.Lookup(ctx, baseKey)
	if err != nil || got == nil || got.ID != m.ID || len(got.Forks) != 2 {
		t.Errorf("the other store does not see the write in the new file: %+v %v", got, err)
	}
}

// TestClearDirClearsAnything: `perfls cache clear` works on a store, on a
// corrupt one, on a file that is no database, and on a directory in the
// database's place.
func TestClearDirClearsAnything(t *testing.T) {
	ctx := context.Background()
	for name, prepare := range map[string]func(t *testing.T, dir string){
		"store": func(t *testing.T, dir string) {
			s := open(t, dir)
			if err := s.Put(ctx, sampleMeasurement(baseKey, 1, 3)); err != nil {
				t.Fatal(err)
			}
		},
		"corrupt": func(t *testing.T, dir string) {
			s, _, _ := OpenStore(ctx, dir)
			for i := 0; i < 20; i++ {
				k := baseKey
				k.Args = strings.Repeat("x", i)
				s.Put(ctx, sampleMeasurement(k, 3, 100))
			}
			s.Close()
			corruptPage(t, filepath.Join(dir, "perfls.db"), 2)
		},
		"garbage": func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "perfls.db"), []byte("not sqlite at all"), 0o600)
		},
		"directory": func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "perfls.db", "x"), 0o700)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			prepare(t, dir)
			msg, err := ClearDir(ctx, dir)
			if err != nil {
				t.Fatalf("clear: %v", err)
			}
			if !strings.Contains(msg, "cleared "+filepath.Join(dir, "perfls.db")) {
				t.Errorf("message %q", msg)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "perfls.db.unusable-*"))
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			s := open(t, dir)
			if entries, err := s.List(ctx); err != nil || len(entries) != 0 {
				t.Errorf("after clear: %d entries, %v", len(entries), err)
			}
		})
	}
}

// TestReadOnlyStoreSaysSo: a store the user cannot write opens with a
// notice, still answers lookups, and a write fails with an error
// IsReadOnly recognises (callers report it) instead of vanishing.
func TestReadOnlyStoreSaysSo(t *testing.T) {
	if dir := os.Getenv("PERFLS_READONLY_STORE"); dir != "" {
		readOnlyChild(dir)
		return
	}
	ctx := context.Background()
	// As root, permissions do not stop writes: the check runs in a child
	// process as nobody, in a directory nobody owns, on a file it may only
	// read.
	root := os.Getuid() == 0
	base, err := os.MkdirTemp("", "perfls-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	dir := filepath.Join(base, "cache")
	s, _, err := OpenStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, sampleMeasurement(baseKey, 1, 3)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	path := filepath.Join(dir, "perfls.db")
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	var out []byte
	if root {
		os.Chmod(dir, 0o755)
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		// nobody cannot reach the test binary where go test built it.
		exe := filepath.Join(base, "cache.test")
		if b, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(exe, b, 0o755) != nil {
			t.Fatalf("copy the test binary: %v", err)
		}
		cmd := exec.Command(exe, "-test.run=^TestReadOnlyStoreSaysSo$")
		cmd.Env = append(os.Environ(), "PERFLS_READONLY_STORE="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err = cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
	} else {
		out = []byte(readOnlyReport(dir))
	}
	for _, want := range []string{"notice: the cache " + path + " is read-only", "lookup: found", "put: read-only"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func readOnlyChild(dir string) {
	fmt.Print(readOnlyReport(dir))
	os.Exit(0)
}

func readOnlyReport(dir string) string {
	ctx := context.Background()
	s, notice, err := OpenStore(ctx, dir)
	if err != nil {
		return fmt.Sprintf("open: %v\n", err)
	}
	defer s.Close()
	r := "notice: " + notice + "\n"
	if m, _, err := s.Lookup(ctx, baseKey); err == nil && m != nil {
		r += "lookup: found\n"
	} else {
		r += fmt.Sprintf("lookup: %v %v\n", m, err)
	}
	if err := s.Put(ctx, sampleMeasurement(baseKey, 1, 3)); IsReadOnly(err) {
		r += "put: read-only: " + err.Error() + "\n"
	} else {
		r += fmt.Sprintf("put: %v\n", err)
	}
	return r
}

// TestLargeStoreOpensWithoutReadingEveryPage: a file above quickCheckMax
// opens without quick_check (a team's store of gigabytes would cost every
// command seconds); Verify then finds its damage and sets the file aside,
// kept as it was, with the same message as an operation meeting it.
func TestLargeStoreOpensWithoutReadingEveryPage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := twentyResults(t, dir)
	if msg, err := s.Verify(ctx); err != nil || !strings.Contains(msg, "no damage found") {
		t.Fatalf("verify an intact store: %q %v", msg, err)
	}
	s.Close()
	path := filepath.Join(dir, "perfls.db")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	last := int(fi.Size() / 4096) // a page of the samples, which opening does not read
	junk := corruptPage(t, path, last)

	defer func(old int64) { quickCheckMax = old }(quickCheckMax)
	quickCheckMax = fi.Size() - 1
	s, notice, err := OpenStore(ctx, dir)
	if err != nil || notice != "" {
		t.Fatalf("open a large store: notice %q, %v", notice, err)
	}
	defer s.Close()
	msg, err := s.Verify(ctx)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !strings.Contains(msg, "corrupt") || !strings.Contains(msg, "moved to "+path+".unusable-") {
		t.Fatalf("verify said %q", msg)
	}
	aside, _ := filepath.Glob(path + ".unusable-*[0-9Z]")
	if len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}
	if b, err := os.ReadFile(aside[0]); err != nil || string(b[(last-1)*4096:last*4096]) != string(junk) {
		t.Errorf("the corrupt file was not kept as it was: %v", err)
	}
	if err := s.Put(ctx, sampleMeasurement(baseKey, 1, 3)); err != nil {
		t.Fatalf("the new store does not take writes: %v", err)
	}
	if msg, err := s.Verify(ctx); err != nil || !strings.Contains(msg, "no damage found") {
		t.Errorf("verify the new store: %q %v", msg, err)
	}
}
