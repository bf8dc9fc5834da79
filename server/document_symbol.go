package server

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/editor"
)

// DocumentSymbol outlines the document's performance content: its types,
// the methods with formulas (the formulas as their children) and the
// workload generators (analysis/editor.Symbols). editor.Symbol marshals as
// LSP's DocumentSymbol.
func (s *server) DocumentSymbol(_ context.Context, p *protocol.DocumentSymbolParams) ([]any, error) {
	out := []any{}
	doc := s.sess.Doc(p.TextDocument.URI)
	if doc == nil || doc.Java == nil {
		return out, nil
	}
	for _, sym := range editor.Symbols(doc.Java) {
		out = append(out, sym)
	}
	return out, nil
}
