package server

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/analysis/textpos"
)

// semanticTokensOptions is the semanticTokensProvider capability:
// go.lsp.dev/protocol v0.12.0's SemanticTokensOptions lacks the legend,
// full and range (the specification's fields).
type semanticTokensOptions struct {
	Legend protocol.SemanticTokensLegend `json:"legend"`
	Range  bool                          `json:"range"`
	Full   bool                          `json:"full"`
}

// semanticTokensProvider advertises the SPL highlighting inside annotation
// strings, with analysis/editor's legend (standard type names, so every
// theme colours them).
func semanticTokensProvider() semanticTokensOptions {
	l := protocol.SemanticTokensLegend{TokenTypes: []protocol.SemanticTokenTypes{}, TokenModifiers: []protocol.SemanticTokenModifiers{}}
	for _, t := range editor.TokenTypes {
		l.TokenTypes = append(l.TokenTypes, protocol.SemanticTokenTypes(t))
	}
	for _, m := range editor.TokenModifiers {
		l.TokenModifiers = append(l.TokenModifiers, protocol.SemanticTokenModifiers(m))
	}
	return semanticTokensOptions{Legend: l, Range: true, Full: true}
}

// SemanticTokensFull classifies the SPL in the document's annotation
// strings (methods, generators, revisions, operators, numbers, variables);
// the Java around them is the Java language server's.
func (s *server) SemanticTokensFull(_ context.Context, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	return &protocol.SemanticTokens{Data: editor.Encode(s.tokens(p.TextDocument.URI))}, nil
}

// SemanticTokensRange is SemanticTokensFull for the lines shown.
func (s *server) SemanticTokensRange(_ context.Context, p *protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	ts := editor.InRange(s.tokens(p.TextDocument.URI), fromProtocolRange(p.Range))
	return &protocol.SemanticTokens{Data: editor.Encode(ts)}, nil
}

// tokens are the open document's tokens; none for a .spl file or one not
// open.
func (s *server) tokens(u protocol.DocumentURI) []editor.Token {
	doc := s.sess.Doc(u)
	if doc == nil || doc.Java == nil {
		return nil
	}
	return s.sess.Highlighter(u).Tokens(doc.Java)
}

func fromProtocolRange(r protocol.Range) textpos.Range {
	return textpos.Range{
		Start: textpos.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
		End:   textpos.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
	}
}
