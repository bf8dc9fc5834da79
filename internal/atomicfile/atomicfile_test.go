package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates the directory and its parents, replaces an older file and
// leaves no temporary file.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "index.html")
	for i, text := range []string{"first", "second"} {
		if err := Write(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != text {
			t.Errorf("write %d: %q", i, b)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "index.html" {
		t.Errorf("directory: %v, want only index.html", entries)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", info.Mode())
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if err := Write(filepath.Join(file, "x"), nil, 0o644); err == nil {
		t.Error("wrote below a file")
	}
}
