package service

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// A result is stored with the commit its project holds: the one a request
// names (a materialised commit), never the commit of a repository around
// the cache directory that a tree materialised in it would seem to be in.
func TestCommitOfMaterialisedTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	cacheDir := t.TempDir()
	// The cache directory inside a work tree with a commit.
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=p", "-c", "user.email=p@p", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = cacheDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	l := &Local{cacheDir: cacheDir}
	tree := filepath.Join(cacheDir, "revisions", "0123456789abcdef0123456789abcdef01234567", "sub")
	if c, dirty := l.commitOf(ctx, Params{Project: tree}); c != "" || dirty {
		t.Errorf("a materialised tree without its commit: %q %v, want none", c, dirty)
	}
	named := "0123456789abcdef0123456789abcdef01234567"
	if c, dirty := l.commitOf(ctx, Params{Project: tree, Commit: named}); c != named || dirty {
		t.Errorf("the commit named: %q %v", c, dirty)
	}
	if c, _ := l.commitOf(ctx, Params{Project: cacheDir}); len(c) != 40 {
		t.Errorf("a work tree's HEAD: %q", c)
	}
}
