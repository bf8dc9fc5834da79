package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/dataset"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/engine"
)

type evaluateFlags struct {
	data, formula, format, interpretation string
	alpha                                 float64
	seed                                  uint64
	resamples                             int
}

func (a *app) evaluateCommand() *cobra.Command {
	var f evaluateFlags
	cmd := &cobra.Command{
		Use:   "evaluate --data FILE --formula F [flags]",
		Short: "Decide a formula against recorded JMH or perfls results, without measuring",
		Long: `Decides an SPL formula against recorded results without measuring. JMH benchmark
pkg.Class.method is written pkg.Class#method[jmh](p1, …) with its @Param values in the
order the JSON lists them; perfls measurements as pkg.Class#m[pkg.Class#gen](args).
Exit status: 0 all hold, 1 violated, 2 usage or data errors (undecided alone exits 0).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.evaluate(f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.data, "data", "", "recorded results: JMH JSON (-rf json) or perfls measurement JSON")
	fs.StringVar(&f.formula, "formula", "", "SPL formula to decide, e.g. 'for n in {100} a.B#f[jmh](n) <= a.B#g[jmh](n)'")
	fs.StringVar(&f.format, "format", "text", "output format: text or json")
	fs.StringVar(&f.interpretation, "interpretation", "", "quick, parametric, nonparametric or rank (default: parametric with ≥ 5 forks per side, else quick with 5% tolerance)")
	fs.Float64Var(&f.alpha, "alpha", verdict.DefaultAlpha, "significance level, 0 < α ≤ 0.5")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed of the non-parametric bootstrap")
	fs.IntVar(&f.resamples, "resamples", 10000, "bootstrap resamples of the non-parametric interpretation")
	return cmd
}

func (a *app) evaluate(f evaluateFlags) error {
	if f.data == "" || f.formula == "" {
		return usagef("evaluate needs --data FILE and --formula F")
	}
	if err := checkFormat(f.format); err != nil {
		return err
	}
	if !(f.alpha > 0 && f.alpha <= 0.5) {
		return usagef("--alpha %g is outside (0, 0.5]", f.alpha)
	}
	interp, err := stats.ParseInterpretation(f.interpretation)
	if err != nil {
		return usageError{err.Error()}
	}
	if f.resamples < 100 {
		return usagef("--resamples must be at least 100")
	}
	raw, err := os.ReadFile(f.data)
	if err != nil {
		return fmt.Errorf("evaluate: %w", err)
	}
	ms, err := dataset.Parse(raw)
	if err != nil {
		return fmt.Errorf("evaluate: %s: %w", f.data, err)
	}
	opt := verdict.Options{Alpha: f.alpha, Interpretation: interp, Bootstrap: stats.BootstrapConfig{Seed: f.seed, Resamples: f.resamples}}
	res, err := engine.Evaluate(f.formula, ms, f.data, opt)
	if err != nil {
		return err
	}
	if f.format == "json" {
		if err := report.WriteJSON(a.stdout, res); err != nil {
			return err
		}
	} else {
		a.evaluationText(res)
	}
	if res.Result == verdict.Violated {
		return exitStatus(exitViolated)
	}
	return nil
}

func (a *app) evaluationText(res *engine.Evaluation) {
	for _, in := range res.Instances {
		label := ""
		if in.Instance != "" {
			label = "[" + in.Instance + "] "
		}
		if len(in.Comparisons) == 1 {
			c := in.Comparisons[0]
			fmt.Fprintf(a.stdout, "%-9s %s%s  %s  (%s)\n", in.Result, label, c.Text, report.Evidence(c.ComparisonResult), c.Evidence.Test)
			continue
		}
		fmt.Fprintf(a.stdout, "%-9s %s%s\n", in.Result, label, in.Formula)
		for _, c := range in.Comparisons {
			fmt.Fprintf(a.stdout, "  %-9s %s  %s  (%s)\n", c.Outcome, c.Text, report.Evidence(c.ComparisonResult), c.Evidence.Test)
		}
	}
	fmt.Fprintf(a.stdout, "%s (α = %g)\n", res.Result, res.Alpha)
}
