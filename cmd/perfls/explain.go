package main

import (
	"github.com/spf13/cobra"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/measure/service"
)

// explainCommand is perfls explain: from a slow-down (the latest change
// point of a method's stored results, or two revisions) to the first bad
// commit and what grew in its profile (engine/explain.go).
func (a *app) explainCommand() *cobra.Command {
	var m measureFlags
	var format, project string
	var req engine.ExplainRequest
	cmd := &cobra.Command{Use: "explain --method pkg.Class#m [--good REV --bad REV] [flags] [DIR]", Args: cli.UsageArgs(cobra.MaximumNArgs(1))}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		path, _, err := projectArg(cmd, project, args)
		if err != nil {
			return err
		}
		dir, err := cli.Dir(path, "")
		if err != nil {
			return err
		}
		req.Options = m.opts
		if err := req.Validate(); err != nil {
			return cli.UsageError{Msg: err.Error()}
		}
		return a.withEngine(engine.UseDaemon, func(cmd *cobra.Command, eng *engine.Engine) error {
			progress, done := a.progress(m.verbose)
			req.Dir, req.Options, req.Priority, req.Progress = dir, m.opts, service.Batch, progress
			x, err := eng.Explain(cmd.Context(), req)
			done()
			if err != nil {
				return a.measureError(dir, cli.FetchHint(err, cmd.Name(), req.Fetch))
			}
			if format == "markdown" {
				if err := a.output(format, x, func() { x.WriteMarkdown(a.stdout) }); err != nil {
					return err
				}
				return cli.ExitStatus(x.ExitStatus())
			}
			return a.result(format, x)
		})(cmd, nil)
	}
	fs := cmd.Flags()
	projectFlag(cmd, &project)
	m.bind(fs, engine.MeasureDefaults())
	fs.StringVar(&req.Method, "method", "", "the method whose slow-down to explain, pkg.Class#m or pkg.Class#m(types)")
	fs.StringVar(&req.Good, "good", "", "a revision before the slow-down (with --bad; default: the last stored result before the method's latest change point)")
	fs.StringVar(&req.Bad, "bad", "", "a revision after it (with --good; default: the change point's commit)")
	cli.FetchFlag(fs, &req.Fetch)
	fs.Float64Var(&req.Alpha, "alpha", 0, "significance level of the tests (default: perfls.json's, else 0.05)")
	fs.IntVar(&req.MaxForks, "max-forks", 0, "forks per measurement up to which undecided comparisons are measured again (default 3 × --forks)")
	fs.BoolVar(&req.Fresh, "fresh", false, "measure again even when the cache has fresh results")
	fs.BoolVar(&req.CommitConfig, "commit-config", false, "build each commit with its own perfls.json where it has one (default: the working tree's)")
	cli.Enum(cmd, &format, "format", "text", "output format: text, json, or markdown (a pull-request comment)", "text", "json", "markdown")
	return cmd
}
