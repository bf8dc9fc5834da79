package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
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
		Long: `Measures the workload in N fresh forks and learns the bounds oracle's model: per metric
(time, CPU time and allocation per operation, GC count and time, heap used, JIT time,
loaded classes) a band mean ± k·sd per sample index after smoothing. The model, its
settings and the raw runs are kept in the cache; --rebuild changes the settings and
--accept adds the latest verified run without measuring. See docs/oracle.md.
Exit status: 0 calibrated, 2 usage, build or workload errors.`,
		Args: noArgs,
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
		return usagef("--rebuild and --accept exclude each other")
	}
	measuring := !f.rebuild && !f.accept
	if measuring {
		if err := f.measure.check(2); err != nil {
			return err
		}
	}
	if f.cfg.Window < 0 || (f.cfg.Window > 0 && f.cfg.Window%2 == 0) {
		return usagef("--window must be odd")
	}
	if s := f.cfg.Smoothing; s != "" && s != "mean" && s != "median" && s != "none" {
		return usagef("unknown --smoothing %q (want mean, median or none)", s)
	}
	dir, w, err := f.sel.parse("calibrate")
	if err != nil {
		return err
	}
	eng, err := a.openEngine(cmd.Context(), engine.UseDaemon)
	if err != nil {
		return err
	}
	defer eng.Close()
	// Settings given on the command line change the stored ones (or the
	// defaults); the others stay.
	edit := func(c oracle.Config) oracle.Config { return mergeConfig(c, f.cfg, cmd.Flags()) }
	var cal *engine.Calibration
	what := "calibrated"
	start := time.Now()
	switch {
	case f.rebuild:
		what = "rebuilt"
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
	if measuring {
		a.note("calibrated in %.1fs", time.Since(start).Seconds())
	}
	if f.sel.format == "json" {
		return report.WriteJSON(a.stdout, map[string]any{"key": cal.Key, "accepted_run": cal.Accepted, "model": report.SummarizeModel(cal.Model)})
	}
	if f.accept {
		what = fmt.Sprintf("accepted run %d into", cal.Accepted)
	}
	fmt.Fprintf(a.stdout, "%s %s\n", what, cal.Key)
	report.WriteModel(a.stdout, cal.Model)
	return nil
}

// mergeConfig applies the settings given on the command line to a
// configuration.
func mergeConfig(old, given oracle.Config, fs *pflag.FlagSet) oracle.Config {
	c := old
	set := func(name string, dst *float64, v float64) {
		if fs.Changed(name) {
			*dst = v
		}
	}
	if fs.Changed("smoothing") {
		c.Smoothing = given.Smoothing
	}
	if fs.Changed("window") {
		c.Window = given.Window
	}
	set("k", &c.K, given.K)
	set("policy-k", &c.Policy.K, given.Policy.K)
	set("max-violation-ratio", &c.Policy.MaxViolationRatio, given.Policy.MaxViolationRatio)
	set("shift-k", &c.Policy.ShiftK, given.Policy.ShiftK)
	set("shift-ratio", &c.Policy.ShiftRatio, given.Policy.ShiftRatio)
	return c
}
