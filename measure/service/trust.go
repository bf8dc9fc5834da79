//go:build unix

package service

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkPrivateDir accepts dir as the home of the daemon's socket only when
// it is a real directory owned by uid; a group- or world-accessible mode is
// tightened to 0700, which its owner may do. Another user's directory is
// refused: its owner could replace the socket with one of their own.
func checkPrivateDir(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("daemon directory: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("daemon directory %s is a symbolic link: perfls keeps its socket only in a real directory of yours; "+
			"remove the link or point XDG_RUNTIME_DIR at a private directory", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("daemon directory %s is not a directory: remove it or point XDG_RUNTIME_DIR elsewhere", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("daemon directory %s: cannot read its owner", dir)
	}
	if int(st.Uid) != uid {
		return fmt.Errorf("daemon directory %s belongs to uid %d, not to you (uid %d): refusing to use it, as its owner could "+
			"impersonate the daemon; remove it (as its owner or root) or point XDG_RUNTIME_DIR at a directory only you can write", dir, st.Uid, uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("daemon directory %s is open to other users and could not be made private: %w", dir, err)
		}
	}
	return nil
}

// openPrivate opens a daemon file (lock, log) without following a symbolic
// link and only if it belongs to us, creating it with mode 0600.
func openPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		f.Close()
		return nil, fmt.Errorf("%s does not belong to you: remove it", path)
	}
	return f, nil
}

// checkPeer refuses a connection whose other end runs as another user than
// uid. Where the system cannot tell (peerCredSupported is false), the
// directory's permissions are the only guard.
func checkPeer(c net.Conn, uid int) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket connection: %T", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	var peer peerCred
	if cerr := raw.Control(func(fd uintptr) { peer, err = peerCredentials(int(fd)) }); cerr != nil {
		return fmt.Errorf("peer credentials: %w", cerr)
	}
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if int(peer.uid) != uid {
		return fmt.Errorf("the peer (%s) runs as uid %d, not as uid %d", peer, peer.uid, uid)
	}
	return nil
}

// peerCred is who is at the other end of a Unix socket.
type peerCred struct {
	uid uint32
	pid int32 // 0: unknown
}

func (p peerCred) String() string {
	if p.pid > 0 {
		return fmt.Sprintf("pid %d", p.pid)
	}
	return "pid unknown"
}
