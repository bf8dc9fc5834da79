package classpath

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/internal/atomicfile"
)

// archive is an open zip (a jar, a -sources.jar, the JDK's src.zip) with its
// table of contents.
type archive struct {
	path        string
	size, mtime int64
	zr          *zip.ReadCloser
	files       map[string]*zip.File // by entry name
}

// archives caches open archives for the life of the process, by path; an
// entry whose size or modification time changed is opened again. The
// replaced archive is not closed (another lookup may be reading it); its
// file is closed by the os.File finalizer once nothing refers to it.
var archives = struct {
	sync.Mutex
	m map[string]*archive
}{m: map[string]*archive{}}

// maxMemberSize bounds what is read from one entry: a class or source file
// larger than this is damage or an attack, not code.
const maxMemberSize = 64 << 20

func openArchive(p string) (*archive, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() { // opening a FIFO named x.jar would wait for a writer
		return nil, fmt.Errorf("open %s: not a regular file (%v)", p, st.Mode().Type())
	}
	archives.Lock()
	defer archives.Unlock()
	if a := archives.m[p]; a != nil && a.size == st.Size() && a.mtime == st.ModTime().UnixNano() {
		return a, nil
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	a := &archive{path: p, size: st.Size(), mtime: st.ModTime().UnixNano(), zr: zr, files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		a.files[f.Name] = f
	}
	archives.m[p] = a
	return a, nil
}

// read returns an entry's bytes.
func (a *archive) read(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > maxMemberSize {
		return nil, fmt.Errorf("%s in %s: %d bytes is too large", f.Name, a.path, f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("read %s in %s: %w", f.Name, a.path, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxMemberSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s in %s: %w", f.Name, a.path, err)
	}
	return b, nil
}

// ErrNoSource says that an archive has no such source entry.
var ErrNoSource = errors.New("no source")

// ReadSource returns the text of entry in the zip at archivePath (a
// -sources.jar or the JDK's src.zip).
func ReadSource(archivePath, entry string) ([]byte, error) {
	a, err := openArchive(archivePath)
	if err != nil {
		return nil, err
	}
	f := a.files[entry]
	if f == nil {
		return nil, fmt.Errorf("%s in %s: %w", entry, archivePath, ErrNoSource)
	}
	return a.read(f)
}

// ExtractSource writes entry of the zip at archivePath below
// cacheDir/sources, read-only, unless it is there already, and returns the
// file's path: the editor opens it for go-to-definition. The directory is
// named after the archive's path, size and modification time, so a new
// version of the jar gets a new copy.
func ExtractSource(cacheDir, archivePath, entry string) (string, error) {
	if cacheDir == "" {
		return "", errors.New("no cache directory to extract sources into")
	}
	clean := path.Clean(entry)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s in %s: entry leaves its directory", entry, archivePath)
	}
	a, err := openArchive(archivePath)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", a.path, a.size, a.mtime)))
	name := strings.TrimSuffix(filepath.Base(archivePath), filepath.Ext(archivePath))
	dir := filepath.Join(cacheDir, "sources", name+"-"+hex.EncodeToString(sum[:])[:12])
	dest := filepath.Join(dir, filepath.FromSlash(clean))
	defer markUsed(filepath.Join(dir, ".used"))
	if _, err := os.Stat(dest); err == nil {
		return dest, nil
	}
	f := a.files[entry]
	if f == nil {
		return "", fmt.Errorf("%s in %s: %w", entry, archivePath, ErrNoSource)
	}
	data, err := a.read(f)
	if err != nil {
		return "", err
	}
	// Read-only: an edit there would change nothing and be lost.
	if err := atomicfile.Write(dest, data, 0o444); err != nil {
		return "", fmt.Errorf("extract %s: %w", entry, err)
	}
	return dest, nil
}

// markUsed records a use of an extracted archive's directory (perfls cache
// gc removes those unused for a while); failing only makes it look older.
func markUsed(marker string) {
	now := time.Now()
	if os.Chtimes(marker, now, now) != nil {
		_ = os.WriteFile(marker, nil, 0o644)
	}
}
