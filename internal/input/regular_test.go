package input

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(reg, []byte("<project/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadRegular(reg, Limit{Max: 100}); err != nil || string(data) != "<project/>" {
		t.Fatalf("regular file: %q, %v", data, err)
	}
	var tl *TooLargeError
	if _, err := ReadRegular(reg, Limit{Max: 5}); !errors.As(err, &tl) || tl.Limit.Max != 5 {
		t.Errorf("over the limit: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.xml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link.xml")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	// Neither blocks: a FIFO is refused once opened without waiting for
	// a writer.
	for _, p := range []string{fifo, link, dir, os.DevNull} {
		if _, err := ReadRegular(p, Limit{Max: 100}); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: got %v, want ErrNotRegular", p, err)
		}
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), Limit{Max: 100}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
