package measure

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/diskfull"
	fx "github.com/perfls/perfls/internal/fixture"
)

// Compiling into a cache directory on a full disk says the disk is full,
// naming the directory — not that the project does not compile (javac's
// "error while writing A: No space left on device" is no compile error).
func TestCompileOnAFullDisk(t *testing.T) {
	requireJDK(t)
	ctx := context.Background()
	cache, fill, free := fx.TinyDisk(t, 16<<20)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src/main/java/app/A.java"), "package app;\npublic class A { public static int one() { return 1; } }\n")
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(ctx, p, cache); err != nil { // the library fits
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("package app;\npublic class Big {\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "    public static int f%d() { return %d; }\n", i, i)
	}
	b.WriteString("}\n")
	writeFile(t, filepath.Join(dir, "src/main/java/app/Big.java"), b.String())
	if p, err = FindProject(dir); err != nil {
		t.Fatal(err)
	}
	fill()
	_, err = Compile(ctx, p, cache)
	var full *diskfull.Error
	var ce *CompileError
	if !errors.As(err, &full) || full.Dir != cache || errors.As(err, &ce) || !strings.Contains(err.Error(), "No space left on device") {
		t.Fatalf("compile on a full disk: %v", err)
	}
	t.Log(err)
	free()
	if _, err := Compile(ctx, p, cache); err != nil {
		t.Errorf("after freeing space: %v", err)
	}
}
