package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

func (a *app) verifyCommand() *cobra.Command {
	var sel selector
	var req engine.VerifyRequest
	var verbose bool
	cmd := &cobra.Command{
		Use:  "verify --method pkg.Class#m [--workload pkg.Class#gen] [--args 100] [--forks 1] [--format json]",
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if req.Forks < 1 {
				return cli.Usagef("--forks must be ≥ 1")
			}
			return sel.run(a, cmd, func(dir string, w engine.Workload, eng *engine.Engine) error {
				progress, done := a.progress(verbose)
				req.Dir, req.Workload, req.Progress = dir, w, progress
				j, err := eng.Verify(cmd.Context(), req)
				done()
				if err != nil {
					return a.measureError(dir, err)
				}
				if err := a.output(sel.format, j, func() { report.WriteJudgement(a.stdout, *j, true) }); err != nil {
					return err
				}
				return cli.ExitStatus(report.VerifyStatus(j.Result))
			})
		},
	}
	sel.bind(cmd)
	cmd.Flags().IntVar(&req.Forks, "forks", 1, "fresh forks to run; with more than one, the workload fails when more than half of them fail")
	cmd.Flags().DurationVar(&req.ForkTimeout, "fork-timeout", 60*time.Second, "time limit of one fork")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "report each fork on stderr")
	return cmd
}
