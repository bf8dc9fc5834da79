//go:build unix

package diskfull

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// quotaErr is the error of a write beyond the user's disk quota.
var quotaErr error = syscall.EDQUOT

// Free is the space, in bytes, this process may still write on the file
// system holding dir (root may use the blocks reserved for it), -1 when it
// cannot be read.
func Free(dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return -1
	}
	blocks := uint64(st.Bavail)
	if os.Geteuid() == 0 {
		blocks = uint64(st.Bfree)
	}
	return int64(blocks * uint64(st.Bsize))
}
