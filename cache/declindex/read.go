package declindex

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/perfls/perfls/internal/safefile"
)

// ReadJava reads the Java file at path: a regular file, or a symbolic link
// to one, of at most MaxFileSize bytes. Anything else is refused without
// blocking (a FIFO named X.java in a project would wait for a writer):
// internal/safefile.
func ReadJava(path string) ([]byte, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: skipped", err)
	}
	return data, nil
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
