package revision

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfls/perfls/internal/redact"
)

// RemoteURL is the URL of the repository's remote name, "" when it has
// none. A local path is made absolute (relative to the work tree's top).
func (r *Repo) RemoteURL(ctx context.Context, name string) string {
	url, err := git(ctx, r.Top, "remote", "get-url", name)
	if err != nil || url == "" {
		return ""
	}
	return LocalAbs(r.Top, url)
}

// LocalAbs makes url absolute against dir when it is a relative local path
// (not scp-like host:path, not scheme://).
func LocalAbs(dir, url string) string {
	if strings.Contains(url, "://") || filepath.IsAbs(url) {
		return url
	}
	if i := strings.Index(url, ":"); i > 0 && !strings.ContainsAny(url[:i], "/\\") {
		return url // user@host:path
	}
	return filepath.Join(dir, url)
}

// Tree is the hash of commit's tree: the fingerprint of its content.
func (r *Repo) Tree(ctx context.Context, commit string) (string, error) {
	return git(ctx, r.Top, "rev-parse", "--verify", "--end-of-options", commit+"^{tree}")
}

// OnRemote reports whether commit is on a remote-tracking branch of remote
// (so a clone of that remote has it, as far as this repository knows).
func (r *Repo) OnRemote(ctx context.Context, commit, remote string) bool {
	out, err := git(ctx, r.Top, "branch", "-r", "--contains", commit)
	if err != nil {
		return false
	}
	for _, b := range strings.Fields(out) {
		if strings.HasPrefix(b, remote+"/") {
			return true
		}
	}
	return false
}

// Mirror makes commit of the repository at url available in a bare
// mirror under cacheDir (one per URL, reused: only what it lacks is
// fetched) and returns the mirror as a Repo whose project is at rel.
// Every branch and tag is fetched, then the commit itself when no branch
// holds it. It fails when the repository cannot be reached or lacks the
// commit.
func Mirror(ctx context.Context, cacheDir, url, commit, rel string) (*Repo, error) {
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("project directory %q: not a path inside the repository", rel)
	}
	sum := sha256.Sum256([]byte(url))
	dir := filepath.Join(cacheDir, "mirrors", hex.EncodeToString(sum[:8]))
	m := &Repo{Top: dir, Rel: rel}
	has := func() bool { _, err := git(ctx, dir, "cat-file", "-e", commit+"^{commit}"); return err == nil }
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, redact.Wrap("mirror of", url, err)
		}
		if _, err := git(ctx, dir, "init", "--quiet", "--bare"); err != nil {
			return nil, redact.Wrap("mirror of", url, err)
		}
	} else if has() {
		return m, nil
	}
	_, err := git(ctx, dir, "fetch", "--quiet", "--no-tags", "--", url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
	if err == nil && !has() {
		_, err = git(ctx, dir, "fetch", "--quiet", "--no-tags", "--", url, commit)
	}
	if !has() {
		if err == nil {
			err = fmt.Errorf("it has no commit %.12s", commit)
		}
		return nil, redact.Wrap("fetch", url, err)
	}
	return m, nil
}
