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
	"github.com/perfls/perfls/server/internal/session"
)

// CodeAction offers the quick fixes (docs/editor-quickfixes.md) of the
// document's diagnostics that touch the range asked about (lint's and
// syntax's: analysis/editor.Workspace.QuickFixes) and of a missing
// workload or import there, each a code action of kind quickfix carrying
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
	for _, pr := range editorProblems(w, doc.Java) {
		if overlaps(pr.Diagnostic.Range, rng) {
			for _, fx := range pr.Fixes {
				out = append(out, codeAction(fx, pr.Diagnostic))
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

// editorProblems are the problems analysis/editor finds itself: terms
// without a workload and an @SPL without its import. Neither is published
// as a diagnostic: a formula without a workload is not flagged as the user
// types (testdata/markers/diagnostics.txtar; perfls check fails it), and
// the Java language server reports the unresolved annotation already.
// Their fixes are offered as code actions where they stand.
func editorProblems(w editor.Workspace, f *javasrc.File) []editor.Problem {
	ps := w.MissingWorkloads(f)
	if p := editor.MissingImport(f); p != nil {
		ps = append(ps, *p)
	}
	return ps
}

// codeAction turns a fix of the diagnostic d into a quickfix.
func codeAction(fx editor.Fix, d workspace.Diagnostic) protocol.CodeAction {
	return protocol.CodeAction{
		Title:       fx.Title,
		Kind:        protocol.QuickFix,
		Diagnostics: []protocol.Diagnostic{toProtocolDiagnostic(d)},
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
