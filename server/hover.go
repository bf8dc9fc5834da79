package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/server/internal/session"
)

// Hover documents, on a formula's method, generator, alias or variable,
// what it resolves to; elsewhere in a method with perfls annotations, the
// method: its formulas, its measurements, the latest verdicts, and its
// @SeeAlso methods side by side.
func (s *server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	snap := s.sess.Snapshot(p.TextDocument.URI)
	doc := snap.Doc
	if f, r, rng := refAt(doc, p.Position); r != nil {
		md := s.refHover(snap, f, r)
		if rev := s.revisionHover(ctx, doc, f, r); rev != "" {
			md = strings.TrimRight(md, "\n") + "\n\n" + rev
		}
		return &protocol.Hover{
			Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md},
			Range:    &rng,
		}, nil
	}
	if doc == nil || doc.Java == nil {
		return nil, nil
	}
	offset := doc.Java.Mapper.Offset(textpos.Position{Line: int(p.Position.Line), Character: int(p.Position.Character)})
	m := doc.Java.MethodAt(offset)
	if m != nil && m.Generator != nil && len(m.SPL) == 0 && len(m.Workloads) == 0 && len(m.SeeAlso) == 0 {
		rng := toProtocolRange(doc.Java.Mapper.Range(m.NameSpan))
		return &protocol.Hover{
			Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: generatorHover(m)},
			Range:    &rng,
		}, nil
	}
	if m == nil {
		return nil, nil
	}
	if offset < m.NameSpan.Start || offset > m.NameSpan.End {
		// Inside the method, on a line a profile measured: that line.
		line := int(p.Position.Line) + 1
		if md := s.hotLineHover(ctx, doc, m, line); md != "" {
			rng, _ := lineRange(doc.Java.Mapper, line)
			return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &rng}, nil
		}
	}
	if len(m.SPL) == 0 && len(m.Workloads) == 0 && len(m.SeeAlso) == 0 {
		// A method calibrated or profiled from the command line, or
		// measured for another's formula: its oracle, its profile and
		// its regressions alone.
		o := strings.TrimSpace(s.oracleHover(ctx, m) + "\n\n" + s.profileHover(ctx, doc, m) + "\n\n" + s.modelHover(ctx, doc, m) + "\n\n" + s.regressionHover(ctx, doc, m))
		if o == "" {
			return nil, nil
		}
		rng := toProtocolRange(doc.Java.Mapper.Range(m.NameSpan))
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: o}, Range: &rng}, nil
	}
	s.sess.SyncVerdicts()
	snap = s.sess.SnapshotOf(doc) // with the verdicts just read
	results := snap.Results(doc.Path)
	md := report.MethodHover(doc.Java, m, doc.Formulas, results)
	if len(m.SeeAlso) > 0 {
		md = strings.TrimRight(md, "\n") + "\n\n" + seeAlso(snap, m, results)
	}
	if o := s.oracleHover(ctx, m); o != "" {
		md = strings.TrimRight(md, "\n") + "\n\n" + o
	}
	if p := s.profileHover(ctx, doc, m); p != "" {
		md = strings.TrimRight(md, "\n") + "\n\n" + p
	}
	if p := s.modelHover(ctx, doc, m); p != "" {
		md = strings.TrimRight(md, "\n") + "\n\n" + p
	}
	if r := s.regressionHover(ctx, doc, m); r != "" {
		md = strings.TrimRight(md, "\n") + "\n\n" + r
	}
	rng := toProtocolRange(doc.Java.Mapper.Range(m.NameSpan))
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md},
		Range:    &rng,
	}, nil
}

// seeAlso renders m's @SeeAlso methods beside m, from the recorded
// measurements.
func seeAlso(snap session.Snapshot, m *javasrc.Method, results []verdict.MethodResult) string {
	doc := snap.Doc
	var own []verdict.Measurement
	if r := resultOf(results, MethodArgs{Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)}); r != nil {
		own = r.Measurements
	}
	ix := snap.Overlay()
	at := &workspace.Formula{Path: doc.Path, File: doc.Java, Method: m}
	all := snap.AllResults()
	var cols []report.SeeAlsoColumn
	for _, v := range m.SeeAlso {
		col := report.SeeAlsoColumn{Name: v.Text}
		ref, ds := spl.ParseMethod(strings.TrimSpace(v.Text))
		if ref == nil || len(ds) > 0 {
			col.Problem = "not a method reference (write pkg.Class#method or pkg.Class.method(types))"
			cols = append(cols, col)
			continue
		}
		t, err := ix.ResolveMethod(at, ref)
		if err != nil {
			col.Problem = err.Error()
			cols = append(cols, col)
			continue
		}
		col.Name = shortTarget(t)
		for _, r := range all {
			if session.SameMethod(r, verdict.MethodResult{Class: t.Class, Method: t.Method, Params: t.Params}) ||
				(t.Params == nil && r.Class == t.Class && r.Method == t.Method) {
				col.Measurements = r.Measurements
				break
			}
		}
		cols = append(cols, col)
	}
	return report.SeeAlso("this: "+m.Name, own, cols)
}

// generatorHover documents a workload generator: its description and a
// table of its documented parameters.
func generatorHover(m *javasrc.Method) string {
	var b strings.Builder
	name := m.Signature()
	if m.Type != nil {
		name = m.Type.BinaryName + "#" + name
	}
	fmt.Fprintf(&b, "**perfls** generator `%s`\n\n", name)
	g := m.Generator
	if g.Name != nil && g.Name.Text != "" {
		fmt.Fprintf(&b, "name: %s\n\n", g.Name.Text)
	}
	if g.Description != nil && g.Description.Text != "" {
		b.WriteString(g.Description.Text + "\n\n")
	}
	documented := false
	for _, p := range g.Params {
		documented = documented || p.Label != nil || p.Min != nil || p.Max != nil || p.Step != nil
	}
	if !documented {
		return b.String()
	}
	b.WriteString("| parameter | meaning | range |\n|---|---|---|\n")
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'g', -1, 64) }
	for _, p := range g.Params {
		label, rng := "", ""
		if p.Label != nil {
			label = p.Label.Text
		}
		switch {
		case p.Min != nil && p.Max != nil:
			rng = num(p.Min) + " … " + num(p.Max)
		case p.Min != nil:
			rng = "≥ " + num(p.Min)
		case p.Max != nil:
			rng = "≤ " + num(p.Max)
		}
		if p.Step != nil {
			rng += ", step " + num(p.Step)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.Param, label, rng)
	}
	return b.String()
}

// shortTarget is "Class#method" without the package.
func shortTarget(t workspace.Target) string {
	cls := t.Class
	if i := strings.LastIndexAny(cls, "."); i >= 0 {
		cls = cls[i+1:]
	}
	return cls + "#" + t.Method
}

func toProtocolRange(r textpos.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}
