package server

import (
	"context"
	"fmt"

	"strings"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/server/internal/session"
)

// CodeLens puts the lenses the "lenses" setting lists (DefaultLenses:
// measure and check) above methods: "Measure" above every method with
// workloads (@Workload, or formulas measuring SELF on a generator), "Check
// N formulas" above every method with @SPL formulas, Profile, Compare and
// Calibrate when listed, and the bounds oracle's state above every
// calibrated method; titles show the latest results. Lenses sit
// zero-width at the method name, and carry server-side commands so any
// client can run them. When measuring is not allowed, the lenses still show
// the recorded results but carry no action.
func (s *server) CodeLens(reqCtx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	// The store's reads finish even when the request is cancelled: what
	// they read is cached for the next request.
	ctx := context.WithoutCancel(reqCtx)
	lenses := []protocol.CodeLens{}
	if d := s.sess.Doc(p.TextDocument.URI); d == nil || d.Java == nil {
		return lenses, nil
	}
	s.sess.SyncVerdicts()
	snap := s.sess.Snapshot(p.TextDocument.URI)
	doc := snap.Doc
	if doc == nil || doc.Java == nil {
		return lenses, nil
	}
	cfg := s.settings()
	allowed := cfg.AllowMeasuring
	results := snap.Results(doc.Path)
	oracleKeys := s.sess.OracleKeys(ctx)
	for _, m := range doc.Java.Methods {
		if m.Type == nil {
			continue
		}
		n := formulaCount(doc, m)
		measurable := len(m.Workloads) > 0 || measuresSelf(doc, m)
		entries := s.oracleEntries(ctx, oracleKeys, m)
		if n == 0 && !measurable && len(entries) == 0 {
			continue
		}
		args := MethodArgs{URI: doc.URI, Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)}
		r := resultOf(results, args)
		stale := r != nil && r.Source != "" && r.Source != m.SourceHash(doc.Java)
		pos := toProtocolRange(doc.Java.Mapper.Range(m.NameSpan)).Start
		at := protocol.Range{Start: pos, End: pos}
		if measurable && cfg.showsLens("measure") {
			title := "▶ Measure"
			if r != nil && len(r.Measurements) > 0 {
				title += " · " + measurementsTitle(r.Measurements)
				if stale {
					title += " (stale)"
				}
			}
			lenses = append(lenses, protocol.CodeLens{Range: at, Command: action(allowed, newMeasureCommand(title, args))})
		}
		if measurable && s.opts.Actions != nil {
			if cfg.showsLens("profile") {
				lenses = append(lenses, s.profileLens(args, at, allowed))
			}
			if cfg.showsLens("compare") && s.sess.InGitTree(doc.Path) {
				lenses = append(lenses, s.compareLens(args, at, allowed))
			}
		}
		if len(entries) > 0 || cfg.showsLens("calibrate") { // a calibrated method's oracle state always shows
			lenses = append(lenses, s.oracleLenses(entries, args, at, allowed, measurable)...)
		}
		if n > 0 && cfg.showsLens("check") {
			title := fmt.Sprintf("▶ Check %d %s", n, plural(n, "formula", "formulas"))
			if r != nil && len(r.Instances) > 0 {
				title += " · " + summarize([]verdict.MethodResult{*r})
				if stale {
					title += " (stale)"
				}
			}
			lenses = append(lenses, protocol.CodeLens{Range: at, Command: action(allowed, newCheckCommand(title, args))})
		}
	}
	return lenses, nil
}

// formulaCount counts m's formulas: the parsed ones, or, when none parse
// (the user is typing), its formula strings.
func formulaCount(doc *document, m *javasrc.Method) int {
	n := 0
	for _, f := range doc.Formulas {
		if f.Method == m {
			n++
		}
	}
	if n == 0 {
		for _, ann := range m.SPL {
			for _, v := range ann.Formulas {
				if !strings.Contains(v.Text, ":=") {
					n++
				}
			}
		}
	}
	return n
}

// action keeps a lens's command when measuring is allowed; otherwise the
// lens only shows its title (a command without an id runs nothing).
func action(allowed bool, c *protocol.Command) *protocol.Command {
	if allowed {
		return c
	}
	return &protocol.Command{Title: strings.TrimPrefix(c.Title, "▶ ") + " (measuring disabled)"}
}

// measuresSelf tells whether a formula of m measures m itself on a
// generator: then "Measure" has a workload to run it on.
func measuresSelf(doc *document, m *javasrc.Method) bool {
	for _, f := range doc.Formulas {
		if f.Method != m || f.Parsed == nil {
			continue
		}
		for _, t := range spl.Terms(f.Parsed.Body) {
			if t.Method != nil && t.Method.Self && t.Generator != nil {
				return true
			}
		}
	}
	return false
}

// measurementsTitle shows the latest figures in a lens title: one
// measurement as "12.3 µs/op ±1.1 %", several by argument, at most three.
func measurementsTitle(ms []verdict.Measurement) string {
	if len(ms) == 1 {
		return measurementFigure(ms[0])
	}
	var parts []string
	for i, m := range ms {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("+%d more", len(ms)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s: %s", m.Args, measurementFigure(m)))
	}
	return strings.Join(parts, " · ")
}

// measurementFigure is "12.3 µs/op ±1.1 %": the mean and the half-width of
// its 95 % interval relative to it.
func measurementFigure(m verdict.Measurement) string {
	s := report.Duration(m.MeanNs) + "/op"
	if m.MeanNs > 0 && m.CIHighNs > m.CILowNs {
		s += fmt.Sprintf(" ±%.1f %%", (m.CIHighNs-m.CILowNs)/2/m.MeanNs*100)
	}
	return s
}

// measurementText names the workload too: "lookups(10000): 12.3 µs/op ±1.1 %".
func measurementText(m verdict.Measurement) string {
	return workloadCall(m) + ": " + measurementFigure(m)
}

// workloadCall names what a measurement ran: the generator's simple name
// with the arguments, "lookups(100000)".
func workloadCall(m verdict.Measurement) string {
	w := m.Workload
	if i := strings.LastIndexAny(w, "#."); i >= 0 {
		w = w[i+1:]
	}
	return w + "(" + m.Args + ")"
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
		if session.SameMethod(results[i], verdict.MethodResult{Class: a.Class, Method: a.Method, Params: a.Params}) {
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
