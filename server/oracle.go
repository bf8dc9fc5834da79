package server

// The bounds oracle in the editor (docs/oracle.md): a lens to calibrate a
// method's workloads and one to accept the latest run as the new baseline,
// an oracle section in the method's hover, and a diagnostic when the latest
// classified run of one of its workloads failed. The models and results
// live in the verdict cache (cache/oracle.go); calibrating measures through
// the engine (Actions.CalibrateMethod).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/perfls/perfls/analysis/methodspec"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/server/internal/session"
)

// OracleArgs is the argument of CommandCalibrate and CommandAcceptBaseline:
// the method, the number of calibration forks (0: engine.DefaultCalibrationForks)
// and, for accepting, the calibrated workload (nil: every workload of the
// method whose latest run failed).
type OracleArgs struct {
	MethodArgs
	Forks int              `json:"forks,omitempty"`
	Key   *cache.OracleKey `json:"key,omitempty"`
}

// oracleEntry is one calibrated workload of a method with its model and
// latest classified run, as the session read it.
type oracleEntry = session.OracleEntry

// oracleEntries are the calibrated workloads among keys of m.
func (s *server) oracleEntries(ctx context.Context, keys []cache.OracleKey, m *javasrc.Method) []oracleEntry {
	if m == nil || m.Type == nil {
		return nil
	}
	return s.sess.OracleEntries(ctx, keys, methodspec.Spec{Class: m.Type.BinaryName, Name: m.Name, Params: erased(m)})
}

// oracleLabel names a calibrated workload briefly: "gen(100)", or "(100)"
// without a generator.
func oracleLabel(k cache.OracleKey) string {
	w, _, _ := strings.Cut(k.Workload, "(")
	if i := strings.LastIndexAny(w, "#."); i >= 0 {
		w = w[i+1:]
	}
	return w + "(" + k.Args + ")"
}

func modelSize(m *oracle.Model) string {
	s := fmt.Sprintf("%d %s", len(m.Runs), plural(len(m.Runs), "run", "runs"))
	if m.Provisional {
		s += ", provisional"
	}
	return s
}

// oracleLenses are the oracle's lenses of one method: "Calibrate" on a
// method with workloads when the server can calibrate or the method is
// calibrated (its title then shows the oracle's state), the state alone on
// a calibrated method without workloads in its source, and "Accept latest
// run as baseline" per workload whose latest run failed. They carry no
// action when measuring is not allowed.
func (s *server) oracleLenses(entries []oracleEntry, args MethodArgs, at protocol.Range, allowed, measurable bool) []protocol.CodeLens {
	var out []protocol.CodeLens
	canCalibrate := s.opts.Actions != nil
	if measurable && ((canCalibrate && s.sess.Records() != nil) || len(entries) > 0) {
		title := fmt.Sprintf("▶ Calibrate (%d forks)", engine.DefaultCalibrationForks)
		if len(entries) > 0 {
			var parts []string
			for i, e := range entries {
				if i == 3 {
					parts = append(parts, fmt.Sprintf("+%d more", len(entries)-3))
					break
				}
				p := fmt.Sprintf("%s (%s)", e.State(), modelSize(e.Model.Model))
				if len(entries) > 1 {
					p = oracleLabel(e.Key) + " " + p
				}
				parts = append(parts, p)
			}
			title = "▶ Recalibrate · oracle: " + strings.Join(parts, " · ")
		}
		lens := protocol.CodeLens{Range: at, Command: action(allowed, newCalibrateCommand(title, OracleArgs{MethodArgs: args}))}
		out = append(out, lens)
	} else if len(entries) > 0 {
		// Calibrated from the command line on workloads the source does
		// not name: the state, without a Recalibrate the editor could not
		// carry out.
		var parts []string
		for _, e := range entries {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", oracleLabel(e.Key), e.State(), modelSize(e.Model.Model)))
		}
		out = append(out, protocol.CodeLens{Range: at, Command: &protocol.Command{
			Title: "oracle: " + strings.Join(parts, " · ") + " · recalibrate with perfls calibrate"}})
	}
	for _, e := range entries {
		if !e.Failed() {
			continue
		}
		title := "Accept latest run as baseline"
		if len(entries) > 1 {
			title += " · " + oracleLabel(e.Key)
		}
		k := e.Key
		out = append(out, protocol.CodeLens{Range: at, Command: action(allowed, newAcceptBaselineCommand(title, OracleArgs{MethodArgs: args, Key: &k}))})
	}
	return out
}

// oracleHover renders the oracle section of a method's hover: per
// calibrated workload its state, model size and, per metric, the band and
// the latest run's finding. "" when the method is not calibrated.
func (s *server) oracleHover(ctx context.Context, m *javasrc.Method) string {
	entries := s.oracleEntries(ctx, s.sess.OracleKeys(ctx), m)
	if len(entries) == 0 {
		return ""
	}
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteString("\n")
		}
		writeOracleEntry(&b, e)
	}
	return b.String()
}

func writeOracleEntry(b *strings.Builder, e oracleEntry) {
	mod := e.Model.Model
	fmt.Fprintf(b, "**Bounds oracle** `%s`: **%s** — model of %d %s", oracleLabel(e.Key), e.State(), len(mod.Runs), plural(len(mod.Runs), "run", "runs"))
	if mod.Provisional {
		fmt.Fprintf(b, " (provisional: fewer than %d)", oracle.MinRuns)
	}
	fmt.Fprintf(b, ", calibrated %s", e.Model.CreatedAt.Local().Format("2006-01-02 15:04"))
	if e.Latest != nil {
		fmt.Fprintf(b, "; latest run %s (%s%s)", e.Latest.CheckedAt.Local().Format("2006-01-02 15:04"), e.Latest.Source, batchNote(e.Latest))
	}
	b.WriteString("\n\n")
	var res *oracle.Result // the findings shown: none once accepted into the model
	if e.Latest != nil && !e.Accepted() {
		res = &e.Latest.Result
	}
	if res != nil && res.Verdict == oracle.NotApplicable {
		b.WriteString("The latest run's environment differs from calibration, so the oracle does not judge it:\n\n")
		for _, d := range res.EnvDiffs {
			fmt.Fprintf(b, "- %s\n", mdEscape(d.String()))
		}
		b.WriteString("\n")
	}
	findings := map[string]oracle.MetricFinding{}
	if res != nil && res.Verdict != oracle.NotApplicable {
		for _, f := range res.Metrics {
			findings[f.Metric] = f
		}
	}
	b.WriteString("| metric | typical | band ± | latest run |\n|---|---|---|---|\n")
	for _, met := range mod.Metrics {
		typical, half := met.Typical()
		rel := ""
		if typical != 0 {
			rel = fmt.Sprintf(" (%.1f %%)", 100*half/math.Abs(typical))
		}
		latest := "—"
		if f, ok := findings[met.Name]; ok {
			latest = findingCell(f)
		} else if res != nil && res.Verdict != oracle.NotApplicable {
			latest = "not measured"
		}
		fmt.Fprintf(b, "| %s | %s | %s%s | %s |\n", met.Name, metricValue(met.Name, typical), metricValue(met.Name, half), rel, latest)
	}
}

// findingCell is one metric's finding in a table cell: "**fail**: 12/22
// points outside (first #3: 1.5 kB above [1 kB, 1.1 kB])", "pass", or the
// points outside the band when they do not fail the metric.
func findingCell(f oracle.MetricFinding) string {
	var s string
	switch {
	case f.Failed:
		s = "**fail**"
	case len(f.Violations) > 0:
		s = "pass"
	default:
		s = fmt.Sprintf("pass, within at all %d points", f.Compared)
	}
	if len(f.Violations) > 0 {
		v := f.Violations[0]
		dir := "below"
		if v.Above {
			dir = "above"
		}
		s += fmt.Sprintf(": %d/%d points outside (first #%d: %s %s [%s, %s])", len(f.Violations), f.Compared, v.Index,
			metricValue(f.Metric, v.Value), dir, metricValue(f.Metric, v.Lo), metricValue(f.Metric, v.Hi))
	}
	if f.LengthDiffers {
		s += fmt.Sprintf("; run of %d points, model of %d", f.RunPoints, f.ModelPoints)
	}
	return s
}

// metricValue formats a value of a metric with its unit.
func metricValue(metric string, v float64) string {
	switch metric {
	case "ns_per_op", "cpu_ns_per_op":
		return report.Duration(v)
	case "alloc_bytes_per_op", "heap_used":
		return fmt.Sprintf("%.4g B", v)
	case "gc_ms", "jit_ms":
		return fmt.Sprintf("%.4g ms", v)
	default:
		return fmt.Sprintf("%.4g", v)
	}
}

// mdEscape keeps table and list text literal.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`").Replace(s)
}

// oracleDiagnostics puts, on the name of each method whose latest oracle
// run failed, a warning with the failing metrics' findings, and when the
// run's environment differs from calibration, information saying why the
// oracle did not judge it.
func (s *server) oracleDiagnostics(ctx context.Context, doc *document) []protocol.Diagnostic {
	if doc.Java == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // a publication outlives its request
	keys := s.sess.OracleKeys(ctx)
	if len(keys) == 0 {
		return nil
	}
	var out []protocol.Diagnostic
	for _, m := range doc.Java.Methods {
		for _, e := range s.oracleEntries(ctx, keys, m) {
			if e.Latest == nil || e.Accepted() {
				continue
			}
			rng := toProtocolRange(doc.Java.Mapper.Range(m.NameSpan))
			res := e.Latest.Result
			when := fmt.Sprintf("%s%s, %s", e.Latest.Source, batchNote(e.Latest), e.Latest.CheckedAt.Local().Format("2006-01-02 15:04"))
			switch res.Verdict {
			case oracle.Fail:
				var lines []string
				for _, f := range res.Metrics {
					if f.Failed {
						lines = append(lines, f.Summary())
					}
				}
				out = append(out, protocol.Diagnostic{
					Range: rng, Severity: protocol.DiagnosticSeverityWarning, Code: "oracle-fail", Source: "perfls",
					Message: fmt.Sprintf("bounds oracle: the latest run of %s (%s) left its calibrated behaviour (%s)\n%s",
						oracleLabel(e.Key), when, modelSize(e.Model.Model), strings.Join(lines, "\n")),
				})
			case oracle.NotApplicable:
				var diffs []string
				for _, d := range res.EnvDiffs {
					diffs = append(diffs, d.String())
				}
				out = append(out, protocol.Diagnostic{
					Range: rng, Severity: protocol.DiagnosticSeverityInformation, Code: "oracle-not-applicable", Source: "perfls",
					Message: fmt.Sprintf("bounds oracle not applicable to the latest run of %s (%s): its environment differs from calibration: %s",
						oracleLabel(e.Key), when, strings.Join(diffs, "; ")),
				})
			}
		}
	}
	return out
}

// executeOracle runs perfls.calibrate and perfls.acceptBaseline; ok is
// false for other commands.
func (s *server) executeOracle(ctx context.Context, p *protocol.ExecuteCommandParams) (result any, ok bool, err error) {
	if p.Command != CommandCalibrate && p.Command != CommandAcceptBaseline {
		return nil, false, nil
	}
	var args OracleArgs
	if err := decodeArg(p, &args); err != nil {
		return nil, true, err
	}
	if args.Class == "" || args.Method == "" {
		return nil, true, invalidParams("%s: the argument needs class and method (got %+v)", p.Command, args.MethodArgs)
	}
	if s.sess.Records() == nil {
		return nil, true, fmt.Errorf("%s: this server has no cache for the bounds oracle", p.Command)
	}
	// Accepting measures nothing, but it changes what the oracle accepts
	// in this workspace: like the editor's trust gate, it needs measuring
	// to be allowed.
	if !s.settings().AllowMeasuring {
		return nil, true, fmt.Errorf("%s: %w", p.Command, errMeasuringDisabled)
	}
	if p.Command == CommandAcceptBaseline {
		msg, err := s.acceptBaseline(ctx, args)
		return msg, true, err
	}
	if s.opts.Actions == nil {
		return nil, true, fmt.Errorf("%s: measuring is not enabled in this server", p.Command)
	}
	if args.URI == "" {
		return nil, true, invalidParams("%s: the argument needs uri", p.Command)
	}
	if args.Forks == 0 {
		args.Forks = engine.DefaultCalibrationForks
	}
	if args.Forks < 2 {
		return nil, true, invalidParams("%s: forks must be ≥ 2 (got %d)", p.Command, args.Forks)
	}
	return started(s.startCalibrate(ctx, args)), true, nil
}

// acceptBaseline accepts the latest run of one calibrated workload (or of
// every workload of the method whose latest run failed) into its model,
// then republishes diagnostics and refreshes the lenses.
func (s *server) acceptBaseline(ctx context.Context, args OracleArgs) (string, error) {
	var keys []cache.OracleKey
	if args.Key != nil {
		keys = []cache.OracleKey{*args.Key}
	} else {
		for _, k := range s.sess.OracleKeys(ctx) {
			if !(methodspec.Spec{Class: args.Class, Name: args.Method, Params: args.Params}).Matches(k.Method) {
				continue
			}
			if e, ok := s.sess.OracleEntry(ctx, k); ok && e.Failed() {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return "", fmt.Errorf("%s: %s#%s has no failed oracle run to accept", CommandAcceptBaseline, args.Class, args.Method)
		}
	}
	var done []string
	var errs []error
	records := s.sess.Records()
	for _, k := range keys {
		m, id, err := records.AcceptLatestOracleRun(ctx, k)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", CommandAcceptBaseline, err))
			continue
		}
		done = append(done, fmt.Sprintf("accepted run %d of %s as baseline (model of %s)", id, oracleLabel(k), modelSize(m)))
	}
	bg := context.WithoutCancel(ctx)
	s.sess.SyncVerdicts()
	s.republishOpen(bg)
	s.refreshCodeLenses(bg)
	return strings.Join(done, "; "), errors.Join(errs...)
}

// startCalibrate queues a calibration of a method's workloads as a
// measuring job: one at a time with checks and measurements, cancellable
// from its progress item, cancelled on shutdown.
func (s *server) startCalibrate(ctx context.Context, args OracleArgs) bool {
	label := args.Class + "#" + args.Method
	key := "calibrating " + label + "(" + strings.Join(args.Params, ",") + ")"
	req := s.request(args.MethodArgs)
	what := fmt.Sprintf("calibrating %s (%d forks)", label, args.Forks)
	return s.runQueued(ctx, key, what, func(jobCtx context.Context, say func(string)) (string, func(context.Context), error) {
		keys, err := s.opts.Actions.CalibrateMethod(jobCtx, req, args.Forks, say)
		if err != nil {
			return "", nil, err
		}
		var parts []string
		for _, k := range keys {
			if e, ok := s.sess.OracleEntry(context.WithoutCancel(jobCtx), k); ok {
				parts = append(parts, fmt.Sprintf("%s: %s", oracleLabel(k), modelSize(e.Model.Model)))
			}
		}
		publish := func(bg context.Context) {
			s.sess.SyncVerdicts()
			s.republishOpen(bg)
			s.refreshCodeLenses(bg)
		}
		if len(parts) == 0 {
			return "nothing calibrated", publish, nil
		}
		return "calibrated " + strings.Join(parts, "; "), publish, nil
	})
}

// batchNote says how many forks of a multi-fork measurement failed, e.g.
// ": 2 of 3 forks failed"; "" for a single run.
func batchNote(r *cache.OracleResult) string {
	if r.Runs < 2 {
		return ""
	}
	return fmt.Sprintf(": %d of %d forks failed", r.FailedRuns, r.Runs)
}
