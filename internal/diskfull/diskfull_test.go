package diskfull

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// An error whose chain says the disk is full names the cache directory,
// the space left and what to do, and keeps the original error; any other
// error is left alone, and an explained one is not explained twice.
func TestExplain(t *testing.T) {
	dir := t.TempDir()
	cause := fmt.Errorf("store the compiled harness: %w", &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC})
	err := Explain(dir, cause)
	var full *Error
	if !errors.As(err, &full) || full.Dir != dir || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Explain: %v", err)
	}
	for _, want := range []string{"the disk holding the cache directory " + dir + " is full (", " free): free space there, or set PERFLS_CACHE_DIR to a directory on another disk (store the compiled harness: write x: no space left on device)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if again := Explain(dir, fmt.Errorf("outer: %w", err)); strings.Count(again.Error(), "is full") != 1 {
		t.Errorf("explained twice: %v", again)
	}
	if q := Explain(dir, syscall.EDQUOT); !errors.As(q, &full) {
		t.Errorf("over quota: %v", q)
	}
	other := errors.New("permission denied")
	if Explain(dir, other) != other || Explain(dir, nil) != nil || ExplainStorage(dir, nil, true) != nil {
		t.Error("an error that is no full disk was changed")
	}
	// The storage engine says full: believed. An I/O error on a disk with
	// room: not a full disk.
	if err := ExplainStorage(dir, other, true); !errors.As(err, &full) {
		t.Errorf("storage full: %v", err)
	}
	if Free(dir) >= Nearly && ExplainStorage(dir, other, false) != other {
		t.Error("an I/O error on a disk with room was called a full disk")
	}
	if (&Error{Dir: dir, Free: -1, Err: other}).Error() != "the disk holding the cache directory "+dir+" is full (free space unknown): free space there, or set PERFLS_CACHE_DIR to a directory on another disk (permission denied)" {
		t.Error("unknown free space")
	}
}

// On a disk full in earnest: the free space is read, an I/O error whose
// cause is hidden (SQLite's) is taken for a full disk, and a write's
// ENOSPC is explained.
func TestOnAFullDisk(t *testing.T) {
	dir, fill, free := fixture.TinyDisk(t, 256<<10)
	if f := Free(dir); f < 200<<10 {
		t.Errorf("an empty 256 KiB disk has %d bytes free", f)
	}
	fill()
	if f := Free(dir); f != 0 {
		t.Errorf("a full disk has %d bytes free", f)
	}
	ioErr := errors.New("disk I/O error (4874)")
	err := ExplainStorage(dir, ioErr, false)
	if !strings.Contains(err.Error(), "the disk holding the cache directory "+dir+" is full (0 B free)") || !errors.Is(err, ioErr) {
		t.Errorf("SQLite's I/O error on a full disk: %v", err)
	}
	werr := os.WriteFile(filepath.Join(dir, "more"), make([]byte, 8192), 0o600)
	if werr == nil {
		t.Fatal("wrote 8 KiB on a full disk")
	}
	if err := Explain(dir, werr); !strings.Contains(err.Error(), "is full (0 B free)") {
		t.Errorf("a write on a full disk: %v", err)
	}
	free()
	if f := Free(dir); f < 200<<10 {
		t.Errorf("%d bytes free after freeing the disk", f)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 12 << 10: "12 KiB", 3565158: "3.4 MiB", 5 << 40: "5.0 TiB"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
