package main

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

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

type checkFlags struct {
	format  string
	alpha   float64
	opts    measure.Options
	verbose bool
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var cf checkFlags
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&cf.format, "format", "text", "output format: text or json")
	fl.Float64Var(&cf.alpha, "alpha", 0.05, "significance level of the tests")
	fl.IntVar(&cf.opts.Forks, "forks", 3, "JVM forks per measurement")
	fl.IntVar(&cf.opts.SamplesPerFork, "samples", 30, "samples per fork")
	fl.DurationVar(&cf.opts.Warmup, "warmup", 300*time.Millisecond, "minimum warm-up time per fork")
	fl.DurationVar(&cf.opts.ForkTimeout, "fork-timeout", 60*time.Second, "time limit of one fork")
	fl.BoolVar(&cf.verbose, "v", false, "report each fork on stderr")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: perfls check [flags] DIR\n\nCompiles the Java project in DIR, measures every method its @SPL formulas name in\nforked JVMs, and decides each formula instance (fewer than 5 forks: quick Welch test with 5% tolerance;\n5 or more: parametric test on fork means; see docs/statistics.md).\nExit status: 0 all hold, 1 a formula is violated, 2 usage, formula or build errors.")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	if fl.NArg() != 1 {
		return exitUsage, usageError{"check needs exactly one project directory"}
	}
	if cf.format != "text" && cf.format != "json" {
		return exitUsage, usageError{fmt.Sprintf("unknown --format %q (want text or json)", cf.format)}
	}
	if cf.opts.Forks < 1 || cf.opts.SamplesPerFork < 2 {
		return exitUsage, usageError{"--forks must be ≥ 1 and --samples ≥ 2"}
	}
	dir, err := filepath.Abs(fl.Arg(0))
	if err != nil {
		return exitUsage, err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return exitUsage, usageError{fmt.Sprintf("%s is not a directory", fl.Arg(0))}
	}
	return check(ctx, dir, cf, stdout, stderr)
}

func check(ctx context.Context, dir string, cf checkFlags, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	proj, err := measure.FindProject(dir)
	if err != nil {
		return exitUsage, err
	}
	var files []*javasrc.File
	var formulas []*workspace.Formula
	var diags []workspace.Diagnostic
	for _, path := range proj.Sources {
		src, err := os.ReadFile(path)
		if err != nil {
			return exitUsage, fmt.Errorf("read %s: %w", path, err)
		}
		f, err := javasrc.Parse(path, src)
		if err != nil {
			return exitUsage, fmt.Errorf("parse %s: %w", path, err)
		}
		files = append(files, f)
		fs, ds := workspace.JavaFormulas(f)
		formulas = append(formulas, fs...)
		diags = append(diags, ds...)
	}
	plan := workspace.PlanCheck(workspace.NewIndex(files), formulas)
	diags = append(diags, plan.Diagnostics...)
	code := exitOK
	for _, d := range diags {
		fmt.Fprintln(stderr, relDiag(dir, d))
		if d.Severity == workspace.Error {
			code = exitUsage
		}
	}
	if len(plan.Instances) == 0 {
		fmt.Fprintf(stderr, "perfls: no @SPL formulas found under %s\n", dir)
		return code, nil
	}

	cacheDir, err := cache.Dir()
	if err != nil {
		return exitUsage, err
	}
	build, err := measure.Compile(ctx, proj, cacheDir)
	if err != nil {
		var ce *measure.CompileError
		if errors.As(err, &ce) {
			for _, m := range ce.Messages {
				fmt.Fprintf(stderr, "%s:%d:%d: %s: %s\n", rel(dir, m.File), m.Line, m.Column, m.Severity, m.Message)
			}
			return exitUsage, fmt.Errorf("the project does not compile")
		}
		return exitUsage, err
	}
	compiled := time.Since(start)

	results, err := measureAll(ctx, build, plan, cf, stderr)
	if err != nil {
		return exitUsage, err
	}
	methods := decide(plan, results, verdict.Options{Alpha: cf.alpha})
	if err := cache.OpenVerdicts(cacheDir).Replace(methods); err != nil {
		fmt.Fprintf(stderr, "perfls: could not record verdicts for editors: %v\n", err)
	}

	counts := map[verdict.Outcome]int{}
	for _, m := range methods {
		for _, in := range m.Instances {
			counts[in.Outcome]++
		}
	}
	if cf.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(methods); err != nil {
			return exitUsage, err
		}
	} else {
		printText(stdout, dir, methods)
		fmt.Fprintf(stdout, "\n%d satisfied, %d violated, %d undecided (α = %g; compiled in %.1fs, total %.1fs)\n",
			counts[verdict.Satisfied], counts[verdict.Violated], counts[verdict.Undecided],
			cf.alpha, compiled.Seconds(), time.Since(start).Seconds())
	}
	if code == exitOK && counts[verdict.Violated] > 0 {
		code = exitViolated
	}
	return code, nil
}

// measureAll resolves the plan's requests against the compiled classes and
// measures those that resolved. Results are keyed by workspace request key.
func measureAll(ctx context.Context, build *measure.Build, plan *workspace.Plan, cf checkFlags, stderr io.Writer) (map[string]measure.Result, error) {
	// Resolve every distinct method and generator once.
	var specs []measure.MethodSpec
	specIndex := map[string]int{}
	addSpec := func(t workspace.Target) {
		if _, ok := specIndex[t.String()]; !ok {
			specIndex[t.String()] = len(specs)
			specs = append(specs, measure.MethodSpec{Class: t.Class, Name: t.Method, Params: t.Params})
		}
	}
	for _, r := range plan.Requests {
		addSpec(r.Method)
		addSpec(r.Generator)
	}
	resolved, errs := measure.Resolve(ctx, build, specs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	results := map[string]measure.Result{}
	var reqs []measure.Request
	var keys []string
	for _, r := range plan.Requests {
		mi, gi := specIndex[r.Method.String()], specIndex[r.Generator.String()]
		if err := errors.Join(errs[mi], errs[gi]); err != nil {
			results[r.Key()] = measure.Result{Err: err}
			continue
		}
		mr := measure.Request{Method: resolved[mi], Generator: resolved[gi]}
		for _, a := range r.Args {
			mr.Args = append(mr.Args, toMeasureArg(a))
		}
		reqs = append(reqs, mr)
		keys = append(keys, r.Key())
	}
	if len(reqs) > 0 {
		fmt.Fprintf(stderr, "perfls: measuring %d workloads × %d forks × %d samples\n", len(reqs), cf.opts.Forks, cf.opts.SamplesPerFork)
	}
	progress := func(e measure.Event) {
		if cf.verbose && e.Done {
			status := "ok"
			if e.Err != nil {
				status = e.Err.Error()
			}
			fmt.Fprintf(stderr, "  fork %d/%d %s: %s\n", e.Fork, e.Of, e.Request.Key(), status)
		}
	}
	measured, err := measure.Measure(ctx, build, reqs, cf.opts, progress)
	if err != nil {
		return nil, err
	}
	for i, res := range measured {
		results[keys[i]] = res
	}
	return results, nil
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

// decide turns measurements into verdicts, grouped by annotated method.
func decide(plan *workspace.Plan, results map[string]measure.Result, opt verdict.Options) []verdict.MethodResult {
	var methods []verdict.MethodResult
	byMethod := map[string]int{}
	now := time.Now().UTC()
	for _, in := range plan.Instances {
		f := in.Formula
		outcomes := map[*spl.Comparison]verdict.Outcome{}
		ir := verdict.InstanceResult{Line: f.Line(), Instance: in.Label()}
		if f.Value != nil {
			ir.Formula = f.Value.Text
		}
		for _, c := range in.Comparisons {
			cv := verdict.Compare(c.Node.Op, side(c.Left, results), side(c.Right, results), c.Node.Interval, opt)
			outcomes[c.Node] = cv.Outcome
			ir.Comparisons = append(ir.Comparisons, verdict.ComparisonResult{
				Text: c.Text, Outcome: cv.Outcome, Evidence: cv.Evidence, Reason: cv.Reason,
			})
		}
		ir.Outcome = verdict.Combine(in.Inst.Body, func(c *spl.Comparison) verdict.Outcome { return outcomes[c] })

		mr := verdict.MethodResult{File: f.Path, CheckedAt: now}
		if f.Method != nil {
			mr.Class, mr.Method = f.Method.Type.BinaryName, f.Method.Name
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
	}
	return methods
}

func side(o workspace.Operand, results map[string]measure.Result) verdict.Side {
	if o.Err != nil {
		return verdict.Side{Err: o.Err}
	}
	res, ok := results[o.Request.Key()]
	if !ok {
		return verdict.Side{Err: fmt.Errorf("not measured")}
	}
	if res.Err != nil {
		return verdict.Side{Err: res.Err}
	}
	s := verdict.Side{Scale: o.Scale}
	for _, f := range res.Forks {
		s.Runs = append(s.Runs, f.NsPerOp)
	}
	return s
}

func printText(w io.Writer, dir string, methods []verdict.MethodResult) {
	for _, m := range methods {
		for _, in := range m.Instances {
			loc := fmt.Sprintf("%s:%d", rel(dir, m.File), in.Line)
			label := in.Instance
			if label != "" {
				label = "[" + label + "]"
			}
			if len(in.Comparisons) == 1 {
				c := in.Comparisons[0]
				fmt.Fprintf(w, "%-9s %s %s  %s  %s\n", in.Outcome, loc, label, c.Text, report.Evidence(c))
				continue
			}
			fmt.Fprintf(w, "%-9s %s %s\n", in.Outcome, loc, label)
			for _, c := range in.Comparisons {
				fmt.Fprintf(w, "  %-9s %s  %s\n", c.Outcome, c.Text, report.Evidence(c))
			}
		}
	}
}

func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !filepath.IsAbs(r) && r != "" && r[0] != '.' {
		return r
	}
	return path
}

func relDiag(dir string, d workspace.Diagnostic) string {
	d.Path = rel(dir, d.Path)
	return d.String()
}
