package main

// Deciding without measuring: lint checks the formulas' text and
// references, evaluate decides a formula against recorded results.

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/internal/trust"
)

// lintReason is why lint leaves out what needs a process, for its notices.
const lintReason = "perfls lint reads files only (perfls check runs the build tool and git)"

func (a *app) lintCommand() *cobra.Command {
	var format, jdkSrc string
	cmd := &cobra.Command{
		Use: "lint [flags] [PATH...]",
		RunE: func(cmd *cobra.Command, paths []string) error {
			if len(paths) == 0 {
				paths = []string{"."}
			}
			if jdkSrc != "" && jdkSrc != "none" {
				// A zip is read at random: a FIFO or a device can only hang or flood.
				if err := input.CheckRegular(jdkSrc); err != nil {
					return cli.Usagef("--jdk-src: %v", err)
				}
			}
			dir, _ := cache.Dir() // unusable: perfls.json's classpath still counts
			// Lint is safe on any checkout (a CI job on a pull request, a
			// folder just downloaded): it starts no process and opens no
			// connection.
			ctx := trust.With(cmd.Context(), trust.Closed(lintReason))
			diags, err := engine.LintWith(ctx, paths, engine.LintConfig{JDKSrc: jdkSrc, CacheDir: dir, Notef: a.note})
			var nf *engine.NotFoundError
			if errors.As(err, &nf) {
				return cli.UsageError{Msg: nf.Error()}
			}
			if err != nil {
				return err
			}
			if err := a.output(format, report.NewLintDocument(diags), func() { report.WriteLint(a.stdout, diags) }); err != nil || !report.HasError(diags) {
				return err
			}
			return cli.ExitStatus(cli.ExitFailed)
		},
	}
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	cmd.Flags().StringVar(&jdkSrc, "jdk-src", "", "the JDK classes to check java.*/javax.* references against: a JDK home, or its `src.zip`, lib/ct.sym or lib/modules (default: the JDK of $JAVA_HOME, else of javac or java on PATH; \"none\" to skip)")
	return cmd
}

type evaluateFlags struct {
	data, formula, format, interpretation, semantics string
	alpha                                            float64
	seed                                             uint64
	resamples                                        int
}

func (a *app) evaluateCommand() *cobra.Command {
	var f evaluateFlags
	cmd := &cobra.Command{
		Use:  "evaluate --data FILE --formula F [flags]",
		Args: cli.NoArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return a.evaluate(cmd.Context(), f) }
	fs := cmd.Flags()
	fs.StringVar(&f.data, "data", "", "recorded results: JMH JSON (-rf json) or perfls measurement JSON")
	fs.StringVar(&f.formula, "formula", "", "SPL formula to decide, e.g. 'for n in {100} a.B#f[jmh](n) <= a.B#g[jmh](n)'")
	cli.Enum(cmd, &f.format, "format", "text", "output format: text or json", "text", "json")
	fs.StringVar(&f.interpretation, "interpretation", "", "quick, parametric, nonparametric or rank (default: parametric: fork means, never pooled samples)")
	cli.Enum(cmd, &f.semantics, "semantics", string(verdict.Shown), semanticsUsage, verdict.SemanticsNames...)
	fs.Float64Var(&f.alpha, "alpha", verdict.DefaultAlpha, "significance level, 0 < α ≤ 0.5")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed of the non-parametric bootstrap")
	fs.IntVar(&f.resamples, "resamples", 10000, "bootstrap resamples of the non-parametric interpretation")
	return cmd
}

func (a *app) evaluate(ctx context.Context, f evaluateFlags) error {
	opt, err := engine.EvaluateOptions(f.data, f.formula, f.alpha, f.interpretation, f.semantics, f.seed, f.resamples)
	if err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	res, err := engine.EvaluateFile(ctx, f.formula, f.data, opt)
	if err != nil {
		return err
	}
	return a.result(f.format, res)
}
