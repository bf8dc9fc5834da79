package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/report/htmlreport"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure/service"
)

type checkFlags struct {
	measure        measureFlags
	format         string
	alpha          float64
	interpretation string
	fresh          bool
	junit, html    string
}

func (a *app) checkCommand() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [flags] [DIR]",
		Short: "Measure and decide every @SPL formula of the project in DIR (default .)",
		Long: `Compiles the Java project in DIR (default: the current directory), measures every method
its @SPL formulas name in forked JVMs, and decides each formula instance (fewer than
5 forks: quick Welch test with 5% tolerance; 5 or more: parametric test on fork
means; see docs/statistics.md).

An instance is satisfied (no significant evidence against it), violated, undecided
for lack of evidence (too few samples, too much noise: more forks would settle it),
or failed: an error left it undecided (every fork of a workload threw, a method or
generator does not resolve, a formula names no workload, a class is missing).

Exit status: 0 every instance holds or is undecided for lack of evidence, 1 a formula
is violated or a calibrated workload failed its bounds oracle (perfls calibrate;
docs/oracle.md), 2 usage, formula or build errors, or an instance failed.`,
		Args: atMostOne("project directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("alpha") && !(f.alpha > 0 && f.alpha <= 0.5) {
				return usagef("--alpha %g is outside (0, 0.5]", f.alpha)
			}
			if !cmd.Flags().Changed("alpha") {
				f.alpha = 0 // perfls.json's, else the default
			}
			return a.check(cmd, dirArg(args), f)
		},
	}
	fs := cmd.Flags()
	f.measure.bind(fs, measureDefaults())
	fs.StringVar(&f.format, "format", "text", "output format: text or json")
	fs.Float64Var(&f.alpha, "alpha", 0.05, "significance level of the tests (default: perfls.json's, else 0.05)")
	fs.StringVar(&f.interpretation, "interpretation", "", "quick, parametric, nonparametric or rank for formulas without their own (default: perfls.json's, else parametric with ≥ 5 forks per side or a run history, else quick with 5% tolerance)")
	fs.BoolVar(&f.fresh, "fresh", false, "measure again even when the cache has fresh results")
	fs.StringVar(&f.junit, "junit", "", "also write the verdicts as JUnit XML to this file (one test case per formula instance)")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML report with plots to DIR/index.html (DIR is created when missing)")
	cmd.RegisterFlagCompletionFunc("interpretation", cobra.FixedCompletions([]string{"quick", "parametric", "nonparametric", "rank"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagDirname("html")
	return cmd
}

func (a *app) check(cmd *cobra.Command, path string, f checkFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	if f.interpretation != "" {
		if _, err := stats.ParseInterpretation(f.interpretation); err != nil {
			return usagef("--interpretation: %v", err)
		}
	}
	if err := f.measure.check(1); err != nil {
		return err
	}
	if f.html != "" {
		if err := checkOutputDir("--html", f.html); err != nil {
			return err
		}
	}
	dir, err := projectDir(path, "")
	if err != nil {
		return err
	}
	start := time.Now()
	eng, err := a.openEngine(cmd.Context(), engine.UseDaemon)
	if err != nil {
		return err
	}
	defer eng.Close()
	progress, done := a.progress(f.measure.verbose)
	res, err := eng.Check(cmd.Context(), engine.CheckRequest{Dir: dir, Options: f.measure.opts, Alpha: f.alpha,
		Interpretation: f.interpretation, Priority: service.Batch, Fresh: f.fresh, Progress: progress})
	done()
	if err != nil {
		return err
	}
	code := exitOK
	for _, d := range res.Diagnostics {
		d.Path = report.Rel(dir, d.Path)
		fmt.Fprintln(a.stderr, d)
		if d.Severity == workspace.Error {
			code = exitUsage
		}
	}
	a.notices(res.Notices)
	if len(res.CompileErrors) > 0 {
		a.compileErrors(dir, res.CompileErrors)
		return fmt.Errorf("the project does not compile")
	}
	if len(res.Methods) == 0 {
		a.note("no @SPL formulas to check under %s", dir)
		return exitStatus(code)
	}
	if res.Cached > 0 {
		a.note("%d of %d measurements answered from the cache (--fresh measures again)", res.Cached, res.Requests)
	}
	rep := res.Report(dir, commandLine(append([]string{"perfls"}, a.args...)), time.Since(start))
	if err := a.writeCheck(rep, f); err != nil {
		return err
	}
	counts := rep.Counts()
	switch {
	case code != exitOK:
	case counts.Failed > 0:
		a.note("%s could not be decided because of errors (see \"failed\" above)", count(counts.Failed, "formula instance", "formula instances"))
		code = exitUsage
	case counts.Violated > 0 || oracle.AnyFailed(res.Oracle):
		code = exitViolated
	}
	return exitStatus(code)
}

// writeCheck writes the check's reports: JUnit and HTML when asked, then
// the text or JSON on stdout.
func (a *app) writeCheck(rep *report.Check, f checkFlags) error {
	if f.junit != "" {
		b, err := report.JUnit(rep)
		if err == nil {
			err = writeFile(f.junit, b)
		}
		if err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	if f.html != "" {
		page, err := htmlreport.Render(htmlreport.FromCheck(rep))
		if err == nil {
			err = writeFile(filepath.Join(f.html, "index.html"), page)
		}
		if err != nil {
			return fmt.Errorf("--html: %w", err)
		}
	}
	if f.format == "json" {
		return report.WriteCheckJSON(a.stdout, rep)
	}
	report.WriteCheckText(a.stdout, rep)
	return nil
}
