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
		Use:   "lint [flags] [PATH...]",
		Short: "Report SPL syntax and semantic errors in .java and .spl files (default .)",
		Long: `Reports SPL syntax and semantic errors in .java and .spl files (directories are searched;
default .), resolving the methods and generators formulas name against all the files given
and java.*/javax.* against the JDK's sources; columns count UTF-16 code units, like LSP. A binary
or > 4 MiB .java file is reported, not parsed. Exit: 0 clean, 1 errors, 2 usage or I/O, 130 interrupted.`,
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
