package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/engine"
)

func (a *app) lintCommand() *cobra.Command {
	var format, jdkSrc string
	cmd := &cobra.Command{
		Use:   "lint [flags] [PATH...]",
		Short: "Report SPL syntax and semantic errors in .java and .spl files (default .)",
		Long: `Reports SPL syntax and semantic errors in .java and .spl files (directories are searched;
default: the current directory), resolving every method and generator a formula names
against all the files given, and java.*/javax.* references against the JDK's sources.
Columns count UTF-16 code units, like LSP.
Exit status: 0 clean, 1 errors found, 2 usage or I/O error.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if len(paths) == 0 {
				paths = []string{"."}
			}
			diags, err := engine.Lint(paths, jdkSrc)
			var nf *engine.NotFoundError
			if errors.As(err, &nf) {
				return usageError{nf.Error()}
			}
			if err != nil {
				return err
			}
			if format == "json" {
				if err := report.WriteJSON(a.stdout, diags); err != nil {
					return err
				}
			} else {
				for _, d := range diags {
					fmt.Fprintln(a.stdout, d)
				}
			}
			for _, d := range diags {
				if d.Severity == workspace.Error {
					return exitStatus(exitViolated)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&jdkSrc, "jdk-src", "", "`src.zip` of the JDK to check java.*/javax.* references against (default: $JAVA_HOME/lib/src.zip or the javac on PATH; \"none\" to skip)")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
