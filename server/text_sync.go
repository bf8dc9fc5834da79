package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/server/internal/session"
)

// document is an open file's version (session.Document): immutable.
type document = session.Document

func (s *server) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	err := s.update(ctx, p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.preloadProfiles(p.TextDocument.URI)
	return err
}

// DidChange is unreachable from the wire: protocol v0.12.0 decodes a change
// without a range as an insertion at 0:0 (anchors-lsp.md §1.2 #3), so
// textChanges decodes didChange itself. Here every change counts as ranged.
func (s *server) DidChange(ctx context.Context, p *protocol.DidChangeTextDocumentParams) error {
	changes := make([]contentChange, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		changes[i] = contentChange{Range: &c.Range, Text: c.Text}
	}
	return s.change(ctx, p.TextDocument.URI, p.TextDocument.Version, changes)
}

// contentChange is an LSP TextDocumentContentChangeEvent: Range nil means
// the whole text.
type contentChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// didChangeParams are DidChangeTextDocumentParams with ranges that can be
// absent.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                          `json:"contentChanges"`
}

// textChanges handles textDocument/didChange before protocol's dispatcher
// does, so that a change with a range edits the text and one without
// replaces it (incremental sync).
func (s *server) textChanges(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() != protocol.MethodTextDocumentDidChange {
			return h(ctx, reply, req)
		}
		var p didChangeParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, invalidParams("didChange: %v", err))
		}
		return reply(ctx, nil, s.change(ctx, p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges))
	}
}

// change applies a didChange's changes, in order, to the open document's
// text and updates the document.
func (s *server) change(ctx context.Context, u protocol.DocumentURI, version int32, changes []contentChange) error {
	if len(changes) == 0 {
		return nil
	}
	text, ranged := "", changes[0].Range != nil
	if ranged {
		old := s.sess.Doc(u)
		if old == nil {
			return fmt.Errorf("didChange: %s is not open", u)
		}
		text = old.Text
	}
	for _, c := range changes {
		text = applyChange(text, c)
	}
	return s.update(ctx, u, version, text)
}

// applyChange returns text with c applied: c.Text in place of c.Range (UTF-16
// positions), or c.Text alone when c has no range.
func applyChange(text string, c contentChange) string {
	if c.Range == nil {
		return c.Text
	}
	m := textpos.NewMapper(text)
	start := m.Offset(textpos.Position{Line: int(c.Range.Start.Line), Character: int(c.Range.Start.Character)})
	end := m.Offset(textpos.Position{Line: int(c.Range.End.Line), Character: int(c.Range.End.Character)})
	if end < start {
		start, end = end, start
	}
	return text[:start] + c.Text + text[end:]
}

// DidSave re-reads the saved file into the workspace index, so that other
// documents' references see what was saved, and, when the user enabled
// measureOnSave, re-checks the formulas of the methods changed since their
// last verdict.
func (s *server) DidSave(ctx context.Context, p *protocol.DidSaveTextDocumentParams) error {
	path := uri.URI(p.TextDocument.URI).Filename()
	if strings.HasSuffix(path, ".java") {
		s.sess.Refresh(path)
		s.recheckOpen(ctx)
		s.measureOnSave(ctx, p.TextDocument.URI)
	}
	return nil
}

// measureOnSave starts a check of every method of the saved document whose
// source changed since its recorded verdicts (the hash stale hints
// compare). Methods never checked are left alone: measuring runs the user's
// code, so it starts only where the user asked for verdicts before.
func (s *server) measureOnSave(ctx context.Context, u protocol.DocumentURI) {
	cfg := s.settings()
	if !cfg.MeasureOnSave || s.opts.Actions == nil {
		return
	}
	s.sess.SyncVerdicts()
	snap := s.sess.Snapshot(u)
	doc := snap.Doc
	if doc == nil || doc.Java == nil {
		return
	}
	results := snap.Results(doc.Path)
	var changed []MethodArgs
	for _, m := range doc.Java.Methods {
		if m.Type == nil {
			continue
		}
		a := MethodArgs{URI: u, Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)}
		r := resultOf(results, a)
		if r == nil || len(r.Instances) == 0 || r.Source == "" || r.Source == m.SourceHash(doc.Java) {
			continue
		}
		changed = append(changed, a)
	}
	if len(changed) == 0 {
		return
	}
	if !cfg.AllowMeasuring {
		s.life.mu.Lock()
		warned := s.life.warnedSave
		s.life.warnedSave = true
		s.life.mu.Unlock()
		if !warned {
			s.showMessage(ctx, protocol.MessageTypeWarning, "perfls: measure on save: "+errMeasuringDisabled.Error())
		}
		return
	}
	for _, a := range changed {
		s.startCheck(ctx, a)
	}
}

func (s *server) DidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.sess.Close(p.TextDocument.URI)
	// Clear what this file showed: clients keep diagnostics until replaced.
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{},
	})
}

// update parses a new version of a document and publishes its diagnostics.
func (s *server) update(ctx context.Context, u protocol.DocumentURI, version int32, text string) error {
	doc, prev := s.sess.Analyze(u, version, text)
	if len(text) >= largeDocument {
		s.release.schedule()
	}
	s.sess.Ensure(doc.Path)
	gen := s.sess.Generation()
	doc.Linted = s.sess.Lint(doc, prev)
	doc.Diagnostics = session.Merge(doc.Syntax, doc.Linted)
	if !s.sess.Store(doc) {
		return nil // a late, older version
	}
	if err := s.publishDiagnostics(ctx, doc); err != nil {
		return err
	}
	if s.sess.Generation() != gen {
		// The index changed while this document was checked, and its
		// own recheck may have missed the document: check again.
		s.recheckOpen(ctx)
	}
	return nil
}
