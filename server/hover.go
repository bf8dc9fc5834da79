package server

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/textpos"
)

// Hover documents an @SPL-annotated method: its formulas and the latest
// verdicts perfls recorded for them.
func (s *server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	doc := s.snapshot(p.TextDocument.URI)
	if doc == nil || doc.java == nil {
		return nil, nil
	}
	offset := doc.java.Mapper.Offset(textpos.Position{Line: int(p.Position.Line), Character: int(p.Position.Character)})
	m := doc.java.MethodAt(offset)
	if m == nil || len(m.SPL) == 0 {
		return nil, nil
	}
	s.syncResults()
	md := report.MethodHover(doc.java, m, doc.formulas, s.resultsOf(doc.path))
	rng := toProtocolRange(doc.java.Mapper.Range(m.NameSpan))
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md},
		Range:    &rng,
	}, nil
}

func toProtocolRange(r textpos.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}
