package main

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
	sel             selector
	measure         measureFlags
	cfg             oracle.Config
	rebuild, accept bool
}

func (a *app) calibrateCommand() *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate --method pkg.Class#m [--workload pkg.Class#gen] [--args 100] [--forks 30] [flags]",
		Short: "Learn the bounds oracle of one workload from N forks (--rebuild, --accept: without measuring)",
		Long: `Measures the workload in N fresh forks and learns its bounds oracle: per metric (time,
allocation, GC, heap, JIT, classes) a band mean ± k·sd per sample index after smoothing,
kept with the raw runs in the cache; --rebuild changes the settings and --accept adds
the latest verified run, without measuring. See docs/oracle.md.
Exit status: 0 calibrated, 2 usage, build or workload errors.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.calibrate(cmd, f) },
	}
	f.sel.bind(cmd)
	fs := cmd.Flags()
	def := engine.CalibrationOptions()
	f.measure.bind(fs, def)
	fs.Lookup("forks").Usage = fmt.Sprintf("calibration forks (below %d the oracle is provisional)", oracle.MinRuns)
	fs.DurationVar(&f.measure.opts.MinSampleTime, "min-sample", def.MinSampleTime, "minimum length of one sample")
	pol := oracle.DefaultPolicy()
	fs.StringVar(&f.cfg.Smoothing, "smoothing", "", "mean (default), median or none")
	fs.IntVar(&f.cfg.Window, "window", 0, "odd smoothing window (default 9; 17 with ≥ 50 samples; at most a third of a run)")
	fs.Float64Var(&f.cfg.K, "k", 0, "half-width of the displayed bands in standard deviations (default 4)")
	fs.Float64Var(&f.cfg.Policy.K, "policy-k", 0, fmt.Sprintf("half-width of the bands that decide a run (default %g)", pol.K))
	fs.Float64Var(&f.cfg.Policy.MaxViolationRatio, "max-violation-ratio", 0, fmt.Sprintf("share of a metric's points allowed outside the policy's bands (default %g)", pol.MaxViolationRatio))
	fs.Float64Var(&f.cfg.Policy.ShiftK, "shift-k", 0, fmt.Sprintf("half-width of the sustained-shift bands in sd (default %g; 0 with --shift-ratio 1 disables the rule)", pol.ShiftK))
	fs.Float64Var(&f.cfg.Policy.ShiftRatio, "shift-ratio", 0, fmt.Sprintf("a metric fails when more than this share of its points lie outside the shift bands (default %g)", pol.ShiftRatio))
	fs.BoolVar(&f.rebuild, "rebuild", false, "rebuild the stored model from its stored runs with the given settings, without measuring")
	fs.BoolVar(&f.accept, "accept", false, "accept the latest verified run as normal: add it to the model's runs and rebuild, without measuring")
	return cmd
}

func (a *app) calibrate(cmd *cobra.Command, f calibrateFlags) error {
	if f.rebuild && f.accept {
		return cli.Usagef("--rebuild and --accept exclude each other")
	}
	if !f.rebuild && !f.accept {
		if err := engine.ValidateOptions(f.measure.opts, 2); err != nil {
			return cli.UsageError{Msg: err.Error()}
		}
	}
	if err := f.cfg.Validate(); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	return f.sel.run(a, cmd, func(dir string, w engine.Workload, eng *engine.Engine) error {
		// Settings given on the command line change the stored ones (or the
		// defaults); the others stay.
		edit := func(c oracle.Config) oracle.Config { return c.Override(f.cfg, cmd.Flags().Changed) }
		var cal *engine.Calibration
		var err error
		start := time.Now()
		switch {
		case f.rebuild:
			cal, err = eng.Rebuild(cmd.Context(), w, edit)
		case f.accept:
			cal, err = eng.Accept(cmd.Context(), w)
		default:
			progress, done := a.progress(f.measure.verbose)
			cal, err = eng.Calibrate(cmd.Context(), engine.CalibrateRequest{Dir: dir, Workload: w, Options: f.measure.opts,
				Config: edit(oracle.Config{Policy: oracle.DefaultPolicy()}), Progress: progress})
			done()
		}
		if err != nil {
			return a.measureError(dir, err)
		}
		if f.sel.format == "json" {
			return report.WriteJSON(a.stdout, map[string]any{"key": cal.Key, "accepted_run": cal.Accepted, "model": report.SummarizeModel(cal.Model)})
		}
		switch { // text
		case f.rebuild:
			fmt.Fprintf(a.stdout, "rebuilt %s\n", cal.Key)
		case f.accept:
			fmt.Fprintf(a.stdout, "accepted run %d into %s\n", cal.Accepted, cal.Key)
		default:
			a.note("calibrated in %.1fs", time.Since(start).Seconds())
			fmt.Fprintf(a.stdout, "calibrated %s\n", cal.Key)
		}
		report.WriteModel(a.stdout, cal.Model)
		return nil
	})
}
