package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The archive depends on the files' names, contents and executable bits
// and on -epoch only: not on the files' times, permissions otherwise, the
// order they were written in, or when it is packed.
func TestTarIsReproducible(t *testing.T) {
	pack := func(order []string, mtime time.Time, umask os.FileMode) []byte {
		root := t.TempDir()
		dir := filepath.Join(root, "perfls_1_linux_amd64")
		files := map[string]os.FileMode{"perfls": 0o755, "README.md": 0o644, "sub/b.txt": 0o600}
		for _, name := range order {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("content of "+name), files[name]&^umask); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(root, "a.tar.gz")
		if err := run([]string{"tar", "-epoch", "1767225600", "-o", out, dir}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := pack([]string{"perfls", "README.md", "sub/b.txt"}, time.Now(), 0)
	b := pack([]string{"sub/b.txt", "README.md", "perfls"}, time.Unix(1e9, 0), 0o022)
	if !bytes.Equal(a, b) {
		t.Error("two packs of the same files differ")
	}

	dir := t.TempDir()
	sumsFile := filepath.Join(dir, "SHA256SUMS")
	if err := os.WriteFile(filepath.Join(dir, "z.tar.gz"), a, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.tar.gz"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"sums", "-o", sumsFile, filepath.Join(dir, "z.tar.gz"), filepath.Join(dir, "a.tar.gz")}); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(sumsFile)
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  a.tar.gz") || !strings.HasSuffix(lines[1], "  z.tar.gz") {
		t.Errorf("SHA256SUMS:\n%s", sums)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{nil, {"zip", "-o", "x"}, {"tar", "-o", "x"}, {"tar", "-epoch", "1", "dir"}} {
		if err := run(args); err == nil {
			t.Errorf("pack %q: no error", args)
		}
	}
}
