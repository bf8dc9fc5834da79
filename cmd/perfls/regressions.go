package main

// Regressions: change points over the stored history (regressions) and
// seed 001's ensemble over counter runs (ensemble); docs/regressions.md.
import (
	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/analysis/ensemble/csvrun"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

// regressionsCommand is perfls regressions: change points of the stored results over commits (engine/regressions.go).
func (a *app) regressionsCommand() *cobra.Command {
	req, format := engine.RegressionsRequest{}, ""
	cmd := &cobra.Command{Use: "regressions [--since REV] [--method pkg.Class#m] [--format text|json] [DIR]", Args: cli.UsageArgs(cobra.MaximumNArgs(1)),
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			req.Dir = append(cmd.Flags().Args(), ".")[0]
			res, err := eng.Regressions(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.result(format, res)
		})}
	cmd.Flags().StringVar(&req.Since, "since", "", "count slow-downs at commits after this revision only (default: the whole line)")
	cmd.Flags().StringVar(&req.Method, "method", "", "only this method, pkg.Class#m or pkg.Class#m(types)")
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}

// ensembleCommand is perfls ensemble: seed 001's detector over CSV runs (docs/regressions.md).
func (a *app) ensembleCommand() *cobra.Command {
	var hist, cur, format, method string
	var p1 ensemble.Phase1
	cfg := ensemble.DefaultConfig()
	cmd := &cobra.Command{Use: "ensemble --history DIR --new DIR [flags]", Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Method = ensemble.Method(method)
			rep, err := csvrun.Detect(hist, cur, p1, cfg)
			if err != nil {
				return err
			}
			return a.result(format, rep)
		}}
	cmd.Flags().StringVar(&hist, "history", "", "directory of the prior passed runs (required)")
	cmd.Flags().StringVar(&cur, "new", "", "directory holding the new run (required)")
	cmd.Flags().Float64Var(&p1.Interval, "interval", 0, "group rows into intervals of this many time units (0: a row is one)")
	cmd.Flags().Float64Var(&p1.Duration, "duration", 0, "keep only rows within this many time units of the first (the test's expected duration; 0: all)")
	cmd.Flags().Float64Var(&cfg.DeltaThreshold, "delta", cfg.DeltaThreshold, "a rule is violated when its confidence change exceeds this")
	cli.Enum(cmd, &method, "method", "stacking", "stacking, bagging or single", "stacking", "bagging", "single")
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}
