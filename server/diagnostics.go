package server

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/server/internal/session"
)

// publishDiagnostics sends the full set for one document — syntax and
// semantic diagnostics of its formulas, the revisions its repository does
// not know, and the verdicts of the latest check — since LSP clients
// replace, never merge. The slice is never nil: a
// nil slice would go out as null.
func (s *server) publishDiagnostics(ctx context.Context, doc *document) error {
	s.sess.SyncVerdictsEvery(publishSyncInterval)
	snap := s.sess.SnapshotOf(doc)
	diags := make([]protocol.Diagnostic, 0, len(doc.Diagnostics))
	for _, d := range doc.Diagnostics {
		diags = append(diags, protocol.Diagnostic{
			Range:    toProtocolRange(d.Range),
			Severity: toProtocolSeverity(d.Severity),
			Code:     d.Code,
			Source:   "perfls",
			Message:  d.Message,
		})
	}
	for _, p := range s.unknownRevisions(snap) {
		diags = append(diags, toProtocolDiagnostic(p.Diagnostic))
	}
	diags = append(diags, s.verdictDiagnostics(snap)...)
	diags = append(diags, s.oracleDiagnostics(ctx, doc)...)
	diags = append(diags, s.profileDiagnostics(doc)...)
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI:         doc.URI,
		Version:     uint32(doc.Version),
		Diagnostics: diags,
	})
}

// verdictDiagnostics puts each violated or undecided formula instance of the
// latest check on the formula's text: violated as a warning (or an error, as
// the settings say), failed (an error left it undecided) as a warning,
// undecided for lack of evidence as information with its reason. A formula edited since its check is skipped:
// its verdict no longer describes the text.
func (s *server) verdictDiagnostics(snap session.Snapshot) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, vf := range s.verdictFindings(snap) {
		out = append(out, vf.diag)
	}
	return out
}

// verdictFinding is a diagnostic of verdictDiagnostics with the formula
// instance it reports (none for a method's stale hint), for the quick
// fixes of a failed one.
type verdictFinding struct {
	diag     protocol.Diagnostic
	formula  *workspace.Formula
	instance verdict.InstanceResult
}

// verdictFindings are verdictDiagnostics with what each reports.
func (s *server) verdictFindings(snap session.Snapshot) []verdictFinding {
	doc := snap.Doc
	if doc.Java == nil {
		return nil
	}
	var out []verdictFinding
	violated := protocol.DiagnosticSeverityWarning
	if s.settings().ViolationError {
		violated = protocol.DiagnosticSeverityError
	}
	related := s.relatedSupported()
	var ix *workspace.Index // built on first need
	results := snap.Results(doc.Path)
	if len(results) == 0 {
		return nil
	}
	// The document's methods by class#name(params), once per publication.
	methods := make(map[string]*javasrc.Method, len(doc.Java.Methods))
	for _, m := range doc.Java.Methods {
		if m.Type != nil {
			methods[m.Type.BinaryName+"#"+m.Name+"("+strings.Join(erased(m), ",")+")"] = m
		}
	}
	for _, r := range results {
		if m := methods[r.Class+"#"+r.Method+"("+strings.Join(r.Params, ",")+")"]; m != nil && r.Source != "" && r.Source != m.SourceHash(doc.Java) {
			// The method changed since its check: say so once, rather
			// than show verdicts that may no longer hold.
			out = append(out, verdictFinding{diag: protocol.Diagnostic{
				Range:    toProtocolRange(doc.Java.Mapper.Range(m.NameSpan)),
				Severity: protocol.DiagnosticSeverityHint,
				Code:     "stale-verdict",
				Source:   "perfls",
				Message:  fmt.Sprintf("%s changed since its formulas were checked (%s): run Check again", m.Name, r.CheckedAt.Local().Format("2006-01-02 15:04")),
			}})
			continue
		}
		for _, in := range r.Instances {
			if in.Outcome == verdict.Satisfied {
				continue
			}
			f := formulaOf(doc, r, in.Formula)
			if f == nil {
				continue
			}
			if revs := relativeRevisions(f); len(revs) > 0 {
				if at, moved := s.sess.HeadMovedSince(doc.Path, r.CheckedAt); moved {
					out = append(out, verdictFinding{diag: protocol.Diagnostic{
						Range: toProtocolRange(doc.Java.Mapper.Range(f.Value.Span)), Severity: protocol.DiagnosticSeverityHint,
						Code: "stale-verdict", Source: "perfls",
						Message: fmt.Sprintf("HEAD moved (%s) since this formula was checked: %s may name other commits now: run Check again",
							at.Local().Format("15:04:05"), strings.Join(revs, ", ")),
					}})
					continue
				}
			}
			d := protocol.Diagnostic{
				Range:    toProtocolRange(doc.Java.Mapper.Range(f.Value.Span)),
				Severity: violated,
				Code:     "formula-violated",
				Source:   "perfls",
				Message:  instanceMessage(in),
			}
			switch {
			case in.Failed:
				d.Severity, d.Code = protocol.DiagnosticSeverityWarning, "formula-failed"
			case in.Outcome == verdict.Undecided:
				d.Severity, d.Code = protocol.DiagnosticSeverityInformation, "formula-undecided"
			}
			if related {
				if ix == nil {
					ix = snap.Overlay()
				}
				d.RelatedInformation = s.otherSides(ix, f)
			}
			out = append(out, verdictFinding{diag: d, formula: f, instance: in})
		}
	}
	return out
}

func formulaOf(doc *document, r verdict.MethodResult, text string) *workspace.Formula {
	for _, f := range doc.Formulas {
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
	b.WriteString(report.Outcome(in))
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

// relatedSupported tells whether the client shows relatedInformation.
func (s *server) relatedSupported() bool {
	td := s.view.get().caps.TextDocument
	return td != nil && td.PublishDiagnostics != nil && td.PublishDiagnostics.RelatedInformation
}

// otherSides points at the declarations of the methods a formula compares
// its method with: the other side of each comparison.
func (s *server) otherSides(ix *workspace.Index, f *workspace.Formula) []protocol.DiagnosticRelatedInformation {
	out := []protocol.DiagnosticRelatedInformation{}
	if f.Parsed == nil {
		return out
	}
	seen := map[*javasrc.Method]bool{}
	for _, t := range spl.Terms(f.Parsed.Body) {
		if t == nil || t.Method == nil || t.Method.Self {
			continue
		}
		target, err := ix.ResolveMethod(f, t.Method)
		if err != nil || target.Decl == nil || target.Decl == f.Method || seen[target.Decl] {
			continue
		}
		seen[target.Decl] = true
		d, ok := s.locate(ix, target.Decl)
		if !ok {
			continue
		}
		out = append(out, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri.File(d.path), Range: toProtocolRange(d.rng)},
			Message:  fmt.Sprintf("compared with %s", target),
		})
	}
	return out
}
