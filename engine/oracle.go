package engine

// The bounds oracle's actions (docs/oracle.md): calibrate a workload from
// fresh forks, rebuild or accept into a stored model, verify a run against
// it, and judge the calibrated workloads a check measured.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// CalibrationOptions are calibrate's measuring defaults: perfls check's
// samples and warm-up, so check's forks can be classified against the
// model, with 30 forks.
func CalibrationOptions() measure.Options {
	return measure.Options{Forks: 30, SamplesPerFork: 30, MinSampleTime: time.Millisecond, Warmup: 300 * time.Millisecond,
		MaxWarmup: measure.DefaultMaxWarmup, ForkTimeout: 60 * time.Second}
}

// CalibrateRequest asks to calibrate the oracle of one workload from
// Options.Forks fresh forks.
type CalibrateRequest struct {
	Dir      string
	Workload Workload
	Options  measure.Options
	Config   oracle.Config // Policy zero: oracle.DefaultPolicy()
	Progress func(service.Progress)
}

// Calibration is a stored model and its key.
type Calibration struct {
	Key      cache.OracleKey
	Model    *oracle.Model
	Accepted int64 // the run accepted into the model (Accept)
}

// Calibrate measures the workload in fresh forks and stores them as its
// calibration with req.Config.
func (e *Engine) Calibrate(ctx context.Context, req CalibrateRequest) (*Calibration, error) {
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	key, runs, err := e.measureRuns(ctx, e.service(ctx), req.Dir, req.Workload, req.Options, req.Progress)
	if err != nil {
		return nil, err
	}
	cfg := req.Config
	if cfg.Policy == (oracle.Policy{}) {
		cfg.Policy = oracle.DefaultPolicy()
	}
	m, err := storeCalibration(ctx, store, key, runs, cfg, req.Options)
	if err != nil {
		return nil, err
	}
	return &Calibration{Key: key, Model: m}, nil
}

// CalibrateAction is perfls calibrate's request: calibrate (measure), or
// change the stored model without measuring: Rebuild it with new settings,
// or Accept the latest verified run into it. Config holds the settings
// given; Changed says which were (nil: none), and only those override the
// stored ones or the defaults.
type CalibrateAction struct {
	CalibrateRequest
	Rebuild, Accept bool
	Changed         func(setting string) bool
}

// Validate says what is wrong with the action a user asked for.
func (a CalibrateAction) Validate() error {
	if a.Rebuild && a.Accept {
		return errors.New("--rebuild and --accept exclude each other")
	}
	if !a.Rebuild && !a.Accept {
		if err := ValidateOptions(a.Options, 2); err != nil {
			return err
		}
	}
	return a.Config.Validate()
}

// RunCalibrate runs a CalibrateAction.
func (e *Engine) RunCalibrate(ctx context.Context, a CalibrateAction) (*Calibration, error) {
	changed := a.Changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	edit := func(c oracle.Config) oracle.Config { return c.Override(a.Config, changed) }
	switch {
	case a.Rebuild:
		return e.Rebuild(ctx, a.Workload, edit)
	case a.Accept:
		return e.Accept(ctx, a.Workload)
	}
	req := a.CalibrateRequest
	req.Config = edit(oracle.Config{Policy: oracle.DefaultPolicy()})
	return e.Calibrate(ctx, req)
}

// Rebuild rebuilds the stored model of a workload from its stored runs
// with the configuration edit makes of the stored one, without measuring.
func (e *Engine) Rebuild(ctx context.Context, w Workload, edit func(oracle.Config) oracle.Config) (*Calibration, error) {
	store, key, err := e.modelOf(ctx, w)
	if err != nil {
		return nil, err
	}
	old, err := store.OracleModel(ctx, key)
	if err != nil {
		return nil, err
	}
	cfg := edit(old.Model.Config)
	m, err := store.RebuildOracleModel(ctx, key, &cfg)
	if err != nil {
		return nil, err
	}
	return &Calibration{Key: key, Model: m}, nil
}

// Accept takes the latest verified run of a workload as normal: it joins
// the model's runs and the model is rebuilt, without measuring.
func (e *Engine) Accept(ctx context.Context, w Workload) (*Calibration, error) {
	store, key, err := e.modelOf(ctx, w)
	if err != nil {
		return nil, err
	}
	m, id, err := store.AcceptLatestOracleRun(ctx, key)
	if err != nil {
		return nil, err
	}
	return &Calibration{Key: key, Model: m, Accepted: id}, nil
}

// VerifyRequest asks to run a calibrated workload again and classify the
// run against its model.
type VerifyRequest struct {
	Dir         string
	Workload    Workload
	Forks       int
	ForkTimeout time.Duration
	Progress    func(service.Progress)
}

// Verify measures a calibrated workload in fresh forks, measured exactly
// like its calibration, classifies them against the stored model and
// records the results (for hovers and Accept).
func (e *Engine) Verify(ctx context.Context, req VerifyRequest) (*oracle.Judgement, error) {
	store, key, err := e.modelOf(ctx, req.Workload)
	if err != nil {
		return nil, err
	}
	stored, err := store.OracleModel(ctx, key)
	if err != nil {
		return nil, err
	}
	// The resolved method keeps an overload from being confused with
	// another.
	w := req.Workload
	if w.Method, err = methodspec.Parse(key.Method); err != nil {
		return nil, err
	}
	if key.Workload != "" {
		g, err := methodspec.Parse(key.Workload)
		if err != nil {
			return nil, err
		}
		w.Generator = &g
	}
	opt := measure.Options{Forks: req.Forks, ForkTimeout: req.ForkTimeout}.WithOracleMeta(stored.Model.Measure)
	mkey, runs, err := e.measureRuns(ctx, e.service(ctx), req.Dir, w, opt, req.Progress)
	if err != nil {
		return nil, err
	}
	if mkey != key {
		return nil, fmt.Errorf("measured %s, but the model is of %s", mkey, key)
	}
	results, v, err := store.ClassifyAndRecord(ctx, key, runs, cache.RoleVerify)
	if err != nil {
		return nil, err
	}
	j := oracle.Judge(key.Method, key.Workload, key.Args, stored.Model, results, v)
	return &j, nil
}

// AmbiguousError says that a workload names more than one calibrated model.
type AmbiguousError struct {
	Workload Workload
	Keys     []cache.OracleKey
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d calibrated workloads match %s, e.g. %s and %s: give the parameter types",
		len(e.Keys), e.Workload, e.Keys[0], e.Keys[1])
}

// modelOf finds the stored model a workload names, without measuring: the
// method and generator match by methodspec.Spec.Matches, the arguments
// exactly. No model is cache.ErrNotCalibrated; several an *AmbiguousError.
func (e *Engine) modelOf(ctx context.Context, w Workload) (*cache.Store, cache.OracleKey, error) {
	store, err := e.Store()
	if err != nil {
		return nil, cache.OracleKey{}, err
	}
	keys, err := store.OracleModels(ctx)
	if err != nil {
		return nil, cache.OracleKey{}, err
	}
	var found []cache.OracleKey
	for _, k := range keys {
		if !w.Method.Matches(k.Method) || k.Args != measure.ArgsKey(w.Args) {
			continue
		}
		if (w.Generator == nil) != (k.Workload == "") || (w.Generator != nil && !w.Generator.Matches(k.Workload)) {
			continue
		}
		found = append(found, k)
	}
	switch len(found) {
	case 0:
		return nil, cache.OracleKey{}, fmt.Errorf("%s is %w (run perfls calibrate first)", w, cache.ErrNotCalibrated)
	case 1:
		return store, found[0], nil
	default:
		return nil, cache.OracleKey{}, &AmbiguousError{Workload: w, Keys: found}
	}
}

// measureRuns measures one workload with fresh forks and returns its
// oracle key and one oracle run per fork.
func (e *Engine) measureRuns(ctx context.Context, svc service.Service, dir string, w Workload, opt measure.Options, progress func(service.Progress)) (cache.OracleKey, []oracle.Run, error) {
	p := service.Params{Project: dir, Items: []service.Item{w.item()}, Options: opt, Priority: service.Interactive, Fresh: true}
	_, it, err := measureOne(ctx, svc, p, progress)
	if err != nil {
		return cache.OracleKey{}, nil, err
	}
	key := cache.OracleKey{Method: it.Method, Workload: it.Workload, Args: measure.ArgsKey(w.Args)}
	return key, forkRuns(it.Forks, it.Env, opt), nil
}

// storeCalibration stores runs measured with opt as the calibration of k
// and builds its model with cfg.
func storeCalibration(ctx context.Context, store *cache.Store, k cache.OracleKey, runs []oracle.Run, cfg oracle.Config, opt measure.Options) (*oracle.Model, error) {
	stored := make([]*cache.OracleRun, len(runs))
	for i, r := range runs {
		stored[i] = &cache.OracleRun{Run: r}
	}
	return store.Calibrate(ctx, k, stored, cfg, measure.OracleMeta(opt))
}

// forkRuns turns forks into oracle runs, one per fork.
func forkRuns(forks []measured.Fork, env measured.Environment, opt measure.Options) []oracle.Run {
	runs := make([]oracle.Run, len(forks))
	for i, f := range forks {
		runs[i] = oracle.Run{Series: f.Series(), Env: measure.OracleEnv(env, opt, f.PID)}
	}
	return runs
}

// judgeCalibrated classifies, for every calibrated workload a check
// measured, its forks against the stored model. Fresh forks are stored and
// their results recorded (for hovers and Accept); forks the cache answered
// are classified again but not recorded twice. Measurements without a model
// are skipped.
func (e *Engine) judgeCalibrated(ctx context.Context, items []service.ItemResult, opts measure.Options) ([]oracle.Judgement, error) {
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	keys, err := store.OracleModels(ctx)
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	calibrated := map[cache.OracleKey]bool{}
	for _, k := range keys {
		calibrated[k] = true
	}
	var out []oracle.Judgement
	seen := map[cache.OracleKey]bool{}
	for _, it := range items {
		key := cache.OracleKey{Method: it.Method, Workload: it.Workload, Args: measure.ArgsKey(it.Args)}
		if it.Error != "" || len(it.Forks) == 0 || !calibrated[key] || seen[key] {
			continue
		}
		seen[key] = true
		m, err := store.OracleModel(ctx, key)
		if err != nil || m == nil {
			return out, err
		}
		runs := forkRuns(it.Forks, it.Env, opts)
		var results []oracle.Result
		var v oracle.Verdict
		if it.Cached {
			for _, r := range runs {
				results = append(results, oracle.Classify(m.Model, r))
			}
			v = oracle.Combine(results)
		} else if results, v, err = store.ClassifyAndRecord(ctx, key, runs, "check"); err != nil {
			if errors.Is(err, cache.ErrNotCalibrated) {
				continue
			}
			return out, err
		}
		j := oracle.Judge(key.Method, key.Workload, key.Args, m.Model, results, v)
		j.Cached = it.Cached
		out = append(out, j)
	}
	return out, nil
}

// oraclePolicyDefaults is the configuration of a model calibrated without
// settings: oracle's defaults.
func oraclePolicyDefaults() oracle.Config { return oracle.Config{Policy: oracle.DefaultPolicy()} }

// CalibratedWorkloads are the calibrated workloads (stored bounds-oracle
// models) of the method sel names, narrowed by what sel gives: --workload
// (NoWorkload: the method called itself), --args. It is what verify,
// calibrate --rebuild and --accept act on when the workload is left out,
// as the editor shows the oracle's lenses on every calibrated workload of
// a method. None is cache.ErrNotCalibrated, with what to run.
func (e *Engine) CalibratedWorkloads(ctx context.Context, sel Selection) ([]Workload, error) {
	w, err := ParseWorkload(sel.Method, "", sel.Args)
	if err != nil {
		return nil, err
	}
	var gen *methodspec.Spec
	if sel.Workload != "" && sel.Workload != NoWorkload {
		g, err := methodspec.Parse(sel.Workload)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		gen = &g
	}
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	keys, err := store.OracleModels(ctx)
	if err != nil {
		return nil, err
	}
	var out []Workload
	for _, k := range keys {
		switch {
		case !w.Method.Matches(k.Method),
			sel.ArgsSet && k.Args != measure.ArgsKey(w.Args),
			sel.Workload == NoWorkload && k.Workload != "",
			gen != nil && !gen.Matches(k.Workload):
			continue
		}
		cw, err := ParseWorkload(k.Method, k.Workload, k.Args)
		if err != nil {
			continue // a key this perfls cannot read: not one to act on
		}
		out = append(out, cw)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no calibrated workload matching the flags: %w (run perfls calibrate --method %s first)", w.Method, cache.ErrNotCalibrated, sel.Method)
	}
	return out, nil
}
