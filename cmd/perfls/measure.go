package main

// One workload at a time: measure times it in forks, profile shows where
// its time and allocations go, model fits its demands over a parameter and
// predict evaluates such a model.
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
		phase   service.Phase
		budget  time.Duration
		fresh   bool
	}
	cmd := &cobra.Command{
		Use: "measure --method pkg.Class#m [--workload pkg.Class#gen] [--args 100,5] [flags] [DIR]",
		RunE: func(cmd *cobra.Command, args []string) error {
			phase := f.phase
			if err := engine.ValidateOptions(f.measure.opts, 1); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			return f.sel.each(a, cmd, args, false, func(dir string, w engine.Workload, eng *engine.Engine) error {
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
					a.notices(eng.CacheDir(), dir, f.measure.verbose, m.Notices)
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
	cli.Phase(cmd, &f.phase, "quick (warm worker JVM, preliminary), full (forked JVMs) or both")
	cmd.Flags().DurationVar(&f.budget, "budget", 0, "wall-time budget of the forked phase; when it runs out, the forks done so far are reported (0: none)")
	cmd.Flags().BoolVar(&f.fresh, "fresh", false, "measure again even when the cache has a fresh result")
	return cmd
}

func (a *app) profileCommand() *cobra.Command {
	sel, mf, req, pprof := selector{}, measureFlags{}, engine.ProfileRequest{Priority: service.Interactive}, ""
	cmd := &cobra.Command{
		Use: "profile --method pkg.Class#m [--workload pkg.Class#gen] [--args 100,5] [--pprof FILE] [flags] [DIR]",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := engine.ValidateOptions(mf.opts, 1); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			n := 0 // workloads profiled: the second's pprof file is FILE-2…
			return sel.each(a, cmd, args, false, func(dir string, w engine.Workload, eng *engine.Engine) error {
				emit := func(p *engine.Profiled) error {
					return a.output(sel.format, p.Report, func() { fmt.Fprint(a.stdout, p.Report.Text(10)) })
				}
				progress, done := a.progress(mf.verbose)
				req.Dir, req.Workload, req.Options, req.Progress, req.Preliminary = dir, w, mf.opts, progress, func(p *engine.Profiled) { emit(p) } // its error recurs below
				p, err := eng.Profile(cmd.Context(), req)
				if done(); p != nil {
					a.notices(eng.CacheDir(), dir, mf.verbose, p.Notices)
				}
				switch {
				case err != nil:
					return a.measureError(dir, err)
				case p.Cached:
					a.note("answered from the cache: profiled %s, code unchanged since (--fresh profiles again)", p.MeasuredAt.Local().Format(time.DateTime))
				}
				if n++; n > 1 && pprof != "" {
					a.note("%s: pprof in %s", w, cli.Numbered(pprof, n))
				}
				if err := p.WritePprof(cli.Numbered(pprof, n)); err != nil {
					return err
				}
				return emit(p)
			})
		},
	}
	sel.bind(cmd)
	mf.bind(cmd.Flags(), engine.ProfileDefaults())
	cmd.Flags().StringVar(&pprof, "pprof", "", "also write the profile in pprof format to `FILE` (go tool pprof)")
	cmd.Flags().BoolVar(&req.Fresh, "fresh", false, "profile again even when the cache has a profile of this code")
	cli.Phase(cmd, &req.Phase, "quick (warm worker JVM, preliminary), full (a profiled fork) or both (quick first)")
	return cmd
}

func (a *app) modelCommand() *cobra.Command {
	sel, mf, req := selector{}, measureFlags{}, engine.ModelRequest{}
	cmd := &cobra.Command{Use: "model --method pkg.Class#m [--workload pkg.Class#gen] [--values 10,100,1000 | LO..HI] [--format json|yaml] [DIR]",
		RunE: func(cmd *cobra.Command, args []string) error {
			return sel.run(a, cmd, args, func(dir string, w engine.Workload, eng *engine.Engine) error {
				progress, done := a.progress(mf.verbose)
				req.Dir, req.Workload, req.Progress, req.Options = dir, w, progress, mf.opts
				m, err := eng.ExtractModel(cmd.Context(), req)
				if done(); err != nil {
					return a.measureError(dir, err)
				}
				return report.WritePerformanceModel(a.stdout, a.stderr, sel.format, m)
			})
		}}
	cli.AdoptFlags(cmd, sel.bind, "format")
	cli.Enum(cmd, &sel.format, "format", "json", "model format: json or yaml", "json", "yaml")
	mf.bind(cmd.Flags(), engine.MeasureDefaults())
	cmd.Flags().StringVar(&req.Values, "values", "", "parameter values, comma-separated, or LO..HI[:K] for a geometric grid of K (6) values")
	cmd.Flags().BoolVar(&req.NoCallees, "no-callees", false, "leave out the profiled and the counting fork per value (the callees' CPU time and invocation counts)")
	cmd.Flags().IntVar(&req.MaxForks, "max-forks", 0, "forks per value up to which more are measured while its wall or cpu figure's 95% CI is wider than ±10% (default 3 × --forks)")
	return cmd
}

func (a *app) predictCommand() *cobra.Command {
	var file, method, format string
	cmd := &cobra.Command{Use: "predict (--model FILE | --method pkg.Class#m) NAME=VALUE", Args: cli.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			write := func(p *report.Predicted, err error) error {
				if err != nil {
					return err
				}
				return report.WritePredictions(a.stdout, format, p)
			}
			if file != "" || method == "" {
				return write(engine.Predict(cmd.Context(), file, method, args[0]))
			}
			// The model perfls model stored for the method (the hover's).
			return a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
				return write(eng.PredictStored(cmd.Context(), method, args[0]))
			})(cmd, nil)
		}}
	cmd.Flags().StringVar(&file, "model", "", "the model file (written by perfls model --format json)")
	cmd.Flags().StringVar(&method, "method", "", "the method: its operation in --model FILE, or without it the model perfls model stored for it on this machine")
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}
