// Package diskfull explains a write that failed because the disk holding
// perfls's cache directory is full: the error names the directory, the
// space left and what to do, instead of "disk I/O error (4874)" or "no
// space left on device" from deep inside a build.
package diskfull

import (
	"errors"
	"fmt"
	"syscall"
)

// Error is a write that failed because the file system holding Dir, the
// cache directory, has no space left.
type Error struct {
	Dir  string
	Free int64 // bytes this process may still write there; -1 when unknown
	Err  error // the write's own error
}

func (e *Error) Error() string {
	free := "free space unknown"
	if e.Free >= 0 {
		free = size(e.Free) + " free"
	}
	return fmt.Sprintf("the disk holding the cache directory %s is full (%s): free space there, or set PERFLS_CACHE_DIR to a directory on another disk (%v)", e.Dir, free, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Explain returns err as an *Error when its chain says the file system is
// out of space (ENOSPC, or EDQUOT: the user's quota), else err unchanged.
// dir is the cache directory the write went to.
func Explain(dir string, err error) error {
	return explain(dir, err, errors.Is(err, syscall.ENOSPC) || errors.Is(err, quotaErr))
}

// ExplainStorage explains an error of a storage engine that hides the
// system's error (SQLite's result codes): full says the engine reported a
// full disk (SQLITE_FULL); otherwise an I/O error (SQLITE_IOERR_*: a write,
// a sync, growing the shared-memory file) is taken for a full disk when the
// file system has less than Nearly bytes left.
func ExplainStorage(dir string, err error, full bool) error {
	if !full && err != nil {
		free := Free(dir)
		full = free >= 0 && free < Nearly
	}
	return explain(dir, err, full)
}

// Nearly is the free space below which an unexplained I/O error is taken
// for a full disk: SQLite grows its files by pages and 32 KiB blocks.
const Nearly = 4 << 20

func explain(dir string, err error, full bool) error {
	var already *Error
	if err == nil || !full || errors.As(err, &already) {
		return err
	}
	return &Error{Dir: dir, Free: Free(dir), Err: err}
}

// size renders bytes for a person: "0 B", "12 KiB", "3.4 MiB".
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), 0
	for f >= unit && i < 4 {
		f /= unit
		i++
	}
	s := fmt.Sprintf("%.1f", f)
	if f >= 10 {
		s = fmt.Sprintf("%.0f", f)
	}
	return s + " " + []string{"", "KiB", "MiB", "GiB", "TiB"}[i]
}
