//go:build unix

package input

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// pollSlice is how long one poll for a FIFO's writer waits before the
// context is looked at again.
const pollSlice = 100 // ms

// waitWriter waits until the FIFO f, which read end of input before any
// byte, has data or its writer hung up (a writer came and left: POLLHUP is
// reported only once one connected), or until ctx is done.
func waitWriter(ctx context.Context, f *os.File) (hungUp bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		var revents int16
		var perr error
		if err := rc.Control(func(fd uintptr) {
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			_, perr = unix.Poll(p, pollSlice)
			revents = p[0].Revents
		}); err != nil {
			return false, err
		}
		switch {
		case perr != nil && perr != unix.EINTR:
			return false, perr
		case revents&unix.POLLIN != 0:
			return false, nil
		case revents&(unix.POLLHUP|unix.POLLERR) != 0:
			return true, nil
		}
	}
}
