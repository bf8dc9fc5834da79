package server

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
)

// publishDiagnostics sends the full set for one document — syntax and
// semantic diagnostics of its formulas plus the verdicts of the latest
// check — since LSP clients replace, never merge. The slice is never nil: a
// nil slice would go out as null.
func (s *server) publishDiagnostics(ctx context.Context, doc *document) error {
	s.syncResults()
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
	diags = append(diags, s.verdictDiagnostics(doc)...)
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI:         doc.uri,
		Version:     uint32(doc.version),
		Diagnostics: diags,
	})
}

// verdictDiagnostics puts each violated or undecided formula instance of the
// latest check on the formula's text: violated as a warning, undecided as
// information with its reason. A formula edited since its check is skipped:
// its verdict no longer describes the text.
func (s *server) verdictDiagnostics(doc *document) []protocol.Diagnostic {
	if doc.java == nil {
		return nil
	}
	var out []protocol.Diagnostic
	for _, r := range s.resultsOf(doc.path) {
		for _, in := range r.Instances {
			if in.Outcome == verdict.Satisfied {
				continue
			}
			f := formulaOf(doc, r, in.Formula)
			if f == nil {
				continue
			}
			d := protocol.Diagnostic{
				Range:    toProtocolRange(doc.java.Mapper.Range(f.Value.Span)),
				Severity: protocol.DiagnosticSeverityWarning,
				Code:     "formula-violated",
				Source:   "perfls",
				Message:  instanceMessage(in),
			}
			if in.Outcome == verdict.Undecided {
				d.Severity, d.Code = protocol.DiagnosticSeverityInformation, "formula-undecided"
			}
			out = append(out, d)
		}
	}
	return out
}

func formulaOf(doc *document, r verdict.MethodResult, text string) *workspace.Formula {
	for _, f := range doc.formulas {
		m := f.Method
		if m != nil && m.Type != nil && f.Value != nil && f.Value.Text == text &&
			m.Type.BinaryName == r.Class && m.Name == r.Method && strings.Join(erased(m), ",") == strings.Join(r.Params, ",") {
			return f
		}
	}
	return nil
}

// instanceMessage explains one instance's verdict with its evidence, e.g.
// "violated for n=10000: SELF[w](10000) <= …: 1.40 µs/op vs 16.7 ns/op, …".
func instanceMessage(in verdict.InstanceResult) string {
	var b strings.Builder
	b.WriteString(in.Outcome.String())
	if in.Instance != "" {
		fmt.Fprintf(&b, " for %s", in.Instance)
	}
	for _, c := range in.Comparisons {
		if c.Outcome == verdict.Satisfied && len(in.Comparisons) > 1 {
			continue
		}
		fmt.Fprintf(&b, "\n%s: %s", c.Text, report.Evidence(c))
	}
	return b.String()
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
