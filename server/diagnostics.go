package server

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/workspace"
)

// publishDiagnostics sends the full set for one document; LSP clients replace,
// never merge. The slice is never nil: a nil slice would go out as null.
func (s *server) publishDiagnostics(ctx context.Context, doc *document) error {
	diags := make([]protocol.Diagnostic, 0, len(doc.diagnostics))
	for _, d := range doc.diagnostics {
		diags = append(diags, protocol.Diagnostic{
			Range:    toProtocolRange(d.Range),
			Severity: toProtocolSeverity(d.Severity),
			Code:     d.Code,
			Source:   "perfls",
			Message:  d.Message,
		})
	}
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI:         doc.uri,
		Version:     uint32(doc.version),
		Diagnostics: diags,
	})
}

func toProtocolSeverity(s workspace.Severity) protocol.DiagnosticSeverity {
	switch s {
	case workspace.Warning:
		return protocol.DiagnosticSeverityWarning
	case workspace.Information:
		return protocol.DiagnosticSeverityInformation
	case workspace.Hint:
		return protocol.DiagnosticSeverityHint
	default:
		return protocol.DiagnosticSeverityError
	}
}
