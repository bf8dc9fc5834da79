package measure

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	fx "github.com/perfls/perfls/internal/fixture"
)

// A measurement records the project's commit, dirty when the tree has
// changes, and none outside a git work tree.
func TestProjectCommit(t *testing.T) {
	ctx := context.Background()
	dir, hashes := fx.GitProject(t, map[string]string{"p/A.java": "class A {}"})
	if c, dirty := ProjectCommit(ctx, dir); c != hashes[0] || dirty {
		t.Errorf("clean tree: %q dirty=%v, want %s", c, dirty, hashes[0])
	}
	os.WriteFile(filepath.Join(dir, "p", "B.java"), []byte("class B {}"), 0o644)
	if c, dirty := ProjectCommit(ctx, filepath.Join(dir, "p")); c != hashes[0] || !dirty {
		t.Errorf("an untracked file: %q dirty=%v", c, dirty)
	}
	if c, dirty := ProjectCommit(ctx, t.TempDir()); c != "" || dirty {
		t.Errorf("no repository: %q dirty=%v", c, dirty)
	}
}

// The machine's memory and perfls's version are part of every result's
// environment.
func TestEnvironmentNamesMachineAndPerfls(t *testing.T) {
	e := environmentOf(protoState{env: map[string]string{"cores": "2"}})
	if e.Perfls == "" || e.Cores != 2 {
		t.Errorf("environment %+v", e)
	}
	if _, err := os.Stat("/proc/meminfo"); err == nil && e.MemoryMB <= 0 {
		t.Errorf("memory %d MiB on Linux", e.MemoryMB)
	}
}
