package revision

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// ReadHead reads what git rev-parse HEAD says from the files, for a branch
// (loose, then packed), a detached HEAD, a linked worktree (whose .git is
// a file and whose branches live in the common directory) and an unborn
// branch ("").
func TestHeadWithoutGit(t *testing.T) {
	top, commits := gitRepo(t, "class A { int v = 1; }", "class A { int v = 2; }")
	sub := filepath.Join(top, "sub")
	check := func(what, dir, want string) {
		t.Helper()
		g := GitDir(dir)
		if got := ReadHead(g); got != want || (want != "" && got != fixture.Git(t, dir, "rev-parse", "HEAD")) {
			t.Errorf("%s: ReadHead(%q) = %q, want %q", what, g, got, want)
		}
		r, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if h, err := r.Head(context.Background()); (want != "" && h != want) || (want == "" && err == nil) {
			t.Errorf("%s: Repo.Head = %q, %v", what, h, err)
		}
	}
	if g := GitDir(sub); g != filepath.Join(top, ".git") {
		t.Errorf("GitDir(%s) = %q", sub, g)
	}
	check("loose branch", sub, commits[1])
	fixture.Git(t, top, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(top, ".git", "refs", "heads", "main")); err == nil {
		t.Fatal("pack-refs left the loose ref")
	}
	check("packed branch", sub, commits[1])
	fixture.Git(t, top, "checkout", "-q", "--detach", commits[0])
	check("detached", top, commits[0])
	fixture.Git(t, top, "checkout", "-q", "main")

	wt := filepath.Join(t.TempDir(), "wt")
	fixture.Git(t, top, "worktree", "add", "-q", "-b", "side", wt, commits[0])
	check("worktree", filepath.Join(wt, "sub"), commits[0])
	fixture.Git(t, wt, "commit", "-q", "--allow-empty", "-m", "side")
	check("worktree after a commit", wt, fixture.Git(t, wt, "rev-parse", "side"))
	check("main unchanged", top, commits[1])

	fixture.Git(t, top, "checkout", "-q", "--orphan", "unborn")
	check("unborn branch", top, "")
	if g := GitDir(t.TempDir()); g != "" {
		t.Errorf("outside a repository: GitDir = %q", g)
	}
	if h := ReadHead(""); h != "" {
		t.Errorf("ReadHead(\"\") = %q", h)
	}
}
