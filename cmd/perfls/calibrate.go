package main

// perfls calibrate and perfls verify: the bounds oracle on the command line
// (reference 000-bounds-oracle.md; analysis/oracle). Both select a workload
// like perfls measure (--project, --method, --workload, --args) and measure
// through the measurement service, so a running daemon keeps their forks
// from overlapping with any other measurement.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// exitNotApplicable is verify's exit status when the run's environment
// differs from calibration (another JVM, machine, flags or harness): the
// oracle cannot judge it, which is not a regression.
const exitNotApplicable = 3

// oracleSelector is the workload selection shared by calibrate and verify,
// read like perfls measure's.
type oracleSelector struct {
	project, method, workload, args string
	format                          string
	verbose                         bool
}

func (s *oracleSelector) register(fl *flag.FlagSet) {
	fl.StringVar(&s.project, "project", ".", "project directory")
	fl.StringVar(&s.method, "method", "", "method: pkg.Class#m or pkg.Class#m(int[],int)")
	fl.StringVar(&s.workload, "workload", "", "workload generator: pkg.Class#gen (optional)")
	fl.StringVar(&s.args, "args", "", "comma-separated arguments of the generator (or of the method without one)")
	fl.StringVar(&s.format, "format", "text", "output format: text or json")
	fl.BoolVar(&s.verbose, "v", false, "report each fork on stderr")
}

// parse checks the selector; it returns the project directory, the method
// and workload specs and the arguments.
func (s *oracleSelector) parse(cmd string) (dir string, method measure.MethodSpec, gen *measure.MethodSpec, args []measure.Arg, err error) {
	if s.method == "" {
		return "", method, nil, nil, usageError{cmd + " needs --method pkg.Class#m"}
	}
	if s.format != "text" && s.format != "json" {
		return "", method, nil, nil, usageError{fmt.Sprintf("unknown --format %q (want text or json)", s.format)}
	}
	if method, err = measure.ParseMethodSpec(s.method); err != nil {
		return "", method, nil, nil, usageError{"--method: " + err.Error()}
	}
	if s.workload != "" {
		g, err := measure.ParseMethodSpec(s.workload)
		if err != nil {
			return "", method, nil, nil, usageError{"--workload: " + err.Error()}
		}
		gen = &g
	}
	if dir, err = filepath.Abs(s.project); err != nil {
		return "", method, nil, nil, err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", method, nil, nil, usageError{fmt.Sprintf("--project %s is not a directory", s.project)}
	}
	return dir, method, gen, measure.ParseArgs(s.args), nil
}

// measureForOracle measures one workload with fresh forks through the
// measurement service and returns its oracle key and runs.
func measureForOracle(ctx context.Context, dir string, method measure.MethodSpec, gen *measure.MethodSpec, args []measure.Arg,
	opt measure.Options, verbose bool, stderr io.Writer) (cache.OracleKey, []oracle.Run, int, error) {
	cacheDir, err := cache.Dir()
	if err != nil {
		return cache.OracleKey{}, nil, exitUsage, err
	}
	svc, err := service.Open(ctx, cacheDir)
	if err != nil {
		return cache.OracleKey{}, nil, exitUsage, err
	}
	defer svc.Close()
	item := service.Item{Method: method, Args: args}
	if gen != nil {
		item.Generator = *gen
	}
	progress := func(p service.Progress) {
		if verbose {
			fmt.Fprintln(stderr, p.Message)
		}
	}
	resp, key, runs, err := oracleMeasure(ctx, svc, dir, item, opt, progress)
	if resp != nil {
		for _, n := range resp.Notices {
			fmt.Fprintln(stderr, "perfls:", n)
		}
		for _, m := range resp.CompileErrors {
			fmt.Fprintf(stderr, "%s:%d:%d: %s: %s\n", rel(dir, m.File), m.Line, m.Column, m.Severity, m.Message)
		}
		if len(resp.Items) > 0 && resp.Items[0].Failure != nil {
			printWorkloadError(stderr, dir, resp.Items[0].Failure)
		}
	}
	if err != nil {
		return cache.OracleKey{}, nil, exitUsage, err
	}
	return key, runs, exitOK, nil
}

// errNoCompile is oracleMeasure's error when the project does not compile
// (the messages are in the response).
var errNoCompile = errors.New("the project does not compile")

// oracleMeasure measures one workload with fresh forks through svc, as
// calibrate and the editor's Calibrate lens do, and returns the response
// (nil when the service failed) with the workload's oracle key and runs. It
// fails on compile errors (errNoCompile) and on the workload's failure.
func oracleMeasure(ctx context.Context, svc service.Service, dir string, item service.Item, opt measure.Options,
	progress func(service.Progress)) (*service.Response, cache.OracleKey, []oracle.Run, error) {
	resp, err := svc.Measure(ctx, service.Params{Project: dir, Items: []service.Item{item}, Options: opt,
		Priority: service.Interactive, Fresh: true}, progress)
	if err != nil {
		return nil, cache.OracleKey{}, nil, err
	}
	if len(resp.CompileErrors) > 0 {
		return resp, cache.OracleKey{}, nil, errNoCompile
	}
	if len(resp.Items) != 1 {
		return resp, cache.OracleKey{}, nil, fmt.Errorf("the measurement service answered %d items for 1", len(resp.Items))
	}
	it := resp.Items[0]
	switch {
	case it.Failure != nil:
		return resp, cache.OracleKey{}, nil, it.Failure
	case it.Error != "":
		return resp, cache.OracleKey{}, nil, errors.New(it.Error)
	}
	key := cache.OracleKey{Method: it.Method, Workload: it.Workload, Args: measure.ArgsKey(item.Args)}
	return resp, key, forkRuns(it.Forks, it.Env, opt), nil
}

// calibrationOptions are calibrate's measuring defaults: perfls check's, so
// check's forks can be classified against the model.
func calibrationOptions() measure.Options {
	return measure.Options{Forks: 30, SamplesPerFork: 30, MinSampleTime: time.Millisecond, Warmup: 300 * time.Millisecond,
		MaxWarmup: 5 * time.Second, ForkTimeout: 60 * time.Second, HeapMB: 512}
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
func forkRuns(forks []measure.Fork, env measure.Environment, opt measure.Options) []oracle.Run {
	runs := make([]oracle.Run, len(forks))
	for i, f := range forks {
		runs[i] = oracle.Run{Series: f.Series(), Env: measure.OracleEnv(env, opt, f.PID)}
	}
	return runs
}

// findModel finds the stored model a selector names without measuring:
// the method and workload match by class and name (and by parameter types
// when given), the arguments exactly.
func findModel(ctx context.Context, store *cache.Store, method measure.MethodSpec, gen *measure.MethodSpec, args []measure.Arg) (cache.OracleKey, error) {
	keys, err := store.OracleModels(ctx)
	if err != nil {
		return cache.OracleKey{}, err
	}
	var found []cache.OracleKey
	for _, k := range keys {
		if !method.Matches(k.Method) || k.Args != measure.ArgsKey(args) {
			continue
		}
		if (gen == nil) != (k.Workload == "") || (gen != nil && !gen.Matches(k.Workload)) {
			continue
		}
		found = append(found, k)
	}
	switch len(found) {
	case 0:
		return cache.OracleKey{}, fmt.Errorf("%s%s(%s) is %w (run perfls calibrate first)", method, genLabel(gen), measure.ArgsKey(args), cache.ErrNotCalibrated)
	case 1:
		return found[0], nil
	default:
		return cache.OracleKey{}, usageError{fmt.Sprintf("%d calibrated methods match %s: give the parameter types, e.g. %s", len(found), method, found[0].Method)}
	}
}

func genLabel(gen *measure.MethodSpec) string {
	if gen == nil {
		return ""
	}
	return "[" + gen.String() + "]"
}

func openOracleStore(ctx context.Context) (*cache.Store, error) {
	dir, err := cache.Dir()
	if err != nil {
		return nil, err
	}
	s, _, err := cache.OpenStore(ctx, dir)
	return s, err
}

func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var sel oracleSelector
	var opt measure.Options
	var cfg oracle.Config
	var rebuild, accept bool
	fl := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	sel.register(fl)
	def := calibrationOptions()
	fl.IntVar(&opt.Forks, "forks", def.Forks, fmt.Sprintf("calibration forks (below %d the oracle is provisional)", oracle.MinRuns))
	fl.IntVar(&opt.SamplesPerFork, "samples", def.SamplesPerFork, "samples per fork: the length of each run (as perfls check measures)")
	fl.DurationVar(&opt.MinSampleTime, "min-sample", def.MinSampleTime, "minimum length of one sample")
	fl.DurationVar(&opt.Warmup, "warmup", def.Warmup, "minimum warm-up time per fork")
	fl.DurationVar(&opt.MaxWarmup, "max-warmup", def.MaxWarmup, "warm-up cap per fork")
	fl.DurationVar(&opt.ForkTimeout, "fork-timeout", def.ForkTimeout, "time limit of one fork")
	fl.IntVar(&opt.HeapMB, "heap", def.HeapMB, "heap of each fork, MB")
	fl.StringVar(&cfg.Smoothing, "smoothing", "", "mean (default), median or none")
	fl.IntVar(&cfg.Window, "window", 0, "odd smoothing window (default 9; 17 with ≥ 50 samples; at most a third of a run)")
	fl.Float64Var(&cfg.K, "k", 0, "half-width of the displayed bands in standard deviations (default 4)")
	fl.Float64Var(&cfg.Policy.K, "policy-k", 0, fmt.Sprintf("half-width of the bands that decide a run (default %g)", oracle.DefaultPolicy().K))
	fl.Float64Var(&cfg.Policy.MaxViolationRatio, "max-violation-ratio", 0, fmt.Sprintf("share of a metric's points allowed outside the policy's bands (default %g)", oracle.DefaultPolicy().MaxViolationRatio))
	fl.Float64Var(&cfg.Policy.ShiftK, "shift-k", 0, fmt.Sprintf("half-width of the sustained-shift bands in sd (default %g; 0 with --shift-ratio 1 disables the rule)", oracle.DefaultPolicy().ShiftK))
	fl.Float64Var(&cfg.Policy.ShiftRatio, "shift-ratio", 0, fmt.Sprintf("a metric fails when more than this share of its points lie outside the shift bands (default %g)", oracle.DefaultPolicy().ShiftRatio))
	fl.BoolVar(&rebuild, "rebuild", false, "rebuild the stored model from its stored runs with the given settings, without measuring")
	fl.BoolVar(&accept, "accept", false, "accept the latest verified run as normal: add it to the model's runs and rebuild, without measuring")
	fl.Usage = func() {
		fmt.Fprintln(stderr, `Usage: perfls calibrate --project DIR --method pkg.Class#m [--workload pkg.Class#gen] [--args 100] [--forks 30] [flags]
       perfls calibrate --rebuild [--window 5] [--k 3] [--policy-k 8] ... (same selectors)
       perfls calibrate --accept (same selectors)

Measures the workload in N fresh forks and learns the bounds oracle's model: per metric
(time, CPU time and allocation per operation, GC count and time, heap used, JIT time,
loaded classes) a band mean ± k·sd per sample index after smoothing. The model, its
settings and the raw runs are kept in the cache; --rebuild changes the settings and
--accept adds the latest verified run without measuring. See docs/oracle.md.
Exit status: 0 calibrated, 2 usage, build or workload errors.`)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	if fl.NArg() != 0 {
		return exitUsage, usageError{fmt.Sprintf("calibrate takes no positional arguments (got %q)", fl.Arg(0))}
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if rebuild && accept {
		return exitUsage, usageError{"--rebuild and --accept exclude each other"}
	}
	if !rebuild && !accept && (opt.Forks < 2 || opt.SamplesPerFork < 2) {
		return exitUsage, usageError{"--forks and --samples must be ≥ 2"}
	}
	if cfg.Window < 0 || (cfg.Window > 0 && cfg.Window%2 == 0) {
		return exitUsage, usageError{"--window must be odd"}
	}
	if s := cfg.Smoothing; s != "" && s != "mean" && s != "median" && s != "none" {
		return exitUsage, usageError{fmt.Sprintf("unknown --smoothing %q (want mean, median or none)", s)}
	}
	dir, method, gen, margs, err := sel.parse("calibrate")
	if err != nil {
		return exitUsage, err
	}
	store, err := openOracleStore(ctx)
	if err != nil {
		return exitUsage, err
	}
	defer store.Close()

	var key cache.OracleKey
	var model *oracle.Model
	var accepted int64
	switch {
	case rebuild || accept:
		if key, err = findModel(ctx, store, method, gen, margs); err != nil {
			return exitUsage, err
		}
		if accept {
			model, accepted, err = store.AcceptLatestOracleRun(ctx, key)
		} else {
			var old *cache.OracleModel
			if old, err = store.OracleModel(ctx, key); err == nil {
				c := mergeConfig(old.Model.Config, cfg, set)
				model, err = store.RebuildOracleModel(ctx, key, &c)
			}
		}
		if err != nil {
			return exitUsage, err
		}
	default:
		// Policy settings not given take the defaults.
		cfg = mergeConfig(oracle.Config{Policy: oracle.DefaultPolicy()}, cfg, set)
		start := time.Now()
		var runs []oracle.Run
		var code int
		key, runs, code, err = measureForOracle(ctx, dir, method, gen, margs, opt, sel.verbose, stderr)
		if err != nil {
			return code, err
		}
		if model, err = storeCalibration(ctx, store, key, runs, cfg, opt); err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stderr, "perfls: calibrated in %.1fs\n", time.Since(start).Seconds())
	}
	if sel.format == "json" {
		return exitOK, writeJSON(stdout, map[string]any{"key": key, "accepted_run": accepted, "model": modelSummary(model)})
	}
	what := "calibrated"
	switch {
	case rebuild:
		what = "rebuilt"
	case accept:
		what = fmt.Sprintf("accepted run %d into", accepted)
	}
	fmt.Fprintf(stdout, "%s %s\n", what, key)
	printModel(stdout, model)
	return exitOK, nil
}

// mergeConfig applies the settings given on the command line to a stored
// model's configuration.
func mergeConfig(old, flags oracle.Config, set map[string]bool) oracle.Config {
	c := old
	if set["smoothing"] {
		c.Smoothing = flags.Smoothing
	}
	if set["window"] {
		c.Window = flags.Window
	}
	if set["k"] {
		c.K = flags.K
	}
	if set["policy-k"] {
		c.Policy.K = flags.Policy.K
	}
	if set["max-violation-ratio"] {
		c.Policy.MaxViolationRatio = flags.Policy.MaxViolationRatio
	}
	if set["shift-k"] {
		c.Policy.ShiftK = flags.Policy.ShiftK
	}
	if set["shift-ratio"] {
		c.Policy.ShiftRatio = flags.Policy.ShiftRatio
	}
	return c
}

// metricSummary condenses one metric's bands for display.
type metricSummary struct {
	Metric string `json:"metric"`
	Points int    `json:"points"`
	// Typical is the median band centre; HalfWidth the median half-width
	// of the displayed bands, also relative to the centre.
	Typical      float64 `json:"typical"`
	HalfWidth    float64 `json:"half_width"`
	RelHalfWidth float64 `json:"rel_half_width"`
	Floored      int     `json:"floored"` // bands widened to the minimum half-width
}

type modelJSON struct {
	Runs        int               `json:"runs"`
	Provisional bool              `json:"provisional"`
	Config      oracle.Config     `json:"config"`
	Env         map[string]string `json:"environment"`
	Measure     map[string]string `json:"measure,omitempty"`
	Metrics     []metricSummary   `json:"metrics"`
}

func modelSummary(m *oracle.Model) modelJSON {
	out := modelJSON{Runs: len(m.Runs), Provisional: m.Provisional, Config: m.Config, Env: m.Env, Measure: m.Measure}
	for _, met := range m.Metrics {
		s := metricSummary{Metric: met.Name, Points: len(met.Bands)}
		for _, b := range met.Bands {
			if b.Floored {
				s.Floored++
			}
		}
		s.Typical, s.HalfWidth = met.Typical()
		if s.Typical != 0 {
			s.RelHalfWidth = s.HalfWidth / abs(s.Typical)
		}
		out.Metrics = append(out.Metrics, s)
	}
	return out
}

func printModel(w io.Writer, m *oracle.Model) {
	s := modelSummary(m)
	prov := ""
	if s.Provisional {
		prov = fmt.Sprintf(" — provisional: fewer than %d runs", oracle.MinRuns)
	}
	c := m.Config
	fmt.Fprintf(w, "  %d runs%s; %s-%d smoothing, bands ±%g·sd; a run fails when a metric has more than %g%% of its points outside ±%g·sd",
		s.Runs, prov, c.Smoothing, c.Window, c.K, 100*c.Policy.MaxViolationRatio, c.Policy.K)
	if c.Policy.ShiftK > 0 {
		fmt.Fprintf(w, " or more than %g%% outside ±%g·sd", 100*c.Policy.ShiftRatio, c.Policy.ShiftK)
	}
	fmt.Fprintln(w)
	for _, ms := range s.Metrics {
		floor := ""
		if ms.Floored > 0 {
			floor = fmt.Sprintf(" (minimum width at %d)", ms.Floored)
		}
		fmt.Fprintf(w, "  %-20s %3d points, typical %-12.4g ± %.4g (%.1f%%)%s\n", ms.Metric, ms.Points, ms.Typical, ms.HalfWidth, 100*ms.RelHalfWidth, floor)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
