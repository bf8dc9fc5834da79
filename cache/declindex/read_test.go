//go:build unix

package declindex_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/perfls/perfls/cache/declindex"
)

// FIFOs, devices and links to them named *.java are neither indexed nor
// read, and nothing blocks on them; a link to a regular file is read.
func TestNonRegularJavaFilesAreSkipped(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "p/A.java")
	os.MkdirAll(filepath.Dir(a), 0o755)
	if err := os.WriteFile(a, []byte("package p;\nclass A { void m() {} }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "p/F.java")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for name, target := range map[string]string{"ToFIFO.java": fifo, "Zero.java": "/dev/zero", "ToA.java": a} {
		if err := os.Symlink(target, filepath.Join(root, "p", name)); err != nil {
			t.Fatal(err)
		}
	}
	// A read blocked on the FIFO is released by a writer, and the test
	// fails instead of hanging.
	var blocked atomic.Bool
	watchdog := time.AfterFunc(time.Minute, func() {
		blocked.Store(true)
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	defer watchdog.Stop()

	files, st, err := declindex.IndexRoot(root, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f.Path))
	}
	if st.Files != 2 || strings.Join(got, " ") != "A.java ToA.java" {
		t.Errorf("indexed %v (%d files), want A.java and the link to it", got, st.Files)
	}
	for _, p := range []string{fifo, filepath.Join(root, "p/ToFIFO.java"), filepath.Join(root, "p/Zero.java"), "/dev/null"} {
		if _, err := declindex.ReadJava(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadJava(%s): %v, want a refusal", p, err)
		}
	}
	if blocked.Load() {
		t.Error("a read blocked on the FIFO")
	}
}
