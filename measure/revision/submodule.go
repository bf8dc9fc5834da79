package revision

// Submodules in materialised trees. `git archive` leaves a submodule's
// directory empty; Materialise fills it from the submodule's repository in
// this clone at the commit the tree records, when the clone has that
// commit. One that is not there (never initialised, or lacking that
// commit) stays empty: a tree that then does not compile says why
// (Lacking), rather than javac's "cannot find symbol" alone.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Submodule is a submodule a commit records.
type Submodule struct {
	Name   string // in .gitmodules
	Path   string // slash-separated, relative to the work tree's top
	Commit string // the commit the tree records for it
	// GitDir is its repository in this clone ("" when it was never
	// initialised); Has tells whether that holds Commit.
	GitDir string
	Has    bool
}

// Submodules lists the submodules commit records (.gitmodules paths that
// are gitlinks in its tree) and whether this clone has each one's commit.
// A commit without .gitmodules has none.
func (r *Repo) Submodules(ctx context.Context, commit string) ([]Submodule, error) {
	if _, err := git(ctx, r.Top, "cat-file", "-e", commit+":.gitmodules"); err != nil {
		return nil, ctx.Err()
	}
	out, err := git(ctx, r.Top, "config", "--blob", commit+":.gitmodules", "-z", "--get-regexp", `^submodule\..*\.path$`)
	if err != nil {
		return nil, nil // no path in it
	}
	names := map[string]string{} // path → name
	var paths []string
	for _, entry := range strings.Split(out, "\x00") {
		key, path, ok := strings.Cut(entry, "\n")
		name := strings.TrimSuffix(strings.TrimPrefix(key, "submodule."), ".path")
		if !ok || !filepath.IsLocal(filepath.FromSlash(path)) || !filepath.IsLocal(filepath.FromSlash(name)) {
			continue
		}
		names[path] = name
		paths = append(paths, path)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	out, err = git(ctx, r.Top, append([]string{"--literal-pathspecs", "ls-tree", "-z", commit, "--"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("submodules of %.12s: %w", commit, err)
	}
	var subs []Submodule
	for _, entry := range strings.Split(out, "\x00") {
		// "160000 commit <hash>\t<path>"
		meta, path, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "commit" || names[path] == "" {
			continue
		}
		s := Submodule{Name: names[path], Path: path, Commit: f[2], GitDir: r.submoduleGitDir(ctx, names[path], path)}
		if s.GitDir != "" {
			_, err := git(ctx, r.Top, "--git-dir="+s.GitDir, "--work-tree="+s.GitDir, "cat-file", "-e", s.Commit+"^{commit}")
			s.Has = err == nil
		}
		subs = append(subs, s)
	}
	return subs, ctx.Err()
}

// submoduleGitDir is where this clone keeps a submodule's repository: in
// its git directory's modules/NAME, or (an old layout) a .git in the
// submodule's work tree; "" when neither exists.
func (r *Repo) submoduleGitDir(ctx context.Context, name, path string) string {
	if g, err := git(ctx, r.Top, "rev-parse", "--git-path", "modules/"+name); err == nil {
		if !filepath.IsAbs(g) {
			g = filepath.Join(r.Top, g)
		}
		if info, err := os.Stat(filepath.Join(g, "HEAD")); err == nil && !info.IsDir() {
			return g
		}
	}
	wt := filepath.Join(r.Top, filepath.FromSlash(path))
	if _, err := os.Lstat(filepath.Join(wt, ".git")); err == nil {
		return GitDir(wt)
	}
	return ""
}

// Lacking is the submodules of commit whose files a materialised tree of
// it lacks (this clone does not have their commits), and why: a
// *HistoryError naming the commands that fetch them; nil when none.
func (r *Repo) Lacking(ctx context.Context, commit string) error {
	subs, err := r.Submodules(ctx, commit)
	if err != nil {
		return err
	}
	he := &HistoryError{}
	var what []string
	for _, s := range subs {
		switch {
		case s.Has:
			continue
		case s.GitDir == "":
			what = append(what, fmt.Sprintf("%s (commit %.12s; not initialised in this clone)", s.Path, s.Commit))
			he.Fix = append(he.Fix, "git submodule update --init -- "+s.Path)
		default:
			what = append(what, fmt.Sprintf("%s (commit %.12s, which this clone's repository of it lacks)", s.Path, s.Commit))
			he.Fix = append(he.Fix, "git -C "+s.Path+" fetch")
		}
	}
	if len(what) == 0 {
		return nil
	}
	he.Msg = fmt.Sprintf("the tree of commit %.12s lacks the files of submodule %s: its sources are missing there", commit, strings.Join(what, ", "))
	return he
}

// treeID names commit's materialised tree: the commit, or when submodules
// could not be filled in, the commit and a digest of the missing ones, so
// that once the clone has them a complete tree is made.
func treeID(commit string, subs []Submodule) string {
	h := sha256.New()
	missing := false
	for _, s := range subs {
		if !s.Has {
			missing = true
			fmt.Fprintf(h, "%s\x00%s\x00", s.Path, s.Commit)
		}
	}
	if !missing {
		return commit
	}
	return commit + "-without-" + hex.EncodeToString(h.Sum(nil))[:12]
}
