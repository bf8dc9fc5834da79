package service

import "golang.org/x/sys/unix"

const peerCredSupported = true

// peerCredentials reads SO_PEERCRED: the credentials of the process that
// connected (or listened), recorded by the kernel at connect time.
func peerCredentials(fd int) (peerCred, error) {
	u, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return peerCred{}, err
	}
	return peerCred{uid: u.Uid, pid: u.Pid}, nil
}
