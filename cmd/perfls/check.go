package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

type checkFlags struct {
	format  string
	alpha   float64
	opts    measure.Options
	verbose bool
	fresh   bool
	interp  string
	junit   string
	html    string // --html DIR: also write a self-contained HTML report there
	command string // the command line, shown in the HTML report
	// alphaSet is true when --alpha was given, so it wins over perfls.json.
	alphaSet bool
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var cf checkFlags
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&cf.format, "format", "text", "output format: text or json")
	fl.Float64Var(&cf.alpha, "alpha", 0.05, "significance level of the tests")
	fl.IntVar(&cf.opts.Forks, "forks", measure.DefaultForks, "JVM forks per measurement")
	fl.IntVar(&cf.opts.SamplesPerFork, "samples", 30, "samples per fork")
	fl.DurationVar(&cf.opts.Warmup, "warmup", 300*time.Millisecond, "minimum warm-up time per fork")
	fl.DurationVar(&cf.opts.ForkTimeout, "fork-timeout", 60*time.Second, "time limit of one fork")
	fl.BoolVar(&cf.verbose, "v", false, "report each fork on stderr")
	fl.BoolVar(&cf.fresh, "fresh", false, "measure again even when the cache has fresh results")
	fl.StringVar(&cf.junit, "junit", "", "also write the verdicts as JUnit XML to this file (one test case per formula instance)")
	fl.StringVar(&cf.html, "html", "", "also write a self-contained HTML report with plots to DIR/index.html (DIR is created when missing)")
	fl.StringVar(&cf.interp, "interpretation", "", "quick, parametric, nonparametric or rank for formulas without their own (default: perfls.json's, else parametric with ≥ 5 forks per side or a run history, else quick with 5% tolerance)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: perfls check [flags] DIR\n\nCompiles the Java project in DIR, measures every method its @SPL formulas name in\nforked JVMs, and decides each formula instance (fewer than 5 forks: quick Welch test with 5% tolerance;\n5 or more: parametric test on fork means; see docs/statistics.md).\nExit status: 0 all hold, 1 a formula is violated or a calibrated workload failed its bounds oracle\n(perfls calibrate; docs/oracle.md), 2 usage, formula or build errors.")
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
	if cf.interp != "" {
		if _, err := stats.ParseInterpretation(cf.interp); err != nil {
			return exitUsage, usageError{"--interpretation: " + err.Error()}
		}
	}
	fl.Visit(func(f *flag.Flag) { cf.alphaSet = cf.alphaSet || f.Name == "alpha" })
	if cf.html != "" {
		if err := checkHTMLDir(cf.html); err != nil {
			return exitUsage, usageError{err.Error()}
		}
		cf.command = commandLine(append([]string{"perfls", "check"}, args...))
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
	cacheDir, err := cache.Dir()
	if err != nil {
		return exitUsage, err
	}
	svc, err := service.Open(ctx, cacheDir)
	if err != nil {
		return exitUsage, err
	}
	defer svc.Close()
	if _, daemon := svc.(*service.Client); daemon {
		fmt.Fprintln(stderr, "perfls: measuring through the running perfls daemon")
	}
	job := checkJob{
		dir: dir, opts: cf.opts, verdict: verdict.Options{Alpha: cf.alpha},
		interpretation: cf.interp, alphaSet: cf.alphaSet,
		priority: service.Batch, fresh: cf.fresh,
		progress: progressPrinter(stderr, cf.verbose),
	}
	out, err := runCheckJob(ctx, svc, job)
	if isTerminal(stderr) && !cf.verbose {
		fmt.Fprint(stderr, "\r\033[K") // clear the progress line
	}
	if err != nil {
		return exitUsage, err
	}
	code := exitOK
	for _, d := range out.diags {
		fmt.Fprintln(stderr, relDiag(dir, d))
		if d.Severity == workspace.Error {
			code = exitUsage
		}
	}
	for _, n := range out.notices {
		fmt.Fprintln(stderr, "perfls:", n)
	}
	if len(out.compileErrors) > 0 {
		for _, m := range out.compileErrors {
			fmt.Fprintf(stderr, "%s:%d:%d: %s: %s\n", rel(dir, m.File), m.Line, m.Column, m.Severity, m.Message)
		}
		return exitUsage, fmt.Errorf("the project does not compile")
	}
	if len(out.methods) == 0 {
		fmt.Fprintf(stderr, "perfls: no @SPL formulas to check under %s\n", dir)
		return code, nil
	}
	if out.cached > 0 {
		fmt.Fprintf(stderr, "perfls: %d of %d measurements answered from the cache (--fresh measures again)\n", out.cached, out.requests)
	}

	if cf.junit != "" {
		if err := writeJUnit(cf.junit, dir, out.methods, time.Since(start)); err != nil {
			return exitUsage, err
		}
	}
	if cf.html != "" {
		if err := writeHTMLReport(cf.html, dir, cf.command, out, cf, time.Since(start)); err != nil {
			return exitUsage, err
		}
	}
	counts := map[verdict.Outcome]int{}
	for _, m := range out.methods {
		for _, in := range m.Instances {
			counts[in.Outcome]++
		}
	}
	if cf.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(withOracle(out.methods, out.oracle)); err != nil {
			return exitUsage, err
		}
	} else {
		printText(stdout, dir, out.methods)
		printCosts(stdout, out.costs)
		printOracle(stdout, out.oracle)
		fmt.Fprintf(stdout, "\n%d satisfied, %d violated, %d undecided (α = %g; %.1fs)\n",
			counts[verdict.Satisfied], counts[verdict.Violated], counts[verdict.Undecided],
			out.alpha, time.Since(start).Seconds())
	}
	if code == exitOK && (counts[verdict.Violated] > 0 || oracleFailed(out.oracle)) {
		code = exitViolated
	}
	return code, nil
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

// printCosts shows the fitted cost models, and says when the measured
// arguments cannot tell the candidates apart.
func printCosts(w io.Writer, costs []costModel) {
	if len(costs) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncost models (time per operation against the workload argument):")
	for _, c := range costs {
		f := c.Fit
		if f.Best == "" {
			fmt.Fprintf(w, "  %s: no model fits\n", c.Subject)
			continue
		}
		line := fmt.Sprintf("  %s: %s fits best", c.Subject, f.Best)
		for _, fit := range f.Fits {
			if fit.Model == f.Best {
				line += fmt.Sprintf(" (%s ns/op)", fit)
			}
		}
		if len(f.Indistinct) > 1 {
			line += fmt.Sprintf(", but %d values of the argument over %.1f decades cannot tell it from %s: measure more values, over a wider range",
				c.Points, c.Decades, strings.Join(f.Indistinct[1:], ", "))
		}
		fmt.Fprintln(w, line)
	}
}

// progressPrinter reports measuring progress on stderr: every message with
// -v; otherwise, on a terminal only, one line rewritten in place with the
// number of forks done and the latest figure, so a long first check is not
// silent and logs stay clean.
func progressPrinter(stderr io.Writer, verbose bool) func(service.Progress) {
	if verbose {
		return func(p service.Progress) { fmt.Fprintf(stderr, "  %s\n", p.Message) }
	}
	if !isTerminal(stderr) {
		return nil
	}
	var mu sync.Mutex
	done := 0
	return func(p service.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.NsPerOp > 0 {
			done++
		}
		line := fmt.Sprintf("perfls: measuring, %d forks done; %s", done, p.Message)
		if len(line) > 110 {
			line = line[:107] + "..."
		}
		fmt.Fprintf(stderr, "\r\033[K%s", line)
	}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
