package revision

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// gitRepo makes a repository with a project in sub/ and one commit per
// content of sub/A.java; it returns the repository's top and the commits.
func gitRepo(t *testing.T, contents ...string) (string, []string) {
	t.Helper()
	var commits []map[string]string
	for _, c := range contents {
		commits = append(commits, map[string]string{"sub/A.java": c})
	}
	return fixture.GitProject(t, commits...)
}

func TestRevisionResolveAndMaterialise(t *testing.T) {
	ctx := context.Background()
	top, commits := gitRepo(t, "class A { int v = 1; }", "class A { int v = 2; }", "class A { int v = 3; }")
	fixture.Git(t, top, "tag", "v1", commits[0])
	r, err := Open(ctx, filepath.Join(top, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Rel != "sub" {
		t.Errorf("Rel = %q, want sub", r.Rel)
	}
	for name, want := range map[string]string{"HEAD": commits[2], "HEAD~2": commits[0], "v1": commits[0], "main": commits[2], commits[1][:7]: commits[1]} {
		got, err := r.Resolve(ctx, name)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, bad := range []string{"nosuch", "HEAD~9", "--all", ""} {
		if _, err := r.Resolve(ctx, bad); !IsUnknown(err) {
			t.Errorf("Resolve(%q) = %v, want an unknown revision", bad, err)
		}
	}
	if _, err := Open(ctx, t.TempDir()); !IsNotRepo(err) {
		t.Errorf("Open(non-repo) = %v, want NotRepoError", err)
	}

	// The user's checkout is untouched: its file keeps the newest content.
	status := func() string { return fixture.Git(t, top, "status", "--porcelain") }
	cache := t.TempDir()
	dir, err := r.Materialise(ctx, cache, commits[0])
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "A.java")); string(got) != "class A { int v = 1; }" {
		t.Errorf("materialised A.java = %q", got)
	}
	if want := filepath.Join(cache, Dir, commits[0], "sub"); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	// Reused as is.
	os.WriteFile(filepath.Join(dir, "mark"), nil, 0o644)
	if again, err := r.Materialise(ctx, cache, commits[0]); err != nil || again != dir {
		t.Fatalf("again: %s, %v", again, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mark")); err != nil {
		t.Errorf("the tree was materialised again: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(top, "sub", "A.java")); string(got) != "class A { int v = 3; }" || status() != "" {
		t.Errorf("the checkout changed: %q, status %q", got, status())
	}
	if _, err := r.Materialise(ctx, cache, "HEAD"); err == nil {
		t.Error("Materialise took a name that is not a full hash")
	}

	fp, err := r.FirstParents(ctx, commits[0], commits[2])
	if err != nil || strings.Join(fp, " ") != commits[1]+" "+commits[2] {
		t.Errorf("FirstParents = %v, %v", fp, err)
	}
	if _, err := r.FirstParents(ctx, commits[2], commits[0]); err == nil {
		t.Error("FirstParents accepted a good commit after the bad one")
	}
}

func TestRevisionDefaultBase(t *testing.T) {
	ctx := context.Background()
	top, commits := gitRepo(t, "class A {}", "class A { }")
	git := func(args ...string) { fixture.Git(t, top, args...) }
	r, err := Open(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	// On main itself the merge base is HEAD.
	if b, err := r.DefaultBase(ctx); err != nil || b.Commit != commits[1] || b.Ref != "refs/heads/main" {
		t.Errorf("on main: %s, %v; want %s", b, err, commits[1])
	}
	// On a branch off main's first commit, with a commit of its own.
	git("checkout", "-q", "-b", "topic", commits[0])
	os.WriteFile(filepath.Join(top, "B.java"), []byte("class B {}"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "topic")
	if b, err := r.DefaultBase(ctx); err != nil || b.Commit != commits[0] {
		t.Errorf("on topic: %s, %v; want the merge base %s", b, err, commits[0])
	}
	// Without main or master: HEAD.
	git("branch", "-q", "-D", "main")
	head, _ := r.Resolve(ctx, "HEAD")
	if b, err := r.DefaultBase(ctx); err != nil || b.Commit != head || b.Ref != "" {
		t.Errorf("without main: %s, %v; want HEAD %s", b, err, head)
	}
}

// A workload only in the working tree is measured against a commit's
// classes in a tree of its own: the commit's tree stays as it was, the
// same files give the same tree, and a file the commit has is replaced in
// the derived tree only (never written through to the commit's).
func TestRevisionMaterialiseWith(t *testing.T) {
	ctx := context.Background()
	top, commits := gitRepo(t, "class A { int v = 1; }", "class A { int v = 2; }")
	r, err := Open(ctx, filepath.Join(top, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	loop := map[string][]byte{"w/Loop.java": []byte("class Loop {}")}
	dir, err := r.MaterialiseWith(ctx, cache, commits[0], loop)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(cache, Dir, commits[0], "sub")
	if dir == base || !strings.HasPrefix(dir, filepath.Join(cache, Dir, commits[0]+"-")) {
		t.Errorf("dir = %s, want a tree of its own beside %s", dir, base)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "A.java")); string(got) != "class A { int v = 1; }" {
		t.Errorf("A.java in the derived tree = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "w", "Loop.java")); string(got) != "class Loop {}" {
		t.Errorf("Loop.java = %q", got)
	}
	if _, err := os.Stat(filepath.Join(base, "w", "Loop.java")); err == nil {
		t.Error("the commit's own tree got the added file")
	}
	if again, err := r.MaterialiseWith(ctx, cache, commits[0], loop); err != nil || again != dir {
		t.Errorf("again: %s, %v; want %s", again, err, dir)
	}
	other, err := r.MaterialiseWith(ctx, cache, commits[0], map[string][]byte{"w/Loop.java": []byte("class Loop { }")})
	if err != nil || other == dir {
		t.Errorf("other content: %s, %v; want a tree other than %s", other, err, dir)
	}
	replaced, err := r.MaterialiseWith(ctx, cache, commits[0], map[string][]byte{"A.java": []byte("class A { int v = 3; }")})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(replaced, "A.java")); string(got) != "class A { int v = 3; }" {
		t.Errorf("the replaced A.java = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(base, "A.java")); string(got) != "class A { int v = 1; }" {
		t.Errorf("the commit's own A.java became %q", got)
	}
	if h, err := r.TreeHash(ctx, commits[0]); err != nil || len(h) != 40 || h != fixture.Git(t, top, "rev-parse", commits[0]+":sub") {
		t.Errorf("tree hash %q, %v", h, err)
	}
	if _, err := r.MaterialiseWith(ctx, cache, commits[0], map[string][]byte{"../x.java": nil}); err == nil {
		t.Error("a path outside the project was accepted")
	}
}
