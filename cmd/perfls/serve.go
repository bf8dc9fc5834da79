package main

import (
	"fmt"
	"log"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/server"
)

func (a *app) serveCommand() *cobra.Command {
	var logFile string
	cmd := &cobra.Command{
		Use:  "serve [--logfile FILE]",
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logOut, closeLog, err := cli.LogTo(logFile, a.stderr)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			defer closeLog()
			opts := server.Options{Logger: log.New(logOut, "perfls: ", log.LstdFlags)}
			eng, err := openEngine(cmd.Context(), engine.StartDaemon, opts.Logger.Printf) // starts the daemon when none runs
			if err != nil {
				opts.Logger.Printf("no verdicts and no measuring: %v", err)
			} else {
				defer eng.Close()
				opts.CacheDir, opts.Actions = eng.CacheDir(), eng
				if opts.Verdicts, err = eng.Store(); err != nil {
					opts.Logger.Printf("no recorded verdicts: %v", err)
				}
			}
			return cli.ExitStatus(server.ServeStdio(cmd.Context(), a.stdin, a.stdout, opts))
		},
	}
	cmd.Flags().StringVar(&logFile, "logfile", "", "append server logs to this file (default: stderr)")
	return cmd
}
