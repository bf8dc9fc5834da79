package revision

// Reading HEAD without running git: the editor looks at it on every hover
// and every few seconds per open document, where a process each time costs
// more than the answer is worth.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/perfls/perfls/internal/input"
)

// GitDir is the git directory of the work tree holding dir ("" when
// none): the nearest .git directory at or above dir, or the directory a
// .git file names (a linked worktree, a submodule).
func GitDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		g := filepath.Join(d, ".git")
		if info, err := os.Stat(g); err == nil {
			if info.IsDir() {
				return g
			}
			b, err := readGitFile(g)
			if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); err == nil && ok {
				if !filepath.IsAbs(rest) {
					rest = filepath.Join(d, rest)
				}
				return rest
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// ReadHead is the commit HEAD names in gitDir, read from the files: a detached
// HEAD's hash, or the hash of the branch it names, from the loose ref or
// else packed-refs, in gitDir or (a linked worktree) in the common
// directory its commondir file names. It is "" when HEAD names no commit
// (an unborn branch) or cannot be read; a caller that must have an answer
// then asks git (Repo.Resolve).
func ReadHead(gitDir string) string {
	if gitDir == "" {
		return ""
	}
	dirs := gitDirs(gitDir)
	b, err := readGitFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	v := strings.TrimSpace(string(b))
	// A symbolic ref may name another; git allows five levels.
	for range 5 {
		ref, ok := strings.CutPrefix(v, "ref: ")
		if !ok {
			break
		}
		v = readRef(dirs, strings.TrimSpace(ref))
	}
	if !IsFullHash(v) {
		return ""
	}
	return v
}

// readRef is the content of ref (e.g. refs/heads/main) in the first of
// dirs that has it, loose or packed; "" when none does.
func readRef(dirs []string, ref string) string {
	if ref == "" || strings.Contains(ref, "..") {
		return ""
	}
	for _, dir := range dirs {
		if c, err := readGitFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(c))
		}
		packed, err := readGitFile(filepath.Join(dir, "packed-refs"))
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(packed)) {
			// "<hash> <ref>"; comments start with #, peeled tags with ^.
			if hash, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && name == ref && IsFullHash(hash) {
				return hash
			}
		}
	}
	return ""
}

// IsFullHash reports whether s is a full commit hash (SHA-1 or SHA-256).
func IsFullHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// readGitFile reads a small file of a git directory. The directory may be
// a downloaded project's: a FIFO or a huge file is refused, not waited for.
func readGitFile(path string) ([]byte, error) {
	return input.ReadRegular(path, input.GitFile)
}

// ResolveFromFiles looks name up among the refs of gitDir as files, for a
// workspace where git may not run (it would read the workspace's
// .git/config, which can name programs to run). It returns the commit and
// checked true when the files tell: a hash for HEAD, a branch, a tag or a
// remote-tracking branch, or "" when no such ref exists. checked is false
// when files cannot tell: a hash (abbreviated or not: the objects are not
// read), an expression such as HEAD~2 or v1.0^, or refs kept in a reftable.
func ResolveFromFiles(gitDir, name string) (commit string, checked bool) {
	if gitDir == "" || name == "" || strings.ContainsAny(name, "~^@:{}") || isHex(name) {
		return "", false
	}
	if st, err := os.Stat(filepath.Join(gitDir, "reftable")); err == nil && st.IsDir() {
		return "", false
	}
	if name == "HEAD" {
		h := ReadHead(gitDir)
		return h, h != ""
	}
	dirs := gitDirs(gitDir)
	// git rev-parse's order (gitrevisions(7)).
	for _, ref := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
		v := readRef(dirs, ref)
		for range 5 { // a symbolic ref (refs/remotes/origin/HEAD)
			target, ok := strings.CutPrefix(v, "ref: ")
			if !ok {
				break
			}
			v = readRef(dirs, strings.TrimSpace(target))
		}
		if IsFullHash(v) {
			return v, true
		}
	}
	return "", true
}

// isHex reports whether s could be an abbreviated hash.
func isHex(s string) bool {
	return len(s) >= 4 && len(s) <= 64 && strings.Trim(s, "0123456789abcdef") == ""
}
