package main

// The servers: serve (the language server on stdin/stdout), daemon (the
// per-user measurement server they share) and worker (a team's measuring
// machine, taking jobs from the shared store's queue).

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
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
			logger := log.New(logOut, "perfls: ", log.LstdFlags)
			dir, err := cache.Dir()
			if err != nil {
				logger.Printf("no verdicts and no measuring: %v", err)
			}
			opts := server.Options{Logger: logger, CacheDir: dir}
			if dir != "" {
				// Opened once the client has said whether the workspace is
				// trusted: before that nothing of it is followed.
				opts.Connect = func(ctx context.Context, folder string) (*engine.Engine, error) {
					return engine.Open(ctx, engine.Config{CacheDir: dir, Service: engine.StartDaemon, Logf: logger.Printf, ProjectDir: folder})
				}
			}
			return cli.ExitStatus(server.ServeStdio(cmd.Context(), a.stdin, a.stdout, opts))
		},
	}
	cmd.Flags().StringVar(&logFile, "logfile", "", "append server logs to this file (default: stderr)")
	return cmd
}

func (a *app) daemonCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:  "daemon run|start|status|stop",
		Args: cobra.ArbitraryArgs,
		RunE: cli.Group("run, start, status or stop"),
	}
	var jobs int
	run := &cobra.Command{Use: "run [--jobs N]", Short: "Run the measurement server in the foreground", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			return eng.RunDaemon(cmd.Context(), jobs, log.New(a.stderr, "perfls daemon: ", log.LstdFlags))
		})}
	run.Flags().IntVar(&jobs, "jobs", 1, "measurements at once: more than 1 lets measurements disturb each other")
	start := &cobra.Command{Use: "start", Short: "Start it in the background unless one runs", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			st, err := eng.StartDaemon(cmd.Context())
			if err == nil {
				fmt.Fprintf(a.stdout, "perfls daemon running (pid %d) on %s\n", st.PID, st.Socket)
			}
			return err
		})}
	status := &cobra.Command{Use: "status", Short: "Print its socket and what it is doing", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			st, socket, ok, err := eng.DaemonStatus(cmd.Context())
			if err == nil && !report.WriteDaemonStatus(a.stdout, st, socket, ok) {
				return cli.ExitStatus(cli.ExitFailed)
			}
			return err
		})}
	stop := &cobra.Command{Use: "stop", Short: "Ask it to stop", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			stopped, err := eng.StopDaemon(cmd.Context())
			if err == nil {
				fmt.Fprintln(a.stdout, report.DaemonStopped(stopped))
			}
			return err
		})}
	cmd.AddCommand(run, start, status, stop)
	return cmd
}

// workerCommand is perfls worker: measurement jobs from the shared store's
// queue (engine.RunWorker).
func (a *app) workerCommand() *cobra.Command {
	var label string
	cmd := &cobra.Command{Use: "worker [--label L]", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			// After SIGTERM the running job finishes, for up to a minute
			// (remote.RunWorker): its requester waits for it.
			cli.ExtendGrace(cmd.Context(), time.Minute+5*time.Second)
			return eng.RunWorker(cmd.Context(), label)
		})}
	cmd.Flags().StringVar(&label, "label", "", "take the jobs that ask for this label (e.g. quiet-x86)")
	return cmd
}
