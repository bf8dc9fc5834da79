package server

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
)

// document is an immutable snapshot of an open file: handlers read it
// without locks once they hold the pointer. Edits replace the whole value.
type document struct {
	uri         protocol.DocumentURI
	path        string
	version     int32
	java        *javasrc.File          // nil for .spl files or when parsing failed
	formulas    []*workspace.Formula   // formulas found in the text
	diagnostics []workspace.Diagnostic // syntax and semantic diagnostics
}

func (s *server) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	return s.update(ctx, p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
}

func (s *server) DidChange(ctx context.Context, p *protocol.DidChangeTextDocumentParams) error {
	if len(p.ContentChanges) == 0 {
		return nil
	}
	// Full sync: the last change holds the whole text.
	text := p.ContentChanges[len(p.ContentChanges)-1].Text
	return s.update(ctx, p.TextDocument.URI, p.TextDocument.Version, text)
}

func (s *server) DidSave(context.Context, *protocol.DidSaveTextDocumentParams) error { return nil }

func (s *server) DidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, p.TextDocument.URI)
	s.mu.Unlock()
	// Clear what this file showed: clients keep diagnostics until replaced.
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{},
	})
}

// update parses a new version of a document and publishes its diagnostics.
func (s *server) update(ctx context.Context, u protocol.DocumentURI, version int32, text string) error {
	doc := analyze(u, version, text)
	s.mu.Lock()
	if old := s.docs[u]; old != nil && old.version > version {
		s.mu.Unlock()
		return nil // a late, older version
	}
	s.docs[u] = doc
	s.mu.Unlock()
	return s.publishDiagnostics(ctx, doc)
}

func analyze(u protocol.DocumentURI, version int32, text string) *document {
	path := uri.URI(u).Filename()
	doc := &document{uri: u, path: path, version: version}
	if strings.HasSuffix(path, ".spl") {
		doc.formulas, doc.diagnostics = workspace.SPLFile(path, text)
		return doc
	}
	f, err := javasrc.Parse(path, []byte(text))
	if err != nil {
		return doc
	}
	doc.java = f
	doc.formulas, doc.diagnostics = workspace.JavaFormulas(f)
	return doc
}

func (s *server) snapshot(u protocol.DocumentURI) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[u]
}
