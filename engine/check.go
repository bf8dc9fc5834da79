package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// CheckRequest asks to check a project: measure every method its formulas
// name and decide every formula instance.
type CheckRequest struct {
	Dir  string                        // the project directory (absolute)
	Keep func(*workspace.Formula) bool // which formulas; nil = all
	// Repo is the project directory in the git work tree whose history a
	// formula's @REV names, when Dir is a copy of one of its commits
	// (bisect checks materialised trees, which are not repositories);
	// "" = Dir.
	Repo    string
	Options measure.Options
	// Alpha is the significance level; 0 = the project's (perfls.json),
	// else verdict's default.
	Alpha float64
	// Interpretation overrides the project's choice for every formula
	// without its own interpretation= element; "" = none.
	Interpretation string
	Priority       service.Priority
	// MaxForks bounds the forks per measurement when formula instances are
	// undecided for lack of evidence: check then measures their operands
	// again (as many forks as the first round each time) and decides again,
	// until decided or at this bound. α is spread evenly over the looks this
	// allows (Bonferroni), so adding forks does not raise the false-alarm
	// rate. 0 = 3 × Options.Forks; ≤ Options.Forks = no second look.
	MaxForks int
	Fresh    bool                   // measure even what the cache has fresh
	Progress func(service.Progress) // nil: none
	// Remote sends the measurements to the workers of the shared store's
	// job queue (perfls worker) instead of measuring here, and waits for
	// them; Label picks the workers labelled so ("" = unlabelled ones).
	Remote bool
	Label  string
}

func (r CheckRequest) repo() string {
	if r.Repo != "" {
		return r.Repo
	}
	return r.Dir
}

// Validate says what is wrong with a request a user made: α outside (0, 0.5],
// an unknown interpretation, measurement options ValidateOptions refuses.
func (r CheckRequest) Validate() error {
	if r.Alpha != 0 && !(r.Alpha > 0 && r.Alpha <= 0.5) {
		return fmt.Errorf("alpha %g is outside (0, 0.5]", r.Alpha)
	}
	if _, err := stats.ParseInterpretation(r.Interpretation); err != nil {
		return fmt.Errorf("interpretation: %w", err)
	}
	return ValidateOptions(r.Options, 1)
}

// CheckResult is what a check found.
type CheckResult struct {
	Methods       []verdict.MethodResult    // verdicts grouped by annotated method
	Diagnostics   []workspace.Diagnostic    // formula problems (errors are not measured)
	CompileErrors []measure.CompilerMessage // the project does not compile; nothing was decided
	Notices       []string                  // e.g. the cache was set aside
	Alpha         float64                   // the significance level used, over all looks
	Looks         int                       // how many times the formulas may be decided (≥ 1); each at Alpha/Looks
	ExtraForks    int                       // forks measured after the first look, all measurements together
	Oracle        []oracle.Judgement        // bounds-oracle judgements of calibrated workloads measured
	Requests      int                       // distinct measurements needed
	Cached        int                       // of which the cache answered

	// plan and results are what was measured (results by
	// workspace.Request.Key), for the reports that show samples.
	plan    *workspace.Plan
	results map[string]service.ItemResult
	options measure.Options
	index   *workspace.Index // the working tree's declarations
	trees   map[string]*tree // the revisions the formulas name
	used    []int64          // stored measurements the looks have used
	models  []*model.Model   // stored models (perfls model), for the callees in the report
}

// Check parses the project, plans the measurements of the formulas the
// request selects, measures them through the measurement service, decides
// every instance, classifies calibrated workloads against their oracle, and
// records the verdicts in the store, where every editor reads them.
func (e *Engine) Check(ctx context.Context, req CheckRequest) (*CheckResult, error) {
	svc, closeSvc, err := e.checkService(ctx, req)
	if err != nil {
		return nil, err
	}
	defer closeSvc()
	return e.check(ctx, svc, req)
}

func (e *Engine) check(ctx context.Context, svc service.Service, req CheckRequest) (*CheckResult, error) {
	src, err := readSources(ctx, req.Dir, req.Keep)
	if err != nil {
		return nil, err
	}
	ix := workspace.NewIndex(src.files)
	plan := workspace.PlanCheck(ix, src.formulas)
	out := &CheckResult{plan: plan, options: req.Options, Requests: len(plan.Requests),
		Diagnostics: append(src.diags, plan.Diagnostics...), index: ix, trees: map[string]*tree{}}
	if len(plan.Instances) == 0 {
		return out, nil
	}
	params := service.Params{Options: req.Options, Priority: req.Priority, Fresh: req.Fresh}
	got, err := e.measureRequests(ctx, svc, req.Dir, req.repo(), params, plan.Requests, out.index, out.trees, req.Progress)
	if err != nil {
		return nil, err
	}
	out.Notices = got.notices
	if len(got.compileErrors) > 0 {
		out.CompileErrors = got.compileErrors
		return out, nil
	}
	out.Diagnostics = append(out.Diagnostics, revisionDiagnostics(plan, got.revisionErrs)...)
	out.results = got.results
	var items []service.ItemResult
	for _, r := range plan.Requests {
		it := out.results[r.Key()]
		items = append(items, it)
		out.Notices = append(out.Notices, measure.SteadyStateWarnings(r.Key(), it.Forks, req.Options.Defaults().MaxWarmup)...)
		if it.Cached {
			out.Cached++
		}
	}
	if err := e.decideLooks(ctx, svc, req, src.project, out); err != nil {
		return nil, err
	}
	if out.Oracle, err = e.judgeCalibrated(ctx, items, req.Options); err != nil {
		out.Notices = append(out.Notices, fmt.Sprintf("bounds oracle: %v", err))
	}
	// The stored models of the methods measured, for the report's callees.
	out.models, _ = e.storedModels(ctx, func(string) bool { return true })
	if err := e.recordVerdicts(ctx, out.Methods); err != nil {
		out.Notices = append(out.Notices, fmt.Sprintf("could not record the verdicts for editors: %v", err))
	}
	if e.store != nil {
		out.Notices = append(out.Notices, e.store.Notices()...) // e.g. a damaged store set aside
	}
	return out, nil
}

// decideLooks decides every instance, and while some are undecided for lack
// of evidence measures their operands again and decides again, up to
// req.MaxForks, each look at α/Looks.
func (e *Engine) decideLooks(ctx context.Context, svc service.Service, req CheckRequest, project *measure.Project, out *CheckResult) error {
	opt := verdict.Options{Alpha: req.Alpha}
	if opt.Alpha == 0 {
		opt.Alpha = project.Alpha
	}
	if opt.Alpha == 0 {
		opt.Alpha = verdict.DefaultAlpha
	}
	out.Alpha = opt.Alpha
	forks := req.Options.Defaults().Forks
	maxForks := req.MaxForks
	if maxForks == 0 {
		maxForks = 3 * forks
	}
	out.Looks = verdict.Looks(forks, maxForks)
	opt.Alpha /= float64(out.Looks)
	// The most specific choice wins: the formula's annotation, then the
	// request (the command line, the editor), then perfls.json, then the
	// data.
	interpretation := func(f *workspace.Formula) (stats.Interpretation, error) {
		for _, name := range []string{f.Interpretation, req.Interpretation, project.Interpretation} {
			if name != "" {
				return stats.ParseInterpretation(name)
			}
		}
		return stats.Auto, nil
	}
	plan := out.plan
	for look := 1; ; look++ {
		var more map[string]bool
		var err error
		if out.Methods, more, err = decide(plan, out.results, opt, interpretation); err != nil {
			return err
		}
		if look == out.Looks || len(more) == 0 {
			break
		}
		add, err := e.moreForks(ctx, svc, req, out, more, min(forks, maxForks-forks*look))
		if err != nil {
			return err
		}
		out.ExtraForks += add
	}
	return nil
}

// Failed reports whether an error left some instance undecided: perfls
// check then exits 2.
func (r *CheckResult) Failed() bool { return verdict.Count(r.Methods).Failed > 0 }

// moreForks measures add more forks of the requests whose keys are in keys
// and appends them to their results in out; it returns how many forks it
// measured.
// The merged result is decided on this check's forks alone: the run history
// (earlier measurements' fork means) would now include the first round.
func (e *Engine) moreForks(ctx context.Context, svc service.Service, req CheckRequest, out *CheckResult, keys map[string]bool, add int) (int, error) {
	opts := req.Options
	opts.Forks = add
	params := service.Params{Options: opts, Priority: req.Priority, Fresh: true}
	var which []workspace.Request
	for _, r := range out.plan.Requests {
		if keys[r.Key()] {
			which = append(which, r)
		}
	}
	if !req.Fresh {
		// Forks stored by another run (another machine of a shared store)
		// answer instead of measuring, when this check has not used them.
		for _, r := range out.plan.Requests {
			if id := out.results[r.Key()].CacheID; id != 0 && !slices.Contains(out.used, id) {
				out.used = append(out.used, id)
			}
		}
		params.Besides = append([]int64{}, out.used...)
	}
	resp, err := e.measureRequests(ctx, svc, req.Dir, req.repo(), params, which, out.index, out.trees, req.Progress)
	if err != nil {
		return 0, err
	}
	if len(resp.compileErrors) > 0 {
		return 0, fmt.Errorf("the project no longer compiles while forks were added")
	}
	out.Notices = append(out.Notices, resp.notices...)
	n := 0
	for _, r := range which {
		key := r.Key()
		got, had := resp.results[key], out.results[key]
		out.Notices = append(out.Notices, measure.SteadyStateWarnings(key, got.Forks, opts.Defaults().MaxWarmup)...)
		if got.Error != "" {
			had.Error = got.Error
		}
		had.Forks = append(had.Forks, got.Forks...)
		if got.CacheID != 0 {
			out.used = append(out.used, got.CacheID)
		}
		had.History = nil
		had.Cached = false
		out.results[key] = had
		n += len(got.Forks)
	}
	return n, nil
}

// decide turns measurements into verdicts, grouped by annotated method, in
// plan order; interpretation says how each formula is decided. It also
// returns the keys of the requests that more forks may decide: the operands
// of instances undecided for lack of evidence.
func decide(plan *workspace.Plan, results map[string]service.ItemResult, opt verdict.Options, interpretation func(*workspace.Formula) (stats.Interpretation, error)) ([]verdict.MethodResult, map[string]bool, error) {
	var methods []verdict.MethodResult
	more := map[string]bool{}
	byMethod := map[string]int{}
	now := time.Now().UTC()
	// Comparisons share measurements (the same method at the same argument
	// in several formulas): summarize each measurement once.
	prepared := map[string]verdict.Side{}
	sideOf := func(o workspace.Operand) verdict.Side {
		if o.Err != nil {
			return verdict.Side{Err: o.Err}
		}
		key := fmt.Sprint(o.Request.Key(), "×", o.Scale, o.Metric)
		sd, ok := prepared[key]
		if !ok {
			sd = side(o, results).Prepare()
			prepared[key] = sd
		}
		return sd
	}
	for _, in := range plan.Instances {
		f := in.Formula
		interp, err := interpretation(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", f.Path, f.Line(), err)
		}
		opt := opt
		opt.Interpretation = interp
		inputs := make([]verdict.Input, len(in.Comparisons))
		for i, c := range in.Comparisons {
			inputs[i] = verdict.Input{Node: c.Node, Text: c.Text, Left: sideOf(c.Left), Right: sideOf(c.Right)}
		}
		ir := verdict.DecideInstance(in.Inst.Body, inputs, opt)
		ir.Line, ir.Instance, ir.Formula = f.Line(), in.Label(), f.Text()
		if ir.Outcome == verdict.Undecided && !ir.Failed {
			for i, c := range ir.Comparisons {
				if c.Outcome == verdict.Undecided && c.Evidence.MoreForks > 0 {
					more[in.Comparisons[i].Left.Request.Key()] = true
					more[in.Comparisons[i].Right.Request.Key()] = true
				}
			}
		}
		key := formulaMethodKey(f)
		i, ok := byMethod[key]
		if !ok {
			i = len(methods)
			byMethod[key] = i
			methods = append(methods, methodRecord(f, now))
		}
		methods[i].Instances = append(methods[i].Instances, ir)
		for _, c := range in.Comparisons {
			for _, o := range []workspace.Operand{c.Left, c.Right} {
				if o.Err == nil && f.Method != nil && o.Request.Method.Decl == f.Method {
					methods[i].Measurements = addMeasurement(methods[i].Measurements, o.Request, results[o.Request.Key()])
				}
			}
		}
	}
	return methods, more, nil
}

// methodRecord is the empty verdict record of a formula's method.
func methodRecord(f *workspace.Formula, now time.Time) verdict.MethodResult {
	mr := verdict.MethodResult{File: f.Path, CheckedAt: now}
	if f.Method != nil {
		mr.Class, mr.Method = f.Method.Type.BinaryName, f.Method.Name
		mr.Source = f.Method.SourceHash(f.File)
		for _, p := range f.Method.Params {
			mr.Params = append(mr.Params, p.Erased)
		}
	}
	return mr
}

// formulaMethodKey is the key decide groups a formula's instances by.
func formulaMethodKey(f *workspace.Formula) string {
	mr := methodRecord(f, time.Time{})
	return fmt.Sprint(mr.File, mr.Class, mr.Method, mr.Params)
}

// side is the verdict side of an operand: its forks' samples, or why there
// are none.
func side(o workspace.Operand, results map[string]service.ItemResult) verdict.Side {
	if o.Err != nil {
		return verdict.Side{Err: o.Err}
	}
	res, ok := results[o.Request.Key()]
	if !ok {
		return verdict.Side{Err: errors.New("not measured")}
	}
	s := sideOf(res)
	s.Scale = o.Scale
	if o.Metric == "" || o.Metric == string(model.Wall) || s.Err != nil {
		return s
	}
	// Another demand: its series, without the run history (of wall times).
	s.Metric, s.History = o.Metric, nil
	if s.Runs = model.Runs(res.Forks, model.Metric(o.Metric)); s.Runs == nil {
		s.Err = fmt.Errorf("%s: this JVM or harness did not report %s for every fork", o.Request.Key(), o.Metric)
	}
	return s
}

// recordVerdicts stores the verdicts, where every editor reads them.
func (e *Engine) recordVerdicts(ctx context.Context, results []verdict.MethodResult) error {
	store, err := e.Store()
	if err != nil {
		return err
	}
	return store.ReplaceVerdicts(ctx, results)
}
