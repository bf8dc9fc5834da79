package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/revision"
)

// GitSource is a job's code as a commit of a repository the workers can
// fetch, instead of an archive: sent when the project is a clean git work
// tree whose HEAD is on its remote.
type GitSource struct {
	URL    string `json:"url"`    // the repository (perfls.json "repository", else the origin remote)
	Commit string `json:"commit"` // full hash
	Tree   string `json:"tree"`   // the commit's tree hash: the content's fingerprint, checked by the worker
	Rel    string `json:"rel"`    // the project directory inside the repository
}

// gitSource is the repository and commit a worker can fetch dir's code
// from, or nil and why not (the sources then go as an archive): dir is not
// in a git work tree, the tree has changes or untracked files, HEAD is on
// no branch of the origin remote, or perfls.json says "repository":
// "archive". A URL carrying a password is never put in a job.
func gitSource(ctx context.Context, dir string) (*GitSource, string) {
	setting, err := measure.RepositorySetting(dir)
	if err != nil {
		return nil, err.Error()
	}
	if setting == "archive" {
		return nil, `perfls.json says "repository": "archive"`
	}
	repo, err := revision.Open(ctx, dir)
	if err != nil {
		return nil, "not a git work tree"
	}
	if clean, err := repo.Clean(ctx); err != nil || !clean {
		return nil, "the work tree has changes"
	}
	head, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		return nil, "no commit"
	}
	src := &GitSource{Commit: head, Rel: repo.Rel, URL: revision.LocalAbs(filepath.Join(repo.Top, repo.Rel), setting)}
	if setting == "" {
		if src.URL = repo.RemoteURL(ctx, "origin"); src.URL == "" {
			return nil, "no origin remote"
		}
		if !repo.OnRemote(ctx, head, "origin") {
			return nil, fmt.Sprintf("HEAD %.12s is on no branch of origin (not pushed)", head)
		}
	}
	if u, err := url.Parse(src.URL); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return nil, "the repository URL carries a password"
		}
	}
	if src.Tree, err = repo.Tree(ctx, head); err != nil {
		return nil, err.Error()
	}
	return src, ""
}

// unreachable begins the error of a job whose repository or commit a
// worker could not fetch: the client then sends the sources instead.
const unreachable = "the worker cannot fetch the sources"

// checkout materialises the job's commit from the worker's mirror of its
// repository (fetched into the cache on first use, then only what is
// new) and checks the commit's tree against the job's fingerprint.
func (w *worker) checkout(ctx context.Context, g *GitSource) (string, error) {
	m, err := revision.Mirror(ctx, w.cacheDir, g.URL, g.Commit, g.Rel)
	if err != nil {
		return "", fmt.Errorf("%s %.12s: %w", unreachable, g.Commit, err)
	}
	tree, err := m.Tree(ctx, g.Commit)
	if err != nil {
		return "", fmt.Errorf("%s %.12s: %w", unreachable, g.Commit, err)
	}
	if tree != g.Tree {
		return "", fmt.Errorf("commit %.12s of %s: tree %.12s, the job's fingerprint is %.12s: %w", g.Commit, g.URL, tree, g.Tree, errFingerprint)
	}
	return m.Materialise(ctx, w.cacheDir, g.Commit)
}

// isUnreachable tells whether err is a job's end because its worker could
// not fetch its commit.
func isUnreachable(err error) bool {
	return err != nil && strings.Contains(err.Error(), unreachable) && !errors.Is(err, context.Canceled)
}
