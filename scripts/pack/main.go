// Command pack writes perfls's release archives and their checksums
// (scripts/release.sh) so that the same inputs give the same bytes on Linux
// and on macOS, which GNU tar and BSD tar do not promise with the same
// flags:
//
//	pack tar -epoch SECONDS -o OUT.tar.gz DIR   # DIR's files under DIR's name
//	pack sums -o SHA256SUMS FILE...             # "hash  name" lines, as sha256sum -c reads
//
// Entries are sorted by name, owned by 0:0 with no user or group name,
// dated SECONDS (SOURCE_DATE_EPOCH), and have mode 0755 (directories and
// executables) or 0644; the gzip header has no name and no time.
package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "pack: %v\n", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: pack tar -epoch SECONDS -o OUT.tar.gz DIR | pack sums -o SHA256SUMS FILE...")
	}
	fl := flag.NewFlagSet("pack "+args[0], flag.ContinueOnError)
	out := fl.String("o", "", "the file to write")
	epoch := fl.Int64("epoch", -1, "the time of every entry, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%s: -o is required", args[0])
	}
	switch args[0] {
	case "tar":
		if fl.NArg() != 1 || *epoch < 0 {
			return errors.New("usage: pack tar -epoch SECONDS -o OUT.tar.gz DIR")
		}
		return writeFile(*out, func(w io.Writer) error { return tarGz(w, fl.Arg(0), time.Unix(*epoch, 0).UTC()) })
	case "sums":
		return writeFile(*out, func(w io.Writer) error { return sums(w, fl.Args()) })
	}
	return fmt.Errorf("unknown command %q: want tar or sums", args[0])
}

// writeFile writes path through a temporary file, so that a failed run
// leaves no truncated archive behind.
func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pack-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tarGz writes dir as a gzipped tar whose entries are named below dir's
// base name.
func tarGz(w io.Writer, dir string, mtime time.Time) error {
	dir = filepath.Clean(dir)
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return fmt.Errorf("%s is neither a file nor a directory", p)
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	base := filepath.Dir(dir)
	for _, p := range paths {
		if err := addEntry(tw, base, p, mtime); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func addEntry(tw *tar.Writer, base, p string, mtime time.Time) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return err
	}
	// USTAR: PAX would add access and change times; these names are short
	// and the times whole seconds.
	h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Format: tar.FormatUSTAR}
	switch {
	case st.IsDir():
		h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
	case st.Mode()&0o111 != 0:
		h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o755, st.Size()
	default:
		h.Typeflag, h.Size = tar.TypeReg, st.Size()
	}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// sums writes "sha256  name" for every file, sorted by name, names without
// their directory (the checksums file lies beside the archives).
func sums(w io.Writer, files []string) error {
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	var b strings.Builder
	for _, f := range files {
		h := sha256.New()
		in, err := os.Open(f)
		if err != nil {
			return err
		}
		_, err = io.Copy(h, in)
		in.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), filepath.Base(f))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
