// Package input is the one door through which perfls's commands read the
// files they are given: a model, recorded results, CSV runs, .spl files. Every
// read has a size cap (a Limit, all stated in limits.go) and stops when its
// context is cancelled, whatever the file is: a regular file, a FIFO with no
// writer or with one that never writes, a device such as /dev/zero, or
// standard input named as /dev/stdin. Opening never blocks: a FIFO is opened
// without waiting for its writer (O_NONBLOCK) and the wait happens in Read,
// where the context is watched.
package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// File is an opened input. Its reads return ctx's error once ctx is done
// (a read waiting for data is woken) and a *TooLargeError past the
// limit's bytes.
type File struct {
	f     *os.File
	path  string
	limit Limit
	ctx   context.Context
	stop  func() bool // ends the wake-up on cancellation
	size  int64       // a regular file's size; -1 for anything else
	fifo  bool
	n     int64 // bytes read
	data  bool  // a byte was read: a FIFO's end of input is then real
}

// Open opens the file at path for reading under limit. A regular file
// larger than the limit is refused here, before anything is read.
func Open(ctx context.Context, path string, limit Limit) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, st, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	in := &File{f: f, path: path, limit: limit, ctx: ctx, size: -1, fifo: st.Mode()&fs.ModeNamedPipe != 0}
	switch {
	case st.IsDir():
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	case st.Mode().IsRegular():
		in.size = st.Size()
		if in.size > limit.Max {
			f.Close()
			return nil, &TooLargeError{Path: path, Limit: limit, Size: in.size}
		}
	}
	// A read waiting for data (a FIFO, a terminal: files in Go's poller)
	// returns when its deadline passes: cancellation sets it to now.
	in.stop = context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	return in, nil
}

// Size is a regular file's size when it was opened; -1 for anything else.
func (in *File) Size() int64 { return in.size }

// Read reads as os.File does, but stops with ctx's error when ctx is done
// and with a *TooLargeError when the file holds more than the limit.
func (in *File) Read(p []byte) (int, error) {
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	// Read at most one byte past the limit: that byte says it is exceeded.
	room := in.limit.Max - in.n
	switch {
	case room < 0:
		return 0, &TooLargeError{Path: in.path, Limit: in.limit, Size: -1}
	case len(p) == 0:
		return 0, nil
	case room < int64(len(p)):
		p = p[:room+1]
	}
	for {
		n, err := in.f.Read(p)
		if n > 0 {
			in.data = true
		}
		in.n += int64(n)
		if in.n > in.limit.Max {
			return n - int(in.n-in.limit.Max), &TooLargeError{Path: in.path, Limit: in.limit, Size: -1}
		}
		if err != nil && in.ctx.Err() != nil {
			return n, in.ctx.Err()
		}
		if n == 0 && in.fifo && errors.Is(err, syscall.EAGAIN) {
			// A FIFO Go does not poll (macOS): its O_NONBLOCK read says
			// "no data yet"; wait for some here.
			if _, err := waitWriter(in.ctx, in.f); err != nil {
				return 0, err
			}
			continue
		}
		if n > 0 || err != io.EOF || !in.fifo || in.data {
			return n, err
		}
		// End of input from a FIFO before any byte: its writer has not come
		// yet, or came and left without writing. Wait for either.
		hungUp, err := waitWriter(in.ctx, in.f)
		switch {
		case err != nil:
			return 0, err
		case hungUp:
			return 0, io.EOF
		}
	}
}

// Close closes the file.
func (in *File) Close() error {
	in.stop()
	return in.f.Close()
}

// ReadFile reads the whole file at path under limit (Open).
func ReadFile(ctx context.Context, path string, limit Limit) ([]byte, error) {
	in, err := Open(ctx, path, limit)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return readAll(in)
}

// CheckRegular says why the file at path is not a regular file perfls can
// read at random (a zip), without opening it; nil when it is one.
func CheckRegular(path string) error {
	st, err := os.Stat(path)
	if err == nil && !st.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", kind(st.Mode()))}
	}
	return err
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

func readAll(in *File) ([]byte, error) {
	// Chunks, kept rather than regrown, joined at the end: a file past the
	// limit (/dev/zero) costs the limit, not the garbage of doublings. A
	// regular file is one chunk of its size (+1 to see it has not grown).
	size := int64(64 << 10)
	if in.size >= 0 {
		size = in.size + 1
	}
	var chunks [][]byte
	for {
		c := make([]byte, min(size, in.limit.Max+1))
		n, err := io.ReadFull(in, c)
		chunks = append(chunks, c[:n])
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			if len(chunks) == 1 {
				return chunks[0], nil
			}
			return bytes.Join(chunks, nil), nil
		case err != nil:
			return nil, err
		}
		size = min(2*size, 16<<20)
	}
}
