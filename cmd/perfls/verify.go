package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

// exitNotApplicable is verify's exit status when the run's environment
// differs from calibration (another JVM, machine, flags or harness): the
// oracle cannot judge it, which is not a regression.
const exitNotApplicable = 3

func (a *app) verifyCommand() *cobra.Command {
	var sel selector
	var forks int
	var timeout time.Duration
	var verbose bool
	cmd := &cobra.Command{
		Use:   "verify --method pkg.Class#m [--workload pkg.Class#gen] [--args 100] [--forks 1] [--format json]",
		Short: "Run a calibrated workload once and classify it against its bounds oracle",
		Long: `Runs a calibrated workload once more (one fresh fork by default, measured like the
calibration) and classifies the run against its bounds oracle, per metric; the run is
kept for hovers and calibrate --accept. See docs/oracle.md. Exit status: 0 pass, 1 fail,
2 usage, build or workload errors or no calibration, 3 not applicable (the environment
differs from calibration: another JVM, machine or flags — never a regression).`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if forks < 1 {
				return cli.Usagef("--forks must be ≥ 1")
			}
			return sel.run(a, cmd, func(dir string, w engine.Workload, eng *engine.Engine) error {
				progress, done := a.progress(verbose)
				j, err := eng.Verify(cmd.Context(), engine.VerifyRequest{Dir: dir, Workload: w, Forks: forks, ForkTimeout: timeout, Progress: progress})
				done()
				if err != nil {
					return a.measureError(dir, err)
				}
				if err := a.output(sel.format, j, func() { report.WriteJudgement(a.stdout, *j, true) }); err != nil {
					return err
				}
				return cli.ExitStatus(verifyStatus(j.Result))
			})
		},
	}
	sel.bind(cmd)
	cmd.Flags().IntVar(&forks, "forks", 1, "fresh forks to run; with more than one, the workload fails when more than half of them fail")
	cmd.Flags().DurationVar(&timeout, "fork-timeout", 60*time.Second, "time limit of one fork")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "report each fork on stderr")
	return cmd
}

// verifyStatus is verify's exit status for an oracle verdict.
func verifyStatus(v oracle.Verdict) int {
	switch v {
	case oracle.Fail:
		return exitViolated
	case oracle.NotApplicable:
		return exitNotApplicable
	}
	return exitOK
}
