package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"text/tabwriter"
	"time"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure/service"
)

const daemonUsage = `Usage:
  perfls daemon run [--jobs N]  run the measurement server in the foreground
  perfls daemon start    start it in the background unless one runs
  perfls daemon status   print its socket and what it is doing
  perfls daemon stop     ask it to stop

One daemon per user serves every editor and the CLI; it listens on a Unix
socket in a directory only its owner can open ($XDG_RUNTIME_DIR/perfls, else
run/ in the perfls cache directory).`

func runDaemon(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 {
		return exitUsage, usageError{"daemon needs one of: run, start, status, stop\n\n" + daemonUsage}
	}
	fl := flag.NewFlagSet("daemon", flag.ContinueOnError)
	fl.SetOutput(stderr)
	jobs := fl.Int("jobs", 1, "measurements at once (run): more than 1 lets measurements disturb each other")
	if err := fl.Parse(args[1:]); err != nil {
		return exitUsage, nil
	}
	args = args[:1]
	cacheDir, err := cache.Dir()
	if err != nil {
		return exitUsage, err
	}
	switch args[0] {
	case "run":
		logger := log.New(stderr, "perfls daemon: ", log.LstdFlags)
		svc := service.NewLocal(ctx, cacheDir, *jobs)
		d, err := service.Listen(cacheDir, svc, logger)
		if err != nil {
			svc.Close()
			return exitUsage, err
		}
		logger.Printf("listening on %s (pid %d)", d.Socket(), os.Getpid())
		if err := d.Serve(ctx); err != nil {
			return exitUsage, err
		}
		logger.Printf("stopped")
	case "start":
		exe, err := os.Executable()
		if err != nil {
			return exitUsage, err
		}
		c, err := service.EnsureDaemon(ctx, cacheDir, exe)
		if err != nil {
			return exitUsage, err
		}
		st, err := c.Status(ctx)
		if err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "perfls daemon running (pid %d) on %s\n", st.PID, st.Socket)
	case "status":
		c, err := service.Dial(ctx, cacheDir)
		if err != nil {
			socket, _ := service.SocketPath(cacheDir)
			fmt.Fprintf(stdout, "no perfls daemon answers on %s\n", socket)
			return exitViolated, nil
		}
		st, err := c.Status(ctx)
		if err != nil {
			return exitUsage, err
		}
		printStatus(stdout, st)
	case "stop":
		c, err := service.Dial(ctx, cacheDir)
		if err != nil {
			fmt.Fprintln(stdout, "no perfls daemon is running")
			return exitOK, nil
		}
		if err := c.Shutdown(ctx); err != nil {
			return exitUsage, err
		}
		fmt.Fprintln(stdout, "perfls daemon stopped")
	default:
		return exitUsage, usageError{fmt.Sprintf("unknown daemon subcommand %q\n\n%s", args[0], daemonUsage)}
	}
	return exitOK, nil
}

func printStatus(w io.Writer, st *service.Status) {
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
