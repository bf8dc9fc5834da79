package server

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/server/internal/session"
)

// Actions from figures (docs/editors.md, "Guards from figures"): on a
// measured method "Add an @SPL guard from this measurement", on a profile
// finding "Guard this". The formulas come from analysis/editor; each is
// linted in the edited text before it is offered.

// measurementGuards offers, on each measured method whose annotations or
// signature touch rng, a formula that holds today: against itself at
// HEAD in a git work tree, else against the sibling measured alike that
// bounds it tightest.
func (s *server) measurementGuards(snap session.Snapshot, w editor.Workspace, rng textpos.Range) []protocol.CodeAction {
	doc := snap.Doc
	results := snap.Results(doc.Path)
	if len(results) == 0 {
		return nil
	}
	var out []protocol.CodeAction
	inGit := s.sess.InGitTree(doc.Path)
	for _, m := range doc.Java.Methods {
		if m.Type == nil || !overlaps(methodHeader(doc.Java, m), rng) {
			continue
		}
		self, ok := latestMeasured(doc.Java, m, results)
		if !ok {
			continue
		}
		var g editor.Guard
		if inGit {
			g = editor.HeadGuard(self)
		} else {
			var sibs []editor.Measured
			for _, o := range doc.Java.Methods {
				if o != m && o.Type == m.Type {
					if sm, ok := measuredAlike(doc.Java, o, results, self); ok {
						sibs = append(sibs, sm)
					}
				}
			}
			if g, ok = editor.BestSiblingGuard(self, sibs); !ok {
				continue
			}
		}
		if a, ok := s.guardAction(snap, w, m, g, protocol.RefactorRewrite); ok {
			out = append(out, a)
		}
	}
	return out
}

// findingGuards offers "Guard this" on the profile findings (excessive
// allocation, ramp) on the lines rng touches: the measured method against
// itself at HEAD, so only in a git work tree.
func (s *server) findingGuards(snap session.Snapshot, w editor.Workspace, rng textpos.Range) []protocol.CodeAction {
	doc := snap.Doc
	if !s.sess.InGitTree(doc.Path) {
		return nil
	}
	var out []protocol.CodeAction
	for _, p := range s.allProfiles() {
		for _, f := range p.Report.Findings {
			if f.Kind != profile.FindingAllocation && f.Kind != profile.FindingRamp || sourcePath(p, f.File) != doc.Path {
				continue
			}
			lr, ok := lineRange(doc.Java.Mapper, f.Line)
			if !ok || !overlaps(fromProtocolRange(lr), rng) {
				continue
			}
			m := profiledMethod(doc.Java, p.Method)
			if m == nil {
				continue // the measured method is in another file
			}
			pf := editor.ProfileFinding{Kind: f.Kind, Workload: spelledWorkload(p.Workload, m), Args: profiledArgs(p),
				BytesPerOp: evidence(f, "bytes_per_op"), ChurnBytesPerOp: evidence(f, "object_bytes_per_op"), GrowthOverRun: evidence(f, "growth_over_run")}
			g, ok := editor.FindingGuard(pf)
			if !ok {
				s.logf("guard of %s at %s:%d: its figures give no bound that would have caught it", f.Kind, doc.Path, f.Line)
				continue
			}
			a, ok := s.guardAction(snap, w, m, g, protocol.QuickFix)
			if ok {
				d := protocol.Diagnostic{Range: lr, Severity: protocol.DiagnosticSeverityInformation, Code: f.Kind, Source: "perfls", Message: f.Message}
				a.Diagnostics = []protocol.Diagnostic{d}
				out = append(out, a)
			}
		}
	}
	return out
}

// guardAction inserts g's formula into m, if the edited text lints clean.
func (s *server) guardAction(snap session.Snapshot, w editor.Workspace, m *javasrc.Method, g editor.Guard, kind protocol.CodeActionKind) (protocol.CodeAction, bool) {
	doc := snap.Doc
	edits, ok := editor.InsertFormula(doc.Java, m, g.Formula)
	if !ok {
		s.logf("guard %q for %s: its @SPL has no formulas to add it to", g.Formula, m.Name)
		return protocol.CodeAction{}, false
	}
	diags, err := w.LintInserted(doc.Java, edits, g.Formula, workspace.LintOptions{External: s.sess.ExternalFor(doc.Path), Partial: !snap.Complete})
	if err != nil || len(diags) > 0 {
		why := err
		if why == nil {
			why = diagError(diags[0])
		}
		s.logf("guard %q for %s not offered: %v", g.Formula, m.Name, why)
		return protocol.CodeAction{}, false
	}
	return protocol.CodeAction{Title: g.Title, Kind: kind, Edit: workspaceEdit(edits)}, true
}

type diagError workspace.Diagnostic

func (d diagError) Error() string { return d.Code + ": " + d.Message }

// methodHeader is m's annotations and signature, up to its parameter
// list's end (where the inlay figure stands).
func methodHeader(f *javasrc.File, m *javasrc.Method) textpos.Range {
	r := f.Mapper.Range(textpos.Span{Start: m.Span.Start, End: m.NameSpan.End})
	if h, ok := editor.MethodHint(f, m, ""); ok {
		r.End = h.Position
	}
	return r
}

// latestMeasured is m's latest measurement on a workload, from source
// that has not changed since (a stale figure may not hold today).
func latestMeasured(f *javasrc.File, m *javasrc.Method, results []verdict.MethodResult) (editor.Measured, bool) {
	r := resultOf(results, MethodArgs{Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)})
	if r == nil || r.Source != "" && r.Source != m.SourceHash(f) {
		return editor.Measured{}, false
	}
	var last *verdict.Measurement
	for i, x := range r.Measurements {
		if x.Workload != "" && (last == nil || !x.MeasuredAt.Before(last.MeasuredAt)) {
			last = &r.Measurements[i]
		}
	}
	if last == nil {
		return editor.Measured{}, false
	}
	return measured(m, *last), true
}

// measuredAlike is o's measurement on like's workload and arguments.
func measuredAlike(f *javasrc.File, o *javasrc.Method, results []verdict.MethodResult, like editor.Measured) (editor.Measured, bool) {
	r := resultOf(results, MethodArgs{Class: o.Type.BinaryName, Method: o.Name, Params: erased(o)})
	if r == nil || r.Source != "" && r.Source != o.SourceHash(f) {
		return editor.Measured{}, false
	}
	for _, x := range r.Measurements {
		if mx := measured(o, x); mx.Workload == like.Workload && mx.Args == like.Args {
			return mx, true
		}
	}
	return editor.Measured{}, false
}

func measured(m *javasrc.Method, x verdict.Measurement) editor.Measured {
	return editor.Measured{Method: m.Name, Workload: spelledWorkload(x.Workload, m), Args: x.Args,
		MeanNs: x.MeanNs, CILowNs: x.CILowNs, CIHighNs: x.CIHighNs}
}

// spelledWorkload is a recorded or profiled generator ("sizes",
// "p.C#sizes(int)") as a formula on m spells it: its simple name when it
// is m's class's, else "p.C#sizes". Lint checks that it resolves.
func spelledWorkload(w string, m *javasrc.Method) string {
	w, _, _ = strings.Cut(w, "(")
	if class, name, ok := strings.Cut(w, "#"); ok && class == m.Type.BinaryName {
		return name
	}
	return w
}

// profiledMethod is the method of f a profile measured ("p.C#m(int[])").
func profiledMethod(f *javasrc.File, method string) *javasrc.Method {
	sig, params, _ := strings.Cut(method, "(")
	class, name, ok := strings.Cut(sig, "#")
	if !ok {
		return nil
	}
	params = strings.TrimSuffix(params, ")")
	for _, m := range f.Methods {
		if m.Type != nil && m.Type.BinaryName == class && m.Name == name && strings.Join(erased(m), ",") == strings.ReplaceAll(params, " ", "") {
			return m
		}
	}
	return nil
}

func profiledArgs(p *engine.Profiled) string {
	args := make([]string, len(p.Args))
	for i, a := range p.Args {
		args[i] = a.String()
	}
	return strings.Join(args, ", ")
}

// evidence is a finding's numeric evidence (0 when absent).
func evidence(f profile.Finding, key string) float64 {
	switch v := f.Evidence[key].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return 0
}
