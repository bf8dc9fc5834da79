package main

// The bounds oracle's commands: calibrate learns a workload's bands,
// verify classifies one run against them (docs/oracle.md).

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

type calibrateFlags struct {
	sel     selector
	measure measureFlags
	act     engine.CalibrateAction
}

func (a *app) calibrateCommand() *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:  "calibrate --method pkg.Class#m [--workload pkg.Class#gen] [--args 100] [--forks 30] [flags] [DIR]",
		RunE: func(cmd *cobra.Command, args []string) error { return a.calibrate(cmd, args, f) },
	}
	f.sel.bind(cmd)
	fs := cmd.Flags()
	def := engine.CalibrationOptions()
	f.measure.bind(fs, def)
	fs.Lookup("forks").Usage = fmt.Sprintf("calibration forks (below %d the oracle is provisional)", oracle.MinRuns)
	fs.DurationVar(&f.measure.opts.MinSampleTime, "min-sample", def.MinSampleTime, "minimum length of one sample")
	pol := oracle.DefaultPolicy()
	fs.StringVar(&f.act.Config.Smoothing, "smoothing", "", "mean (default), median or none")
	fs.IntVar(&f.act.Config.Window, "window", 0, "odd smoothing window (default 9; 17 with ≥ 50 samples; at most a third of a run)")
	fs.Float64Var(&f.act.Config.K, "k", 0, "half-width of the displayed bands in standard deviations (default 4)")
	fs.Float64Var(&f.act.Config.Policy.K, "policy-k", 0, fmt.Sprintf("half-width of the bands that decide a run (default %g)", pol.K))
	fs.Float64Var(&f.act.Config.Policy.MaxViolationRatio, "max-violation-ratio", 0, fmt.Sprintf("share of a metric's points allowed outside the policy's bands (default %g)", pol.MaxViolationRatio))
	fs.Float64Var(&f.act.Config.Policy.ShiftK, "shift-k", 0, fmt.Sprintf("half-width of the sustained-shift bands in sd (default %g; 0 with --shift-ratio 1 disables the rule)", pol.ShiftK))
	fs.Float64Var(&f.act.Config.Policy.ShiftRatio, "shift-ratio", 0, fmt.Sprintf("a metric fails when more than this share of its points lie outside the shift bands (default %g)", pol.ShiftRatio))
	fs.BoolVar(&f.act.Rebuild, "rebuild", false, "rebuild the stored model from its stored runs with the given settings, without measuring")
	fs.BoolVar(&f.act.Accept, "accept", false, "accept the latest verified run as normal: add it to the model's runs and rebuild, without measuring")
	return cmd
}

func (a *app) calibrate(cmd *cobra.Command, args []string, f calibrateFlags) error {
	act := f.act
	act.Options, act.Changed = f.measure.opts, cmd.Flags().Changed
	if err := act.Validate(); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	// Rebuilding and accepting act on stored models: by default every
	// calibrated workload of the method.
	return f.sel.each(a, cmd, args, act.Rebuild || act.Accept, func(dir string, w engine.Workload, eng *engine.Engine) error {
		start := time.Now()
		progress, done := a.progress(f.measure.verbose)
		act.Dir, act.Workload, act.Progress = dir, w, progress
		cal, err := eng.RunCalibrate(cmd.Context(), act)
		done()
		if err != nil {
			return a.measureError(dir, err)
		}
		if f.sel.format == "json" {
			k := cal.Key
			return report.WriteJSON(a.stdout, report.CalibrationDocument{Key: report.WorkloadKey{Method: k.Method, Workload: k.Workload, Args: k.Args},
				AcceptedRun: cal.Accepted, Model: report.SummarizeModel(cal.Model)})
		}
		if !act.Rebuild && !act.Accept {
			a.note("calibrated in %.1fs", time.Since(start).Seconds())
		}
		report.WriteCalibration(a.stdout, fmt.Sprint(cal.Key), act.Rebuild, cal.Accepted, cal.Model)
		return nil
	})
}

func (a *app) verifyCommand() *cobra.Command {
	var sel selector
	var req engine.VerifyRequest
	var verbose bool
	cmd := &cobra.Command{
		Use: "verify --method pkg.Class#m [--workload pkg.Class#gen] [--args 100] [--forks 1] [--format json] [DIR]",
		RunE: func(cmd *cobra.Command, args []string) error {
			if req.Forks < 1 {
				return cli.Usagef("--forks must be ≥ 1")
			}
			// Every calibrated workload of the method unless the flags name one.
			return sel.each(a, cmd, args, true, func(dir string, w engine.Workload, eng *engine.Engine) error {
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
