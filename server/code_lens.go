package server

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/verdict"
)

// CodeLens puts "Check N formulas" above every method with @SPL formulas;
// the title shows the latest verdicts. Lenses sit zero-width at the method
// name, and carry server-side commands so any client can run them.
func (s *server) CodeLens(_ context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	doc := s.snapshot(p.TextDocument.URI)
	lenses := []protocol.CodeLens{}
	if doc == nil || doc.java == nil {
		return lenses, nil
	}
	results := s.resultsOf(doc.path)
	for _, m := range doc.java.Methods {
		n := 0
		for _, ann := range m.SPL {
			n += len(ann.Formulas)
		}
		if n == 0 || m.Type == nil {
			continue
		}
		args := MethodArgs{URI: doc.uri, Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)}
		title := fmt.Sprintf("▶ Check %d %s", n, plural(n, "formula", "formulas"))
		if r := resultOf(results, args); r != nil {
			title += " · " + summarize([]verdict.MethodResult{*r})
		}
		pos := toProtocolRange(doc.java.Mapper.Range(m.NameSpan)).Start
		lenses = append(lenses, protocol.CodeLens{
			Range:   protocol.Range{Start: pos, End: pos},
			Command: newCheckCommand(title, args),
		})
	}
	return lenses, nil
}

func erased(m *javasrc.Method) []string {
	params := make([]string, len(m.Params))
	for i, p := range m.Params {
		params[i] = p.Erased
	}
	return params
}

func resultOf(results []verdict.MethodResult, a MethodArgs) *verdict.MethodResult {
	for i := range results {
		if sameMethod(results[i], verdict.MethodResult{Class: a.Class, Method: a.Method, Params: a.Params}) {
			return &results[i]
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
