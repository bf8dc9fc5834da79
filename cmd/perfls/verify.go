package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
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
calibration) and classifies the run against the stored bounds-oracle model: per metric,
the points outside their band, above or below and by how much. The run and its result
are kept for hovers and for perfls calibrate --accept. See docs/oracle.md.
Exit status: 0 pass, 1 fail (behaviour left the calibrated bands), 2 usage, build or
workload errors or no calibration, 3 not applicable (the environment differs from
calibration: another JVM, machine, harness or flags — never a regression).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if forks < 1 {
				return usagef("--forks must be ≥ 1")
			}
			dir, w, err := sel.parse("verify")
			if err != nil {
				return err
			}
			eng, err := a.openEngine(cmd.Context(), engine.UseDaemon)
			if err != nil {
				return err
			}
			defer eng.Close()
			progress, done := a.progress(verbose)
			j, err := eng.Verify(cmd.Context(), engine.VerifyRequest{Dir: dir, Workload: w, Forks: forks, ForkTimeout: timeout, Progress: progress})
			done()
			if err != nil {
				return a.measureError(dir, err)
			}
			if sel.format == "json" {
				if err := report.WriteJSON(a.stdout, j); err != nil {
					return err
				}
			} else {
				report.WriteJudgement(a.stdout, *j, true)
			}
			return exitStatus(verifyStatus(j.Result))
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
