package server

import (
	"context"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure/revision"
	"github.com/perfls/perfls/server/internal/session"
)

// CodeAction offers the quick fixes (docs/editor-quickfixes.md) of the
// document's diagnostics that touch the range asked about (lint's and
// syntax's: analysis/editor.Workspace.QuickFixes), of a missing workload
// or import, an unknown revision there, or one a check found unknown,
// each a code action of kind quickfix carrying
// its WorkspaceEdit; and the guards from figures (guard_action.go): of
// kind refactor.rewrite on a measured method, quickfix on a profile
// finding.
func (s *server) CodeAction(_ context.Context, p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	out := []protocol.CodeAction{}
	wants := func(kind protocol.CodeActionKind) bool {
		return len(p.Context.Only) == 0 || slices.ContainsFunc(p.Context.Only, func(k protocol.CodeActionKind) bool {
			return k == "" || k == kind || strings.HasPrefix(string(kind), string(k)+".") // "" asks for every kind, "refactor" for its subkinds
		})
	}
	quick, rewrite := wants(protocol.QuickFix), wants(protocol.RefactorRewrite)
	if !quick && !rewrite {
		return out, nil
	}
	if rewrite {
		s.sess.SyncVerdictsEvery(publishSyncInterval) // the guards read the latest figures, as the inlay hints do
	}
	snap := s.sess.Snapshot(p.TextDocument.URI)
	doc := snap.Doc
	if doc != nil && doc.SPL != nil && quick { // a .spl file: its unknown revisions are what it can repair
		rng := fromProtocolRange(p.Range)
		for _, pr := range s.unknownRevisions(snap) {
			if overlaps(pr.Diagnostic.Range, rng) {
				for _, fx := range pr.Fixes {
					out = append(out, codeAction(fx, pr.Diagnostic))
				}
			}
		}
	}
	if doc == nil || doc.Java == nil {
		return out, nil
	}
	w := fileWorkspace(snap)
	rng := fromProtocolRange(p.Range)
	if quick {
		out = append(out, s.quickFixes(snap, w, rng)...)
		out = append(out, s.findingGuards(snap, w, rng)...) // guard_action.go
	}
	if rewrite {
		out = append(out, s.measurementGuards(snap, w, rng)...)
	}
	return out, nil
}

// quickFixes are the repairs of the diagnostics rng touches.
func (s *server) quickFixes(snap session.Snapshot, w editor.Workspace, rng textpos.Range) []protocol.CodeAction {
	var out []protocol.CodeAction
	doc := snap.Doc
	ext := s.sess.ExternalFor(doc.Path)
	for _, d := range doc.Diagnostics {
		if overlaps(d.Range, rng) {
			for _, fx := range w.QuickFixes(d, ext) {
				out = append(out, codeAction(fx, d))
			}
		}
	}
	for _, pr := range s.editorProblems(snap, w) {
		if overlaps(pr.Diagnostic.Range, rng) {
			for _, fx := range pr.Fixes {
				out = append(out, codeAction(fx, pr.Diagnostic))
			}
		}
	}
	return append(out, s.failedRevisionFixes(snap, w, rng)...)
}

// failedRevisionFixes repair the revisions a check found unknown
// (measure/revision.UnknownError in a failed comparison's reason): the
// formula-failed diagnostic on the formula gets RevisionFixes for each,
// as the unknown-revision diagnostic reported while typing has.
func (s *server) failedRevisionFixes(snap session.Snapshot, w editor.Workspace, rng textpos.Range) []protocol.CodeAction {
	var out []protocol.CodeAction
	var names []string
	for _, vf := range s.verdictFindings(snap) {
		if !vf.instance.Failed || vf.formula == nil || vf.formula.Value == nil || !overlaps(fromProtocolRange(vf.diag.Range), rng) {
			continue
		}
		var seen []string
		for _, c := range vf.instance.Comparisons {
			rev, ok := revision.UnknownName(c.Reason)
			if !ok || slices.Contains(seen, rev) {
				continue
			}
			seen = append(seen, rev)
			if names == nil {
				refs := s.sess.Refs(snap.Doc.Path)
				if refs == nil {
					return out // not listed yet (or outside git): no candidates
				}
				names = refs.Names()
			}
			v := vf.formula.Value
			d := workspace.Diagnostic{Path: snap.Doc.Path, Span: v.DocSpan(textpos.Span{Start: 0, End: len(v.Text)})}
			for _, fx := range w.RevisionFixes(d, rev, names) {
				out = append(out, protocolCodeAction(fx, vf.diag))
			}
		}
	}
	return out
}

// fileWorkspace is what the quick fixes of the snapshot's document read:
// the document over the workspace index.
func fileWorkspace(snap session.Snapshot) editor.Workspace {
	return editor.Workspace{Files: []*javasrc.File{snap.Doc.Java}, Index: snap.Overlay()}
}

// editorProblems are the problems analysis/editor finds itself, with
// their fixes: terms without a workload (published as the document's
// lint: session.Lint), revisions the repository has no ref for
// (published: unknownRevisions) and an @SPL without its import (not
// published: the Java language server reports the unresolved annotation
// already).
func (s *server) editorProblems(snap session.Snapshot, w editor.Workspace) []editor.Problem {
	f := snap.Doc.Java
	ps := w.MissingWorkloadsOf(f, snap.Doc.Formulas)
	if p := editor.MissingImport(f); p != nil {
		ps = append(ps, *p)
	}
	return append(ps, s.unknownRevisions(snap)...)
}

// unknownRevisions are the "@rev" of the snapshot's document that its
// repository's refs do not know; none outside git, and none until the
// session has listed the refs (it never waits for git).
func (s *server) unknownRevisions(snap session.Snapshot) []editor.Problem {
	return s.sess.UnknownRevisions(snap.Doc)
}

// codeAction turns a fix of the diagnostic d into a quickfix.
func codeAction(fx editor.Fix, d workspace.Diagnostic) protocol.CodeAction {
	return protocolCodeAction(fx, toProtocolDiagnostic(d))
}

// protocolCodeAction turns a fix of the published diagnostic d into a
// quickfix.
func protocolCodeAction(fx editor.Fix, d protocol.Diagnostic) protocol.CodeAction {
	return protocol.CodeAction{
		Title:       fx.Title,
		Kind:        protocol.QuickFix,
		Diagnostics: []protocol.Diagnostic{d},
		IsPreferred: fx.Preferred,
		Edit:        workspaceEdit(fx.Edits),
	}
}

// workspaceEdit groups edits by document.
func workspaceEdit(edits []editor.TextEdit) *protocol.WorkspaceEdit {
	we := &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{}}
	for _, e := range edits {
		u := protocol.DocumentURI(uri.File(e.Path))
		we.Changes[u] = append(we.Changes[u], protocol.TextEdit{Range: toProtocolRange(e.Range), NewText: e.NewText})
	}
	return we
}

func toProtocolDiagnostic(d workspace.Diagnostic) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:    toProtocolRange(d.Range),
		Severity: toProtocolSeverity(d.Severity),
		Code:     d.Code,
		Source:   "perfls",
		Message:  d.Message,
	}
}

// overlaps tells whether a and b share a position (an empty range, the
// cursor, touches a range it stands at either end of).
func overlaps(a, b textpos.Range) bool {
	le := func(x, y textpos.Position) bool {
		return x.Line < y.Line || x.Line == y.Line && x.Character <= y.Character
	}
	return le(a.Start, b.End) && le(b.Start, a.End)
}
