package revision

// Reading HEAD without running git: the editor looks at it on every hover
// and every few seconds per open document, where a process each time costs
// more than the answer is worth.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
			b, err := readRegular(g)
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
	dirs := []string{gitDir}
	if c, err := readRegular(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		dirs = append(dirs, common)
	}
	b, err := readRegular(filepath.Join(gitDir, "HEAD"))
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
		if c, err := readRegular(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(c))
		}
		packed, err := readRegular(filepath.Join(dir, "packed-refs"))
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

// readRegular reads a file of the git directory when it is a regular file:
// the editor reads these on hovers, and a FIFO named HEAD (or .git) in a
// folder opened in it would block the read for good.
func readRegular(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%v)", path, st.Mode().Type())
	}
	return os.ReadFile(path)
}
