package session

import (
	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
)

// Lint resolves the references of a document's formulas against the
// workspace index overlaid with the open documents (with the terms that
// have no workload to be measured on), and records in doc
// what the next version needs to check only what changed. prev, when not
// nil, is the document's previous version: formulas it checked against
// the same workspace, options and declarations are not checked again
// (workspace.LintReusing). doc is not yet shared: Lint writes it.
func (s *Session) Lint(doc, prev *Document) []workspace.Diagnostic {
	if len(doc.Formulas) == 0 {
		return nil
	}
	w := s.index
	base, complete := w.snapshot()
	open := s.openJava(doc)
	lc := lintContext{base: base, others: map[*javasrc.File]bool{}, ext: w.externalFor(doc.Path), partial: !complete}
	for _, f := range open {
		if f != doc.Java {
			lc.others[f] = true
		}
	}
	var memo *workspace.LintMemo
	if prev != nil && prev.lintMemo != nil && prev.lintContext.same(lc) && workspace.SameDeclarations(prev.Java, doc.Java) {
		memo = prev.lintMemo
	}
	ix := base.With(open)
	diags, next := ix.LintReusing(doc.Formulas, workspace.LintOptions{External: lc.ext, Partial: lc.partial}, memo)
	doc.lintContext, doc.lintMemo = lc, next
	if doc.Java != nil {
		// A term without a workload: lint does not report it, a check
		// fails it, the user is warned while typing (editor.CodeNoWorkload).
		for _, p := range (editor.Workspace{Files: []*javasrc.File{doc.Java}, Index: ix}).MissingWorkloadsOf(doc.Java, doc.Formulas) {
			diags = append(diags, p.Diagnostic)
		}
	}
	return diags
}

// lintContext is what a document's lint results depend on besides the
// document: the workspace index, the other open documents' models, the
// classes outside the workspace and whether the index is complete.
type lintContext struct {
	base    *workspace.Index
	others  map[*javasrc.File]bool
	ext     workspace.External
	partial bool
}

func (a lintContext) same(b lintContext) bool {
	if a.base != b.base || a.partial != b.partial || len(a.others) != len(b.others) || !sameExternal(a.ext, b.ext) {
		return false
	}
	for f := range a.others {
		if !b.others[f] {
			return false
		}
	}
	return true
}

// sameExternal reports whether two lookups are the same objects (a
// combined lookup is a new slice each time).
func sameExternal(a, b workspace.External) bool {
	xa, oka := a.(workspace.Externals)
	xb, okb := b.(workspace.Externals)
	if oka != okb {
		return false
	}
	if !oka {
		return a == b
	}
	if len(xa) != len(xb) {
		return false
	}
	for i := range xa {
		if xa[i] != xb[i] {
			return false
		}
	}
	return true
}
