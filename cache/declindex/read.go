package declindex

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadJava reads the Java file at path: a regular file, or a symbolic link
// to one, of at most MaxFileSize bytes. Anything else is refused without
// being opened for long: opening a FIFO for reading waits for a writer
// (forever, for a FIFO named X.java in a project), and opening a device
// can do what the device does. The type is checked before the open, and
// again on the opened file (non-blocking), in case the path was replaced
// in between.
func ReadJava(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := readable(path, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := readable(path, st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("read %s: larger than %d MB: skipped", path, MaxFileSize>>20)
	}
	return data, nil
}

// readable refuses what ReadJava does not read.
func readable(path string, st fs.FileInfo) error {
	switch {
	case !st.Mode().IsRegular():
		return fmt.Errorf("read %s: not a regular file (%v): skipped", path, st.Mode().Type())
	case st.Size() > MaxFileSize:
		return fmt.Errorf("read %s: %d bytes, larger than %d MB: skipped", path, st.Size(), MaxFileSize>>20)
	}
	return nil
}

// regularEntry is the file a walk's entry stands for when it is a regular
// file or a symbolic link to one; ok is false for directories, FIFOs,
// devices, sockets and links to them (never opened).
func regularEntry(path string, d fs.DirEntry) (info fs.FileInfo, ok bool) {
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
