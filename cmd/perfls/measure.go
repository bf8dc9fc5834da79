package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

type measureFlags struct {
	project  string
	method   string
	workload string
	args     string
	format   string
	phase    string
	budget   time.Duration
	opts     measure.Options
	verbose  bool
	fresh    bool
}

func runMeasure(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var mf measureFlags
	fl := flag.NewFlagSet("measure", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&mf.project, "project", ".", "project directory")
	fl.StringVar(&mf.method, "method", "", "method to measure: pkg.Class#m or pkg.Class#m(int[],int)")
	fl.StringVar(&mf.workload, "workload", "", "workload generator: pkg.Class#gen (optional)")
	fl.StringVar(&mf.args, "args", "", "comma-separated arguments of the generator (or of the method without one); quote a string that holds commas: 'a, b'")
	fl.StringVar(&mf.format, "format", "text", "output format: text or json (one JSON document per line)")
	fl.StringVar(&mf.phase, "phase", "full", "quick (warm worker JVM, preliminary), full (forked JVMs) or both")
	fl.DurationVar(&mf.budget, "budget", 0, "wall-time budget of the forked phase; when it runs out, the forks done so far are reported (0: none)")
	fl.IntVar(&mf.opts.Forks, "forks", measure.DefaultForks, "JVM forks")
	fl.IntVar(&mf.opts.SamplesPerFork, "samples", 30, "samples per fork")
	fl.DurationVar(&mf.opts.Warmup, "warmup", 300*time.Millisecond, "minimum warm-up time per fork (warm-up then runs until JIT compilation settles)")
	fl.DurationVar(&mf.opts.MaxWarmup, "max-warmup", 5*time.Second, "warm-up cap per fork")
	fl.DurationVar(&mf.opts.ForkTimeout, "fork-timeout", 60*time.Second, "time limit of one fork")
	fl.BoolVar(&mf.verbose, "v", false, "report each fork on stderr")
	fl.BoolVar(&mf.fresh, "fresh", false, "measure again even when the cache has a fresh result")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: perfls measure --project DIR --method pkg.Class#m [--workload pkg.Class#gen] [--args 100,5] [flags]\n\nMeasures one method on one workload and prints per-operation figures.\nExit status: 0 measured, 2 usage, build or workload errors.")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	if fl.NArg() != 0 {
		return exitUsage, usageError{fmt.Sprintf("measure takes no positional arguments (got %q)", fl.Arg(0))}
	}
	if mf.method == "" {
		return exitUsage, usageError{"measure needs --method pkg.Class#m"}
	}
	if mf.format != "text" && mf.format != "json" {
		return exitUsage, usageError{fmt.Sprintf("unknown --format %q (want text or json)", mf.format)}
	}
	if mf.phase != "quick" && mf.phase != "full" && mf.phase != "both" {
		return exitUsage, usageError{fmt.Sprintf("unknown --phase %q (want quick, full or both)", mf.phase)}
	}
	if mf.opts.Forks < 1 || mf.opts.SamplesPerFork < 2 {
		return exitUsage, usageError{"--forks must be ≥ 1 and --samples ≥ 2"}
	}
	method, err := measure.ParseMethodSpec(mf.method)
	if err != nil {
		return exitUsage, usageError{"--method: " + err.Error()}
	}
	var gen *measure.MethodSpec
	if mf.workload != "" {
		g, err := measure.ParseMethodSpec(mf.workload)
		if err != nil {
			return exitUsage, usageError{"--workload: " + err.Error()}
		}
		gen = &g
	}
	margs := measure.ParseArgs(mf.args)
	dir, err := filepath.Abs(mf.project)
	if err != nil {
		return exitUsage, err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return exitUsage, usageError{fmt.Sprintf("--project %s is not a directory", mf.project)}
	}
	return measureOne(ctx, dir, method, gen, margs, mf, stdout, stderr)
}

func measureOne(ctx context.Context, dir string, method measure.MethodSpec, gen *measure.MethodSpec, args []measure.Arg, mf measureFlags, stdout, stderr io.Writer) (int, error) {
	cacheDir, err := cache.Dir()
	if err != nil {
		return exitUsage, err
	}
	emit := func(r measure.Result, head jsonMeasurement) error {
		if mf.format == "json" {
			data, err := json.Marshal(jsonResult(r, head))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "%s\n", data)
			return err
		}
		printMeasureText(stdout, r, head)
		return nil
	}
	fail := func(r measure.Result, head jsonMeasurement) (int, error) {
		if mf.format == "json" {
			data, _ := json.Marshal(jsonError(r, head))
			fmt.Fprintf(stdout, "%s\n", data)
		} else {
			printWorkloadError(stderr, dir, r.Err)
		}
		return exitUsage, r.Err
	}

	// Both phases go through the measurement service: the cache answers
	// when it has a fresh result, the per-user daemon (when one runs) keeps
	// this measurement from overlapping with any other, and its worker JVM
	// is already warm for the quick phase.
	svc, err := service.Open(ctx, cacheDir)
	if err != nil {
		return exitUsage, err
	}
	defer svc.Close()
	item := service.Item{Method: method, Args: args}
	if gen != nil {
		item.Generator = *gen
	}
	quickHead := jsonHead(method.String(), measure.Resolved{}, args, true)
	if gen != nil {
		quickHead.Workload = gen.String()
	}
	var emitErr error
	progress := func(p service.Progress) {
		if mf.verbose {
			fmt.Fprintln(stderr, p.Message)
		}
		if p.Preliminary != nil && mf.phase == "both" && emitErr == nil {
			// Printed as it arrives: the forks take seconds more.
			emitErr = emit(measure.Result{Forks: []measure.Fork{p.Preliminary.Fork}, Env: p.Preliminary.Env, Preliminary: true}, quickHead)
		}
	}
	phase := service.PhaseFull
	switch mf.phase {
	case "quick":
		phase = service.PhaseQuick
	case "both":
		phase = service.PhaseBoth
	}
	resp, err := svc.Measure(ctx, service.Params{
		Project: dir, Items: []service.Item{item}, Options: mf.opts,
		Priority: service.Interactive, Fresh: mf.fresh, Budget: mf.budget, Phase: phase,
	}, progress)
	if err == nil {
		err = emitErr
	}
	if err != nil {
		return exitUsage, err
	}
	for _, n := range resp.Notices {
		fmt.Fprintln(stderr, "perfls:", n)
	}
	if len(resp.CompileErrors) > 0 {
		for _, m := range resp.CompileErrors {
			fmt.Fprintf(stderr, "%s:%d:%d: %s: %s\n", rel(dir, m.File), m.Line, m.Column, m.Severity, m.Message)
		}
		return exitUsage, fmt.Errorf("the project does not compile")
	}
	it := resp.Items[0]
	head := jsonHead(it.Method, measure.Resolved{}, args, false)
	head.Workload = it.Workload
	r := measure.Result{Forks: it.Forks, Env: it.Env}
	if phase == service.PhaseQuick && it.Preliminary != nil {
		head.Preliminary = true
		r = measure.Result{Forks: []measure.Fork{it.Preliminary.Fork}, Env: it.Preliminary.Env, Preliminary: true}
	}
	switch {
	case it.Failure != nil:
		r.Err = it.Failure
		return fail(r, head)
	case it.Error != "":
		r.Err = errors.New(it.Error)
		return fail(r, head)
	}
	if it.Cached {
		fmt.Fprintf(stderr, "perfls: answered from the cache: measured %s, code unchanged since (--fresh measures again)\n",
			it.MeasuredAt.Local().Format(time.DateTime))
	} else if phase != service.PhaseQuick && mf.budget > 0 && len(it.Forks) < mf.opts.Forks {
		fmt.Fprintf(stderr, "perfls: the budget of %s ended after %d of %d forks\n", mf.budget, len(it.Forks), mf.opts.Forks)
	}
	if err := emit(r, head); err != nil {
		return exitUsage, err
	}
	return exitOK, nil
}

// The JSON document of one measurement. Keys are a contract with readers.
type jsonMeasurement struct {
	Method      string       `json:"method"`
	Workload    string       `json:"workload"`
	Args        []any        `json:"args"`
	Preliminary bool         `json:"preliminary"`
	Summary     jsonSummary  `json:"summary"`
	Forks       []jsonFork   `json:"forks"`
	Environment jsonEnv      `json:"environment"`
	Error       *jsonFailure `json:"error,omitempty"`
}

type jsonSummary struct {
	MeanNsPerOp   jsonFloat    `json:"mean_ns_per_op"`
	MedianNsPerOp jsonFloat    `json:"median_ns_per_op"`
	CI95NsPerOp   [2]jsonFloat `json:"ci95_ns_per_op"`
	// CIOver says how the interval was computed: "forks" (t-interval over
	// fork means) or "samples" (t-interval over one fork's samples).
	CIOver         string `json:"ci_over"`
	Forks          int    `json:"forks"`
	SamplesPerFork int    `json:"samples_per_fork"`
}

type jsonFork struct {
	NsPerOp         []float64 `json:"ns_per_op"`
	CPUNsPerOp      []float64 `json:"cpu_ns_per_op"`
	AllocBytesPerOp []float64 `json:"alloc_bytes_per_op"`
	GCs             []int64   `json:"gcs"`
	WarmupNs        int64     `json:"warmup_ns"`
	WarmupSettled   int       `json:"warmup_settled"`
	OpsPerSample    int64     `json:"ops_per_sample"`
	// RetakenSamples counts samples taken again because the thread was
	// preempted during them (not known for results read from the cache).
	RetakenSamples int `json:"retaken_samples"`
}

type jsonEnv struct {
	JavaVersion string   `json:"java_version"`
	JavaVendor  string   `json:"java_vendor"`
	VMName      string   `json:"vm_name"`
	JVMArgs     []string `json:"jvm_args"`
	OS          string   `json:"os"`
	Arch        string   `json:"arch"`
	CPUModel    string   `json:"cpu_model"`
	Cores       int      `json:"cores"`
}

type jsonFailure struct {
	Kind      string `json:"kind"`
	Phase     string `json:"phase,omitempty"`
	Exception string `json:"exception,omitempty"`
	Message   string `json:"message"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Stack     string `json:"stack,omitempty"`
}

// jsonFloat is a float64 that encodes NaN and infinities as null.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

func jsonHead(method string, gen measure.Resolved, args []measure.Arg, preliminary bool) jsonMeasurement {
	m := jsonMeasurement{Method: method, Args: []any{}, Preliminary: preliminary, Forks: []jsonFork{}}
	if !gen.IsZero() {
		m.Workload = gen.String()
	}
	for _, a := range args {
		if a.IsString {
			m.Args = append(m.Args, a.Str)
		} else {
			m.Args = append(m.Args, a.Int)
		}
	}
	return m
}

func jsonResult(r measure.Result, head jsonMeasurement) jsonMeasurement {
	m := head
	s := measure.Summarize(r.Forks)
	m.Summary = jsonSummary{
		MeanNsPerOp:    jsonFloat(s.MeanNsPerOp),
		MedianNsPerOp:  jsonFloat(s.MedianNsPerOp),
		CI95NsPerOp:    [2]jsonFloat{jsonFloat(s.CI95[0]), jsonFloat(s.CI95[1])},
		CIOver:         "samples",
		Forks:          s.Forks,
		SamplesPerFork: s.SamplesPerFork,
	}
	if s.CIOverForks {
		m.Summary.CIOver = "forks"
	}
	for _, f := range r.Forks {
		jf := jsonFork{NsPerOp: f.NsPerOp, CPUNsPerOp: f.CPUNsPerOp, AllocBytesPerOp: f.AllocBytesPerOp, GCs: f.GCs,
			WarmupNs: int64(f.Warmup), WarmupSettled: f.WarmupSettled, OpsPerSample: f.Ops, RetakenSamples: f.Retaken}
		if jf.CPUNsPerOp == nil {
			jf.CPUNsPerOp = []float64{}
		}
		if jf.AllocBytesPerOp == nil {
			jf.AllocBytesPerOp = []float64{}
		}
		if jf.GCs == nil {
			jf.GCs = []int64{}
		}
		m.Forks = append(m.Forks, jf)
	}
	e := r.Env
	m.Environment = jsonEnv{JavaVersion: e.JavaVersion, JavaVendor: e.JavaVendor, VMName: e.VMName,
		JVMArgs: e.JVMArgs, OS: e.OS, Arch: e.Arch, CPUModel: e.CPUModel, Cores: e.Cores}
	if m.Environment.JVMArgs == nil {
		m.Environment.JVMArgs = []string{}
	}
	return m
}

func jsonError(r measure.Result, head jsonMeasurement) jsonMeasurement {
	m := jsonResult(r, head)
	f := &jsonFailure{Kind: "error", Message: r.Err.Error()}
	var we *measure.WorkloadError
	if errors.As(r.Err, &we) {
		f.Kind, f.Phase, f.Exception, f.Stack = we.Kind, we.Phase, we.Exception, we.Stack
		if we.Frame != nil {
			f.File, f.Line = we.Frame.Path, we.Frame.Line
			if f.File == "" {
				f.File = we.Frame.File
			}
		}
	}
	m.Error = f
	return m
}

// printWorkloadError prints where a workload failed (file:line, relative to
// the project) and the head of the Java stack, before the error line itself.
func printWorkloadError(w io.Writer, dir string, err error) {
	var we *measure.WorkloadError
	if !errors.As(err, &we) {
		return
	}
	if we.Frame != nil && we.Frame.Path != "" && we.Frame.Line > 0 {
		fmt.Fprintf(w, "%s:%d: %s (%s)\n", rel(dir, we.Frame.Path), we.Frame.Line, we.Kind, we.Phase)
	}
	if st := strings.TrimSpace(we.Stack); st != "" {
		lines := strings.Split(st, "\n")
		if len(lines) > 12 {
			lines = append(lines[:12], fmt.Sprintf("\t... %d more lines", len(lines)-12))
		}
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
	if out := strings.TrimSpace(we.Output); out != "" {
		fmt.Fprintf(w, "output of the workload (tail):\n%s\n", out)
	}
}

// printMeasureText prints a compact human summary.
func printMeasureText(w io.Writer, r measure.Result, head jsonMeasurement) {
	s := measure.Summarize(r.Forks)
	label := "final"
	if head.Preliminary {
		label = "preliminary"
	}
	ci := "CI over fork means"
	if !s.CIOverForks {
		ci = "CI over samples of one fork"
	}
	subject := head.Method
	if head.Workload != "" {
		subject += "[" + head.Workload + "]"
	}
	fmt.Fprintf(w, "%s  %s%s\n", label, subject, fmtArgs(head.Args))
	fmt.Fprintf(w, "  mean   %s/op ± %.1f%% (95%% %s: %s … %s)\n", report.Duration(s.MeanNsPerOp), 100*s.RelativeHalfWidth(), ci,
		report.Duration(s.CI95[0]), report.Duration(s.CI95[1]))
	fmt.Fprintf(w, "  median %s/op", report.Duration(s.MedianNsPerOp))
	if !math.IsNaN(s.MeanCPUNsPerOp) {
		fmt.Fprintf(w, ", cpu %s/op", report.Duration(s.MeanCPUNsPerOp))
	}
	if !math.IsNaN(s.MeanAllocBytesPerOp) {
		fmt.Fprintf(w, ", alloc %.1f B/op", s.MeanAllocBytesPerOp)
	}
	fmt.Fprintf(w, "\n  %d fork(s) × %d samples", s.Forks, s.SamplesPerFork)
	if len(r.Forks) > 0 {
		var wu time.Duration
		settled, retaken := 0, 0
		for _, f := range r.Forks {
			wu += f.Warmup
			retaken += f.Retaken
			if f.WarmupSettled == 1 {
				settled++
			}
		}
		fmt.Fprintf(w, ", warm-up %s/fork (JIT settled in %d of %d)", (wu / time.Duration(len(r.Forks))).Round(time.Millisecond), settled, len(r.Forks))
		if retaken > 0 {
			fmt.Fprintf(w, ", %d sample(s) taken again (thread preempted)", retaken)
		}
	}
	e := r.Env
	fmt.Fprintf(w, "\n  %s %s (%s), %s/%s, %s, %d cores\n", e.VMName, e.JavaVersion, e.JavaVendor, e.OS, e.Arch, orUnknown(e.CPUModel), e.Cores)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

func fmtArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = fmt.Sprint(a)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
