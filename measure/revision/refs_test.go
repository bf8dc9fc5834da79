package revision

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// Knows never calls unknown a name git resolves, and calls unknown the
// plain names and relative names on a base that no ref has; Names are the
// branches and tags a formula can write.
func TestRefsKnowsWhatGitResolves(t *testing.T) {
	ctx := context.Background()
	top, commits := gitRepo(t, "class A { int v = 1; }", "class A { int v = 2; }")
	fixture.Git(t, top, "tag", "v1.0", commits[0])
	fixture.Git(t, top, "tag", "-a", "-m", "release", "v2.0", commits[1])
	fixture.Git(t, top, "branch", "feature/x", commits[0])
	fixture.Git(t, top, "branch", "side", commits[0])
	fixture.Git(t, top, "update-ref", "ORIG_HEAD", commits[0])
	describe := fixture.Git(t, top, "describe", "--tags", "--long", commits[1])
	refs, err := ListRefs(ctx, top, GitDir(top))
	if err != nil {
		t.Fatal(err)
	}
	valid := []string{"HEAD", "HEAD~1", "HEAD^", "main", "main~1", "v1.0", "v2.0", "v2.0^", "side", "heads/side", "tags/v1.0",
		"ORIG_HEAD", commits[0], commits[0][:7], "ABCD" + commits[1][4:10], describe, "v0.0-1-g" + commits[1][:7]}
	unknown := []string{"v1.O", "mian", "mian~2", "HAED", "V1.0x", "x", "v1..v2", "FETCH_HEAD", "12"}
	r, err := Open(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range valid {
		_, rerr := r.Resolve(ctx, n)
		if !refs.Knows(n) && rerr == nil {
			t.Errorf("Knows(%q) = false, but git resolves it", n)
		}
	}
	for _, n := range unknown {
		if refs.Knows(n) {
			t.Errorf("Knows(%q) = true, want unknown", n)
		}
		if _, err := r.Resolve(ctx, n); !IsUnknown(err) {
			t.Errorf("Resolve(%q) = %v: the test's unknown name is known", n, err)
		}
	}
	if got, want := refs.Names(), []string{"main", "side", "v1.0", "v2.0"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	// A root ref written later is not in the list made before.
	fixture.Git(t, top, "update-ref", "MERGE_HEAD", commits[0])
	if again, _ := ListRefs(ctx, top, GitDir(top)); !again.Knows("MERGE_HEAD") || refs.Knows("MERGE_HEAD") {
		t.Error("MERGE_HEAD: only the list made after it was written should know it")
	}
}

// RefsFromFiles lists what git for-each-ref lists (and the root refs),
// loose and packed, from a linked worktree too, without running git.
func TestRefsFromFilesAgreesWithGit(t *testing.T) {
	ctx := context.Background()
	top, commits := gitRepo(t, "class A { int v = 1; }", "class A { int v = 2; }")
	fixture.Git(t, top, "tag", "v1.0", commits[0])
	fixture.Git(t, top, "tag", "-a", "-m", "release", "v2.0", commits[1])
	fixture.Git(t, top, "branch", "feature/x", commits[0])
	fixture.Git(t, top, "update-ref", "refs/remotes/origin/main", commits[1])
	fixture.Git(t, top, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	fixture.Git(t, top, "update-ref", "ORIG_HEAD", commits[0])
	fixture.Git(t, top, "pack-refs", "--all")
	fixture.Git(t, top, "branch", "loose", commits[1]) // after packing: a loose ref beside packed ones
	wt := filepath.Join(t.TempDir(), "wt")
	fixture.Git(t, top, "worktree", "add", "-b", "in-worktree", wt, commits[0])
	for _, dir := range []string{top, wt} {
		want, err := ListRefs(ctx, dir, GitDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		got, err := RefsFromFiles(GitDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := slices.Sorted(maps.Keys(got.full)), slices.Sorted(maps.Keys(want.full)); !slices.Equal(g, w) {
			t.Errorf("%s: from the files %q, git lists %q", dir, g, w)
		}
		for _, n := range []string{"v1.O", "mian", "origin/mian"} {
			if got.Knows(n) {
				t.Errorf("%s: Knows(%q) from the files", dir, n)
			}
		}
	}
	if _, err := RefsFromFiles(""); err == nil {
		t.Error("RefsFromFiles(\"\"): no error")
	}
}

// The stamp changes when a ref is created, moved, packed or deleted, or
// HEAD moves, and not otherwise.
func TestRefsStampChangesWithTheRefs(t *testing.T) {
	top, commits := gitRepo(t, "class A { int v = 1; }", "class A { int v = 2; }")
	gd := GitDir(top)
	stamp := RefsStamp(gd)
	if stamp == "" || RefsStamp(gd) != stamp {
		t.Fatalf("stamp %q is not stable", stamp)
	}
	if RefsStamp("") != "" {
		t.Error("outside a repository the stamp is not empty")
	}
	for _, step := range [][]string{
		{"tag", "v1", commits[0]},
		{"branch", "nested/b", commits[0]},
		{"pack-refs", "--all"},
		{"branch", "-D", "nested/b"},
		{"checkout", "-q", "--detach", commits[0]},
		{"commit", "-q", "--allow-empty", "-m", "more"},
	} {
		fixture.Git(t, top, step...)
		next := RefsStamp(gd)
		if next == stamp {
			t.Errorf("git %v left the stamp as it was", step)
		}
		stamp = next
	}
	if err := os.WriteFile(filepath.Join(top, "sub", "B.java"), []byte("class B {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if RefsStamp(gd) != stamp {
		t.Error("a work tree file changed the stamp")
	}
}

func TestUnknownName(t *testing.T) {
	err := &UnknownError{Name: "v1.\"O", Msg: "no such commit, tag or branch in /r"}
	for text, want := range map[string]string{
		"revision @v1.O: " + err.Error():                           `v1."O`,
		`revision @x: unknown revision "x": no such commit`:        "x",
		"violated for n=10":                                        "",
		`unknown revision "unterminated`:                           "",
		`revision @v1.O does not compile: unknown revision symbol`: "",
	} {
		if got, ok := UnknownName(text); got != want || ok != (want != "") {
			t.Errorf("UnknownName(%q) = %q, %v; want %q", text, got, ok, want)
		}
	}
}
