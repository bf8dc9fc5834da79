package main

import (
	"fmt"
	"log"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/server"
)

func (a *app) serveCommand() *cobra.Command {
	var logFile string
	cmd := &cobra.Command{
		Use:   "serve [--logfile FILE]",
		Short: "Run the language server on stdin/stdout",
		Long: `Runs the language server on stdin and stdout. Measuring goes through the per-user daemon,
started when none runs. Exit status: 0 after shutdown and exit, or when the client closes
the connection; 1 on exit without shutdown (as LSP asks) or when the connection failed.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logOut, closeLog, err := cli.LogTo(logFile, a.stderr)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			defer closeLog()
			opts := server.Options{Logger: log.New(logOut, "perfls: ", log.LstdFlags)}
			eng, err := a.serveEngine(cmd, opts.Logger)
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

// serveEngine opens the editor's engine, which starts the daemon when
// none runs.
func (a *app) serveEngine(cmd *cobra.Command, logger *log.Logger) (*engine.Engine, error) {
	dir, err := cache.Dir()
	if err != nil {
		return nil, err
	}
	eng, err := engine.Open(cmd.Context(), engine.Config{CacheDir: dir, Service: engine.StartDaemon, Logf: logger.Printf})
	if err == nil && eng.Notice() != "" {
		logger.Print(eng.Notice())
	}
	return eng, err
}
