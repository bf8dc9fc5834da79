package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// DefaultModelPoints is how many parameter values a model is extracted at
// when the user gives a range.
const DefaultModelPoints = 6

// ModelMinSample is the sample length of a model's measurements unless the
// options set one: long enough for the process CPU clock, which ticks in
// 10 ms on Linux, to give a usable figure per fork (docs/models.md).
const ModelMinSample = 20 * time.Millisecond

// ModelPrecision is the relative half-width of the 95 % interval of a
// value's wall and cpu figures (the mean of its fork means, Student-t over
// the forks) that a model's measurements aim at: forks of the same code
// can land in groups ×1.6–2 apart — on processors of unequal speed, or in
// periods of the machine's speed (docs/models.md, "What the modes are") —
// so that the mean of three forks can be off by a third; more forks are
// measured where the figures differ (MeasurePrecise).
const ModelPrecision = 0.10

// MeasurePrecise measures like Measure and then adds forks,
// req.Options.Forks at a time, while the wall or the cpu figure's 95 %
// interval is wider than ±ModelPrecision of its mean (or rests on one
// fork), up to maxForks (0: 3 × the forks). Added forks are fresh, or
// stored ones this call has not used: measuring the same again reads the
// stored forks back (newest first, by the same rule) instead of measuring.
// It is how perfls model measures each value and how bench model measures
// its checks.
func (e *Engine) MeasurePrecise(ctx context.Context, req MeasureRequest, maxForks int) (*Measured, error) {
	m, err := e.Measure(ctx, req)
	forks := req.Options.Defaults().Forks
	if maxForks == 0 {
		maxForks = 3 * forks
	}
	used := []int64{m.CacheID}
	for err == nil && len(m.Result.Forks) < maxForks {
		if _, w := Widest(m.Result.Forks); w <= ModelPrecision {
			break
		}
		more := req
		more.Fresh, more.Options.Forks, more.Preliminary = true, min(forks, maxForks-len(m.Result.Forks)), nil
		if !req.Fresh && used[0] != 0 {
			more.Besides = slices.Clone(used)
		}
		var add *Measured
		add, err = e.Measure(ctx, more)
		if add != nil {
			m.Result.Forks = append(m.Result.Forks, add.Result.Forks...)
			m.Notices = append(m.Notices, add.Notices...)
			m.Cached = m.Cached && add.Cached
			m.Result.Err = add.Result.Err
			used = append(used, add.CacheID)
		}
	}
	return m, err
}

// Widest is the demand, wall or cpu, whose 95 % interval over the fork
// figures is the widest relative to its mean, and that relative
// half-width; +Inf with fewer than two forks.
func Widest(forks []measured.Fork) (model.Metric, float64) {
	metric, widest := model.Wall, math.Inf(1)
	if len(forks) < 2 {
		return metric, widest
	}
	widest = 0
	for _, mt := range []model.Metric{model.Wall, model.CPU} {
		if d, ok := model.DemandOf(forks, mt); ok && d.CIOver == "forks" {
			if w := (d.CI95[1] - d.CI95[0]) / 2 / d.Mean; !(w <= widest) {
				metric, widest = mt, w
			}
		}
	}
	return metric, widest
}

// ModelRequest asks for the performance model of one method on one
// workload over one parameter: the generator's first parameter.
type ModelRequest struct {
	Dir string // the project directory (absolute)
	// Workload: Generator nil = the method's only binding (a workload loop:
	// itself); Args: the other generator arguments, nil = their documented
	// minimums.
	Workload Workload
	// Values are the parameter values as the user gave them: "10,100,1000",
	// or "LO..HI" for a geometric grid of Points values ("LO..HI:K": K
	// values); "": a grid over the generator's @Param(min, max). Values
	// need no documented range.
	Values  string
	Points  int // the grid's size; 0: DefaultModelPoints
	Options measure.Options
	Fresh   bool
	// NoCallees leaves out the profiled fork per value that apportions the
	// cpu demand to the callees and the counting fork per value that
	// counts their invocations (docs/models.md).
	NoCallees bool
	// MaxForks bounds the forks per value that MeasurePrecise adds to
	// reach ModelPrecision; 0: 3 × Options.Forks.
	MaxForks int
	Progress func(service.Progress)
}

// ExtractModel measures the workload at each parameter value and builds
// the model: demands per operation at each value, fitted dependencies, and
// the environment (docs/models.md), with the measurements' warnings.
func (e *Engine) ExtractModel(ctx context.Context, req ModelRequest) (*model.Model, error) {
	if err := ValidateOptions(req.Options, 1); err != nil {
		return nil, err
	}
	w, param, values, err := modelPlan(ctx, req)
	if err != nil {
		return nil, err
	}
	opt := req.Options
	if opt.MinSampleTime == 0 {
		opt.MinSampleTime = ModelMinSample
	}
	var ms []model.Measured
	var notices []string
	var env measured.Environment
	var fixed []string
	method, workload := w.Method.String(), w.generator()
	for _, a := range w.Args {
		fixed = append(fixed, measure.ArgsKey([]measured.Arg{a}))
	}
	timed, err := e.measureValues(ctx, req, w, opt, param, values)
	if err != nil {
		return nil, err
	}
	for i, v := range values {
		wv := w.at(v)
		m := timed[i]
		for _, n := range m.Notices {
			notices = append(notices, fmt.Sprintf("%s = %d: %s", param, v, n))
		}
		if metric, w := Widest(m.Result.Forks); w > ModelPrecision && len(m.Result.Forks) > 1 {
			notices = append(notices, fmt.Sprintf("%s = %d: %s ±%.0f %% after %d forks (aim ±%.0f %%): the forks' figures differ (unequal processors, or the machine's speed changing)", param, v, metric, 100*w, len(m.Result.Forks), 100*ModelPrecision))
		}
		env = m.Result.Env
		mv := model.Measured{N: float64(v), Forks: m.Result.Forks}
		if !req.NoCallees {
			// The profile's own defaults, but half the iterations (about 500
			// samples) and warm-up no longer than the timing forks': its
			// shares need samples, not a settled JIT.
			popt := ProfileDefaults()
			popt.SamplesPerFork /= 2
			popt.Warmup, popt.MaxWarmup = min(popt.Warmup, opt.Defaults().Warmup), min(popt.MaxWarmup, opt.Defaults().MaxWarmup)
			p, err := e.Profile(ctx, ProfileRequest{Dir: req.Dir, Workload: wv, Options: popt, Fresh: req.Fresh, Progress: req.Progress, SharesOnly: true})
			switch {
			case err != nil:
				notices = append(notices, fmt.Sprintf("%s = %d: no profile to apportion the callees: %v", param, v, err))
			case p.Profile != nil:
				total, byCallee := p.Profile.CalleeSamples()
				mv.Profile = &model.CalleeSamples{Total: total, ByCallee: byCallee}
			}
			// The counting fork: counts only, in an instrumented copy, with
			// the user's JVM settings, the counting defaults and warm-up no
			// longer than the timing forks'.
			copt := measure.CountDefaults()
			copt.HeapMB, copt.JVMArgs, copt.Java, copt.CPUs = opt.HeapMB, opt.JVMArgs, opt.Java, opt.CPUs
			copt.Warmup, copt.MaxWarmup = min(copt.Warmup, opt.Defaults().Warmup), min(copt.MaxWarmup, opt.Defaults().MaxWarmup)
			cp := service.Params{Project: req.Dir, Items: []service.Item{wv.item()}, Fresh: req.Fresh, Count: true, Options: copt}
			if _, it, err := measureOne(ctx, e.service(ctx), cp, req.Progress); err != nil {
				notices = append(notices, fmt.Sprintf("%s = %d: no invocation counts: %v", param, v, err))
			} else if it.Counts == nil {
				notices = append(notices, fmt.Sprintf("%s = %d: the measurement service returned no invocation counts (a daemon of an older perfls? perfls daemon stop)", param, v))
			} else {
				mv.Counts = it.Counts
			}
		}
		ms = append(ms, mv)
		method, workload = m.Method, m.Workload
	}
	if ratio, fast, slow, p, ok := model.RoundDrift(ms, model.Wall); ok && p < model.DriftAlpha && ratio >= model.DriftRatio {
		notices = append(notices, fmt.Sprintf(DriftNotice+": "+
			"their forks of round %d took %.2f× the time of those of round %d, at every value alike (F test p = %.2g). "+
			"The values' forks ran in turns, so this is the machine (other processes or virtual machines, frequency scaling), not the code: "+
			"the curve's shape holds, its level mixes the periods and a prediction can be off by that much; measure again on a quiet machine",
			slow+1, ratio, fast+1, p))
	}
	op := model.Extract(method, workload, param, fixed, ms)
	cur, err := ModelEnvironment(opt)
	if err != nil {
		return nil, err
	}
	cur = cur.Ran(env)
	cur.Harness = measure.HarnessSettings(opt)
	m := &model.Model{Format: model.FormatVersion, CreatedAt: time.Now().UTC(), Operations: []model.Operation{op}, Environment: cur, Notices: notices}
	if err := e.storeModel(ctx, m); err != nil {
		m.Notices = append(m.Notices, fmt.Sprintf("the model is not kept for the hover: %v", err))
	}
	return m, nil
}

// KindModel is the kind under which the store keeps the newest model of
// each operation (workload, fixed arguments, machine and JVM), for the
// hover and the HTML report.
const KindModel = "model"

func (e *Engine) storeModel(ctx context.Context, m *model.Model) error {
	store, err := e.Store()
	if err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	op := m.Operations[0]
	key := cache.Key{Method: op.Method, Workload: op.Workload, Args: strings.Join(op.Fixed, ","),
		JVM: m.Environment.JVM, Harness: m.Environment.Harness, Machine: m.Environment.Machine}
	return store.PutProfile(ctx, &cache.Profile{Kind: KindModel, Key: key, Summary: data, CreatedAt: m.CreatedAt})
}

// StoredModels are the stored models of one method (any workload, newest
// first) extracted on this machine; it measures nothing.
func (e *Engine) StoredModels(ctx context.Context, req MethodRequest) ([]*model.Model, error) {
	spec := methodspec.Spec{Class: req.Class, Name: req.Method, Params: req.Params}
	if spec.Params == nil {
		spec.Params = []string{}
	}
	return e.storedModels(ctx, spec.Matches)
}

func (e *Engine) storedModels(ctx context.Context, match func(string) bool) ([]*model.Model, error) {
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	stored, err := store.ProfilesOf(ctx, KindModel, match)
	if err != nil {
		return nil, err
	}
	machine := measure.MachineIdentity()
	var out []*model.Model
	for _, p := range stored {
		m, err := model.Read(p.Summary)
		if err != nil || m.Environment.Machine != machine {
			continue // an older format, or another machine's (a shared store)
		}
		out = append(out, m)
	}
	return out, nil
}

// DriftNotice begins a model's notice that the machine's speed changed
// while its values were measured (model.RoundDrift).
const DriftNotice = "the machine's speed changed while the values were measured"

// at is w with v as the generator's first argument: the model's parameter
// (w.Args holds the others).
func (w Workload) at(v int64) Workload {
	w.Args = append([]measured.Arg{measured.IntArg(v)}, w.Args...)
	return w
}

// measureValues measures every value's timing forks (MeasurePrecise) at
// the same time. The service runs the forks of concurrent jobs in turns,
// so the values' forks interleave and a slow period of the machine touches
// every value alike instead of bending the curve at one: on a shared host
// the speed moves in steps of ×1.2–2 that last seconds to minutes
// (docs/models.md, run K). The first failure cancels the rest.
func (e *Engine) measureValues(ctx context.Context, req ModelRequest, w Workload, opt measure.Options, param string, values []int64) ([]*Measured, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	progress := req.Progress
	if progress != nil {
		progress = func(p service.Progress) {
			mu.Lock()
			defer mu.Unlock()
			req.Progress(p)
		}
	}
	timed, errs := make([]*Measured, len(values)), make([]error, len(values))
	var wg sync.WaitGroup
	for i, v := range values {
		wv := w.at(v)
		wg.Add(1)
		go func() {
			defer wg.Done()
			timed[i], errs[i] = e.MeasurePrecise(ctx, MeasureRequest{Dir: req.Dir, Workload: wv, Options: opt, Phase: service.PhaseFull, Fresh: req.Fresh, Progress: progress}, req.MaxForks)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// The first value that failed for its own reason, not one cancelled
	// because of it.
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return timed, fmt.Errorf("%s = %d: %w", param, values[i], err)
		}
	}
	for i, err := range errs {
		if err != nil {
			return timed, fmt.Errorf("%s = %d: %w", param, values[i], err)
		}
	}
	return timed, nil
}

// ModelEnvironment is the identity of this machine and of the JVM that
// measurements with opt run on: what a model's environment must match for
// its predictions to apply.
func ModelEnvironment(opt measure.Options) (model.Environment, error) {
	jvm, err := measure.JVMIdentity(opt)
	if err != nil {
		return model.Environment{}, err
	}
	return model.Environment{Machine: measure.MachineIdentity(), JVM: jvm, HeapMB: opt.HeapMB, JVMArgs: opt.JVMArgs, CPUs: opt.CPUs}, nil
}

// Predict reads a model file and evaluates it at the parameter value that
// assign gives ("n=5000", or just "5000"), for method ("" when the model
// has one operation). It refuses a model extracted on another machine or
// JVM.
func Predict(ctx context.Context, path, method, assign string) (*report.Predicted, error) {
	op, ps, err := predict(ctx, path, method, assign)
	if err != nil {
		return nil, err
	}
	return &report.Predicted{Method: op.Method, Workload: op.Workload, Parameter: op.Parameter, Predictions: ps}, nil
}

func predict(ctx context.Context, path, method, assign string) (*model.Operation, []model.Prediction, error) {
	if _, _, err := parseAssign(assign); err != nil {
		return nil, nil, err
	}
	if path == "" {
		return nil, nil, errors.New("predict needs --model FILE (written by perfls model) or --method pkg.Class#m (its model stored by perfls model)")
	}
	data, err := input.ReadFile(ctx, path, input.Model)
	if err != nil {
		return nil, nil, fmt.Errorf("--model: %w", err)
	}
	m, err := model.Read(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return predictWith(m, path, method, assign)
}

// parseAssign reads predict's NAME=VALUE (or VALUE); name is "" when not
// given.
func parseAssign(assign string) (name string, n float64, err error) {
	pname, value, named := strings.Cut(assign, "=")
	if !named {
		value, pname = pname, ""
	}
	n, err = strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil {
		return "", 0, fmt.Errorf("--param %q: want NAME=VALUE, e.g. n=5000", assign)
	}
	return strings.TrimSpace(pname), n, nil
}

// predictWith evaluates m (named so in messages) at assign for method.
func predictWith(m *model.Model, name, method, assign string) (*model.Operation, []model.Prediction, error) {
	pname, n, err := parseAssign(assign)
	if err != nil {
		return nil, nil, err
	}
	cur, err := ModelEnvironment(measure.Options{HeapMB: m.Environment.HeapMB, JVMArgs: m.Environment.JVMArgs, CPUs: m.Environment.CPUs})
	if err != nil {
		return nil, nil, err
	}
	if diff := m.Environment.Mismatch(cur); diff != "" {
		return nil, nil, fmt.Errorf("%s was extracted in another environment: %s differs; its demands do not apply here: extract the model here with perfls model", name, diff)
	}
	op, ps, err := m.Predict(method, n)
	if err == nil && pname != "" && pname != op.Parameter {
		return nil, nil, fmt.Errorf("--param %s: the model's parameter is %s", pname, op.Parameter)
	}
	return op, ps, err
}

// PredictStored evaluates the newest model of method that perfls model
// stored on this machine (the one the hover shows) at the parameter value
// assign gives: perfls predict --method without --model.
func (e *Engine) PredictStored(ctx context.Context, method, assign string) (*report.Predicted, error) {
	s, err := methodspec.Parse(method)
	if err != nil {
		return nil, fmt.Errorf("--method: %w", err)
	}
	ms, err := e.storedModels(ctx, s.Matches)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no model of %s is stored for this machine: extract one with perfls model --method %s (or give --model FILE)", method, method)
	}
	op, ps, err := predictWith(ms[0], "the stored model of "+method, ms[0].Operations[0].Method, assign)
	if err != nil {
		return nil, err
	}
	return &report.Predicted{Method: op.Method, Workload: op.Workload, Parameter: op.Parameter, Predictions: ps}, nil
}

// modelPlan resolves the workload (its generator from the method's only
// binding when none is named: modelWorkload), the varied parameter's name
// and the values to measure.
func modelPlan(ctx context.Context, req ModelRequest) (Workload, string, []int64, error) {
	w := req.Workload
	var values []int64
	var rng [2]int64
	points := req.Points
	if req.Values != "" {
		spec, k, grid := strings.Cut(req.Values, ":")
		var err error
		if values, rng, err = ParseValues(spec); err == nil && grid {
			points, err = strconv.Atoi(k)
			if err != nil || points < 3 || values != nil {
				err = fmt.Errorf("%q: want LO..HI:K with K ≥ 3", req.Values)
			}
		}
		if err != nil {
			return w, "", nil, fmt.Errorf("--values: %w", err)
		}
	}
	src, err := readSources(ctx, req.Dir, nil)
	if err != nil {
		return w, "", nil, err
	}
	var gen *javasrc.Method // the declaration whose first parameter varies
	if w.Generator == nil {
		if gen, err = modelWorkload(src, req.Dir, &w); err != nil {
			return w, "", nil, err
		}
	} else {
		gen = findDecl(src.files, *w.Generator)
	}
	param, lo, hi := "n", rng[0], rng[1]
	if gen != nil {
		var doc [2]int64
		if param, doc, err = modelParameter(gen, &w); err != nil {
			return w, "", nil, err
		}
		if lo == 0 && hi == 0 {
			lo, hi = doc[0], doc[1]
		}
	}
	if len(values) == 0 {
		if lo <= 0 || hi <= lo {
			of := w.Method.String()
			if w.Generator != nil {
				of = w.Generator.String()
			}
			return w, "", nil, fmt.Errorf("no parameter values for %s of %s: give --values 10,100,1000 or --values LO..HI, or document @Param(min = …, max = …)", param, of)
		}
		if points == 0 {
			points = DefaultModelPoints
		}
		values = model.GeometricGrid(lo, hi, points)
	}
	if len(values) < 3 {
		return w, "", nil, fmt.Errorf("a model needs at least 3 parameter values (got %d)", len(values))
	}
	return w, param, values, nil
}

// modelParameter is the parameter of gen that a model varies — its first,
// a loop's first after the controller, an int or a long — with its
// documented range (zero when not documented), and fixes gen's other
// parameters in w.Args, when they are not given, to their documented
// minimums.
func modelParameter(gen *javasrc.Method, w *Workload) (string, [2]int64, error) {
	var rng [2]int64
	first := 0
	if isLoop(gen) {
		first = 1 // a loop's controller is the harness's
	}
	params := gen.Params
	if len(params) <= first || params[first].Erased != "int" && params[first].Erased != "long" {
		return "", rng, fmt.Errorf("%s: a model varies the first parameter of %s, which must be an int or a long", w.Method, gen.Name)
	}
	if gen.Generator != nil && len(gen.Generator.Params) > first {
		if doc := gen.Generator.Params[first]; doc.Min != nil && doc.Max != nil {
			rng = [2]int64{int64(*doc.Min), int64(*doc.Max)}
		}
	}
	if len(w.Args) == 0 && len(params) > first+1 {
		rest, err := documentedArgsFrom(gen, first+1)
		if err != nil {
			return "", rng, fmt.Errorf("the other parameters of %s: %w, or give them with --args", gen.Name, err)
		}
		for _, a := range rest {
			w.Args = append(w.Args, arg(a))
		}
	}
	return params[first].Name, rng, nil
}

// modelWorkload completes w, named without a generator, from the source
// as SelectWorkloads does: a workload loop is its own workload; else the
// method's only binding (@Workload, or the generator its formulas measure
// SELF on) is the generator. It returns the declaration whose first
// parameter a model varies, and refuses when the binding is not one.
func modelWorkload(src *sources, dir string, w *Workload) (*javasrc.Method, error) {
	decl, file, err := sourceMethod(src.files, w.Method)
	switch {
	case err != nil:
		return nil, err
	case decl == nil:
		return nil, fmt.Errorf("%s is not declared in the project: name the generator with --workload", w.Method)
	}
	if w.Method.Params == nil {
		// The overload the binding chose, not every one of that name: a
		// name without types is ambiguous where the values are measured.
		w.Method.Params = erasedParams(decl)
	}
	if isLoop(decl) {
		return decl, nil
	}
	req := MethodRequest{Root: dir, File: file.Path, Class: decl.Type.BinaryName, Method: decl.Name, Params: erasedParams(decl)}
	ws, err := sourceWorkloads(src, req, false)
	if err != nil {
		return nil, err
	}
	var gens []workspace.Target
	seen := map[string]bool{}
	for _, r := range ws.reqs {
		if g := spec(r.Generator); r.Generator.Class != "" && !seen[g.String()] {
			seen[g.String()] = true
			gens = append(gens, r.Generator)
		}
	}
	switch len(gens) {
	case 1:
		g := spec(gens[0])
		w.Generator = &g
		return gens[0].Decl, nil
	case 0:
		msg := "it has no workload: add @Workload(\"pkg.Class#generator\")"
		if len(ws.problems) > 0 {
			msg = strings.Join(ws.problems, "; ")
		}
		return nil, fmt.Errorf("%s: %s, or name the generator with --workload", w.Method, msg)
	}
	var names []string
	for _, g := range gens {
		names = append(names, spec(g).String())
	}
	return nil, fmt.Errorf("%s has %d workloads (%s): a model varies one; name it with --workload", w.Method, len(gens), strings.Join(names, ", "))
}

// findDecl is the workspace declaration of a method, nil when it is not in
// the project.
func findDecl(files []*javasrc.File, s methodspec.Spec) *javasrc.Method {
	for _, f := range files {
		for _, m := range f.Methods {
			if declIs(m, s) {
				return m
			}
		}
	}
	return nil
}

// declIs says whether m is the method s names, by the one rule of
// methodspec (nested classes with $ or ., simple or qualified parameter
// types, compared by erasure).
func declIs(m *javasrc.Method, s methodspec.Spec) bool {
	if m == nil || m.Type == nil {
		return false
	}
	return s.Matches(m.Type.BinaryName + "#" + m.Name + "(" + strings.Join(erasedParams(m), ",") + ")")
}

// ParseValues reads "10,100,1000" or a range "10..10000" for perfls model.
func ParseValues(s string) (values []int64, rng [2]int64, err error) {
	if lo, hi, ok := strings.Cut(s, ".."); ok {
		a, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		b, err2 := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
		if err1 != nil || err2 != nil || a < 1 || b <= a {
			return nil, rng, fmt.Errorf("range %q: want LO..HI with 1 ≤ LO < HI", s)
		}
		return nil, [2]int64{a, b}, nil
	}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || v < 1 {
			return nil, rng, fmt.Errorf("value %q: want positive integers, comma-separated, or LO..HI", f)
		}
		values = append(values, v)
	}
	return values, rng, nil
}
