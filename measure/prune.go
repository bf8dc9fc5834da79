package measure

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The cache directory holds, besides the measurement database, compiled
// code: harness classes (harness/<key>), perfls's library (javalib/<hash>)
// projects compiled without a build tool (build/<hash>) and build tools'
// classpaths (classpath/<hash>), sources extracted from jars
// (sources/<jar>-<hash>). Each entry
// has a marker file whose modification time says when it was last used
// (touched on every use), as do git revisions' source trees
// (revisions/<commit>); PruneFiles removes the entries not used for a
// while, the temporary directories of killed processes, and old JVM crash
// logs.

// markers are, per kind of entry, the file whose time is its last use.
// revisions/<commit> are trees materialised by package revision.
// sources/<jar>-<hash> are sources extracted for go-to-definition
// (analysis/workspace/classpath.ExtractSource).
var markers = map[string]string{"harness": ".complete", "javalib": ".complete", "build": "stamp", "revisions": ".complete", "classpath": "result.json",
	"sources": ".used"}

// touch records a use of the cache entry whose marker is path. Failing to
// record it only makes the entry look older.
func touch(path string) {
	now := time.Now()
	_ = os.Chtimes(path, now, now)
}

// tmpMaxAge is the age from which a temporary directory is left over by a
// killed process rather than being written right now.
const tmpMaxAge = time.Hour

// Pruned is what PruneFiles removed.
type Pruned struct {
	Entries int   // compiled harnesses, libraries and projects
	Temp    int   // temporary directories and crash logs
	Bytes   int64 // their size on disk
}

// PruneFiles removes from the cache directory root the compiled code not
// used for maxAge, the temporary directories older than an hour and the
// crash logs older than maxAge. An entry is renamed aside before it is
// deleted, and kept when it was used meanwhile; a measurement starting at
// that very moment with an entry unused for maxAge can still fail, and
// succeeds when run again.
func PruneFiles(root string, maxAge time.Duration) (Pruned, error) {
	var p Pruned
	cutoff := time.Now().Add(-maxAge)
	tmpCutoff := time.Now().Add(-tmpMaxAge)
	for kind, marker := range markers {
		dir := filepath.Join(root, kind)
		entries, err := os.ReadDir(dir)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return p, fmt.Errorf("prune %s: %w", dir, err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if isTemp(e.Name()) {
				if olderThan(path, tmpCutoff) {
					p.add(removeAside(path, "", tmpCutoff), &p.Temp)
				}
				continue
			}
			p.pruneEntry(path, marker, cutoff)
			if kind == "build" { // compilations in progress live inside
				p.pruneTemps(path, tmpCutoff)
			}
		}
	}
	crash := filepath.Join(root, "crash")
	if entries, err := os.ReadDir(crash); err == nil {
		for _, e := range entries {
			path := filepath.Join(crash, e.Name())
			if olderThan(path, cutoff) {
				p.add(removeAside(path, "", cutoff), &p.Temp)
			}
		}
	}
	return p, nil
}

func (p *Pruned) pruneEntry(path, marker string, cutoff time.Time) {
	m := filepath.Join(path, marker)
	if _, err := os.Stat(m); err != nil {
		// No marker: an entry from an older perfls (harness/<hash>/classes
		// held the marker) or one never completed; its own time decides.
		if old := filepath.Join(path, "classes", marker); fileExists(old) {
			m = old
		} else {
			m = path
		}
	}
	if olderThan(m, cutoff) {
		if m == path {
			m = ""
		}
		p.add(removeAside(path, m, cutoff), &p.Entries)
	}
}

func (p *Pruned) pruneTemps(dir string, cutoff time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && isTemp(e.Name()) {
			path := filepath.Join(dir, e.Name())
			if olderThan(path, cutoff) {
				p.add(removeAside(path, "", cutoff), &p.Temp)
			}
		}
	}
}

func (p *Pruned) add(bytes int64, count *int) {
	if bytes >= 0 {
		*count++
		p.Bytes += bytes
	}
}

func isTemp(name string) bool {
	return strings.HasPrefix(name, "tmp-") || strings.Contains(name, ".tmp-")
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

func olderThan(path string, t time.Time) bool {
	st, err := os.Stat(path)
	return err == nil && st.ModTime().Before(t)
}

// removeAside renames path aside and deletes it, returning its size, or -1
// when it was not removed. When marker is set and was touched after the
// rename's check (the entry was used meanwhile), the entry is put back.
func removeAside(path, marker string, cutoff time.Time) int64 {
	aside := filepath.Join(filepath.Dir(path), ".prune-"+filepath.Base(path)+"-"+strconv.Itoa(os.Getpid()))
	if err := os.Rename(path, aside); err != nil {
		return -1
	}
	if marker != "" {
		moved := filepath.Join(aside, strings.TrimPrefix(marker, path+string(filepath.Separator)))
		if !olderThan(moved, cutoff) && fileExists(moved) {
			if os.Rename(aside, path) == nil {
				return -1
			}
		}
	}
	size := sizeOf(aside)
	if err := os.RemoveAll(aside); err != nil {
		return -1
	}
	return size
}

func sizeOf(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
