package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// checkJob is one run of the check pipeline: `perfls check` over a whole
// project, or the language server's "Check" lens over one method. Both go
// through the measurement service, so results are shared with every other
// editor and CLI through the cache (and the daemon, when one runs).
type checkJob struct {
	dir     string
	keep    func(*workspace.Formula) bool // which formulas; nil = all
	opts    measure.Options
	verdict verdict.Options
	// interpretation overrides the project's choice (perfls.json) for
	// every formula without its own interpretation= element; "" = none.
	interpretation string
	alphaSet       bool // verdict.Alpha was given explicitly, over perfls.json's
	priority       service.Priority
	fresh          bool
	progress       func(service.Progress)
}

// checkOutcome is what a check found.
type checkOutcome struct {
	methods       []verdict.MethodResult
	diags         []workspace.Diagnostic    // formula problems (errors are not measured)
	compileErrors []measure.CompilerMessage // the project does not compile
	notices       []string                  // e.g. the cache was set aside
	alpha         float64                   // the significance level used
	costs         []costModel               // time per operation against the workload argument
	oracle        []oracleVerdict           // bounds-oracle verdicts of calibrated workloads (verify.go)
	requests      int                       // distinct measurements needed
	cached        int                       // of which the cache answered
	// plan and results are what was measured, for reports that show the
	// samples (--html); results is keyed by workspace.Request.Key.
	plan    *workspace.Plan
	results map[string]service.ItemResult
}

// runCheckJob parses the project, plans the measurements of the formulas
// job.keep selects, measures through svc, decides every instance and records
// the verdicts for editors.
func runCheckJob(ctx context.Context, svc service.Service, job checkJob) (*checkOutcome, error) {
	proj, err := measure.FindProject(job.dir)
	if err != nil {
		return nil, err
	}
	out := &checkOutcome{}
	var files []*javasrc.File
	var formulas []*workspace.Formula
	for _, path := range proj.Sources {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		f, err := javasrc.Parse(path, src)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		files = append(files, f)
		fs, ds := workspace.JavaFormulas(f)
		for _, fm := range fs {
			if job.keep == nil || job.keep(fm) {
				formulas = append(formulas, fm)
			}
		}
		out.diags = append(out.diags, ds...)
	}
	plan := workspace.PlanCheck(workspace.NewIndex(files), formulas)
	out.diags = append(out.diags, plan.Diagnostics...)
	out.requests = len(plan.Requests)
	if len(plan.Instances) == 0 {
		return out, nil
	}

	params := service.Params{Project: job.dir, Options: job.opts, Priority: job.priority, Fresh: job.fresh}
	for _, r := range plan.Requests {
		item := service.Item{Method: toSpec(r.Method), Generator: toSpec(r.Generator)}
		for _, a := range r.Args {
			item.Args = append(item.Args, toMeasureArg(a))
		}
		params.Items = append(params.Items, item)
	}
	resp, err := svc.Measure(ctx, params, job.progress)
	if err != nil {
		return nil, err
	}
	out.notices = resp.Notices
	if len(resp.CompileErrors) > 0 {
		out.compileErrors = resp.CompileErrors
		return out, nil
	}
	results := map[string]service.ItemResult{}
	for i, r := range plan.Requests {
		results[r.Key()] = resp.Items[i]
		if resp.Items[i].Cached {
			out.cached++
		}
	}
	out.costs = fitCosts(plan.Requests, results)
	out.plan, out.results = plan, results
	opt := job.verdict
	if !job.alphaSet && proj.Alpha > 0 {
		opt.Alpha = proj.Alpha
	}
	out.alpha = opt.Alpha
	// The most specific choice wins: the formula's annotation, then the
	// command line, then the project's perfls.json, then the data.
	interpretation := func(f *workspace.Formula) (stats.Interpretation, error) {
		for _, name := range []string{f.Interpretation, job.interpretation, proj.Interpretation} {
			if name != "" {
				return stats.ParseInterpretation(name)
			}
		}
		return stats.Auto, nil
	}
	out.methods, err = decide(plan, results, opt, interpretation)
	if err != nil {
		return nil, err
	}
	if out.oracle, err = checkOracle(ctx, resp.Items, job.opts); err != nil {
		out.notices = append(out.notices, fmt.Sprintf("bounds oracle: %v", err))
	}
	if err := recordVerdicts(ctx, out.methods); err != nil {
		out.notices = append(out.notices, fmt.Sprintf("could not record verdicts for editors: %v", err))
	}
	return out, nil
}

func toSpec(t workspace.Target) measure.MethodSpec {
	return measure.MethodSpec{Class: t.Class, Name: t.Method, Params: t.Params}
}

func toMeasureArg(v spl.Value) measure.Arg {
	switch v.Kind {
	case spl.String:
		return measure.Arg{Str: v.Str, IsString: true}
	case spl.Float:
		return measure.Arg{Int: int64(v.Float)}
	default:
		return measure.Arg{Int: v.Int}
	}
}

// decide turns measurements into verdicts, grouped by annotated method;
// interpretation says how each formula is decided.
func decide(plan *workspace.Plan, results map[string]service.ItemResult, opt verdict.Options, interpretation func(*workspace.Formula) (stats.Interpretation, error)) ([]verdict.MethodResult, error) {
	var methods []verdict.MethodResult
	byMethod := map[string]int{}
	now := time.Now().UTC()
	// Comparisons share measurements (the same method at the same argument
	// in several formulas): summarize each measurement once.
	prepared := map[string]verdict.Side{}
	sideOf := func(o workspace.Operand) verdict.Side {
		if o.Err != nil {
			return verdict.Side{Err: o.Err}
		}
		key := fmt.Sprint(o.Request.Key(), "×", o.Scale)
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
			return nil, fmt.Errorf("%s:%d: %w", f.Path, f.Line(), err)
		}
		opt := opt
		opt.Interpretation = interp
		inputs := make([]verdict.Input, len(in.Comparisons))
		for i, c := range in.Comparisons {
			inputs[i] = verdict.Input{Node: c.Node, Text: c.Text, Left: sideOf(c.Left), Right: sideOf(c.Right)}
		}
		ir := verdict.DecideInstance(in.Inst.Body, inputs, opt)
		ir.Line, ir.Instance = f.Line(), in.Label()
		if f.Value != nil {
			ir.Formula = f.Value.Text
		}

		mr := verdict.MethodResult{File: f.Path, CheckedAt: now}
		if f.Method != nil {
			mr.Class, mr.Method = f.Method.Type.BinaryName, f.Method.Name
			mr.Source = f.Method.SourceHash(f.File)
			for _, p := range f.Method.Params {
				mr.Params = append(mr.Params, p.Erased)
			}
		}
		key := fmt.Sprint(mr.File, mr.Class, mr.Method, mr.Params)
		i, ok := byMethod[key]
		if !ok {
			i = len(methods)
			byMethod[key] = i
			methods = append(methods, mr)
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
	return methods, nil
}

func side(o workspace.Operand, results map[string]service.ItemResult) verdict.Side {
	if o.Err != nil {
		return verdict.Side{Err: o.Err}
	}
	res, ok := results[o.Request.Key()]
	switch {
	case !ok:
		return verdict.Side{Err: errors.New("not measured")}
	case res.Error != "":
		return verdict.Side{Err: errors.New(res.Error)}
	}
	s := verdict.Side{Scale: o.Scale}
	for _, f := range res.Forks {
		s.Runs = append(s.Runs, f.NsPerOp)
	}
	// Earlier runs of the same code: only their means matter to the
	// parametric interpretation, so each arrives as a one-value run.
	for _, m := range res.History {
		s.History = append(s.History, []float64{m})
	}
	return s
}

// recordVerdicts stores the verdicts in the cache, where every editor reads
// them.
func recordVerdicts(ctx context.Context, results []verdict.MethodResult) error {
	dir, err := cache.Dir()
	if err != nil {
		return err
	}
	store, _, err := cache.OpenStore(ctx, dir)
	if err != nil {
		return err
	}
	defer store.Close()
	return store.ReplaceVerdicts(ctx, results)
}

// costModel is the fitted cost of one method on one workload.
type costModel struct {
	Subject string // method[workload]
	Points  int    // distinct argument values
	Decades float64
	Fit     stats.CostModels
}

// fitCosts fits time per operation against the workload argument for every
// (method, workload) measured at two or more values of a single integer
// argument, one point per fork mean.
func fitCosts(reqs []workspace.Request, results map[string]service.ItemResult) []costModel {
	type series struct {
		subject string
		pts     []stats.CostPoint
		ns      map[int64]bool
	}
	var order []string
	bySubject := map[string]*series{}
	for _, r := range reqs {
		if len(r.Args) != 1 || r.Args[0].Kind != spl.Int {
			continue
		}
		res, ok := results[r.Key()]
		if !ok || res.Error != "" {
			continue
		}
		subject := fmt.Sprintf("%s#%s[%s]", r.Method.Class, r.Method.Method, r.Generator.Method)
		sr := bySubject[subject]
		if sr == nil {
			sr = &series{subject: subject, ns: map[int64]bool{}}
			bySubject[subject] = sr
			order = append(order, subject)
		}
		sr.ns[r.Args[0].Int] = true
		for _, f := range res.Forks {
			if len(f.NsPerOp) == 0 {
				continue
			}
			sr.pts = append(sr.pts, stats.CostPoint{N: float64(r.Args[0].Int), Y: stat.Mean(f.NsPerOp, nil)})
		}
	}
	var out []costModel
	for _, subject := range order {
		sr := bySubject[subject]
		if len(sr.ns) < 2 {
			continue
		}
		fit, err := stats.FitCostModels(sr.pts)
		if err != nil {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for n := range sr.ns {
			lo, hi = math.Min(lo, float64(n)), math.Max(hi, float64(n))
		}
		out = append(out, costModel{Subject: subject, Points: len(sr.ns), Decades: math.Log10(hi / lo), Fit: fit})
	}
	return out
}

// addMeasurement adds the summary of one of the annotated method's own
// measurements, once per workload and arguments.
func addMeasurement(ms []verdict.Measurement, r workspace.Request, res service.ItemResult) []verdict.Measurement {
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		args[i] = a.String()
	}
	m := verdict.Measurement{Workload: r.Generator.Method, Args: strings.Join(args, ", "), MeasuredAt: res.MeasuredAt}
	for _, have := range ms {
		if have.Workload == m.Workload && have.Args == m.Args {
			return ms
		}
	}
	if res.Error != "" || len(res.Forks) == 0 {
		return ms
	}
	if len(r.Args) == 1 && r.Args[0].Kind == spl.Int {
		m.N = float64(r.Args[0].Int)
	}
	s := measure.Summarize(res.Forks)
	finite := func(x float64) float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0
		}
		return x
	}
	m.MeanNs, m.MedianNs = finite(s.MeanNsPerOp), finite(s.MedianNsPerOp)
	m.CILowNs, m.CIHighNs = finite(s.CI95[0]), finite(s.CI95[1])
	m.AllocBytes = -1
	if !math.IsNaN(s.MeanAllocBytesPerOp) {
		m.AllocBytes = s.MeanAllocBytesPerOp
	}
	m.Forks, m.Samples = s.Forks, s.SamplesPerFork
	for _, f := range res.Forks {
		if len(f.NsPerOp) > 0 {
			m.ForkMeansNs = append(m.ForkMeansNs, stat.Mean(f.NsPerOp, nil))
		}
	}
	return append(ms, m)
}
