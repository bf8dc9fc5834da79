package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

type measureCmdFlags struct {
	sel     selector
	measure measureFlags
	phase   string
	budget  time.Duration
	fresh   bool
}

func (a *app) measureCommand() *cobra.Command {
	var f measureCmdFlags
	cmd := &cobra.Command{
		Use:   "measure --method pkg.Class#m [--workload pkg.Class#gen] [--args 100,5] [flags]",
		Short: "Measure one method on one workload",
		Long: `Measures one method on one workload and prints per-operation figures. Each fork warms up
until JIT compilation settles (at least --warmup, at most --max-warmup), then takes
--samples samples; the interval is a t-interval over fork means. --phase quick measures
once in the daemon's warm worker JVM (a preliminary figure); both prints that first.
Exit status: 0 measured, 2 usage, build or workload errors.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.measure(cmd, f) },
	}
	f.sel.bind(cmd)
	f.measure.bind(cmd.Flags(), measureDefaults())
	cmd.Flags().StringVar(&f.phase, "phase", "full", "quick (warm worker JVM, preliminary), full (forked JVMs) or both")
	cmd.Flags().DurationVar(&f.budget, "budget", 0, "wall-time budget of the forked phase; when it runs out, the forks done so far are reported (0: none)")
	cmd.Flags().BoolVar(&f.fresh, "fresh", false, "measure again even when the cache has a fresh result")
	cmd.RegisterFlagCompletionFunc("phase", cobra.FixedCompletions([]string{"quick", "full", "both"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (a *app) measure(cmd *cobra.Command, f measureCmdFlags) error {
	phases := map[string]service.Phase{"full": service.PhaseFull, "quick": service.PhaseQuick, "both": service.PhaseBoth}
	phase, ok := phases[f.phase]
	if !ok {
		return usagef("unknown --phase %q (want quick, full or both)", f.phase)
	}
	if err := f.measure.check(1); err != nil {
		return err
	}
	dir, w, err := f.sel.parse("measure")
	if err != nil {
		return err
	}
	eng, err := a.openEngine(cmd.Context(), engine.UseDaemon)
	if err != nil {
		return err
	}
	defer eng.Close()
	emit := func(m report.Measurement) error {
		if f.sel.format == "json" {
			return report.WriteMeasurementJSON(a.stdout, m)
		}
		report.WriteMeasurementText(a.stdout, m)
		return nil
	}
	var emitErr error
	progress := func(p service.Progress) {
		if f.measure.verbose {
			fmt.Fprintln(a.stderr, p.Message)
		}
		if p.Preliminary != nil && phase == service.PhaseBoth && emitErr == nil {
			// Printed as it arrives: the forks take seconds more.
			r := measure.Result{Forks: []measure.Fork{p.Preliminary.Fork}, Env: p.Preliminary.Env, Preliminary: true}
			emitErr = emit(report.NewMeasurement(w.Method.String(), genName(w), w.Args, r))
		}
	}
	m, err := eng.Measure(cmd.Context(), engine.MeasureRequest{Dir: dir, Workload: w, Options: f.measure.opts,
		Phase: phase, Fresh: f.fresh, Budget: f.budget, Progress: progress})
	if m != nil {
		a.notices(m.Notices)
	}
	if err != nil && m != nil && m.Result.Err != nil && f.sel.format == "json" {
		report.WriteMeasurementJSON(a.stdout, report.NewMeasurement(m.Method, m.Workload, w.Args, m.Result))
		return err
	}
	if err != nil {
		return a.measureError(dir, err)
	}
	if emitErr != nil {
		return emitErr
	}
	if m.Cached {
		a.note("answered from the cache: measured %s, code unchanged since (--fresh measures again)", m.MeasuredAt.Local().Format(time.DateTime))
	} else if phase != service.PhaseQuick && f.budget > 0 && len(m.Result.Forks) < f.measure.opts.Forks {
		a.note("the budget of %s ended after %d of %d forks", f.budget, len(m.Result.Forks), f.measure.opts.Forks)
	}
	return emit(report.NewMeasurement(m.Method, m.Workload, w.Args, m.Result))
}

func genName(w engine.Workload) string {
	if w.Generator == nil {
		return ""
	}
	return w.Generator.String()
}
