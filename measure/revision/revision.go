// Package revision turns git revision names into commits and commits into
// materialised source trees in perfls's cache directory, without touching
// the user's checkout, index or refs: the tree is read with `git archive`
// and written under <cache>/revisions/<full commit hash>. A commit never
// changes, so its tree (and everything measured on it) is kept until
// `perfls cache gc` finds it unused for a while.
package revision

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/perfls/perfls/internal/trust"
)

// Dir is the cache directory's subdirectory of materialised trees; each
// tree's marker file (Marker) is touched on every use.
const (
	Dir    = "revisions"
	Marker = ".complete"
)

// NotRepoError says that a directory is not inside a git work tree.
type NotRepoError struct {
	Dir string
	Msg string
}

func (e *NotRepoError) Error() string {
	return fmt.Sprintf("%s is not in a git repository (%s)", e.Dir, e.Msg)
}

// UnknownError says that a name does not name a commit.
type UnknownError struct {
	Name string
	Msg  string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown revision %q: %s", e.Name, e.Msg)
}

// git runs git in dir and returns its standard output, trimmed; a failure
// carries git's standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd, err := trust.Command(ctx, "git", args...)
	if err != nil {
		return "", err
	}
	cmd.Dir = dir
	// No pager, no prompts, the user's locale does not matter.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// Repo is the git work tree holding a project directory.
type Repo struct {
	Top    string // the work tree's top directory
	Rel    string // the project directory relative to Top ("." for the top)
	gitDir string // its git directory, for reading HEAD without git ("" unknown)
	// Fetch, when set, lets DefaultBase, Need and FirstParents fetch from
	// the remote what a shallow or single-branch clone lacks (history.go);
	// it is told each git command that reaches the remote, before it runs.
	Fetch func(command string)
}

// Open finds the git work tree holding dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, &NotRepoError{Dir: abs, Msg: "git is not installed"}
	}
	top, err := git(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, trust.ErrUntrusted) {
			return nil, err // no answer about the directory
		}
		return nil, &NotRepoError{Dir: abs, Msg: err.Error()}
	}
	// Compare real paths: a symlinked temporary directory is common.
	realTop, _ := filepath.EvalSymlinks(top)
	realDir, _ := filepath.EvalSymlinks(abs)
	rel, err := filepath.Rel(realTop, realDir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("open repository %s: %s is outside its work tree %s", dir, abs, top)
	}
	return &Repo{Top: top, Rel: rel, gitDir: GitDir(abs)}, nil
}

// Resolve returns the full hash of the commit name names (anything `git
// rev-parse` takes: a hash, a tag, a branch, HEAD~2).
func (r *Repo) Resolve(ctx context.Context, name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "-") {
		return "", &UnknownError{Name: name, Msg: "not a revision name"}
	}
	h, err := git(ctx, r.Top, "rev-parse", "--verify", "--quiet", "--end-of-options", name+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &UnknownError{Name: name, Msg: "no such commit, tag or branch in " + r.Top}
	}
	return h, nil
}

// Head is HEAD's commit, read from the git directory's files when they
// name one (ReadHead), else from git: cheap enough to ask on every hover.
func (r *Repo) Head(ctx context.Context) (string, error) {
	if h := ReadHead(r.gitDir); h != "" {
		return h, nil
	}
	return r.Resolve(ctx, "HEAD")
}

// Subject is the first line of a commit's message.
func (r *Repo) Subject(ctx context.Context, commit string) string {
	s, _ := git(ctx, r.Top, "log", "-1", "--format=%s", commit)
	return s
}

// Date is when commit was made (its committer date); zero when git
// cannot tell.
func (r *Repo) Date(ctx context.Context, commit string) time.Time {
	s, err := git(ctx, r.Top, "log", "-1", "--format=%cI", commit)
	if err != nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// TreeHash is the git tree hash of the project's directory at commit:
// the same hash at two commits is the same files.
func (r *Repo) TreeHash(ctx context.Context, commit string) (string, error) {
	rel := filepath.ToSlash(r.Rel)
	if rel == "." {
		rel = ""
	}
	return git(ctx, r.Top, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+":"+rel)
}

// Clean reports whether the work tree has no changes, untracked files
// included: then HEAD is what it holds.
func (r *Repo) Clean(ctx context.Context) (bool, error) {
	out, err := git(ctx, r.Top, "status", "--porcelain")
	return err == nil && out == "", err
}

// Line lists the commits of tip's first-parent line, oldest first (tip
// last): the order in which results over a branch's history are compared.
func (r *Repo) Line(ctx context.Context, tip string) ([]string, error) {
	out, err := git(ctx, r.Top, "rev-list", "--first-parent", "--reverse", tip)
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\n"), nil
}

// Materialise writes commit's tree under cacheDir/revisions/<commit> (once:
// a tree already there is reused) and returns the directory of the project
// in it, at the same place as in the work tree. It runs `git archive`, so
// the user's checkout, index and refs are untouched. Submodules are filled
// in from their repositories in this clone (submodule.go); one the clone
// lacks is left empty, in a tree of its own (<commit>-without-…).
func (r *Repo) Materialise(ctx context.Context, cacheDir, commit string) (string, error) {
	root, err := r.materialise(ctx, cacheDir, commit)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, r.Rel), nil
}

// materialise is Materialise; it returns the tree's top.
func (r *Repo) materialise(ctx context.Context, cacheDir, commit string) (string, error) {
	if len(commit) < 40 || strings.Trim(commit, "0123456789abcdef") != "" {
		return "", fmt.Errorf("materialise %q: not a full commit hash", commit)
	}
	subs, err := r.Submodules(ctx, commit)
	if err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	root := filepath.Join(cacheDir, Dir, treeID(commit, subs))
	if reused(root) {
		return root, nil
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), "tmp-"+commit[:12]+"-")
	if err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	defer os.RemoveAll(tmp)
	if err := r.archive(ctx, "", commit, tmp); err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	for _, s := range subs {
		if !s.Has {
			continue
		}
		if err := r.archive(ctx, s.GitDir, s.Commit, filepath.Join(tmp, filepath.FromSlash(s.Path))); err != nil {
			return "", fmt.Errorf("materialise %.12s, submodule %s: %w", commit, s.Path, err)
		}
	}
	if err := publish(tmp, root, filepath.Base(root)); err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	return root, nil
}

// reused reports whether the tree at root is complete, and marks it used
// (cache gc keeps what is used).
func reused(root string) bool {
	marker := filepath.Join(root, Marker)
	if _, err := os.Stat(marker); err != nil {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(marker, now, now)
	return true
}

// publish marks the tree built in tmp complete (its marker names id) and
// moves it to root in one rename; another process publishing root first
// is no error.
func publish(tmp, root, id string) error {
	if err := os.WriteFile(filepath.Join(tmp, Marker), []byte(id+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, root); err != nil {
		if _, serr := os.Stat(filepath.Join(root, Marker)); serr == nil {
			return nil // another process was quicker
		}
		return err
	}
	return nil
}

// MaterialiseWith is Materialise with files overlaid: the commit's tree
// plus files (paths relative to the project directory, contents), which
// replace the commit's files of the same paths, in a tree of its own under
// <cache>/revisions/<commit>-<digest of files>, so that the commit's own
// tree stays as the commit has it. It serves the working tree's set-up
// (perfls.json, workloads written after the commit) measured against a
// revision's classes.
func (r *Repo) MaterialiseWith(ctx context.Context, cacheDir, commit string, files map[string][]byte) (string, error) {
	baseRoot, err := r.materialise(ctx, cacheDir, commit)
	if err != nil {
		return "", err
	}
	base := filepath.Join(baseRoot, r.Rel)
	if len(files) == 0 {
		return base, nil
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if !filepath.IsLocal(name) {
			return "", fmt.Errorf("materialise %.12s with %s: not a path inside the project", commit, name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(name), len(files[name]))
		h.Write(files[name])
	}
	id := filepath.Base(baseRoot) + "-" + hex.EncodeToString(h.Sum(nil))[:16]
	root := filepath.Join(cacheDir, Dir, id)
	project := filepath.Join(root, r.Rel)
	if reused(root) {
		return project, nil
	}
	tmp, err := os.MkdirTemp(filepath.Join(cacheDir, Dir), "tmp-"+commit[:12]+"-")
	if err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	defer os.RemoveAll(tmp)
	if err := linkTree(baseRoot, tmp); err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	for _, name := range names {
		path := filepath.Join(tmp, r.Rel, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", fmt.Errorf("materialise %.12s with %s: %w", commit, name, err)
		}
		// The commit's file is a hard link into its own tree: unlink it,
		// never write through it.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("materialise %.12s with %s: %w", commit, name, err)
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return "", fmt.Errorf("materialise %.12s with %s: %w", commit, name, err)
		}
	}
	if err := publish(tmp, root, id); err != nil {
		return "", fmt.Errorf("materialise %.12s: %w", commit, err)
	}
	return project, nil
}

// linkTree recreates the regular files of from under to as hard links
// (copies where the file system refuses links), leaving the marker out:
// the new tree gets its own. Files are never written through a link.
func linkTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil || rel == Marker {
			return err
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		if os.Link(path, dst) == nil {
			return nil
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		info, err := src.Stat()
		if err != nil {
			return err
		}
		return writeFile(dst, src, &tar.Header{Mode: int64(info.Mode().Perm()), ModTime: info.ModTime()})
	})
}

// archive extracts commit's tree into dir, reading `git archive`'s tar
// stream: of this repository, or of the one in gitDir (a submodule's).
// Only regular files and directories are written, and only below dir
// (symbolic links are left out).
func (r *Repo) archive(ctx context.Context, gitDir, commit, dir string) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := []string{"archive", "--format=tar", commit}
	if gitDir != "" {
		// Its work tree may be gone; archive reads none.
		args = append([]string{"--git-dir=" + gitDir, "--work-tree=" + gitDir}, args...)
	}
	cmd, err := trust.Command(ctx, "git", args...)
	if err != nil {
		return err
	}
	cmd.Dir = r.Top
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git archive: %w", err)
	}
	defer func() {
		if err != nil {
			cancel() // stop git before waiting for it
		}
		werr := cmd.Wait()
		if err == nil && werr != nil {
			err = fmt.Errorf("git archive %.12s: %v: %s", commit, werr, strings.TrimSpace(stderr.String()))
		}
	}()
	tr := tar.NewReader(out)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read git archive: %w", err)
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			continue
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(path, tr, h); err != nil {
				return err
			}
		}
	}
	_, err = io.Copy(io.Discard, out)
	return err
}

func writeFile(path string, r io.Reader, h *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	// The commit's time: a compilation stamp of sizes and times stays valid.
	return os.Chtimes(path, h.ModTime, h.ModTime)
}

// IsNotRepo and IsUnknown classify errors of this package.
func IsNotRepo(err error) bool { var e *NotRepoError; return errors.As(err, &e) }

// IsUnknown reports an unknown revision name.
func IsUnknown(err error) bool { var e *UnknownError; return errors.As(err, &e) }
