//go:build unix

package input

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// waitWriter waits until the FIFO f has data or its writer hung up (a
// writer came and left: Linux reports POLLHUP only once one connected, so
// a FIFO nobody opened yet is waited on), or until ctx is done.
func waitWriter(ctx context.Context, f *os.File) (hungUp bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	// Cancellation closes wake's write end, which ends the poll at once.
	wake, woken, err := os.Pipe()
	if err != nil {
		return false, err
	}
	defer wake.Close()
	stop := context.AfterFunc(ctx, func() { woken.Close() })
	defer func() {
		if stop() {
			woken.Close()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		var fifo int16
		var perr error
		if err := rc.Control(func(fd uintptr) {
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(wake.Fd()), Events: unix.POLLIN}}
			_, perr = unix.Poll(p, -1)
			fifo = p[0].Revents
		}); err != nil {
			return false, err
		}
		switch {
		case perr != nil && perr != unix.EINTR:
			return false, perr
		case fifo&unix.POLLIN != 0:
			return false, nil
		case fifo&(unix.POLLHUP|unix.POLLERR) != 0:
			return true, nil
		}
	}
}
