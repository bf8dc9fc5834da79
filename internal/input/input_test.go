//go:build unix

package input

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var small = Limit{Max: 100, What: "a test file", Hint: "make it smaller"}

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	return p
}

// readAsync runs ReadFile in a goroutine; the test's watchdog fails it
// when it never returns.
func readAsync(ctx context.Context, path string, l Limit) <-chan result {
	ch := make(chan result, 1)
	go func() {
		b, err := ReadFile(ctx, path, l)
		ch <- result{b, err}
	}()
	return ch
}

type result struct {
	b   []byte
	err error
}

func wait(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the read never returned")
		return result{}
	}
}

func TestReadFileRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte(strings.Repeat("x", 100)), 0o600)
	if b, err := ReadFile(context.Background(), p, small); err != nil || len(b) != 100 {
		t.Fatalf("at the limit: %d bytes, %v", len(b), err)
	}
	os.WriteFile(p, []byte(strings.Repeat("x", 101)), 0o600)
	_, err := ReadFile(context.Background(), p, small)
	var large *TooLargeError
	if !errors.As(err, &large) || large.Size != 101 {
		t.Fatalf("one byte past the limit: %v", err)
	}
	for _, want := range []string{p, "101 B", "larger than 100 B", "the most perfls reads of a test file", "make it smaller"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	// A large regular file is refused by its size, before it is read.
	huge := filepath.Join(t.TempDir(), "huge")
	f, _ := os.Create(huge)
	f.Truncate(1 << 40)
	f.Close()
	if _, err := ReadFile(context.Background(), huge, Model); !errors.As(err, &large) || !strings.Contains(err.Error(), "1 TiB, larger than 16 MiB") {
		t.Errorf("a 1 TiB sparse model file: %v", err)
	}
	if _, err := ReadFile(context.Background(), filepath.Join(t.TempDir(), "none"), small); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(context.Background(), t.TempDir(), small); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// /dev/zero ends at the limit, not when memory runs out.
func TestReadFileDevZero(t *testing.T) {
	_, err := ReadFile(context.Background(), "/dev/zero", Limit{Max: 1 << 20, What: "zeros", Hint: "no"})
	var large *TooLargeError
	if !errors.As(err, &large) || !strings.Contains(err.Error(), "/dev/zero: larger than 1 MiB") {
		t.Fatalf("/dev/zero: %v", err)
	}
}

func TestReadFileFIFO(t *testing.T) {
	t.Run("writer comes later", func(t *testing.T) {
		p := fifo(t)
		ch := readAsync(context.Background(), p, small)
		time.Sleep(50 * time.Millisecond) // let the reader wait first; either order must work
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("hello"))
		w.Close()
		if r := wait(t, ch); r.err != nil || string(r.b) != "hello" {
			t.Fatalf("read %q, %v", r.b, r.err)
		}
	})
	t.Run("writer waits first", func(t *testing.T) {
		p := fifo(t)
		done := make(chan error, 1)
		go func() { // blocks in open(2) until the reader comes
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err == nil {
				_, err = w.Write([]byte("hello"))
				w.Close()
			}
			done <- err
		}()
		time.Sleep(50 * time.Millisecond)
		r := wait(t, readAsync(context.Background(), p, small))
		if err := <-done; err != nil || r.err != nil || string(r.b) != "hello" {
			t.Fatalf("read %q, %v (writer: %v)", r.b, r.err, err)
		}
	})
	t.Run("writer writes nothing", func(t *testing.T) {
		p := fifo(t)
		ch := readAsync(context.Background(), p, small)
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if r := wait(t, ch); r.err != nil || len(r.b) != 0 {
			t.Fatalf("read %q, %v; want nothing and no error", r.b, r.err)
		}
	})
	t.Run("past the limit", func(t *testing.T) {
		p := fifo(t)
		ch := readAsync(context.Background(), p, small)
		w, _ := os.OpenFile(p, os.O_WRONLY, 0)
		defer w.Close()
		go w.Write(make([]byte, 1000)) // ends with an error when the reader closes
		var large *TooLargeError
		if r := wait(t, ch); !errors.As(r.err, &large) {
			t.Fatalf("1000 bytes through a FIFO under a limit of 100: %v", r.err)
		}
	})
	t.Run("cancelled without a writer", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		ch := readAsync(ctx, fifo(t), small)
		time.Sleep(50 * time.Millisecond)
		cancel()
		if r := wait(t, ch); !errors.Is(r.err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", r.err)
		}
	})
	t.Run("cancelled with a writer that never writes", func(t *testing.T) {
		p := fifo(t)
		ctx, cancel := context.WithCancel(context.Background())
		ch := readAsync(ctx, p, small)
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.Write([]byte("part")) // then silence
		time.Sleep(50 * time.Millisecond)
		cancel()
		if r := wait(t, ch); !errors.Is(r.err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", r.err)
		}
	})
}

// CheckRegular refuses a FIFO or a device without opening it.
func TestCheckRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "src.zip")
	os.WriteFile(p, []byte("PK"), 0o600)
	if err := CheckRegular(fifo(t)); err == nil || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("a FIFO: %v", err)
	}
	if err := CheckRegular("/dev/zero"); err == nil || !strings.Contains(err.Error(), "a character device") {
		t.Errorf("/dev/zero: %v", err)
	}
	if err := CheckRegular(p); err != nil {
		t.Errorf("a file: %v", err)
	}
}

func TestOpenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, "/dev/zero", small); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
	in, err := Open(context.Background(), "/dev/zero", small)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if n, err := io.ReadFull(in, make([]byte, 100)); n != 100 || err != nil {
		t.Errorf("the first 100 bytes: %d, %v", n, err)
	}
}
