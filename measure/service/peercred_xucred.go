//go:build darwin || freebsd

package service

import "golang.org/x/sys/unix"

const peerCredSupported = true

// peerCredentials reads LOCAL_PEERCRED (what getpeereid uses): the
// effective uid of the peer when the connection was made.
func peerCredentials(fd int) (peerCred, error) {
	x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return peerCred{}, err
	}
	return peerCred{uid: x.Uid}, nil
}
