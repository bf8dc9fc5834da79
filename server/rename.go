package server

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/server/internal/session"
)

// PrepareRename answers the range of the method or generator name under
// the cursor (in a formula or at its Java declaration); an error says why
// the name there cannot be renamed (SELF, an alias, a JDK method).
func (s *server) PrepareRename(_ context.Context, p *protocol.PrepareRenameParams) (*protocol.Range, error) {
	w, path, off, ok := s.renameWorkspace(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	loc, _, err := w.PrepareRename(path, off)
	if err != nil {
		return nil, fmt.Errorf("perfls: %w", err) // RequestFailed (coded), its message shown
	}
	r := toProtocolRange(loc.Range)
	return &r, nil
}

// Rename renames a method or generator in every annotation string of the
// workspace that spells its name, and at its declaration (the Java call
// sites are the Java language server's).
func (s *server) Rename(_ context.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	w, path, off, ok := s.renameWorkspace(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	edits, err := w.Rename(path, off, p.NewName)
	if err != nil {
		return nil, fmt.Errorf("perfls: %w", err) // RequestFailed (coded), its message shown
	}
	return workspaceEdit(edits), nil
}

// References lists the annotation strings naming the method or generator
// under the cursor (by name, SELF or an alias), and its declaration when
// asked.
func (s *server) References(_ context.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	out := []protocol.Location{}
	w, path, off, ok := s.renameWorkspace(p.TextDocument.URI, p.Position)
	if !ok {
		return out, nil
	}
	locs, err := w.References(path, off, p.Context.IncludeDeclaration)
	if err != nil {
		return out, nil // no method named here: no references, not a failure
	}
	for _, l := range locs {
		out = append(out, protocol.Location{URI: uri.File(l.Path), Range: toProtocolRange(l.Range)})
	}
	return out, nil
}

// renameWorkspace is what rename and references search: the open
// documents over every Java file the workspace index holds (parsed from
// disk, cached by the session), indexed with them; and the position's
// path and byte offset.
func (s *server) renameWorkspace(u protocol.DocumentURI, pos protocol.Position) (editor.Workspace, string, int, bool) {
	snap := s.sess.Snapshot(u)
	if snap.Doc == nil || snap.Doc.Java == nil {
		return editor.Workspace{}, "", 0, false
	}
	files := openFiles(s.sess, snap)
	open := map[string]bool{}
	for _, f := range files {
		open[f.Path] = true
	}
	_, indexed := s.sess.Indexed()
	for _, path := range indexed {
		if open[path] {
			continue
		}
		if f := s.sess.DiskFile(path); f != nil {
			files = append(files, f)
		}
	}
	w := editor.Workspace{Files: files, Index: snap.Index.With(files)}
	off := snap.Doc.Java.Mapper.Offset(textpos.Position{Line: int(pos.Line), Character: int(pos.Character)})
	return w, snap.Doc.Path, off, true
}

// openFiles are the open Java documents, the snapshot's version of its own.
func openFiles(sess *session.Session, snap session.Snapshot) []*javasrc.File {
	files := []*javasrc.File{snap.Doc.Java}
	for _, d := range sess.Docs() {
		if d.URI != snap.Doc.URI && d.Java != nil {
			files = append(files, d.Java)
		}
	}
	return files
}
