package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

func (a *app) lintCommand() *cobra.Command {
	var format, jdkSrc string
	cmd := &cobra.Command{
		Use: "lint [flags] [PATH...]",
		RunE: func(cmd *cobra.Command, paths []string) error {
			if len(paths) == 0 {
				paths = []string{"."}
			}
			diags, err := engine.Lint(cmd.Context(), paths, jdkSrc)
			var nf *engine.NotFoundError
			if errors.As(err, &nf) {
				return cli.UsageError{Msg: nf.Error()}
			}
			if err != nil {
				return err
			}
			if err := a.output(format, diags, func() { report.WriteLint(a.stdout, diags) }); err != nil || !report.HasError(diags) {
				return err
			}
			return cli.ExitStatus(exitViolated)
		},
	}
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	cmd.Flags().StringVar(&jdkSrc, "jdk-src", "", "`src.zip` of the JDK to check java.*/javax.* references against (default: $JAVA_HOME/lib/src.zip or the javac on PATH; \"none\" to skip)")
	return cmd
}
