package remote

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// MaxArchiveBytes bounds a project's source archive (compressed): a job
// carries sources and small libraries, not build outputs.
const MaxArchiveBytes = 32 << 20

// skipDirs are never packed: version control, build outputs and editor
// state; the worker builds the sources itself.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "target": true, "build": true, "out": true,
	"node_modules": true, ".gradle": true, ".idea": true, ".vscode": true}

// Pack archives the project in dir as a gzipped tar with no times, owners
// or modes beyond the executable bit, files in name order, so the same
// tree always gives the same bytes: its SHA-256 (returned) names it.
// Symbolic links are left out. An archive over MaxArchiveBytes is an error.
func Pack(dir string) (data []byte, sum string, err error) {
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && skipDirs[d.Name()] {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("pack %s: %w", dir, err)
	}
	sort.Strings(files)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, "", fmt.Errorf("pack %s: %w", dir, err)
		}
		mode := int64(0o644)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: mode, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return nil, "", err
		}
		tw.Write(b)
		if buf.Len() > MaxArchiveBytes {
			return nil, "", fmt.Errorf("pack %s: the sources exceed %d MiB compressed (at %s): a remote measurement carries sources, not build outputs", dir, MaxArchiveBytes>>20, rel)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	if buf.Len() > MaxArchiveBytes {
		return nil, "", fmt.Errorf("pack %s: the sources exceed %d MiB compressed", dir, MaxArchiveBytes>>20)
	}
	h := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), hex.EncodeToString(h[:]), nil
}

// Unpack checks that data is the archive sum names and writes its files
// under dir. Names that would leave dir are refused.
func Unpack(data []byte, sum, dir string) error {
	if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum {
		return errFingerprint
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("unpack: %w", err)
	}
	tr := tar.NewReader(zr)
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("unpack: %w", err)
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("unpack: refused entry %q", h.Name)
		}
		if total += h.Size; total > 8*MaxArchiveBytes {
			return errors.New("unpack: the sources are too large")
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, fs.FileMode(h.Mode&0o755))
		if err != nil {
			return err
		}
		_, err = io.Copy(f, io.LimitReader(tr, h.Size))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("unpack: %w", err)
		}
	}
}

// errFingerprint: the archive is not the one the job names.
var errFingerprint = errors.New("the source archive does not match the job's fingerprint")
