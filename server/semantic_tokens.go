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
	Full   struct {
		Delta bool `json:"delta"`
	} `json:"full"`
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
	o := semanticTokensOptions{Legend: l, Range: true}
	o.Full.Delta = true
	return o
}

// SemanticTokensFull classifies the SPL in the document's annotation
// strings, or in a whole .spl file (methods, generators, revisions,
// operators, numbers, variables); the Java around the strings is the Java
// language server's.
func (s *server) SemanticTokensFull(_ context.Context, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	sent, _ := s.sess.SendTokens(p.TextDocument.URI, editor.Encode(s.tokens(p.TextDocument.URI)))
	return &protocol.SemanticTokens{ResultID: sent.ID, Data: sent.Data}, nil
}

// SemanticTokensFullDelta answers with the edit from the tokens sent under
// previousResultId to the current ones (after a keystroke a few numbers:
// the full answer of a 1,200-formula file is 100,000), or with all of them
// when that result is not the last sent.
func (s *server) SemanticTokensFullDelta(_ context.Context, p *protocol.SemanticTokensDeltaParams) (any, error) {
	sent, before := s.sess.SendTokens(p.TextDocument.URI, editor.Encode(s.tokens(p.TextDocument.URI)))
	if before.ID == "" || before.ID != p.PreviousResultID {
		return &protocol.SemanticTokens{ResultID: sent.ID, Data: sent.Data}, nil
	}
	start, del, data := editor.TokensEdit(before.Data, sent.Data)
	d := &protocol.SemanticTokensDelta{ResultID: sent.ID, Edits: []protocol.SemanticTokensEdit{}}
	if del > 0 || len(data) > 0 {
		d.Edits = append(d.Edits, protocol.SemanticTokensEdit{Start: uint32(start), DeleteCount: uint32(del), Data: data})
	}
	return d, nil
}

// SemanticTokensRange is SemanticTokensFull for the lines shown.
func (s *server) SemanticTokensRange(_ context.Context, p *protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	ts := editor.InRange(s.tokens(p.TextDocument.URI), fromProtocolRange(p.Range))
	return &protocol.SemanticTokens{Data: editor.Encode(ts)}, nil
}

// tokens are the open document's tokens: of its annotation strings, or
// of the whole text of a .spl file; none for a document not open.
func (s *server) tokens(u protocol.DocumentURI) []editor.Token {
	doc := s.sess.Doc(u)
	switch {
	case doc == nil:
		return nil
	case doc.SPL != nil:
		return s.sess.Highlighter(u).SPLFileTokens(doc.SPL)
	case doc.Java == nil:
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
