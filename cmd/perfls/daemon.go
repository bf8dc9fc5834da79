package main

import (
	"fmt"
	"log"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure/service"
)

func (a *app) daemonCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon run|start|status|stop",
		Short: "The per-user measurement server",
		Long: `One daemon per user serves every editor and the CLI, so their measurements never overlap;
it listens on a Unix socket in a directory only its owner can open ($XDG_RUNTIME_DIR/perfls,
else run/ in the perfls cache directory).`,
		Args: cobra.ArbitraryArgs,
		RunE: subcommandNeeded("run, start, status or stop"),
	}
	var jobs int
	run := &cobra.Command{Use: "run [--jobs N]", Short: "Run the measurement server in the foreground", Args: noArgs,
		RunE: a.withEngine(func(cmd *cobra.Command, eng *engine.Engine) error {
			return eng.RunDaemon(cmd.Context(), jobs, log.New(a.stderr, "perfls daemon: ", log.LstdFlags))
		})}
	run.Flags().IntVar(&jobs, "jobs", 1, "measurements at once: more than 1 lets measurements disturb each other")
	start := &cobra.Command{Use: "start", Short: "Start it in the background unless one runs", Args: noArgs,
		RunE: a.withEngine(func(cmd *cobra.Command, eng *engine.Engine) error {
			st, err := eng.StartDaemon(cmd.Context())
			if err == nil {
				fmt.Fprintf(a.stdout, "perfls daemon running (pid %d) on %s\n", st.PID, st.Socket)
			}
			return err
		})}
	status := &cobra.Command{Use: "status", Short: "Print its socket and what it is doing", Args: noArgs,
		RunE: a.withEngine(func(cmd *cobra.Command, eng *engine.Engine) error {
			st, socket, ok, err := eng.DaemonStatus(cmd.Context())
			switch {
			case err != nil:
				return err
			case !ok:
				fmt.Fprintf(a.stdout, "no perfls daemon answers on %s\n", socket)
				return exitStatus(exitViolated)
			}
			a.daemonStatus(st)
			return nil
		})}
	stop := &cobra.Command{Use: "stop", Short: "Ask it to stop", Args: noArgs,
		RunE: a.withEngine(func(cmd *cobra.Command, eng *engine.Engine) error {
			stopped, err := eng.StopDaemon(cmd.Context())
			switch {
			case err != nil:
				return err
			case !stopped:
				fmt.Fprintln(a.stdout, "no perfls daemon is running")
			default:
				fmt.Fprintln(a.stdout, "perfls daemon stopped")
			}
			return nil
		})}
	cmd.AddCommand(run, start, status, stop)
	return cmd
}

// withEngine runs an action with an engine that measures in this process.
func (a *app) withEngine(run func(*cobra.Command, *engine.Engine) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		eng, err := a.openEngine(cmd.Context(), engine.InProcess)
		if err != nil {
			return err
		}
		defer eng.Close()
		return run(cmd, eng)
	}
}

func (a *app) daemonStatus(st *service.Status) {
	w := a.stdout
	fmt.Fprintf(w, "perfls daemon pid %d, up %s\n  socket %s\n  cache  %s\n  %d measurements finished\n",
		st.PID, time.Since(st.Started).Round(time.Second), st.Socket, st.Cache, st.Finished)
	if len(st.Jobs) == 0 {
		fmt.Fprintln(w, "  idle")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  STATE\tPRIORITY\tWAITERS\tJOB")
	for _, j := range st.Jobs {
		state := "queued"
		if j.Running {
			state = "running " + j.Elapsed.Round(100*time.Millisecond).String()
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", state, j.Priority, j.Waiters, j.Label)
	}
	tw.Flush()
}
