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

// workerCommand is perfls worker: measurement jobs from the shared store's
// queue (engine.RunWorker).
func (a *app) workerCommand() *cobra.Command {
	var label string
	cmd := &cobra.Command{Use: "worker [--label L]", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			return eng.RunWorker(cmd.Context(), label)
		})}
	cmd.Flags().StringVar(&label, "label", "", "take the jobs that ask for this label (e.g. quiet-x86)")
	return cmd
}
