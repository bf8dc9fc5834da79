package server

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/lsp317"
	"github.com/perfls/perfls/server/internal/session"
)

// inlayHints answers textDocument/inlayHint (LSP 3.17, routed in
// lsp317_routes.go): after each measured method's parameter list its
// latest figure ("≈ 1.43 µs ± 2 %"), at the end of each checked formula's
// annotation line its instances' outcome ("✓ satisfied"), both marked
// "(stale)" when the method's source changed since. None when the
// inlayHints setting is off.
func (s *server) inlayHints(_ context.Context, p *lsp317.InlayHintParams) []lsp317.InlayHint {
	out := []lsp317.InlayHint{}
	if !s.settings().InlayHints {
		return out
	}
	doc := s.sess.Doc(p.TextDocument.URI)
	if doc == nil || doc.Java == nil {
		return out
	}
	s.sess.SyncVerdictsEvery(publishSyncInterval)
	snap := s.sess.SnapshotOf(doc)
	rng := fromProtocolRange(p.Range)
	for _, h := range editor.HintsInRange(hintsOf(snap, rng), rng) {
		ih := lsp317.InlayHint{
			Position:    protocol.Position{Line: uint32(h.Position.Line), Character: uint32(h.Position.Character)},
			Label:       h.Label,
			PaddingLeft: h.PaddingLeft,
		}
		if h.Tooltip != "" {
			ih.Tooltip = &protocol.MarkupContent{Kind: protocol.Markdown, Value: h.Tooltip}
		}
		out = append(out, ih)
	}
	return out
}

// hintsOf computes the hints of the methods that reach into the lines of
// rng (the editor's visible lines) from the recorded results; the rest of
// a large file costs nothing.
func hintsOf(snap session.Snapshot, rng textpos.Range) []editor.Hint {
	doc := snap.Doc
	results := snap.Results(doc.Path)
	if len(results) == 0 {
		return nil
	}
	var visible []*javasrc.Method
	in := map[*javasrc.Method]bool{}
	for _, m := range doc.Java.Methods {
		start := m.Span.Start
		for _, a := range m.SPL {
			start = min(start, a.Span.Start) // the annotations, where the outcomes show
		}
		if m.Type == nil || doc.Java.Mapper.Position(start).Line > rng.End.Line || doc.Java.Mapper.Position(m.Span.End).Line < rng.Start.Line {
			continue
		}
		visible = append(visible, m)
		in[m] = true
	}
	formulas := map[*javasrc.Method][]*workspace.Formula{}
	for _, f := range doc.Formulas {
		if in[f.Method] {
			formulas[f.Method] = append(formulas[f.Method], f)
		}
	}
	var out []editor.Hint
	for _, m := range visible {
		r := resultOf(results, MethodArgs{Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)})
		if r == nil {
			continue
		}
		stale := r.Source != "" && r.Source != m.SourceHash(doc.Java)
		if fig, tip, ok := latestFigure(r.Measurements, stale); ok {
			if h, ok := editor.MethodHint(doc.Java, m, editor.FigureLabel(fig)); ok {
				h.Tooltip = tip
				out = append(out, h)
			}
		}
		out = append(out, outcomeHints(doc.Java, formulas[m], r, stale)...)
	}
	return out
}

// latestFigure is the latest measurement's figure; the tooltip lists every
// workload's.
func latestFigure(ms []verdict.Measurement, stale bool) (editor.Figure, string, bool) {
	if len(ms) == 0 {
		return editor.Figure{}, "", false
	}
	last := ms[0]
	var tip strings.Builder
	several := false
	for _, m := range ms {
		if !m.MeasuredAt.Before(last.MeasuredAt) {
			last = m
		}
		several = several || m.Workload != ms[0].Workload || m.Args != ms[0].Args
		tip.WriteString("- " + measurementText(m) + "\n")
	}
	fig := editor.Figure{Mean: last.MeanNs, Unit: "ns", Stale: stale}
	if several {
		fig.On = workloadCall(last)
	}
	if last.MeanNs > 0 && last.CIHighNs > last.CILowNs {
		fig.Relative = (last.CIHighNs - last.CILowNs) / 2 / last.MeanNs
	}
	return fig, tip.String(), true
}

// outcomeHints put each formula string's outcome at the end of its line:
// the worst of its instances' (failed, violated, undecided, satisfied)
// with how many of them had it.
func outcomeHints(file *javasrc.File, formulas []*workspace.Formula, r *verdict.MethodResult, stale bool) []editor.Hint {
	var out []editor.Hint
	seen := map[*javasrc.StringValue]bool{}
	for _, f := range formulas {
		if f.Value == nil || seen[f.Value] {
			continue
		}
		seen[f.Value] = true
		var ins []verdict.InstanceResult
		for _, in := range r.Instances {
			if in.Formula == f.Value.Text {
				ins = append(ins, in)
			}
		}
		if len(ins) == 0 {
			continue
		}
		rank := func(in verdict.InstanceResult) int {
			switch {
			case in.Failed:
				return 3
			case in.Outcome == verdict.Violated:
				return 2
			case in.Outcome == verdict.Undecided:
				return 1
			}
			return 0
		}
		worst, count := ins[0], 0
		for _, in := range ins {
			if rank(in) > rank(worst) {
				worst = in
			}
		}
		var tip strings.Builder
		for _, in := range ins {
			if rank(in) == rank(worst) {
				count++
			}
			tip.WriteString("- " + strings.ReplaceAll(instanceMessage(in), "\n", "\n  ") + "\n")
		}
		h := editor.FormulaHint(file, f.Value, editor.OutcomeLabel(worst.Outcome, worst.Failed, stale, count, len(ins)))
		h.Tooltip = tip.String()
		out = append(out, h)
	}
	return out
}

// refreshInlayHints asks the client to request the hints again (results
// arrived, the setting changed); only clients that declared refreshSupport
// get asked.
func (s *server) refreshInlayHints(ctx context.Context) {
	if !s.view.get().inlayRefresh {
		return
	}
	ctx, cancel := session.UntilDone(ctx, s.conn.Done())
	defer cancel()
	if _, err := s.conn.Call(ctx, lsp317.MethodInlayHintRefresh, nil, nil); err != nil {
		s.logf("%s: %v", lsp317.MethodInlayHintRefresh, err)
	}
}
