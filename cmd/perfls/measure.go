package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/measure/service"
)

func (a *app) measureCommand() *cobra.Command {
	var f struct {
		sel     selector
		measure measureFlags
		phase   string
		budget  time.Duration
		fresh   bool
	}
	cmd := &cobra.Command{
		Use:  "measure --method pkg.Class#m [--workload pkg.Class#gen] [--args 100,5] [flags]",
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			phase := map[string]service.Phase{"full": service.PhaseFull, "quick": service.PhaseQuick, "both": service.PhaseBoth}[f.phase]
			if err := engine.ValidateOptions(f.measure.opts, 1); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			return f.sel.run(a, cmd, func(dir string, w engine.Workload, eng *engine.Engine) error {
				emit := func(m *engine.Measured) error { return report.WriteMeasurement(a.stdout, f.sel.format, m.Report()) }
				req := engine.MeasureRequest{Dir: dir, Workload: w, Options: f.measure.opts, Phase: phase, Fresh: f.fresh, Budget: f.budget}
				if f.measure.verbose {
					req.Progress = func(p service.Progress) { fmt.Fprintln(a.stderr, p.Message) }
				}
				var emitErr error
				if phase == service.PhaseBoth {
					// Printed as it arrives: the forks take seconds more.
					req.Preliminary = func(m *engine.Measured) { emitErr = errors.Join(emitErr, emit(m)) }
				}
				m, err := eng.Measure(cmd.Context(), req)
				if m != nil {
					a.notices(m.Notices)
				}
				switch {
				case err != nil && m != nil && m.Result.Err != nil && f.sel.format == "json":
					report.WriteMeasurementJSON(a.stdout, m.Report())
					return err
				case err != nil:
					return a.measureError(dir, err)
				case emitErr != nil:
					return emitErr
				case m.Cached:
					a.note("answered from the cache: measured %s, code unchanged since (--fresh measures again)", m.MeasuredAt.Local().Format(time.DateTime))
				}
				return emit(m)
			})
		},
	}
	f.sel.bind(cmd)
	f.measure.bind(cmd.Flags(), engine.MeasureDefaults())
	cli.Enum(cmd, &f.phase, "phase", "full", "quick (warm worker JVM, preliminary), full (forked JVMs) or both", "quick", "full", "both")
	cmd.Flags().DurationVar(&f.budget, "budget", 0, "wall-time budget of the forked phase; when it runs out, the forks done so far are reported (0: none)")
	cmd.Flags().BoolVar(&f.fresh, "fresh", false, "measure again even when the cache has a fresh result")
	return cmd
}
