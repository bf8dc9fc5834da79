package main

// Regressions: change points over the stored history (regressions) and
// seed 001's ensemble over counter runs (ensemble); docs/regressions.md.
import (
	"github.com/spf13/cobra"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

// regressionsCommand is perfls regressions: change points of the stored results over commits (engine/regressions.go).
func (a *app) regressionsCommand() *cobra.Command {
	req, format, project := engine.RegressionsRequest{}, "", ""
	cmd := &cobra.Command{Use: "regressions [--since REV] [--method pkg.Class#m] [--format text|json] [DIR]", Args: cli.UsageArgs(cobra.MaximumNArgs(1)),
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			dir, _, err := projectArg(cmd, project, cmd.Flags().Args())
			if err != nil {
				return err
			}
			req.Dir = dir
			res, err := eng.Regressions(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.result(format, res)
		})}
	projectFlag(cmd, &project)
	cmd.Flags().StringVar(&req.Since, "since", "", "count slow-downs at commits after this revision only (default: the whole line)")
	cmd.Flags().StringVar(&req.Method, "method", "", "only this method, pkg.Class#m or pkg.Class#m(types)")
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}

// ensembleCommand is perfls ensemble: seed 001's detector over CSV runs or a method's stored results (engine/ensemble.go).
func (a *app) ensembleCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{Use: "ensemble (--history DIR --new DIR | --method pkg.Class#m [--workload pkg.Class#gen] [--args A]) [flags]", Args: cli.NoArgs}
	flags := cli.EnsembleFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		req, err := flags.Request()
		if err != nil {
			return err
		}
		cfg := engine.Config{Logf: a.note}
		if req.CSV == nil { // the store form: the store is in the cache directory
			if cfg.CacheDir, err = cache.Dir(); err != nil {
				return err
			}
		}
		rep, err := engine.Ensemble(cmd.Context(), req, cfg)
		if err != nil {
			return err
		}
		return a.result(format, rep)
	}
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}
