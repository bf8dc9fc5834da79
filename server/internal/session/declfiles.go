package session

import (
	"os"
	"sync"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/cache/declindex"
)

// declFiles caches files parsed from disk to locate declarations the index
// holds without positions (the persisted index keeps none).
type declFiles struct {
	mu    sync.Mutex
	files map[string]declFile
}

type declFile struct {
	size, mtime int64
	file        *javasrc.File
}

// parsed returns path's model from disk, reparsed only when it changed.
func (c *declFiles) parsed(path string) *javasrc.File {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[string]declFile{}
	}
	if e, ok := c.files[path]; ok && e.size == info.Size() && e.mtime == info.ModTime().UnixNano() {
		return e.file
	}
	src, err := declindex.ReadJava(path) // never opens a FIFO or device
	if err != nil {
		return nil
	}
	f, err := javasrc.Parse(path, src)
	if err != nil {
		return nil
	}
	if len(c.files) > 64 {
		clear(c.files)
	}
	c.files[path] = declFile{size: info.Size(), mtime: info.ModTime().UnixNano(), file: f}
	return f
}
