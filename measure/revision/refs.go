package revision

// The refs of a repository, listed once by git, for the editor to tell as
// the user types whether a formula's "@rev" names something Resolve would
// find, without running git per keystroke. Knows answers only what the list
// can settle: a name git may find among its objects (a hash prefix, the
// abbreviated hash of describe output) or by an expression whose base it
// knows is never called unknown.

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// Refs are a repository's refs as git names them (refs/heads/main,
// refs/tags/v1.0, refs/remotes/origin/HEAD) and the root refs its git
// directory holds (HEAD, FETCH_HEAD, ORIG_HEAD).
type Refs struct {
	full map[string]bool
	// fold: loose refs are files, found whatever the case on a file
	// system that ignores it (macOS, Windows).
	fold map[string]bool
}

// ListRefs lists the refs of the repository holding dir with `git
// for-each-ref` (one process), and the root refs of gitDir (its files,
// read without git). It runs git only when ctx's trust allows it.
func ListRefs(ctx context.Context, dir, gitDir string) (*Refs, error) {
	out, err := git(ctx, dir, "for-each-ref", "--format=%(refname)")
	if err != nil {
		return nil, fmt.Errorf("list the refs of %s: %w", dir, err)
	}
	r := &Refs{full: map[string]bool{"HEAD": true}}
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			r.full[line] = true
		}
	}
	r.addRootRefs(gitDir)
	return r.folded(), nil
}

// RefsFromFiles lists gitDir's refs from its files, without git: for a
// workspace where git may not run (it would read the workspace's
// .git/config, which can name programs to run). Loose refs under refs/,
// packed-refs and the root refs, in gitDir and (a linked worktree) its
// common directory — what for-each-ref lists, for the ref formats git
// writes as files. A reftable repository is not read (an error).
func RefsFromFiles(gitDir string) (*Refs, error) {
	if gitDir == "" {
		return nil, fmt.Errorf("list refs: no git directory")
	}
	if st, err := os.Stat(filepath.Join(gitDir, "reftable")); err == nil && st.IsDir() {
		return nil, fmt.Errorf("list the refs of %s: a reftable repository is read only by git", gitDir)
	}
	r := &Refs{full: map[string]bool{"HEAD": true}}
	for _, d := range gitDirs(gitDir) {
		root := filepath.Join(d, "refs")
		// Refs are small regular files; a tree of thousands is walked in
		// milliseconds, and a symlink or FIFO is skipped, never followed.
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() && !strings.HasSuffix(p, ".lock") { // .lock: a ref being written
				if rel, err := filepath.Rel(d, p); err == nil {
					r.full[filepath.ToSlash(rel)] = true
				}
			}
			return nil
		})
		if packed, err := readGitFile(filepath.Join(d, "packed-refs")); err == nil {
			for line := range strings.Lines(string(packed)) {
				if hash, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && IsFullHash(hash) && strings.HasPrefix(name, "refs/") {
					r.full[name] = true
				}
			}
		}
	}
	r.addRootRefs(gitDir)
	return r.folded(), nil
}

// addRootRefs adds the root refs of gitDir's directories (HEAD,
// FETCH_HEAD, ORIG_HEAD: files named in capitals).
func (r *Refs) addRootRefs(gitDir string) {
	for _, d := range gitDirs(gitDir) {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if rootRef.MatchString(e.Name()) && e.Type().IsRegular() {
				r.full[e.Name()] = true
			}
		}
	}
}

// folded adds the names' lower case where the file system ignores case.
func (r *Refs) folded() *Refs {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		r.fold = map[string]bool{}
		for n := range r.full {
			r.fold[strings.ToLower(n)] = true
		}
	}
	return r
}

// NewRefs is a list of the given refs (full names), for tests.
func NewRefs(full ...string) *Refs {
	r := &Refs{full: map[string]bool{"HEAD": true}}
	for _, n := range full {
		r.full[n] = true
	}
	return r
}

// rootRef is the shape of a root ref's name: HEAD, FETCH_HEAD, ORIG_HEAD.
var rootRef = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// describeName is `git describe` output ("v1.2-3-gabc1234"): git resolves
// its abbreviated hash, whatever the tag before it.
var describeName = regexp.MustCompile(`-g[0-9a-fA-F]{4,}$`)

// Knows reports whether name may name a commit by what the list tells:
// false only when git's rules for a ref name (gitrevisions(7): the name
// in the git directory, refs/, refs/tags/, refs/heads/, refs/remotes/,
// refs/remotes/<name>/HEAD) find nothing for the name, or for the base
// of a relative name (main~2, v1.0^). Hashes and their prefixes, describe
// output and forms with characters a ref name cannot hold are never
// called unknown: the list cannot tell.
func (r *Refs) Knows(name string) bool {
	base := name
	if i := strings.IndexAny(name, "~^"); i >= 0 {
		base = name[:i]
	}
	switch {
	case base == "" || base == "@" || strings.ContainsAny(base, "@:{}[]*?\\ \t"):
		return true
	case isHexPrefix(base) || describeName.MatchString(base):
		return true
	}
	for _, c := range []string{base, "refs/" + base, "refs/tags/" + base, "refs/heads/" + base, "refs/remotes/" + base, "refs/remotes/" + base + "/HEAD"} {
		if r.full[c] || r.fold != nil && r.fold[strings.ToLower(c)] {
			return true
		}
	}
	return false
}

// isHexPrefix reports whether s could be a commit hash or its prefix (git
// takes four hex digits or more, in either case).
func isHexPrefix(s string) bool {
	return len(s) >= 4 && len(s) <= 64 && strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
}

// Names are the branches and tags, as a formula writes them after "@"
// (main, v1.0), sorted: the candidates of a "did you mean". Names with a
// "/" are left out: a formula's revision cannot hold one.
func (r *Refs) Names() []string {
	var out []string
	seen := map[string]bool{}
	for n := range r.full {
		for _, p := range []string{"refs/heads/", "refs/tags/"} {
			if s, ok := strings.CutPrefix(n, p); ok && !strings.Contains(s, "/") && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// RefsStamp sums up, without running git, what the refs of gitDir look
// like on disk: the root refs' and packed-refs' times and sizes, each ref
// directory's time (creating, moving or deleting a loose ref changes its
// directory's), a reftable's table list. A different stamp means the
// refs may have changed: list them again. "" outside a repository.
func RefsStamp(gitDir string) string {
	if gitDir == "" {
		return ""
	}
	var b strings.Builder
	stat := func(p string) {
		if info, err := os.Stat(p); err == nil {
			b.WriteString(p + " " + strconv.FormatInt(info.ModTime().UnixNano(), 10) + " " + strconv.FormatInt(info.Size(), 10) + "\n")
		}
	}
	for _, d := range gitDirs(gitDir) {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if n := e.Name(); rootRef.MatchString(n) || n == "packed-refs" {
				stat(filepath.Join(d, n))
			}
		}
		stat(filepath.Join(d, "reftable", "tables.list"))
		_ = filepath.WalkDir(filepath.Join(d, "refs"), func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				stat(p)
			}
			return nil
		})
	}
	return b.String()
}

// gitDirs are gitDir and, for a linked worktree, the common directory
// holding the shared refs.
func gitDirs(gitDir string) []string {
	dirs := []string{gitDir}
	if c, err := readGitFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		dirs = append(dirs, common)
	}
	return dirs
}

// UnknownName is the revision an *UnknownError's message names, found in
// text that quotes it (a check's reason: "revision @v1.O: unknown revision
// \"v1.O\": …"); false when text names none.
func UnknownName(text string) (string, bool) {
	const marker = "unknown revision "
	i := strings.Index(text, marker)
	if i < 0 {
		return "", false
	}
	q, err := strconv.QuotedPrefix(text[i+len(marker):])
	if err != nil {
		return "", false
	}
	name, err := strconv.Unquote(q)
	return name, err == nil && name != ""
}
