package service

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfls/perfls/cache"
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

// An item answered from the cache for a clean commit records that commit
// beside the result (seen_at), once per batch's git question; a tree with
// changes records nothing.
func TestCacheHitNotesTheCommit(t *testing.T) {
	ctx := context.Background()
	cacheDir := t.TempDir()
	store := openStore(t, cacheDir)
	m := &cache.Measurement{Key: cache.Key{Method: "p.A#m()", Code: "x"}, Commit: "1111111111111111111111111111111111111111",
		Forks: []cache.Fork{{NsPerOp: []float64{1, 2}}}}
	if err := store.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	l := &Local{cacheDir: cacheDir, store: store}
	other := "2222222222222222222222222222222222222222"
	b := &batch{p: Params{Project: filepath.Join(cacheDir, "revisions", other), Commit: other}, warn: func(s string) { t.Error(s) }}
	l.noteSeenAt(ctx, b, m.ID)
	l.noteSeenAt(ctx, b, m.ID)
	got, err := store.Get(ctx, m.ID)
	if err != nil || len(got.SeenAt) != 1 || got.SeenAt[0] != other {
		t.Errorf("seen at %q (%v), want [%s]", got.SeenAt, err, other)
	}
	dirty := &batch{warn: b.warn}
	dirty.commitOnce.Do(func() { dirty.commit, dirty.dirty = "3333333333333333333333333333333333333333", true })
	l.noteSeenAt(ctx, dirty, m.ID)
	if got, _ := store.Get(ctx, m.ID); len(got.SeenAt) != 1 {
		t.Errorf("a tree with changes recorded: %q", got.SeenAt)
	}
}
