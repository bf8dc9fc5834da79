// Package declindex reads the declarations of every Java file of a project
// and persists them per project root in the cache directory, so that
// reopening a project in the editor (or completing names on the command
// line) reads declarations instead of parsing every file again. Only what the
// workspace index needs is kept: packages, imports, types with their
// supertypes, and method signatures. An entry is reused while its file's size
// and modification time are unchanged.
package declindex

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/internal/atomicfile"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/measure"
)

// indexCacheVersion changes whenever the stored form changes.
const indexCacheVersion = 1

type indexCacheFile struct {
	Version int
	Root    string
	Files   map[string]indexedFile // by path
}

type indexedFile struct {
	Size    int64
	ModTime int64 // UnixNano
	Package string
	Imports []javasrc.Import
	Types   []indexedType
	Methods []indexedMethod
}

type indexedType struct {
	Name, QualifiedName, BinaryName, Kind string
	Outer                                 int // index into Types, -1 for none
	Local, Anonymous                      bool
	Supers                                []string
}

type indexedMethod struct {
	Type                            int // index into Types, -1 for none
	Name, ReturnType                string
	IsConstructor, Static, Abstract bool
	Params                          []javasrc.Param
}

func summarizeDecls(f *javasrc.File, size, mtime int64) indexedFile {
	c := indexedFile{Size: size, ModTime: mtime, Package: f.Package, Imports: f.Imports}
	idx := map[*javasrc.Type]int{}
	for i, t := range f.Types {
		idx[t] = i
	}
	at := func(t *javasrc.Type) int {
		if i, ok := idx[t]; ok {
			return i
		}
		return -1
	}
	for _, t := range f.Types {
		c.Types = append(c.Types, indexedType{Name: t.Name, QualifiedName: t.QualifiedName, BinaryName: t.BinaryName, Kind: t.Kind,
			Outer: at(t.Outer), Local: t.Local, Anonymous: t.Anonymous, Supers: t.Supers})
	}
	for _, m := range f.Methods {
		c.Methods = append(c.Methods, indexedMethod{Type: at(m.Type), Name: m.Name, ReturnType: m.ReturnType,
			IsConstructor: m.IsConstructor, Static: m.Static, Abstract: m.Abstract, Params: m.Params})
	}
	return c
}

// restore rebuilds the declarations of a summarized file. The result has
// no text, annotations or positions: it serves lookups in the index only.
func (c indexedFile) restore(path string) *javasrc.File {
	f := &javasrc.File{Path: path, Package: c.Package, Imports: c.Imports}
	types := make([]*javasrc.Type, len(c.Types))
	for i, ct := range c.Types {
		types[i] = &javasrc.Type{Name: ct.Name, QualifiedName: ct.QualifiedName, BinaryName: ct.BinaryName, Kind: ct.Kind,
			Local: ct.Local, Anonymous: ct.Anonymous, Supers: ct.Supers}
	}
	for i, ct := range c.Types {
		if ct.Outer >= 0 && ct.Outer < len(types) {
			types[i].Outer = types[ct.Outer]
		}
	}
	f.Types = types
	for _, cm := range c.Methods {
		m := &javasrc.Method{Name: cm.Name, ReturnType: cm.ReturnType, IsConstructor: cm.IsConstructor,
			Static: cm.Static, Abstract: cm.Abstract, Params: cm.Params}
		if cm.Type >= 0 && cm.Type < len(types) {
			m.Type = types[cm.Type]
		}
		f.Methods = append(f.Methods, m)
	}
	return f
}

// Path is where the index of root is kept in the cache directory cacheDir:
// one file per root; "" when cacheDir is "" (nothing is persisted).
func Path(cacheDir, root string) string {
	if cacheDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(cacheDir, "index-"+hex.EncodeToString(sum[:8])+".gob")
}

func loadIndexCache(path, root string) map[string]indexedFile {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var c indexCacheFile
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&c); err != nil || c.Version != indexCacheVersion || c.Root != root {
		return nil // unreadable or stale: rebuilt from the sources
	}
	return c.Files
}

func saveIndexCache(path string, c *indexCacheFile) error {
	if err := atomicfile.WriteWith(path, 0o644, func(w io.Writer) error { return gob.NewEncoder(w).Encode(c) }); err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	return nil
}

// Stats tells how an index was built.
type Stats struct {
	Files, Parsed, Reused int
	Elapsed               time.Duration
}

// IndexRoot returns the declarations of every Java file below root (regular
// files and links to them; directory links are not followed),
// reusing the persisted index at cache (none when "") for unchanged files
// and writing it back when anything changed. It stops early when done
// closes. progress (may be nil) sees the files parsed so far of those that
// need parsing.
func IndexRoot(root, cache string, done <-chan struct{}, progress func(parsed, total int)) ([]*javasrc.File, Stats, error) {
	start := time.Now()
	type entry struct {
		path        string
		size, mtime int64
	}
	var entries []entry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts of the tree declare nothing
		}
		if d.IsDir() {
			if p != root && measure.SkipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".java") {
			return nil
		}
		info, ok := input.RegularEntry(p, d)
		if !ok {
			return nil // a FIFO, device or socket named *.java is never opened
		}
		entries = append(entries, entry{p, info.Size(), info.ModTime().UnixNano()})
		return nil
	})
	if err != nil {
		return nil, Stats{}, fmt.Errorf("index %s: %w", root, err)
	}
	var old map[string]indexedFile
	if cache != "" {
		old = loadIndexCache(cache, root)
	}
	files := make([]*javasrc.File, 0, len(entries))
	next := &indexCacheFile{Version: indexCacheVersion, Root: root, Files: make(map[string]indexedFile, len(entries))}
	var toParse []entry
	for _, e := range entries {
		if c, ok := old[e.path]; ok && c.Size == e.size && c.ModTime == e.mtime {
			files = append(files, c.restore(e.path))
			next.Files[e.path] = c
			continue
		}
		toParse = append(toParse, e)
	}
	paths := make([]string, len(toParse))
	for i, e := range toParse {
		paths[i] = e.path
	}
	parsed := ParseFiles(paths, done, progress)
	byPath := make(map[string]entry, len(toParse))
	for _, e := range toParse {
		byPath[e.path] = e
	}
	for _, f := range parsed {
		e := byPath[f.Path]
		c := summarizeDecls(f, e.size, e.mtime)
		next.Files[f.Path] = c
		files = append(files, c.restore(f.Path)) // keeps declarations, drops the text
	}
	stats := Stats{Files: len(entries), Parsed: len(parsed), Reused: len(files) - len(parsed)}
	select {
	case <-done:
		stats.Elapsed = time.Since(start)
		return files, stats, nil // incomplete: not persisted
	default:
	}
	if cache != "" && (len(toParse) > 0 || len(old) != len(next.Files)) {
		if err := saveIndexCache(cache, next); err != nil {
			stats.Elapsed = time.Since(start)
			return files, stats, err
		}
	}
	stats.Elapsed = time.Since(start)
	return files, stats, nil
}

// ParseFiles parses Java files in parallel, one worker per CPU, in the
// order given; files that cannot be read (ReadJava: not regular files,
// too large) or parsed are left out. It stops
// early when done closes (nil: never).
//
// progress, when not nil, is called from the workers after each file with
// the number of files handled so far; it must be safe for concurrent use.
func ParseFiles(paths []string, done <-chan struct{}, progress func(parsed, total int)) []*javasrc.File {
	out := make([]*javasrc.File, len(paths))
	var handled atomic.Int64
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if src, err := ReadJava(paths[i]); err == nil {
					if f, err := javasrc.Parse(paths[i], src); err == nil {
						out[i] = f
					}
				}
				if progress != nil {
					progress(int(handled.Add(1)), len(paths))
				}
			}
		}()
	}
feed:
	for i := range paths {
		select {
		case next <- i:
		case <-done:
			break feed
		}
	}
	close(next)
	wg.Wait()
	files := out[:0]
	for _, f := range out {
		if f != nil {
			files = append(files, f)
		}
	}
	return files
}

// MaxFileSize is the largest Java file read: bigger ones are generated
// giants that declare nothing to measure.
const MaxFileSize = 4 << 20 // as input.JavaSource
