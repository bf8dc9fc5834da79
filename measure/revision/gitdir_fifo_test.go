//go:build unix

package revision

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A FIFO named .git, or HEAD in a git directory, is not read: the editor
// reads these on hovers, and reading a FIFO waits for a writer.
func TestGitFilesThatAreFIFOsAreNotRead(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ".git"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	gitDir := filepath.Join(t.TempDir(), ".git")
	os.MkdirAll(gitDir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(gitDir, "HEAD"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The watchdog releases a read blocked on either FIFO.
	var blocked atomic.Bool
	watchdog := time.AfterFunc(time.Minute, func() {
		blocked.Store(true)
		for _, p := range []string{filepath.Join(dir, ".git"), filepath.Join(gitDir, "HEAD")} {
			if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
				f.Close()
			}
		}
	})
	if g := GitDir(dir); g != "" {
		t.Errorf("GitDir of a folder whose .git is a FIFO: %q, want none", g)
	}
	if h := ReadHead(gitDir); h != "" {
		t.Errorf("ReadHead with HEAD a FIFO: %q, want none", h)
	}
	if !watchdog.Stop() || blocked.Load() {
		t.Error("a read blocked on a FIFO")
	}
}
