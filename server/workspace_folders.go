package server

import (
	"context"
	"slices"

	"github.com/perfls/perfls/server/internal/session"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Multi-root workspaces: one server serves every folder of the editor's
// workspace. A measuring request runs in the folder that holds its file,
// the innermost one when folders nest; a file outside every folder runs in
// the project that holds it (engine: measure.ProjectRoot).

// innermostFolder is the deepest folder holding path, or "".
func innermostFolder(folders []string, path string) string {
	best := ""
	for _, f := range folders {
		if session.Within(f, path) && len(f) > len(best) {
			best = f
		}
	}
	return best
}

// DidChangeWorkspaceFolders follows folders added to and removed from the
// workspace; added ones are indexed at once. The declarations of a removed
// folder stay in the index until the server restarts: formulas elsewhere
// may still name them.
func (s *server) DidChangeWorkspaceFolders(_ context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	var added []string
	s.view.update(func(v *view) {
		for _, f := range p.Event.Removed {
			dir := uri.URI(f.URI).Filename()
			v.folders = slices.DeleteFunc(v.folders, func(x string) bool { return x == dir })
		}
		for _, f := range p.Event.Added {
			dir := uri.URI(f.URI).Filename()
			if !slices.Contains(v.folders, dir) {
				v.folders = append(v.folders, dir)
				added = append(added, dir)
			}
		}
	})
	for _, dir := range added {
		s.sess.EnsureRoot(dir)
	}
	return nil
}
