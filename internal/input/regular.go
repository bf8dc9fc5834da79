package input

// Workspace files — perfls.json, a pom.xml, a classpath file, .git/HEAD, a
// Java source found by a walk — are read only when they are regular files:
// a folder perfls is opened on may name a FIFO so (opening it blocks until
// a writer comes) or a device (/dev/zero never ends). Unlike the inputs a
// command is given (Open), they are never waited for.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular says a workspace file is a FIFO, device, socket or
// directory.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading if it is a regular file (after
// symbolic links). The open itself does not block on a FIFO (O_NONBLOCK),
// and the type is checked on the opened file, so a file swapped after a
// check is caught too.
func OpenRegular(path string) (*os.File, error) {
	f, st, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	return f, nil
}

// ReadRegular reads the regular file path whole, failing with a
// *TooLargeError when it holds more than limit allows.
func ReadRegular(path string, limit Limit) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit.Max {
		return nil, &TooLargeError{Path: path, Limit: limit, Size: st.Size()}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit.Max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit.Max {
		return nil, &TooLargeError{Path: path, Limit: limit, Size: -1}
	}
	return data, nil
}

// RegularEntry is the file a directory walk's entry stands for when it is
// a regular file or a symbolic link to one; ok is false for directories,
// FIFOs, devices, sockets and links to them, which a walk must not open.
func RegularEntry(path string, d fs.DirEntry) (info fs.FileInfo, ok bool) {
	switch t := d.Type(); {
	case t.IsRegular():
		info, err := d.Info()
		return info, err == nil
	case t&fs.ModeSymlink != 0:
		info, err := os.Stat(path) // the target's type and size
		return info, err == nil && info.Mode().IsRegular()
	}
	return nil, false
}

// openNonblocking opens path for reading and tells what it opened. With
// O_NONBLOCK, open(2) of a FIFO returns at once instead of waiting for a
// writer, which nothing could interrupt; the type is that of the opened
// file, so a path swapped after a check cannot fool it.
func openNonblocking(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}
