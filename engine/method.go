package engine

// The editor's actions on one annotated method: the language server's
// Check, Measure and Calibrate lenses.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// MethodRequest names an annotated method and the editor's settings for
// measuring it.
type MethodRequest struct {
	Root   string // the project directory; "" = the project holding File (measure.ProjectRoot)
	File   string // the Java file declaring the method
	Class  string // binary name
	Method string
	Params []string // erased parameter types

	// Alpha is the significance level; 0 = the project's (perfls.json),
	// else perfls's default.
	Alpha float64
	// Interpretation overrides the project's choice for formulas without
	// their own interpretation=; "" = automatic.
	Interpretation string
	// Semantics is what satisfied means, shown or classic; "" = the
	// project's perfls.json, else shown.
	Semantics string
	// Budget limits the measuring of one request (its measurements share
	// it); 0 = none.
	Budget time.Duration
	// JavaHome is the JDK to fork; "" = JAVA_HOME / PATH. The compiling
	// JDK is the measurement service's, which compiles for JavaHome's
	// release when it is older (measure.ForkRelease).
	JavaHome string
	// JVMArgs are extra flags of the forked JVMs.
	JVMArgs []string
	// CPUs pins the forks' measuring threads (measure.Options.CPUs); ""
	// keeps base's.
	CPUs string
	// Remote sends the measurements to the workers of the shared store's
	// job queue instead of measuring here (CheckMethod, MeasureMethod),
	// as perfls check --remote does; Label picks the workers labelled so
	// ("" = unlabelled ones). JavaHome is then not used: a worker forks
	// its own JDK.
	Remote bool
	Label  string
	// Warn shows the user a problem that did not stop the action, such as
	// a result the store could not save or a damaged store set aside; nil
	// drops them.
	Warn func(message string)
	// Preliminary, when set, asks ProfileMethod for a quick profile of each
	// workload in the warm worker JVM before its profiled fork
	// (service.PhaseBoth) and receives each as it arrives.
	Preliminary func(*Profiled)
}

func (r MethodRequest) warn(notices []string) {
	if r.Warn == nil {
		return
	}
	for _, n := range notices {
		r.Warn(n)
	}
}

func (r MethodRequest) dir() string {
	if r.Root != "" {
		return r.Root
	}
	return measure.ProjectRoot(filepath.Dir(r.File))
}

// is tells whether m is the requested method.
func (r MethodRequest) is(m *javasrc.Method) bool {
	if m == nil || m.Type == nil || m.Type.BinaryName != r.Class || m.Name != r.Method || len(m.Params) != len(r.Params) {
		return false
	}
	for i, p := range m.Params {
		if p.Erased != r.Params[i] {
			return false
		}
	}
	return true
}

// keep selects the formulas of the requested method.
func (r MethodRequest) keep(f *workspace.Formula) bool { return f.Path == r.File && r.is(f.Method) }

// options are base with the editor's JVM settings.
func (r MethodRequest) options(base measure.Options) (measure.Options, error) {
	opt := base
	opt.JVMArgs = append(slices.Clone(base.JVMArgs), r.JVMArgs...)
	if r.CPUs != "" {
		opt.CPUs = r.CPUs
	}
	if r.JavaHome != "" && !r.Remote {
		java := filepath.Join(r.JavaHome, "bin", "java")
		if info, err := os.Stat(java); err != nil || info.IsDir() {
			return opt, fmt.Errorf("javaHome %s: no bin/java there", r.JavaHome)
		}
		opt.Java = java
	}
	return opt, nil
}

// budgeted hands a request's time budget to the measurement service, whose
// budget is per item: each measurement gets an equal share. It reaches the
// service only when something is to be measured, so a check with nothing
// to measure starts no daemon.
type budgeted struct {
	service func(context.Context) service.Service
	budget  time.Duration
}

func (b budgeted) Measure(ctx context.Context, p service.Params, progress func(service.Progress)) (*service.Response, error) {
	if p.Budget == 0 && b.budget > 0 && len(p.Items) > 0 {
		p.Budget = b.budget / time.Duration(len(p.Items))
	}
	return b.service(ctx).Measure(ctx, p, progress)
}

func (b budgeted) Status(ctx context.Context) (*service.Status, error) {
	return b.service(ctx).Status(ctx)
}

// Close does nothing: the engine owns the service.
func (budgeted) Close() error { return nil }

// methodService is what an editor action measures through: the workers'
// queue when the request says Remote, else the engine's service; the
// caller calls the function returned when done.
func (e *Engine) methodService(ctx context.Context, req MethodRequest) (budgeted, func(), error) {
	if !req.Remote {
		return budgeted{e.service, req.Budget}, func() {}, nil
	}
	svc, closeSvc, err := e.queueService(ctx, req.Label)
	if err != nil {
		return budgeted{}, nil, fmt.Errorf("%w, or turn the editor's remote setting off", err)
	}
	return budgeted{func(context.Context) service.Service { return svc }, req.Budget}, closeSvc, nil
}

// CheckMethod measures and decides the formulas of one method, as an
// explicit user action (the Check lens), ahead of batch and background work,
// with the editor's settings, and records the verdicts.
func (e *Engine) CheckMethod(ctx context.Context, req MethodRequest, say func(string)) ([]verdict.MethodResult, error) {
	opts, err := req.options(e.cfg.Base)
	if err != nil {
		return nil, err
	}
	svc, closeSvc, err := e.methodService(ctx, req)
	if err != nil {
		return nil, err
	}
	defer closeSvc()
	out, err := e.check(ctx, svc, CheckRequest{
		Dir: req.dir(), Keep: req.keep, Options: opts, Alpha: req.Alpha, Interpretation: req.Interpretation, Semantics: req.Semantics,
		Priority: service.Interactive, Progress: messages(say),
	})
	if err != nil {
		return nil, err
	}
	req.warn(out.Notices)
	if len(out.CompileErrors) > 0 {
		return nil, compileError(out.CompileErrors)
	}
	return out.Methods, nil
}

// MeasureMethod measures one method on its own workloads — those its
// formulas measure SELF on, and its @Workload generators (called with each
// parameter's documented minimum) — and records the figures in the
// method's verdict record, keeping its verdicts.
func (e *Engine) MeasureMethod(ctx context.Context, req MethodRequest, say func(string)) ([]verdict.MethodResult, error) {
	opts, err := req.options(e.cfg.Base)
	if err != nil {
		return nil, err
	}
	w, err := methodWorkloads(req)
	if err != nil {
		return nil, err
	}
	req.warn(w.warnings)
	// Both phases: the user who clicked Measure sees a preliminary figure
	// from the warm worker JVM in the progress within a second or so, then
	// the forks refine it.
	params := service.Params{Project: req.dir(), Options: opts, Priority: service.Interactive, Budget: req.Budget, Phase: service.PhaseBoth}
	for _, r := range w.reqs {
		params.Items = append(params.Items, item(r))
	}
	svc, closeSvc, err := e.methodService(ctx, req)
	if err != nil {
		return nil, err
	}
	defer closeSvc()
	resp, err := svc.Measure(ctx, params, messages(say))
	if err != nil {
		return nil, err
	}
	req.warn(resp.Notices)
	if len(resp.CompileErrors) > 0 {
		return nil, compileError(resp.CompileErrors)
	}
	var ms []verdict.Measurement
	problems := w.problems
	for i, r := range w.reqs {
		it := resp.Items[i]
		req.warn(measure.SteadyStateWarnings(r.Key(), it.Forks, opts.Defaults().MaxWarmup))
		if it.Failure != nil {
			problems = append(problems, it.Failure.Error())
		} else if it.Error != "" {
			problems = append(problems, it.Error)
		}
		ms = addMeasurement(ms, r, it)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("nothing could be measured: %s", strings.Join(problems, "; "))
	}
	for _, p := range problems {
		say("not measured: " + p)
	}
	rec, err := e.recordMeasurements(ctx, req, w.self, w.selfFile, ms)
	if err != nil {
		return nil, err
	}
	return []verdict.MethodResult{rec}, nil
}

// DefaultCalibrationForks is the number of forks of the editor's Calibrate
// lens (below oracle.MinRuns a model is provisional).
const DefaultCalibrationForks = 30

// CalibrateMethod calibrates the bounds oracle on each workload of one
// method (those MeasureMethod measures) with forks fresh forks, measured
// like perfls calibrate (its defaults, or the engine's Base options when
// set) with the editor's JVM settings, and stores the models with the
// default configuration. A workload that cannot be measured is reported and
// skipped; it fails when none could be calibrated.
func (e *Engine) CalibrateMethod(ctx context.Context, req MethodRequest, forks int, say func(string)) ([]cache.OracleKey, error) {
	base := e.editorBase(CalibrationOptions())
	base.Forks = forks
	opt, err := req.options(base)
	if err != nil {
		return nil, err
	}
	w, err := methodWorkloads(req)
	if err != nil {
		return nil, err
	}
	req.warn(w.warnings)
	store, err := e.Store()
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	svc := budgeted{e.service, req.Budget / time.Duration(max(len(w.reqs), 1))}
	problems := slices.Clone(w.problems)
	var keys []cache.OracleKey
	for i, r := range w.reqs {
		it := item(r)
		label := fmt.Sprintf("%s(%s)", r.Generator.Method, measure.ArgsKey(it.Args))
		progress := messages(func(m string) { say(fmt.Sprintf("%d/%d %s: %s", i+1, len(w.reqs), label, m)) })
		wl := Workload{Method: it.Method, Generator: &it.Generator, Args: it.Args}
		key, runs, err := e.measureRuns(ctx, svc, req.dir(), wl, opt, progress)
		var ce *CompileError
		switch {
		case ctx.Err() != nil:
			return keys, ctx.Err()
		case errors.As(err, &ce):
			return keys, compileError(ce.Messages)
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", label, err))
			continue
		case len(runs) < 2:
			problems = append(problems, fmt.Sprintf("%s: %d fork measured (the time budget?), calibration needs at least 2", label, len(runs)))
			continue
		}
		if _, err := storeCalibration(ctx, store, key, runs, oraclePolicyDefaults(), opt); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", label, err))
			continue
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("nothing calibrated: %s", strings.Join(problems, "; "))
	}
	for _, p := range problems {
		say("not calibrated: " + p)
	}
	return keys, nil
}

// editorBase is def, the options of an editor action that measures in its
// own way (calibrating, profiling), or the engine's Base options when set
// (tests: small runs).
func (e *Engine) editorBase(def measure.Options) measure.Options {
	if e.cfg.Base.SamplesPerFork > 0 {
		return e.cfg.Base
	}
	return def
}

// workloads are the workloads of one method: what MeasureMethod measures
// and CalibrateMethod calibrates.
type workloads struct {
	reqs     []workspace.Request
	from     []string // where each request comes from: "a formula", "@Workload"…
	problems []string // @Workload annotations that name no usable workload
	warnings []string // arguments a call uses up, on a generator (consumedWarnings)
	self     *javasrc.Method
	selfFile *javasrc.File
}

// methodWorkloads finds the requested method's workloads: those its
// formulas measure SELF on, and its @Workload generators (called with each
// parameter's documented minimum). It fails when there is none.
func methodWorkloads(req MethodRequest) (workloads, error) {
	src, err := readSources(context.Background(), req.dir(), req.keep)
	if err != nil {
		return workloads{}, err
	}
	w, err := sourceWorkloads(src, req, true)
	if err != nil {
		return w, err
	}
	if len(w.reqs) == 0 {
		msg := "no workload to measure it on: add @Workload(\"pkg.Class#generator\") or a formula measuring SELF[generator](…)"
		if len(w.problems) > 0 {
			msg = strings.Join(w.problems, "; ")
		}
		return w, fmt.Errorf("%s#%s: %s", req.Class, req.Method, msg)
	}
	return w, nil
}

// sourceWorkloads are the workloads the source binds the requested method
// to, as the editor's lenses measure it: the requests of the formulas that
// measure SELF on a generator (in src.formulas), then each @Workload
// generator — called with each parameter's documented minimum when
// withArgs, else without arguments (the caller supplies them). A binding
// that names no usable workload is a problem, not an error.
func sourceWorkloads(src *sources, req MethodRequest, withArgs bool) (workloads, error) {
	var w workloads
	for _, f := range src.files {
		if f.Path != req.File {
			continue
		}
		for _, m := range f.Methods {
			if req.is(m) {
				w.self, w.selfFile = m, f
			}
		}
	}
	if w.self == nil {
		return w, fmt.Errorf("%s#%s(%s) is not declared in %s", req.Class, req.Method, strings.Join(req.Params, ","), req.File)
	}
	ix := workspace.NewIndex(src.files)
	seen := map[string]bool{}
	add := func(r workspace.Request, from string) {
		if !seen[r.Key()] {
			seen[r.Key()] = true
			w.reqs = append(w.reqs, r)
			w.from = append(w.from, from)
		}
	}
	var formulas []*workspace.Formula
	for _, f := range src.formulas {
		if !f.Broken && req.keep(f) {
			formulas = append(formulas, f)
		}
	}
	for _, r := range workspace.PlanCheck(ix, formulas).Requests {
		if r.Method.Decl == w.self {
			add(r, "a formula")
		}
	}
	at := &workspace.Formula{Path: req.File, File: w.selfFile, Method: w.self}
	self := workspace.Target{Class: req.Class, Method: req.Method, Params: req.Params, Decl: w.self}
	for _, wl := range w.self.Workloads {
		t, err := bindingGenerator(ix, at, wl.Text)
		var args []spl.Value
		if err == nil && withArgs {
			args, err = documentedArgs(t.Decl)
		}
		if err != nil {
			w.problems = append(w.problems, fmt.Sprintf("@Workload(%q): %v", wl.Text, err))
			continue
		}
		from := "@Workload"
		if len(args) > 0 {
			from += ", @Param minimum"
		}
		add(workspace.Request{Method: self, Generator: t, Args: args}, from)
	}
	for _, r := range w.reqs {
		if r.Generator.Class != "" && (r.Generator.Decl == nil || !isLoop(r.Generator.Decl)) {
			w.warnings = consumedWarnings(w.self)
			break
		}
	}
	return w, nil
}

// annotatedWorkload is the request of one @Workload generator reference.
func annotatedWorkload(ix *workspace.Index, at *workspace.Formula, self workspace.Target, text string) (workspace.Request, error) {
	t, err := bindingGenerator(ix, at, text)
	if err != nil {
		return workspace.Request{}, err
	}
	args, err := documentedArgs(t.Decl)
	if err != nil {
		return workspace.Request{}, err
	}
	return workspace.Request{Method: self, Generator: t, Args: args}, nil
}

// bindingGenerator resolves one @Workload generator reference.
func bindingGenerator(ix *workspace.Index, at *workspace.Formula, text string) (workspace.Target, error) {
	gen, ds := spl.ParseGenerator(strings.TrimSpace(text))
	if gen == nil || len(ds) > 0 {
		return workspace.Target{}, fmt.Errorf("not a generator reference")
	}
	return ix.ResolveGenerator(at, gen)
}

// documentedArgs are the arguments a @Workload generator is called with:
// each parameter's documented minimum (@Param(min=…), @ParamNum).
func documentedArgs(gen *javasrc.Method) ([]spl.Value, error) {
	return documentedArgsFrom(gen, 0)
}

// documentedArgsFrom are the documented minimums of gen's parameters from
// the from-th on.
func documentedArgsFrom(gen *javasrc.Method, from int) ([]spl.Value, error) {
	if gen == nil {
		return nil, nil // outside the workspace: called without arguments
	}
	var args []spl.Value
	for i, p := range gen.Params {
		if i < from || i == 0 && isLoop(gen) {
			continue // a workload loop's controller is supplied by the harness
		}
		var min *float64
		if gen.Generator != nil && i < len(gen.Generator.Params) {
			min = gen.Generator.Params[i].Min
		}
		if min == nil {
			return nil, fmt.Errorf("parameter %s of %s has no documented minimum to measure with: add @Param(min = …)", p.Name, gen.Name)
		}
		n, err := spl.Value{Kind: spl.Float, Float: *min}.Long() // never truncated or wrapped
		if err != nil {
			return nil, fmt.Errorf("the documented minimum of parameter %s of %s: %w", p.Name, gen.Name, err)
		}
		args = append(args, spl.Value{Kind: spl.Int, Int: n, Float: float64(n)})
	}
	return args, nil
}

// recordMeasurements stores the method's new figures in its verdict record
// (created when the method has none), keeping the recorded verdicts.
func (e *Engine) recordMeasurements(ctx context.Context, req MethodRequest, m *javasrc.Method, f *javasrc.File, ms []verdict.Measurement) (verdict.MethodResult, error) {
	rec := verdict.MethodResult{File: req.File, Class: req.Class, Method: req.Method, Params: req.Params,
		Source: m.SourceHash(f), CheckedAt: time.Now().UTC()}
	store, err := e.Store()
	if err != nil {
		return rec, fmt.Errorf("record measurements: %w", err)
	}
	recs, err := store.Verdicts(ctx)
	if err != nil {
		return rec, err
	}
	for _, r := range recs {
		if r.File == req.File && r.Class == req.Class && r.Method == req.Method && slices.Equal(r.Params, req.Params) {
			hash := rec.Source
			rec = r // keep its verdicts and the source hash they were decided on
			if len(r.Instances) == 0 {
				rec.Source = hash
			}
			break
		}
	}
	rec.Measurements = ms
	if err := store.ReplaceVerdicts(ctx, []verdict.MethodResult{rec}); err != nil {
		return rec, err
	}
	req.warn(store.Notices())
	return rec, nil
}

// messages passes the service's progress messages to say; a progress
// without one (a count of planned forks) is not shown.
func messages(say func(string)) func(service.Progress) {
	return func(p service.Progress) {
		if p.Message != "" {
			say(p.Message)
		}
	}
}
