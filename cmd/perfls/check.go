package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/report/htmlreport"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/measure/service"
)

// semanticsUsage describes --semantics (check, evaluate): what satisfied
// means. It is named apart from --interpretation, which picks the test
// (seed 004's word); this picks how the test's answer reads.
const semanticsUsage = "what satisfied means: shown (the data show the relation holds within 5 %) or classic (the SPL paper's reading: satisfied unless the test rejects it at α)"

type checkFlags struct {
	measure                             measureFlags
	format, interpretation, junit, html string
	semantics, family                   string
	alpha                               float64
	fresh, remote, commitConfig         bool
	maxForks                            int
	label, project, classpathFile       string
}

func (a *app) checkCommand() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:  "check [flags] [DIR | FILE]",
		Args: cli.UsageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := engine.CheckRequest{Options: f.measure.opts, Alpha: f.alpha, Interpretation: f.interpretation, Semantics: f.semantics, Family: f.family, Priority: service.Batch, Fresh: f.fresh,
				MaxForks: f.maxForks, Remote: f.remote, Label: f.label, CommitConfig: f.commitConfig}
			if err := req.Validate(); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			err := cli.OutputDir("--html", f.html)
			if err != nil {
				return err
			}
			target, _, err := projectArg(cmd, f.project, args)
			if err != nil {
				return err
			}
			if req.Dir, req.Keep, err = engine.CheckTarget(target); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			if req.ClasspathFile, err = engine.ClasspathFile(f.classpathFile, f.remote); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			return a.withEngine(engine.UseDaemon, func(cmd *cobra.Command, eng *engine.Engine) error { return a.check(cmd, eng, req, f) })(cmd, nil)
		},
	}
	fs := cmd.Flags()
	projectFlag(cmd, &f.project)
	f.measure.bind(fs, engine.MeasureDefaults())
	cli.Enum(cmd, &f.format, "format", "text", "output format: text or json", "text", "json")
	fs.Float64Var(&f.alpha, "alpha", 0, "significance level of the tests (default: perfls.json's, else 0.05)")
	fs.StringVar(&f.interpretation, "interpretation", "", "quick, parametric, nonparametric or rank for formulas without their own (default: perfls.json's, else parametric: fork means, never pooled samples)")
	cli.Enum(cmd, &f.semantics, "semantics", "", semanticsUsage+" (default: perfls.json's, else shown; classic decides in one look)", verdict.SemanticsNames...)
	cli.Enum(cmd, &f.family, "family", engine.FamilyHolm, "how the check's comparisons share α: holm (the chance of any false violation among all of them stays within α) or none (each tested alone at α, as if checked by itself)", engine.FamilyHolm, engine.FamilyNone)
	fs.IntVar(&f.maxForks, "max-forks", 0, "forks per measurement up to which undecided formulas are measured again and decided again, α spread over the looks (default 3 × --forks; --forks or less: one look)")
	fs.BoolVar(&f.fresh, "fresh", false, "measure again even when the cache has fresh results")
	fs.BoolVar(&f.commitConfig, "commit-config", false, "build a revision a formula names (@REV) with its own perfls.json where it has one (default: the working tree's)")
	fs.BoolVar(&f.remote, "remote", false, "let the shared store's workers measure (perfls worker; docs/team.md) and wait for them")
	fs.StringVar(&f.label, "label", "", "with --remote: only workers started with this --label take the jobs")
	fs.StringVar(&f.junit, "junit", "", "also write the verdicts as JUnit XML to this file (one test case per formula instance)")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML report with plots to DIR/index.html (DIR is created when missing)")
	fs.StringVar(&f.classpathFile, "classpath-file", "", "the project's dependencies, from this file (entries separated by : or new lines), instead of perfls.json's or the build tool's: how the Maven plugin and the Gradle task pass what they resolved")
	cmd.RegisterFlagCompletionFunc("interpretation", cobra.FixedCompletions([]string{"quick", "parametric", "nonparametric", "rank"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagDirname("html")
	return cmd
}

func (a *app) check(cmd *cobra.Command, eng *engine.Engine, req engine.CheckRequest, f checkFlags) error {
	start, dir := time.Now(), req.Dir
	progress, done := a.progress(f.measure.verbose)
	if req.Remote {
		progress = jobLines(a.stderr, progress, f.measure.verbose || cli.IsTerminal(a.stderr))
	}
	req.Progress = progress
	res, err := eng.Check(cmd.Context(), req)
	done()
	if note := engine.QueueNote(err); note != "" {
		a.note("%s", note)
	}
	if err != nil {
		return err
	}
	code := cli.ExitOK
	if report.WriteDiagnostics(a.stderr, dir, res.Diagnostics) > 0 {
		code = cli.ExitUsage
	}
	a.notices(eng.CacheDir(), dir, f.measure.verbose, res.Notices)
	switch {
	case len(res.CompileErrors) > 0:
		report.WriteCompileErrors(a.stderr, dir, res.CompileErrors)
		return fmt.Errorf("the project does not compile")
	case len(res.Methods) == 0 && req.Keep == nil && res.Formulas == 0:
		// A directory without formulas is most often the wrong one (a CI
		// job pointed at it would pass): an error that says where it looked.
		return res.NoFormulas(dir)
	case len(res.Methods) == 0:
		a.note("no @SPL formulas to check under %s", dir)
		return cli.ExitStatus(code)
	case res.Cached > 0:
		a.note("%d of %d measurements answered from the cache (--fresh measures again)", res.Cached, res.Requests)
	}
	rep := res.Report(dir, report.CommandLine(append([]string{"perfls"}, a.args...)), time.Since(start))
	rep.Colour = cli.Colour(a.stdout)
	if err := cli.WriteOutput("--junit", f.junit, "", func() ([]byte, error) { return report.JUnit(rep) }); err != nil {
		return err
	}
	if err := cli.WriteOutput("--html", f.html, "index.html", func() ([]byte, error) { return htmlreport.Render(htmlreport.FromCheck(rep)) }); err != nil {
		return err
	}
	if err := a.output(f.format, report.CheckJSON(rep), func() { report.WriteCheckText(a.stdout, rep) }); err != nil {
		return err
	}
	if n := rep.Counts().Failed; n > 0 {
		a.note("%d formula instance(s) could not be decided because of errors (see \"failed\" above)", n)
	}
	return cli.ExitStatus(map[string]int{report.FailedErrors: cli.ExitUsage, report.ViolatedRun: cli.ExitFailed}[rep.Result()])
}

// jobLines writes each state change of a job on the workers' queue as a
// line of its own (the remote service says each once, and "still queued"
// at most every 30 s), for a CI log where the progress line is silent;
// shown is whether progress already shows them (-v, a terminal).
func jobLines(w io.Writer, progress func(service.Progress), shown bool) func(service.Progress) {
	if shown {
		return progress
	}
	return func(p service.Progress) {
		if p.Job != 0 {
			fmt.Fprintf(w, "perfls: %s\n", p.Message)
			return
		}
		progress(p)
	}
}
