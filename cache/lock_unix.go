//go:build unix

package cache

import (
	"os"
	"syscall"
)

// lockPath takes an exclusive lock on the file at path (created when
// missing), blocking until it is free; the lock ends with the returned
// function or the process.
func lockPath(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
