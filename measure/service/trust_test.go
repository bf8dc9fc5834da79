//go:build unix

package service

import (
	"bytes"
	"context"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log destination the daemon's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDaemonRefusesAnotherUser: a connection from another uid than the
// daemon's owner is closed unanswered, and the daemon logs why. (The test
// makes the daemon believe it belongs to another uid: a real second user
// needs root.)
func TestDaemonRefusesAnotherUser(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cacheDir := t.TempDir()
	var logs syncBuffer
	d, err := Listen(cacheDir, NewLocal(context.Background(), cacheDir, openStore(t, cacheDir), 1), log.New(&logs, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	d.uid = os.Geteuid() + 1
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	c := newClient(daemonFiles{socket: d.Socket(), cacheDir: d.cacheDir})
	st, err := c.Status(context.Background())
	cancel()
	<-done // the log is complete
	if err == nil {
		t.Errorf("a connection from uid %d was served by a daemon of uid %d: %+v", os.Geteuid(), d.uid, st)
	}
	if !strings.Contains(logs.String(), "refused a connection") {
		t.Errorf("daemon log %q, want the refusal", logs.String())
	}
}

// TestClientRefusesDaemonOfAnotherUser: the client checks the listening
// end too, so a socket planted by another user gets no request.
func TestClientRefusesDaemonOfAnotherUser(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cacheDir := t.TempDir()
	d := startDaemon(t, cacheDir)
	c := newClient(daemonFiles{socket: d.Socket(), cacheDir: d.cacheDir})
	c.uid = os.Geteuid() + 1
	if _, err := c.Status(context.Background()); err == nil || !strings.Contains(err.Error(), "refusing the perfls daemon") {
		t.Errorf("status from a daemon of another uid: %v, want a refusal", err)
	}
}

// TestRuntimeDirMustBeOurs: a symbolic link or a directory of another user
// is refused with a message naming it; a directory of ours open to others
// is made private.
func TestRuntimeDirMustBeOurs(t *testing.T) {
	cacheDir := t.TempDir()
	t.Run("symlink", func(t *testing.T) {
		x := t.TempDir()
		t.Setenv("XDG_RUNTIME_DIR", x)
		if err := os.Symlink(t.TempDir(), filepath.Join(x, "perfls")); err != nil {
			t.Fatal(err)
		}
		_, err := RuntimeDir(cacheDir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(x, "perfls")) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("runtime directory behind a symlink: %v", err)
		}
	})
	t.Run("another user's", func(t *testing.T) {
		dir := t.TempDir()
		err := checkPrivateDir(dir, os.Geteuid()+1)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "belongs to uid") {
			t.Errorf("directory of another uid: %v", err)
		}
		if os.Geteuid() != 0 {
			return
		}
		// As root, a directory really owned by someone else.
		x := t.TempDir()
		t.Setenv("XDG_RUNTIME_DIR", x)
		other := filepath.Join(x, "perfls")
		if err := os.Mkdir(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := RuntimeDir(cacheDir); err == nil || !strings.Contains(err.Error(), other) {
			t.Errorf("runtime directory of uid 65534: %v", err)
		}
		if _, err := Dial(context.Background(), cacheDir); err == nil {
			t.Error("dial through a runtime directory of uid 65534 succeeded")
		}
	})
	t.Run("open to others", func(t *testing.T) {
		x := t.TempDir()
		t.Setenv("XDG_RUNTIME_DIR", x)
		dir := filepath.Join(x, "perfls")
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o777) // past the umask
		if _, err := RuntimeDir(cacheDir); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
			t.Errorf("mode %v, want 0700", st.Mode().Perm())
		}
	})
	t.Run("lock is a symlink", func(t *testing.T) {
		t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
		f, err := filesFor(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(t.TempDir(), "target")
		if err := os.Symlink(target, f.lock); err != nil {
			t.Fatal(err)
		}
		if _, err := Listen(cacheDir, nil, nil); err == nil {
			t.Error("Listen followed a symbolic link for its lock")
		}
		if _, err := os.Stat(target); err == nil {
			t.Error("the link's target was created")
		}
	})
}
