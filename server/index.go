package server

// The workspace index in the editor: the session builds it in the
// background (package session) from the workspace folders and keeps it
// current; this file tells it what changed on disk and lints the open
// documents again when it changed.

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// recheckOpen re-checks and republishes every open document, after the
// workspace index changed.
func (s *server) recheckOpen(ctx context.Context) {
	for _, d := range s.sess.Docs() {
		nd := s.sess.Relinted(d)
		if !s.sess.Replace(d, nd) { // edited meanwhile: its own update publishes
			continue
		}
		if err := s.publishDiagnostics(ctx, nd); err != nil {
			s.logf("publish diagnostics for %s: %v", d.Path, err)
		}
	}
}

// DidChangeWatchedFiles keeps the index current when files change on disk.
func (s *server) DidChangeWatchedFiles(ctx context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	changed := false
	for _, c := range p.Changes {
		path := uri.URI(c.URI).Filename()
		if strings.HasSuffix(path, ".java") {
			s.sess.Refresh(path)
			changed = true
		}
		s.sess.ClasspathFileChanged(path) // re-lints when the new classpath arrives
	}
	if changed {
		s.recheckOpen(ctx)
	}
	return nil
}
