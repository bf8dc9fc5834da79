package main

import (
	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

func (a *app) modelCommand() *cobra.Command {
	sel, mf, req := selector{}, measureFlags{}, engine.ModelRequest{}
	cmd := &cobra.Command{Use: "model --method pkg.Class#m [--workload pkg.Class#gen] [--values 10,100,1000 | LO..HI] [--format json|yaml]", Args: cli.NoArgs,
		Short: "Extract a performance model: demands per operation and their dependency on the workload parameter",
		Long: `Measures the method at each value of its generator's first parameter (--values, or a geometric grid over LO..HI or
@Param(min, max)), fits each demand's dependency with model selection and writes the model with its environment (docs/models.md).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return sel.run(a, cmd, func(dir string, w engine.Workload, eng *engine.Engine) error {
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
	cmd.Flags().BoolVar(&req.NoCallees, "no-callees", false, "leave out the profiled fork per value that apportions the CPU time to the callees")
	return cmd
}

func (a *app) predictCommand() *cobra.Command {
	var file, format string
	cmd := &cobra.Command{Use: "predict --model FILE NAME=VALUE", Args: cobra.ExactArgs(1),
		Short: "Predict an operation's demands at a parameter value (e.g. n=5000) from a model, with 95 % intervals; refuses another machine or JVM",
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := engine.Predict(file, "", args[0])
			if err == nil {
				err = report.WritePredictions(a.stdout, format, p)
			}
			return err
		}}
	cmd.Flags().StringVar(&file, "model", "", "the model file (written by perfls model --format json)")
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}
