package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// ciRemote is a bare repository (a file:// URL, so that --depth works) as
// CI clones it: main has 5 commits, each changing p.B only; side leaves
// main's commit 3, makes p.A#work 100 times slower (side[0]), then adds
// notes (side[1]); v1 tags main's first commit; main is the default branch.
func ciRemote(t *testing.T) (url string, main, side []string) {
	t.Helper()
	var history []map[string]string
	for i := range 5 {
		history = append(history, map[string]string{"src/p/A.java": histClass("A", "1", ""), "src/p/B.java": histClass("B", "1", fmt.Sprint(" + ", i))})
	}
	dir, main := fixture.GitProject(t, history...)
	fixture.Git(t, dir, "tag", "v1", main[0])
	fixture.Git(t, dir, "checkout", "-q", "-b", "side", main[3])
	for _, files := range []map[string]string{{"src/p/A.java": histClass("A", "100", "")}, {"NOTES.md": "notes"}} {
		fixture.WriteFiles(t, dir, files)
		fixture.Git(t, dir, "add", "-A")
		fixture.Git(t, dir, "commit", "-q", "-m", "side")
		side = append(side, fixture.Git(t, dir, "rev-parse", "HEAD"))
	}
	fixture.Git(t, dir, "checkout", "-q", "main")
	return fixture.GitBare(t, dir), main, side
}

// ciClone is the checkout of a CI job: git clone --depth 1 --branch side
// --single-branch, then what more (a git command's arguments) the test
// adds.
func ciClone(t *testing.T, url string, more ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "job")
	fixture.Git(t, filepath.Dir(dir), "clone", "-q", "--depth", "1", "--branch", "side", "--single-branch", url, dir)
	if len(more) > 0 {
		fixture.Git(t, dir, more...)
	}
	return dir
}

// In a shallow single-branch clone, diff and bisect stop with exit 2,
// the cause and the git command that fixes it — never "unchanged" from
// comparing HEAD with itself — and leave the checkout alone.
func TestDiffBisectShallowCloneStops(t *testing.T) {
	fixture.Isolate(t)
	url, _, _ := ciRemote(t)
	dir := ciClone(t, url)
	// A clone that fetched tag v1 alone: both ends here, the line between cut.
	cut := ciClone(t, url, "fetch", "-q", "--depth=1", "origin", "tag", "v1")
	// A push build of the default branch: HEAD is the merge base.
	onMain := filepath.Join(t.TempDir(), "main")
	fixture.Git(t, filepath.Dir(onMain), "clone", "-q", "--depth", "1", url, onMain)
	// A local repository on trunk, no remote: the base is HEAD.
	local, _ := fixture.GitProject(t, map[string]string{"src/p/A.java": histClass("A", "1", "")})
	fixture.Git(t, local, "branch", "-m", "trunk")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"diff", dir}, []string{"no default branch", "git fetch --unshallow && git fetch origin main:refs/remotes/origin/main", "perfls diff --fetch"}},
		{[]string{"diff", "--base", "HEAD~2", dir}, []string{"shallow clone", "fix: git fetch --unshallow", "perfls diff --fetch"}},
		{[]string{"diff", "--base", "main", dir}, []string{"fetches only side from origin", "git fetch origin main:refs/remotes/origin/main"}},
		{[]string{"diff", "--base", "HEAD", dir}, []string{"HEAD's own commit", "nothing to compare"}},
		{[]string{"bisect", "v1", "HEAD", dir}, []string{`unknown revision "v1"`, "git fetch origin tag v1", "perfls bisect --fetch"}},
		{[]string{"bisect", "HEAD~1", "HEAD", "--method", "p.A#work", dir}, []string{"shallow clone", "git fetch --unshallow"}},
		{[]string{"bisect", "v1", "HEAD", cut}, []string{"shallow clone", "may be cut between them", "git fetch --unshallow", "perfls bisect --fetch"}},
		{[]string{"diff", onMain}, []string{"is in the history of origin/main", "default base, is HEAD itself", "nothing to compare", "perfls diff --base REV"}},
		{[]string{"diff", "--fetch", onMain}, []string{"nothing to compare"}},
		{[]string{"diff", local}, []string{"no default branch (main or master) and no remote", "nothing to compare"}},
	} {
		before := fixture.GitCheckout(t, tc.args[len(tc.args)-1])
		code, out, errs := runCLI(t, tc.args...)
		for _, w := range tc.want {
			if code != exitUsage || !strings.Contains(errs, w) || out != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr:\n%s\nwant 2 and %q", tc.args, code, out, errs, w)
				break
			}
		}
		if after := fixture.GitCheckout(t, tc.args[len(tc.args)-1]); after != before {
			t.Errorf("%v changed the checkout:\n%s\n%s", tc.args, before, after)
		}
	}
}

// Allowed to fetch (--fetch, or PERFLS_FETCH=1 in CI), diff fetches
// origin's default branch and just enough history to reach the merge
// base, and measures against it; bisect fetches the tag and the history
// down to it; the checkout's HEAD, branches, index and work tree are
// untouched and only remote-tracking refs are added. A subtest of
// TestDiffAndBisect: p.A's code is the same, so its measurements answer
// (what is tested here is the fetching; measuring is TestDiffAndBisect's).
func testDiffBisectShallowCloneFetches(t *testing.T) {
	url, main, side := ciRemote(t)
	dir := ciClone(t, url)
	before := fixture.GitCheckout(t, dir)
	code, out, errs := runCLI(t, append([]string{"diff", "--fetch"}, append(histFlags, dir)...)...)
	var d diffJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != exitViolated {
		t.Fatalf("diff --fetch: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	checkJSON(t, "diff", out)
	if d.Base != main[3] || d.Head != side[1] || len(d.Changes) != 1 || d.Changes[0].Method != "p.A#work(int)" || d.Changes[0].Verdict != "slower" {
		t.Errorf("diff --fetch: base %.12s (want the merge base %.12s), head %.12s, changes %+v", d.Base, main[3], d.Head, d.Changes)
	}
	if !strings.Contains(errs, "fetching what this clone lacks: git fetch") || !strings.Contains(errs, "+refs/heads/main:refs/remotes/origin/main") {
		t.Errorf("the fetches were not told:\n%s", errs)
	}
	if after := fixture.GitCheckout(t, dir); after != before {
		t.Errorf("diff --fetch changed the checkout:\n%s\n%s", before, after)
	}
	if refs := fixture.Git(t, dir, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/side\nrefs/remotes/origin/main\nrefs/remotes/origin/side" {
		t.Errorf("refs after diff --fetch: %q", refs)
	}

	// bisect in a fresh clone, allowed by the environment; the diff's
	// measurements (the same code) answer it from the cache.
	t.Setenv("PERFLS_FETCH", "1")
	dir = ciClone(t, url)
	before = fixture.GitCheckout(t, dir)
	code, out, errs = runCLI(t, append([]string{"bisect", "v1", "HEAD", "--method", "p.A#work"}, append(histFlags, dir)...)...)
	var b struct {
		FirstBad string `json:"first_bad"`
		Commits  int
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil || code != 0 {
		t.Fatalf("bisect with PERFLS_FETCH=1: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	checkJSON(t, "bisect", out)
	if b.FirstBad != side[0] || b.Commits != 5 {
		t.Errorf("bisect: first bad %.12s, %d commits; want %.12s (side's first) of 5", b.FirstBad, b.Commits, side[0])
	}
	if after := fixture.GitCheckout(t, dir); after != before {
		t.Errorf("bisect changed the checkout:\n%s\n%s", before, after)
	}
}

// A base commit whose sources are in a submodule this clone never
// initialised stops with the submodule and the command that fetches it,
// not javac's "cannot find symbol" alone; once initialised, the base
// builds with the submodule's files at the commit the base records.
func TestDiffSubmoduleSources(t *testing.T) {
	fixture.Isolate(t)
	lib, _ := fixture.GitProject(t, map[string]string{"src/q/L.java": "package q; public class L { public static int one() { return 1; } }"})
	super, _ := fixture.GitProject(t, map[string]string{"app/src/p/A.java": histClass("A", "1", ""),
		"app/src/p/C.java": "package p; class C { int v = q.L.one(); }"})
	fixture.Git(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "app/lib")
	fixture.Git(t, super, "commit", "-q", "-m", "lib")
	fixture.WriteFiles(t, super, map[string]string{"app/src/p/C.java": "package p; class C { int v = 1; }"})
	fixture.Git(t, super, "commit", "-q", "-am", "C without lib")
	dir := filepath.Join(t.TempDir(), "clone")
	fixture.Git(t, filepath.Dir(dir), "clone", "-q", super, dir)
	app := filepath.Join(dir, "app")

	before := fixture.GitCheckout(t, dir)
	code, out, errs := runCLI(t, "diff", "--base", "HEAD~1", "--format", "json", app)
	for _, w := range []string{"does not compile", "submodule app/lib", "not initialised in this clone", "fix: git submodule update --init -- app/lib"} {
		if code != exitUsage || !strings.Contains(errs, w) {
			t.Fatalf("diff with the submodule missing: exit %d, want 2 and %q\n%s\n%s", code, w, out, errs)
		}
	}
	if after := fixture.GitCheckout(t, dir); after != before {
		t.Errorf("diff changed the checkout:\n%s\n%s", before, after)
	}

	fixture.Git(t, dir, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--", "app/lib")
	code, out, errs = runCLI(t, "diff", "--base", "HEAD~1", "--format", "json", app)
	var d diffJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 || len(d.Unchanged) != 1 || d.Measured != 0 {
		t.Errorf("diff with the submodule initialised: exit %d, %v, %+v\n%s\n%s", code, err, d, out, errs)
	}
}
