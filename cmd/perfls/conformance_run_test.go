package main

// How the conformance matrix (conformance_test.go) runs its cells: the
// fixture made a git repository, one engine and one cache for every
// action, and the editor's lenses through the server over a pipe.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
	"github.com/perfls/perfls/server"
)

// matrixOptions keep the matrix to minutes: two forks of five samples.
// Every action and the editor's lenses (the engine's Base options) use
// them, so that they answer each other from the cache: check what measure
// measured, the Profile lens the forked profile, diff and bisect each
// other. The warm-up cap stays at a second: on a loaded machine a shorter
// one leaves forks in the JIT's early tiers, ×10 apart, and the history
// actions then cannot decide the slow-down they are to find.
var matrixOptions = measure.Options{Forks: 2, SamplesPerFork: 5, Warmup: 50 * time.Millisecond, MaxWarmup: time.Second}

// modelOptions measure each value of a model once.
var modelOptions = measure.Options{Forks: 1, SamplesPerFork: 5, Warmup: 50 * time.Millisecond, MaxWarmup: time.Second}

// matrix is the fixture project and what its cells share.
type matrix struct {
	t       *testing.T
	ctx     context.Context
	dir     string   // the project: a git work tree on branch feature
	commits []string // v1 (main), "slow step", "notes"
	eng     *engine.Engine

	checked   *engine.CheckResult // the check of the whole project, once
	checkErr  error
	bisected  *report.Bisect // bisect's formula mode, once
	bisectErr error
	fc        *lsptest.Client // the editor's session, from the first lens on
	// forms are the ids of the columns that run; nil: every one. The
	// check of the project decides only their formulas.
	forms []string
}

// TestConformance runs the cells of the matrix and reports the figures:
// cells that work, are refused with a reason, are not offered, and fail.
// It runs the columns of defaultForms; PERFLS_CONFORMANCE=full runs every
// one (docs/conformance.md).
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	full := os.Getenv("PERFLS_CONFORMANCE") == "full"
	table := cellTable(t)
	start := time.Now()
	m := newMatrix(t)
	if !full {
		m.forms = defaultForms
	}
	counts := map[string]int{}
	var failed []string
	for _, a := range conformanceActions {
		for _, f := range conformanceForms {
			w := table[[2]string{a.id, f.id}]
			got := "not run"
			t.Run(a.id+"×"+f.id, func(t *testing.T) {
				if !full && !slices.Contains(defaultForms, f.id) {
					t.Skip("not a default column: PERFLS_CONFORMANCE=full runs it")
				}
				got = m.cell(t, a, f, w)
			})
			counts[got]++
			if got == "failing" {
				failed = append(failed, a.id+"×"+f.id)
			}
		}
	}
	t.Logf("conformance matrix: %d cells: %d work, %d refused with a reason, %d not offered, %d failing %v, %d not run; %s",
		len(conformanceActions)*len(conformanceForms), counts["works"], counts["refused"], counts["not offered"], counts["failing"], failed,
		counts["not run"], time.Since(start).Round(time.Second))
}

// newMatrix copies the fixture into a git repository — v1 on main with
// the cheap Step.java, then on the branch feature "slow step" and a commit
// that changes no code — and opens an engine on a cache of the test's own
// (the one perfls commands run here use too).
func newMatrix(t *testing.T) *matrix {
	cacheDir := fixture.Isolate(t)
	root := filepath.Join("..", "..", "internal", "fixture", "conformance")
	dir := t.TempDir()
	files := map[string]string{}
	project := filepath.Join(root, "project")
	err := filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(project, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	step := func(n int) map[string]string {
		data, err := os.ReadFile(filepath.Join(root, "history", fmt.Sprintf("Step.%d.java", n)))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]string{"src/conf/Step.java": string(data)}
	}
	fixture.WriteFiles(t, dir, files)
	fixture.WriteFiles(t, dir, step(1))
	fixture.Git(t, dir, "init", "-q", "-b", "main")
	commit := func(msg string) string {
		fixture.Git(t, dir, "add", "-A")
		fixture.Git(t, dir, "commit", "-q", "-m", msg)
		return fixture.Git(t, dir, "rev-parse", "HEAD")
	}
	m := &matrix{t: t, ctx: context.Background(), dir: dir}
	m.commits = append(m.commits, commit("v1: a cheap step"))
	fixture.Git(t, dir, "tag", "v1")
	fixture.Git(t, dir, "checkout", "-q", "-b", "feature")
	fixture.WriteFiles(t, dir, step(2))
	m.commits = append(m.commits, commit("slow step"))
	fixture.WriteFiles(t, dir, map[string]string{"NOTES.md": "Step got slower.\n"})
	m.commits = append(m.commits, commit("notes"))
	m.eng, err = engine.Open(m.ctx, engine.Config{CacheDir: cacheDir, Service: engine.InProcess, Logf: t.Logf, Base: matrixOptions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.eng.Close() })
	return m
}

// cell runs one cell and holds it to w; it returns what it counts as:
// "works", "refused", "not offered" or "failing".
func (m *matrix) cell(t *testing.T, a action, f form, w want) string {
	if w.outcome == notOffered {
		if w.absent {
			if l := m.lens(a.lens, f); l != nil {
				t.Errorf("the editor offers %q on %s, but the matrix says: %s", l.Command.Title, f.sel.Method, w.why)
				return "failing"
			}
		}
		return "not offered"
	}
	var res string
	var err error
	if a.lens != "" {
		res, err = m.lensRun(t, a.lens, f)
	} else {
		res, err = a.run(m, f)
	}
	expect := w
	if w.outcome == knownFailure {
		expect = *w.intended
	}
	if errors.Is(err, errNotHeld) && expect.outcome == works {
		t.Logf("refused: %v", err)
		return "refused"
	}
	problem := meets(expect, res, err)
	switch {
	case w.outcome == knownFailure && problem == "":
		t.Errorf("a known failure now does what it should (%s): mark the cell so", res)
		return map[outcome]string{works: "works", refused: "refused"}[expect.outcome]
	case w.outcome == knownFailure:
		t.Logf("known failure (%s): %s", w.why, problem)
		return "failing"
	case problem != "":
		t.Errorf("%s", problem)
		return "failing"
	case expect.outcome == refused:
		t.Logf("refused: %v", err)
		return "refused"
	}
	t.Logf("%s", res)
	return "works"
}

// meets says how a cell's result falls short of w; "" when it does not.
func meets(w want, res string, err error) string {
	switch {
	case w.outcome == works && err != nil:
		return fmt.Sprintf("does not work: %v", err)
	case w.outcome == works:
		return ""
	case err == nil:
		return fmt.Sprintf("works (%s), but the matrix says it is refused: %s", res, w.why)
	}
	var missing []string
	for _, s := range w.says {
		if !strings.Contains(err.Error(), s) {
			missing = append(missing, fmt.Sprintf("%q", s))
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("refused, but the message lacks %s: %v", strings.Join(missing, ", "), err)
	}
	return ""
}

// each runs act on every workload the form selects (engine.SelectWorkloads,
// as the commands do) and joins what it says.
func (m *matrix) each(f form, act func(w engine.Workload) (string, error)) (string, error) {
	sel, err := engine.SelectWorkloads(m.ctx, m.dir, f.sel)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, w := range sel.Workloads {
		s, err := act(w)
		if err != nil {
			return "", fmt.Errorf("%s: %w", w, err)
		}
		parts = append(parts, fmt.Sprintf("%s: %s", w, s))
	}
	return strings.Join(parts, "; "), nil
}

func (m *matrix) measure(f form) (string, error) {
	return m.each(f, func(w engine.Workload) (string, error) {
		r, err := m.eng.Measure(m.ctx, engine.MeasureRequest{Dir: m.dir, Workload: w, Options: matrixOptions, Phase: service.PhaseFull})
		if err != nil {
			return "", err
		}
		mean := float64(r.Report().Summary.MeanNsPerOp)
		if len(r.Result.Forks) == 0 || !(mean > 0) {
			return "", fmt.Errorf("no figure: %d forks, mean %v", len(r.Result.Forks), mean)
		}
		return fmt.Sprintf("%s/op over %d forks", report.Duration(mean), len(r.Result.Forks)), nil
	})
}

func (m *matrix) check(f form) (string, error) {
	if m.checked == nil && m.checkErr == nil {
		// Room for forks in place of those whose warm-up hit the cap.
		m.checked, m.checkErr = m.eng.Check(m.ctx, engine.CheckRequest{Dir: m.dir, Keep: m.keepFormula, Options: matrixOptions, MaxForks: 2 * matrixOptions.Forks})
	}
	if m.checkErr != nil {
		return "", m.checkErr
	}
	for _, mr := range m.checked.Methods {
		for _, in := range mr.Instances {
			if !strings.Contains(in.Formula, f.formula) {
				continue
			}
			var reasons []string
			for _, c := range in.Comparisons {
				if c.Failed || in.Failed {
					reasons = append(reasons, c.Reason)
				}
			}
			if in.Failed {
				return "", errors.New(strings.Join(reasons, "; "))
			}
			if len(in.Comparisons) == 0 || !(in.Comparisons[0].Evidence.Ratio > 0) {
				for _, c := range in.Comparisons {
					if in.Outcome == verdict.Undecided && strings.Contains(c.Reason, "did not settle") {
						return "", fmt.Errorf("%w: %s", errNotHeld, c.Reason)
					}
				}
				return "", fmt.Errorf("%s: no evidence", in.Outcome)
			}
			return fmt.Sprintf("%s [%s], ratio %.3g", in.Outcome, in.Instance, in.Comparisons[0].Evidence.Ratio), nil
		}
	}
	return "", fmt.Errorf("check decided no instance of %q", f.formula)
}

// keepFormula keeps the formulas of the columns that run: deciding the
// others' (their revisions built, their loops measured) would cost most
// of the default matrix's time for cells it does not run.
func (m *matrix) keepFormula(wf *workspace.Formula) bool {
	if m.forms == nil {
		return true
	}
	for _, f := range conformanceForms {
		if f.formula != "" && slices.Contains(m.forms, f.id) && strings.Contains(wf.Text(), f.formula) {
			return true
		}
	}
	return false
}

func (m *matrix) profileQuick(f form) (string, error)  { return m.profile(f, service.PhaseQuick) }
func (m *matrix) profileForked(f form) (string, error) { return m.profile(f, service.PhaseFull) }

func (m *matrix) profile(f form, phase service.Phase) (string, error) {
	return m.each(f, func(w engine.Workload) (string, error) {
		p, err := m.eng.Profile(m.ctx, engine.ProfileRequest{Dir: m.dir, Workload: w, Options: matrixOptions, Phase: phase})
		if err != nil {
			return "", err
		}
		r := p.Report
		if r == nil || r.Iterations == 0 || len(r.Hot) == 0 {
			return "", errors.New("a profile without iterations or hot lines")
		}
		if phase == service.PhaseQuick && !p.Preliminary {
			return "", errors.New("a forked profile answered for the quick one")
		}
		var kinds []string
		for _, f := range r.Findings {
			kinds = append(kinds, fmt.Sprintf("%s at %s:%d", f.Kind, f.File, f.Line))
		}
		return fmt.Sprintf("%d iterations, hottest %s:%d (%.0f %%), findings %v", r.Iterations, r.Hot[0].File, r.Hot[0].Line, 100*r.Hot[0].Share, kinds), nil
	})
}

// model extracts the form's model through the engine as perfls model does
// (one workload; its --args would fix the generator's other parameters,
// which the fixture's generators do not have), or with perfls model itself
// for --workload none, whose wiring is the command line's.
func (m *matrix) model(f form) (string, error) {
	if f.sel.Workload == engine.NoWorkload {
		return m.modelCLI(f)
	}
	w, err := engine.ParseWorkload(f.sel.Method, f.sel.Workload, "")
	if err != nil {
		return "", err
	}
	mod, err := m.eng.ExtractModel(m.ctx, engine.ModelRequest{Dir: m.dir, Workload: w, Values: f.values, Points: 4,
		Options: modelOptions, NoCallees: true, MaxForks: 1})
	if err != nil {
		return "", err
	}
	return modelSummary(mod)
}

func (m *matrix) modelCLI(f form) (string, error) {
	args := []string{"model", "--method", f.sel.Method, "--workload", f.sel.Workload, "--values", f.values, "--no-callees",
		"--forks", "1", "--max-forks", "1", "--samples", "5", "--warmup", "50ms", "--max-warmup", "1s", m.dir}
	code, out, errs := runCLI(m.t, args...)
	if code != exitOK {
		return "", fmt.Errorf("exit %d: %s", code, strings.TrimSpace(errs))
	}
	var mod model.Model
	if err := json.Unmarshal([]byte(out), &mod); err != nil {
		return "", fmt.Errorf("perfls model's output: %w", err)
	}
	return modelSummary(&mod)
}

// modelSummary is the model's wall time curve; an error when the model
// has no figures.
func modelSummary(mod *model.Model) (string, error) {
	if len(mod.Operations) != 1 || len(mod.Operations[0].Points) < 3 {
		return "", errors.New("a model without an operation of 3 values or more")
	}
	op := mod.Operations[0]
	for _, p := range op.Points {
		if len(p.Demands) == 0 || !(p.Demands[0].Mean > 0) {
			return "", fmt.Errorf("no demand at %s = %g", op.Parameter, p.N)
		}
	}
	curve := "no curve"
	for _, d := range op.Dependencies {
		if d.Metric == model.Wall && d.Callee == "" {
			curve = "wall " + d.Text
		}
	}
	return fmt.Sprintf("%s[%s] over %s at %d values: %s", op.Method, op.Workload, op.Parameter, len(op.Points), curve), nil
}

func (m *matrix) predict(f form) (string, error) {
	p, err := m.eng.PredictStored(m.ctx, f.sel.Method, f.assign)
	if err != nil {
		return "", err
	}
	for _, q := range p.Predictions {
		if q.Metric == model.Wall && q.Value > 0 {
			return fmt.Sprintf("%s at %s: wall %s", p.Method, f.assign, report.Duration(q.Value)), nil
		}
	}
	return "", errors.New("no wall time predicted")
}

func (m *matrix) calibrate(f form) (string, error) {
	return m.each(f, func(w engine.Workload) (string, error) {
		cal, err := m.eng.Calibrate(m.ctx, engine.CalibrateRequest{Dir: m.dir, Workload: w, Options: matrixOptions})
		if err != nil {
			return "", err
		}
		if cal.Model == nil || len(cal.Model.Runs) < matrixOptions.Forks || len(cal.Model.Metrics) == 0 {
			return "", errors.New("no model of the runs")
		}
		return fmt.Sprintf("a model of %d runs, %d metrics", len(cal.Model.Runs), len(cal.Model.Metrics)), nil
	})
}

func (m *matrix) verify(f form) (string, error) {
	ws, err := m.eng.CalibratedWorkloads(m.ctx, f.sel)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, w := range ws {
		j, err := m.eng.Verify(m.ctx, engine.VerifyRequest{Dir: m.dir, Workload: w, Forks: 1, ForkTimeout: time.Minute})
		if err != nil {
			return "", fmt.Errorf("%s: %w", w, err)
		}
		if j.Result == "" || j.Forks == 0 {
			return "", fmt.Errorf("%s: no verdict", w)
		}
		parts = append(parts, fmt.Sprintf("%s: %s", w, j.Result))
	}
	return strings.Join(parts, "; "), nil
}

// history is the diff's and the bisection's request: the form's method,
// the default base (the merge base with main: v1), more forks while
// undecided (as the Compare lens).
func (m *matrix) history(f form) engine.HistoryRequest {
	return engine.HistoryRequest{Dir: m.dir, Method: f.sel.Method, Options: matrixOptions}
}

func (m *matrix) diff(f form) (string, error) {
	d, err := m.eng.Diff(m.ctx, m.history(f))
	if err != nil {
		return "", err
	}
	var parts []string
	for _, c := range d.Changes {
		parts = append(parts, fmt.Sprintf("%s %s[%s](%s) ×%.3g", c.Verdict, c.Method, c.Workload, c.Args, float64(c.Ratio)))
	}
	for _, u := range d.Unchanged {
		parts = append(parts, "unchanged "+u)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("diff compared nothing and said nothing (notices %q)", d.Notices)
	}
	return strings.Join(parts, "; "), nil
}

func (m *matrix) bisectMethod(f form) (string, error) {
	b, err := m.eng.Bisect(m.ctx, engine.BisectRequest{HistoryRequest: m.history(f), Good: "v1", Bad: "HEAD"})
	if err != nil {
		return "", err
	}
	if f.unaffected {
		if b.FirstBad != "" {
			return "", fmt.Errorf("first bad commit %.12s, but %s does not reach the code that got slower", b.FirstBad, f.sel.Method)
		}
		return "nothing to find, rightly: " + b.Reason, nil
	}
	return m.firstBad(b)
}

// firstBad says which commit the bisection found: an error unless it is
// "slow step".
func (m *matrix) firstBad(b *report.Bisect) (string, error) {
	if b.FirstBad != m.commits[1] {
		return "", fmt.Errorf("first bad commit %.12q (%s), want %.12s (slow step); steps %+v", b.FirstBad, b.Reason, m.commits[1], b.Steps)
	}
	return fmt.Sprintf("first bad commit %.12s %s (%s mode, %d steps, %d measured)", b.FirstBad, b.Subject, b.Mode, len(b.Steps), b.Measured), nil
}

func (m *matrix) bisectFormula(f form) (string, error) {
	if m.bisected == nil && m.bisectErr == nil {
		req := engine.BisectRequest{HistoryRequest: m.history(form{}), Good: "v1", Bad: "HEAD"}
		m.bisected, m.bisectErr = m.eng.Bisect(m.ctx, req)
	}
	if m.bisectErr != nil {
		return "", m.bisectErr
	}
	for _, u := range append(m.bisected.Unfollowed, m.bisected.AtGood...) {
		// Unfollowed says "not shown to hold at v1"; AtGood lists every
		// instance when none held and the search fell back (Fallback).
		if strings.Contains(u, f.formula) && (strings.Contains(u, "not shown to hold at v1") || m.bisected.Fallback != "") {
			return "", fmt.Errorf("%w: %s", errNotHeld, u)
		}
	}
	if !slices.ContainsFunc(m.bisected.Formulas, func(s string) bool { return strings.Contains(s, f.formula) }) {
		return "", fmt.Errorf("the formula %q is not followed; followed: %q; not followed: %q", f.formula, m.bisected.Formulas, m.bisected.Unfollowed)
	}
	if m.bisected.Mode != "formula" {
		return "", fmt.Errorf("bisected in %s mode", m.bisected.Mode)
	}
	return m.firstBad(m.bisected)
}

// errNotHeld: a formula bisection did not follow the form's formula
// because at v1 it was undecided — not shown to hold — and said so. On a
// busy machine 2 forks leave formulas undecided at v1: the workload
// loops' forks, hitting the matrix's 1 s warm-up cap with the JIT still
// compiling, differ up to ×4, and once the instance method's did too.
// The cell counts as refused with the product's reason, not as working.
//
// A check whose instance is undecided because its forks' warm-up hit the
// matrix's cap, saying so and what to raise, counts the same way.
var errNotHeld = errors.New("undecided or not followed, as the product says why")

// session is the editor's session on the project, every fixture source
// open, with the matrix's engine as its actions.
func (m *matrix) session() *lsptest.Client {
	if m.fc != nil {
		return m.fc
	}
	store, err := m.eng.Store()
	if err != nil {
		m.t.Fatal(err)
	}
	fc := lsptest.Start(m.t, server.Options{Verdicts: store, Actions: m.eng, CacheDir: m.eng.CacheDir()})
	// Every lens on (the default shows Measure and Check): each is a row.
	fc.Call(m.t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(m.dir), Capabilities: protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true},
	}, InitializationOptions: map[string]any{"lenses": server.LensNames}}, nil)
	fc.Notify(m.t, protocol.MethodInitialized, &protocol.InitializedParams{})
	opened := map[string]bool{}
	for _, f := range conformanceForms {
		if opened[f.file] {
			continue
		}
		opened[f.file] = true
		text, err := os.ReadFile(filepath.Join(m.dir, filepath.FromSlash(f.file)))
		if err != nil {
			m.t.Fatal(err)
		}
		u := uri.File(filepath.Join(m.dir, filepath.FromSlash(f.file)))
		fc.Notify(m.t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: string(text)}})
		fc.AwaitDiagnostics(m.t, u, 1)
	}
	m.fc = fc
	return fc
}

// lens is the form's method's lens whose title starts with one of the
// |-separated prefixes; nil when the editor shows none.
func (m *matrix) lens(prefixes string, f form) *protocol.CodeLens {
	fc := m.session()
	w, err := engine.ParseWorkload(f.sel.Method, "", "")
	if err != nil {
		m.t.Fatal(err)
	}
	for _, l := range fc.Lenses(m.t, uri.File(filepath.Join(m.dir, filepath.FromSlash(f.file)))) {
		if l.Command == nil || l.Command.Command == "" || len(l.Command.Arguments) == 0 {
			continue
		}
		if !slices.ContainsFunc(strings.Split(prefixes, "|"), func(p string) bool { return strings.HasPrefix(l.Command.Title, p) }) {
			continue
		}
		data, _ := json.Marshal(l.Command.Arguments[0])
		var a server.MethodArgs
		if json.Unmarshal(data, &a) == nil && a.Class == w.Method.Class && a.Method == w.Method.Name && slices.Equal(a.Params, f.params) {
			return &l
		}
	}
	return nil
}

// lensRun clicks the form's lens and waits for its job to end: its end
// message, or the error the server showed when it failed.
func (m *matrix) lensRun(t *testing.T, prefixes string, f form) (string, error) {
	l := m.lens(prefixes, f)
	if l == nil {
		return "", fmt.Errorf("no %q lens on %s(%s)", prefixes, f.sel.Method, strings.Join(f.params, ","))
	}
	fc := m.session()
	args := l.Command.Arguments
	if l.Command.Command == server.CommandCalibrate {
		arg := args[0].(map[string]any)
		arg["forks"] = matrixOptions.Forks
	}
	before := len(fc.Messages())
	var reply any
	if err := fc.CallErr(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: l.Command.Command, Arguments: args}, &reply); err != nil {
		return "", err
	}
	if reply != "started" {
		return "", fmt.Errorf("the command answered %v", reply)
	}
	var end string
	fc.AwaitFor(t, 15*time.Minute, "the lens's job to end", func() bool {
		end = jobEnd(fc.Messages()[before:])
		return end != ""
	})
	if end == "failed" {
		// The error follows the progress's end.
		var shown string
		fc.AwaitFor(t, time.Minute, "the job's error", func() bool {
			for _, msg := range fc.Messages()[before:] {
				var p protocol.ShowMessageParams
				if msg.Method == protocol.MethodWindowShowMessage && json.Unmarshal(msg.Params, &p) == nil && strings.Contains(p.Message, " failed: ") {
					shown = p.Message
				}
			}
			return shown != ""
		})
		return "", errors.New(shown)
	}
	if !lensResult(l.Command.Command, end) {
		return "", fmt.Errorf("the job ended without a result: %q", end)
	}
	return end, nil
}

// jobEnd is the end message of the first measuring job among msgs; "" when
// none has ended.
func jobEnd(msgs []lsptest.Message) string {
	var token string
	for _, msg := range msgs {
		if msg.Method != protocol.MethodProgress {
			continue
		}
		var p struct {
			Token any `json:"token"`
			Value struct {
				Kind, Title, Message string
			} `json:"value"`
		}
		if json.Unmarshal(msg.Params, &p) != nil {
			continue
		}
		tok := fmt.Sprint(p.Token)
		switch {
		case token == "" && p.Value.Kind == "begin" && strings.HasPrefix(p.Value.Title, "perfls: ") && !strings.Contains(p.Value.Title, "index"):
			token = tok
		case token != "" && tok == token && p.Value.Kind == "end":
			return p.Value.Message
		}
	}
	return ""
}

// lensResult tells whether a lens job's end message reports a real result.
func lensResult(command, end string) bool {
	switch command {
	case server.CommandCheck:
		var sat, vio, und int
		n, _ := fmt.Sscanf(end, "%d satisfied, %d violated, %d undecided", &sat, &vio, &und)
		return n == 3 && sat+vio+und > 0 && !strings.Contains(end, "failed")
	case server.CommandMeasure:
		return strings.Contains(end, "/op")
	case server.CommandProfile:
		return strings.HasPrefix(end, "profiled ")
	case server.CommandCalibrate:
		return strings.HasPrefix(end, "calibrated ")
	case server.CommandCompareBase:
		return strings.Contains(end, " vs base ") && !strings.HasSuffix(end, "nothing compared")
	}
	return false
}
