package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// oracleVerdict is the oracle's judgement of one measurement of a
// calibrated workload: the verdict over its forks (oracle.Combine) and each
// fork's classification. It is verify's JSON document and an element of
// check's "oracle" arrays.
type oracleVerdict struct {
	Method      string          `json:"method"`
	Workload    string          `json:"workload,omitempty"`
	Args        string          `json:"args"`
	Result      oracle.Verdict  `json:"result"` // pass, fail or not_applicable
	Provisional bool            `json:"provisional"`
	Forks       int             `json:"forks"`
	Failed      int             `json:"failed_forks"`
	Cached      bool            `json:"cached,omitempty"` // check: forks answered from the cache
	Metrics     []metricVerdict `json:"metrics"`
	EnvDiffs    []string        `json:"env_diffs,omitempty"`
	Runs        []oracle.Result `json:"runs"`
}

// metricVerdict sums up one metric over the forks.
type metricVerdict struct {
	Metric      string `json:"metric"`
	FailedForks int    `json:"failed_forks"`
	Violations  int    `json:"violations"` // outside the displayed bands, over all forks
	Compared    int    `json:"compared"`
	Summary     string `json:"summary"` // the worst fork's finding
	// Above/Below count violations by direction: above is slower, bigger
	// or more; below is faster or fewer (an improvement is a departure too).
	Above         int  `json:"above"`
	Below         int  `json:"below"`
	LengthDiffers bool `json:"length_differs,omitempty"`
}

func summarize(key cache.OracleKey, m *oracle.Model, results []oracle.Result, v oracle.Verdict) oracleVerdict {
	ov := oracleVerdict{Method: key.Method, Workload: key.Workload, Args: key.Args, Result: v, Forks: len(results), Runs: results}
	if m != nil {
		ov.Provisional = m.Provisional
	}
	byMetric := map[string]*metricVerdict{}
	var order []string
	worst := map[string]int{}
	for _, r := range results {
		if r.Verdict == oracle.Fail {
			ov.Failed++
		}
		for _, d := range r.EnvDiffs {
			if s := d.String(); !contains(ov.EnvDiffs, s) {
				ov.EnvDiffs = append(ov.EnvDiffs, s)
			}
		}
		for _, f := range r.Metrics {
			mv := byMetric[f.Metric]
			if mv == nil {
				mv = &metricVerdict{Metric: f.Metric}
				byMetric[f.Metric] = mv
				order = append(order, f.Metric)
				worst[f.Metric] = -1
			}
			if f.Failed {
				mv.FailedForks++
			}
			mv.Violations += len(f.Violations)
			mv.Compared += f.Compared
			mv.LengthDiffers = mv.LengthDiffers || f.LengthDiffers
			for _, x := range f.Violations {
				if x.Above {
					mv.Above++
				} else {
					mv.Below++
				}
			}
			if len(f.Violations) > worst[f.Metric] {
				worst[f.Metric] = len(f.Violations)
				mv.Summary = f.Summary()
			}
		}
	}
	for _, name := range order {
		ov.Metrics = append(ov.Metrics, *byMetric[name])
	}
	return ov
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// exitFor maps an oracle verdict to verify's exit status.
func exitFor(v oracle.Verdict) int {
	switch v {
	case oracle.Fail:
		return exitViolated
	case oracle.NotApplicable:
		return exitNotApplicable
	default:
		return exitOK
	}
}

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var sel oracleSelector
	var forks int
	var timeout time.Duration
	fl := flag.NewFlagSet("verify", flag.ContinueOnError)
	fl.SetOutput(stderr)
	sel.register(fl)
	fl.IntVar(&forks, "forks", 1, "fresh forks to run; with more than one, the workload fails when more than half of them fail")
	fl.DurationVar(&timeout, "fork-timeout", 60*time.Second, "time limit of one fork")
	fl.Usage = func() {
		fmt.Fprintln(stderr, `Usage: perfls verify --project DIR --method pkg.Class#m [--workload pkg.Class#gen] [--args 100] [--forks 1] [--format json]

Runs a calibrated workload once more (one fresh fork by default, measured like the
calibration) and classifies the run against the stored bounds-oracle model: per metric,
the points outside their band, above or below and by how much. The run and its result
are kept for hovers and for perfls calibrate --accept. See docs/oracle.md.
Exit status: 0 pass, 1 fail (behaviour left the calibrated bands), 2 usage, build or
workload errors or no calibration, 3 not applicable (the environment differs from
calibration: another JVM, machine, harness or flags — never a regression).`)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	if fl.NArg() != 0 {
		return exitUsage, usageError{fmt.Sprintf("verify takes no positional arguments (got %q)", fl.Arg(0))}
	}
	if forks < 1 {
		return exitUsage, usageError{"--forks must be ≥ 1"}
	}
	dir, method, gen, margs, err := sel.parse("verify")
	if err != nil {
		return exitUsage, err
	}
	store, err := openOracleStore(ctx)
	if err != nil {
		return exitUsage, err
	}
	defer store.Close()
	key, err := findModel(ctx, store, method, gen, margs)
	if err != nil {
		return exitUsage, err
	}
	stored, err := store.OracleModel(ctx, key)
	if err != nil {
		return exitUsage, err
	}
	// Measure exactly like the calibration (the resolved method keeps an
	// overload from being confused with another).
	opt := measure.Options{Forks: forks, ForkTimeout: timeout}.WithOracleMeta(stored.Model.Measure)
	method, _ = measure.ParseMethodSpec(key.Method)
	if key.Workload != "" {
		g, _ := measure.ParseMethodSpec(key.Workload)
		gen = &g
	}
	mkey, runs, code, err := measureForOracle(ctx, dir, method, gen, margs, opt, sel.verbose, stderr)
	if err != nil {
		return code, err
	}
	if mkey != key {
		return exitUsage, fmt.Errorf("measured %s, but the model is of %s", mkey, key)
	}
	results, v, err := store.ClassifyAndRecord(ctx, key, runs, cache.RoleVerify)
	if err != nil {
		return exitUsage, err
	}
	ov := summarize(key, stored.Model, results, v)
	if sel.format == "json" {
		if err := writeJSON(stdout, ov); err != nil {
			return exitUsage, err
		}
		return exitFor(v), nil
	}
	printOracleVerdict(stdout, ov, true)
	return exitFor(v), nil
}

// printOracleVerdict prints one verdict: a headline and, with detail or
// when the oracle failed, a line per departing metric.
func printOracleVerdict(w io.Writer, ov oracleVerdict, detail bool) {
	subject := ov.Method
	if ov.Workload != "" {
		subject += "[" + ov.Workload + "]"
	}
	subject += "(" + ov.Args + ")"
	head := fmt.Sprintf("%d of %d forks outside the calibrated bands", ov.Failed, ov.Forks)
	switch ov.Result {
	case oracle.NotApplicable:
		head = "environment differs from calibration: " + strings.Join(ov.EnvDiffs, "; ")
	case oracle.Pass:
		if ov.Failed == 0 {
			head = fmt.Sprintf("within the calibrated bands (%d fork(s))", ov.Forks)
		}
	}
	if ov.Provisional {
		head += fmt.Sprintf(" [provisional oracle: fewer than %d calibration runs]", oracle.MinRuns)
	}
	if ov.Cached {
		head += " [forks from the cache]"
	}
	fmt.Fprintf(w, "oracle %-14s %s  %s\n", string(ov.Result), subject, head)
	if ov.Result == oracle.NotApplicable {
		return
	}
	for _, m := range ov.Metrics {
		if !detail && m.FailedForks == 0 {
			continue
		}
		state := "ok  "
		if m.FailedForks > 0 {
			state = "FAIL"
		}
		extra := ""
		if m.LengthDiffers {
			extra = " (run length differs from calibration: compared over the common range)"
		}
		fmt.Fprintf(w, "  %s %s%s\n", state, m.Summary, extra)
	}
	if missing := missingMetrics(ov.Runs); len(missing) > 0 {
		fmt.Fprintf(w, "  not measured in this run: %s\n", strings.Join(missing, ", "))
	}
}

func missingMetrics(results []oracle.Result) []string {
	var out []string
	for _, r := range results {
		for _, m := range r.Missing {
			if !contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// checkOracle classifies, for every calibrated workload a check measured,
// its forks against the stored model. Fresh forks are stored and their
// results recorded (for hovers and --accept); forks the cache answered are
// classified again but not recorded twice. Measurements without a model are
// skipped.
func checkOracle(ctx context.Context, items []service.ItemResult, opts measure.Options) ([]oracleVerdict, error) {
	store, err := openOracleStore(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	keys, err := store.OracleModels(ctx)
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	calibrated := map[cache.OracleKey]bool{}
	for _, k := range keys {
		calibrated[k] = true
	}
	var out []oracleVerdict
	seen := map[cache.OracleKey]bool{}
	for _, it := range items {
		if it.Error != "" || len(it.Forks) == 0 {
			continue
		}
		key := cache.OracleKey{Method: it.Method, Workload: it.Workload, Args: measure.ArgsKey(it.Args)}
		if !calibrated[key] || seen[key] {
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
		ov := summarize(key, m.Model, results, v)
		ov.Cached = it.Cached
		out = append(out, ov)
	}
	return out, nil
}

// oracleFailed reports whether any oracle verdict failed.
func oracleFailed(vs []oracleVerdict) bool {
	for _, v := range vs {
		if v.Result == oracle.Fail {
			return true
		}
	}
	return false
}

// printOracle prints check's oracle lines.
func printOracle(w io.Writer, vs []oracleVerdict) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nbounds oracle (calibrated workloads; see docs/oracle.md):")
	for _, v := range vs {
		printOracleVerdict(w, v, false)
	}
}

// methodWithOracle is one element of check's JSON array: the method's
// verdicts as before, plus the oracle verdicts of its calibrated workloads.
type methodWithOracle struct {
	verdict.MethodResult
	Oracle []oracleVerdict `json:"oracle,omitempty"`
}

// withOracle attaches each oracle verdict to the method it measured; a
// verdict of a method without formulas of its own goes with the first
// method, so none is lost.
func withOracle(methods []verdict.MethodResult, vs []oracleVerdict) []methodWithOracle {
	out := make([]methodWithOracle, len(methods))
	for i, m := range methods {
		out[i].MethodResult = m
	}
	for _, v := range vs {
		at := 0
		for i, m := range methods {
			name, _, _ := strings.Cut(v.Method, "(")
			if name == m.Class+"#"+m.Method && (measure.MethodSpec{Class: m.Class, Name: m.Method, Params: m.Params}).Matches(v.Method) {
				at = i
				break
			}
		}
		if len(out) > 0 {
			out[at].Oracle = append(out[at].Oracle, v)
		}
	}
	return out
}
