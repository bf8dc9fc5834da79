package revision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// remoteRepo is a bare repository (a file:// URL, so that --depth works)
// whose main has 40 commits and whose branch side leaves main's commit 35
// with 3 of its own (v1 tags main's commit 1); it returns the URL and
// main's and side's commits, oldest first.
func remoteRepo(t *testing.T) (url string, main, side []string) {
	t.Helper()
	var commits []map[string]string
	for i := range 40 {
		commits = append(commits, map[string]string{"sub/A.java": fmt.Sprintf("class A { int v = %d; }", i)})
	}
	dir, main := fixture.GitProject(t, commits...)
	fixture.Git(t, dir, "checkout", "-q", "-b", "side", main[35])
	for i := range 3 {
		fixture.WriteFiles(t, dir, map[string]string{"sub/B.java": fmt.Sprintf("class B { int v = %d; }", i)})
		fixture.Git(t, dir, "add", "-A")
		fixture.Git(t, dir, "commit", "-q", "-m", fmt.Sprint("side ", i))
		side = append(side, fixture.Git(t, dir, "rev-parse", "HEAD"))
	}
	fixture.Git(t, dir, "tag", "v1", main[1])
	fixture.Git(t, dir, "checkout", "-q", "main") // the remote's default branch
	return fixture.GitBare(t, dir), main, side
}

// A CI checkout (git clone --depth 1 --branch side --single-branch): the
// default base, an older commit and bisect's line each stop with the
// cause and the git command that fixes it; allowed to fetch, each fetches
// only what it needs and leaves HEAD, branches, index and work tree alone.
func TestShallowSingleBranchClone(t *testing.T) {
	ctx := context.Background()
	url, main, side := remoteRepo(t)
	clone := func() (*Repo, string, *[]string) {
		dir := filepath.Join(t.TempDir(), "c")
		fixture.Git(t, filepath.Dir(dir), "clone", "-q", "--depth", "1", "--branch", "side", "--single-branch", url, dir)
		fixture.WriteFiles(t, dir, map[string]string{"sub/new.txt": "an untracked file"})
		r, err := Open(ctx, filepath.Join(dir, "sub"))
		if err != nil {
			t.Fatal(err)
		}
		return r, dir, &[]string{}
	}
	r, dir, _ := clone()
	before := fixture.GitCheckout(t, dir)
	if !r.Shallow(ctx) {
		t.Fatal("a --depth 1 clone is not shallow")
	}
	var he *HistoryError
	_, err := r.DefaultBase(ctx)
	if !errors.As(err, &he) || !he.Fetchable || !strings.Contains(err.Error(), "no default branch") ||
		!strings.Contains(err.Error(), "git fetch --unshallow && git fetch origin main:refs/remotes/origin/main") {
		t.Errorf("DefaultBase: %v", err)
	}
	for name, want := range map[string][]string{
		"HEAD~3": {"shallow clone", "git fetch --unshallow", "git fetch --deepen=N"},
		"main":   {"fetches only side from origin", "git fetch origin main:refs/remotes/origin/main", "git fetch origin tag main"},
	} {
		_, err := r.Need(ctx, name)
		for _, w := range want {
			if !IsHistory(err) || !strings.Contains(err.Error(), w) {
				t.Errorf("Need(%s): %v; want %q", name, err, w)
			}
		}
	}
	if _, err := r.Need(ctx, "HEAD"); err != nil {
		t.Errorf("Need(HEAD): %v", err)
	}
	// The line from side's first commit to its last has its parents cut.
	fixture.Git(t, dir, "fetch", "-q", "--deepen=1")
	if _, err := r.FirstParents(ctx, main[35], side[2]); !IsHistory(err) || !strings.Contains(err.Error(), "git fetch --unshallow") {
		t.Errorf("FirstParents across the boundary: %v", err)
	}
	if fixture.GitCheckout(t, dir) != before {
		t.Errorf("without fetching, the checkout changed:\n%s\n%s", before, fixture.GitCheckout(t, dir))
	}

	// Allowed to fetch: the default branch, then history until the
	// merge base is in; the clone stays shallow below it.
	r, dir, said := clone()
	before = fixture.GitCheckout(t, dir)
	r.Fetch = func(cmd string) { *said = append(*said, cmd) }
	b, err := r.DefaultBase(ctx)
	if err != nil || b.Commit != main[35] || b.Ref != "refs/remotes/origin/main" {
		t.Fatalf("DefaultBase with fetching: %+v, %v; want %s", b, err, main[35])
	}
	if !strings.Contains(strings.Join(*said, "\n"), "--depth=1 origin +refs/heads/main:refs/remotes/origin/main") || !strings.Contains(strings.Join(*said, "\n"), "--deepen=") {
		t.Errorf("fetches: %q", *said)
	}
	if !r.Shallow(ctx) {
		t.Error("the whole history was fetched; the merge base needed less")
	}
	if got, err := r.Need(ctx, "HEAD~4"); err != nil || got != main[34] {
		t.Errorf("Need(HEAD~4) with fetching: %s, %v; want %s", got, err, main[34])
	}
	if got, err := r.Need(ctx, "v1"); err != nil || got != main[1] {
		t.Errorf("Need(v1) with fetching: %s, %v; want %s", got, err, main[1])
	}
	if got, err := r.Need(ctx, "nosuch"); !IsUnknown(err) {
		t.Errorf("Need(nosuch) with fetching: %s, %v; want an unknown revision", got, err)
	}
	line, err := r.FirstParents(ctx, main[0], side[2])
	if err != nil || len(line) != 38 || line[0] != main[1] || line[37] != side[2] {
		t.Errorf("FirstParents with fetching: %v, %v", line, err)
	}
	if fixture.GitCheckout(t, dir) != before {
		t.Errorf("fetching changed the checkout:\n%s\n%s", before, fixture.GitCheckout(t, dir))
	}
	if refs := fixture.Git(t, dir, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/side\nrefs/remotes/origin/main\nrefs/remotes/origin/side" {
		t.Errorf("refs after fetching: %q", refs)
	}
}

// A repository without a remote keeps HEAD as its default base (a work
// tree's changes against its last commit); an unrelated default branch
// is an error, not HEAD.
func TestDefaultBaseWithoutRemote(t *testing.T) {
	ctx := context.Background()
	top, commits := gitRepo(t, "class A {}")
	fixture.Git(t, top, "branch", "-m", "trunk")
	r, err := Open(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := r.DefaultBase(ctx); err != nil || b.Commit != commits[0] || b.Ref != "" {
		t.Errorf("no remote, no main: %+v, %v", b, err)
	}
	fixture.Git(t, top, "checkout", "-q", "--orphan", "main")
	fixture.Git(t, top, "commit", "-q", "-m", "unrelated")
	fixture.Git(t, top, "checkout", "-q", "trunk")
	if _, err := r.DefaultBase(ctx); !IsHistory(err) || !strings.Contains(err.Error(), "no commit in common") {
		t.Errorf("unrelated main: %v", err)
	}
}

// A commit's tree holds its submodule's files when this clone has the
// submodule's commit; one never initialised is named, with the command
// that fetches it, and its tree is kept apart from a complete one.
func TestMaterialiseSubmodule(t *testing.T) {
	ctx := context.Background()
	lib, _ := fixture.GitProject(t, map[string]string{"src/q/L.java": "package q; public class L {}"})
	super, _ := fixture.GitProject(t, map[string]string{"app/src/p/A.java": "package p; class A { q.L l; }"})
	fixture.Git(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "app/lib")
	fixture.Git(t, super, "commit", "-q", "-m", "lib")
	commit := fixture.Git(t, super, "rev-parse", "HEAD")
	r, err := Open(ctx, filepath.Join(super, "app"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	dir, err := r.Materialise(ctx, cache, commit)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "lib", "src", "q", "L.java")); string(got) != "package q; public class L {}" {
		t.Errorf("the submodule's file in the tree: %q", got)
	}
	if err := r.Lacking(ctx, commit); err != nil {
		t.Errorf("Lacking with the submodule here: %v", err)
	}

	// A clone that never ran git submodule update --init.
	other := filepath.Join(t.TempDir(), "clone")
	fixture.Git(t, filepath.Dir(other), "clone", "-q", super, other)
	r, err = Open(ctx, filepath.Join(other, "app"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err = r.Materialise(ctx, cache, commit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dir, commit+"-without-") {
		t.Errorf("a tree without its submodule at %s", dir)
	}
	err = r.Lacking(ctx, commit)
	if !IsHistory(err) || !strings.Contains(err.Error(), "submodule app/lib") || !strings.Contains(err.Error(), "git submodule update --init -- app/lib") {
		t.Errorf("Lacking without the submodule: %v", err)
	}
}
