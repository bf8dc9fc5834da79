package main

// History: diff (the working tree against a base commit), bisect (the
// first bad commit) and history (a method's stored results over commits
// and machines).
import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/report/htmlreport"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/measure/service"
)

// historyCommand is perfls diff, or perfls bisect: their flags and wiring
// (engine/diff.go, engine/bisect.go, docs/revisions.md).
func (a *app) historyCommand(bisect bool) *cobra.Command {
	var m measureFlags
	var format, junit, html, project string
	var req engine.HistoryRequest
	cmd := &cobra.Command{Use: "diff [--base REV] [flags] [DIR]", Args: cli.UsageArgs(cobra.MaximumNArgs(1))}
	if bisect {
		cmd.Use, cmd.Args = "bisect GOOD BAD [flags] [DIR]", cli.UsageArgs(cobra.RangeArgs(2, 3))
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		revs, rest := args[:len(args)&^1], args[len(args)&^1:] // diff: [DIR]; bisect: GOOD BAD [DIR]
		path, _, err := projectArg(cmd, project, rest)
		if err != nil {
			return err
		}
		dir, err := cli.Dir(path, "")
		if err != nil {
			return err
		}
		if err := engine.ValidateOptions(m.opts, 2); err != nil {
			return cli.UsageError{Msg: err.Error()}
		}
		if err := cli.OutputDir("--html", html); err != nil {
			return err
		}
		start := time.Now()
		return a.withEngine(engine.UseDaemon, func(cmd *cobra.Command, eng *engine.Engine) error {
			progress, done := a.progress(m.verbose)
			req.Dir, req.Options, req.Priority, req.Progress = dir, m.opts, service.Batch, progress
			var res report.Result
			if bisect {
				res, err = eng.Bisect(cmd.Context(), engine.BisectRequest{HistoryRequest: req, Good: revs[0], Bad: revs[1]})
			} else {
				res, err = eng.Diff(cmd.Context(), req)
			}
			done()
			if err != nil {
				return a.measureError(dir, cli.FetchHint(err, cmd.Name(), req.Fetch))
			}
			if d, ok := res.(*report.Diff); ok {
				line := report.CommandLine(append([]string{"perfls"}, a.args...))
				err = errors.Join(cli.WriteOutput("--junit", junit, "", func() ([]byte, error) { return report.DiffJUnit(d, time.Since(start)) }),
					cli.WriteOutput("--html", html, "index.html", func() ([]byte, error) { return htmlreport.RenderDiff(d, line, time.Now(), time.Since(start)) }))
			}
			if err != nil { // a report file: the result is still shown
				return errors.Join(err, a.output(format, res, func() { res.WriteText(a.stdout) }))
			}
			return a.result(format, res)
		})(cmd, nil)
	}
	fs := cmd.Flags()
	projectFlag(cmd, &project)
	m.bind(fs, engine.MeasureDefaults())
	cli.FetchFlag(fs, &req.Fetch)
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	fs.Float64Var(&req.Alpha, "alpha", 0, "significance level of the tests (default: perfls.json's, else 0.05)")
	fs.IntVar(&req.MaxForks, "max-forks", 0, "forks per measurement up to which undecided comparisons are measured again, α spread over the looks (default 3 × --forks)")
	fs.StringVar(&req.Method, "method", "", "only the workloads of this method, pkg.Class#m (default: every method with a workload; bisect: the formulas)")
	fs.BoolVar(&req.Fresh, "fresh", false, "measure again even when the cache has fresh results (each result is stored with its commit)")
	fs.BoolVar(&req.CommitConfig, "commit-config", false, "build each commit with its own perfls.json where it has one (default: the working tree's, with its workloads and formulas, for every commit)")
	if !bisect {
		fs.StringVar(&req.Base, "base", "", "base revision (default: the merge base with origin/HEAD, main, master, origin/main or origin/master; without a remote and these, HEAD)")
		fs.StringVar(&junit, "junit", "", "also write the comparisons as JUnit XML to this file (slower: a failure)")
		fs.StringVar(&html, "html", "", "also write a self-contained HTML report with the ratio plot to DIR/index.html")
		fs.BoolVar(&req.Profile, "profile", false, "also profile every slower workload in both trees and say what changed in its profile")
	}
	return cmd
}

// historyListCommand is perfls history: a method's stored results over
// commits and machines (engine.MethodHistory).
func (a *app) historyListCommand() *cobra.Command {
	var method, format, html string
	cmd := &cobra.Command{Use: "history --method pkg.Class#m [--format text|json] [--html DIR]", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			rows, err := eng.MethodHistory(cmd.Context(), method)
			if errors.Is(err, engine.ErrMethodName) {
				return cli.Usagef("%v", err)
			}
			if err != nil {
				return err
			}
			page := func() ([]byte, error) { return eng.HistoryPage(cmd.Context(), ".", method, rows, a.args) }
			return errors.Join(cli.WriteOutput("--html", html, "index.html", page), a.output(format, report.NewHistoryDocument(method, rows), func() { report.WriteHistory(a.stdout, rows) }))
		})}
	cmd.Flags().StringVar(&method, "method", "", "the method, pkg.Class#m or pkg.Class#m(types)")
	cmd.Flags().StringVar(&html, "html", "", "also write a self-contained HTML page plotting the results over the commits to DIR/index.html")
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}
