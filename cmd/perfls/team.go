package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

// historyListCommand is perfls history: a method's stored results over
// commits and machines (engine.MethodHistory).
func (a *app) historyListCommand() *cobra.Command {
	var method, format string
	cmd := &cobra.Command{Use: "history --method pkg.Class#m [--format text|json]", Args: cli.NoArgs,
		Short: "List a method's stored results over commits and machines",
		Long: `Every stored result of the method, oldest first: when, the project's git commit (+dirty when the
tree had changes), the machine, the JVM, the workload and the figure. With a shared store
(PERFLS_STORE=postgres://…) that is every machine's and every user's.`,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			rows, err := eng.MethodHistory(cmd.Context(), method)
			if errors.Is(err, engine.ErrMethodName) {
				return cli.Usagef("%v", err)
			}
			if err != nil {
				return err
			}
			return a.output(format, rows, func() { report.WriteHistory(a.stdout, rows) })
		})}
	cmd.Flags().StringVar(&method, "method", "", "the method, pkg.Class#m or pkg.Class#m(types)")
	cli.Enum(cmd, &format, "format", "text", "output format: text or json", "text", "json")
	return cmd
}
