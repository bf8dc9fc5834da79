// Command perfls decides Java performance formulas (@SPL) by measuring the
// methods they name in forked JVMs, and serves the results to editors over
// the Language Server Protocol. Each subcommand is a file here holding its
// flags and the wiring from them to the engine (package engine) and the
// output formats (package report); what a command does lives there.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/internal/version"
)

// Exit statuses shared by the subcommands (internal/cli runs them).
const (
	exitOK       = cli.ExitOK
	exitViolated = 1             // check: a formula is violated; lint: an error was found
	exitUsage    = cli.ExitUsage // bad arguments, build errors, unreadable input, formulas that could not be decided
)

// app is what every command shares: the command line and the streams.
type app struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{args: args, stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use: "perfls", Short: "Java performance formulas, measured and shown where code is written",
		Version: version.String(), Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("unknown command %q", args[0])
			}
			cmd.SetOut(stderr)
			cmd.Usage()
			return cli.ExitStatus(exitUsage)
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetVersionTemplate("perfls {{.Version}}\n")
	root.AddCommand(a.checkCommand(), a.lintCommand(), a.evaluateCommand(), a.measureCommand(), a.profileCommand(), a.calibrateCommand(),
		a.verifyCommand(), a.serveCommand(), a.cacheCommand(), a.daemonCommand(), a.annotationsCommand(), a.historyCommand(false), a.historyCommand(true),
		a.modelCommand(), a.predictCommand(),
		&cobra.Command{Use: "version", Short: "Print the version and the commit perfls was built from", Args: cli.NoArgs,
			Run: func(*cobra.Command, []string) { fmt.Fprintln(stdout, "perfls", version.String()) }})
	return cli.Run(ctx, root, args, stderr)
}

// withEngine runs an action with an engine on the user's cache directory
// that reaches the measurement service as mode says.
func (a *app) withEngine(mode engine.ServiceMode, run func(*cobra.Command, *engine.Engine) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		dir, err := cache.Dir()
		if err != nil {
			return err
		}
		eng, err := engine.Open(cmd.Context(), engine.Config{CacheDir: dir, Service: mode, Logf: a.note})
		if err != nil {
			return err
		}
		defer eng.Close()
		if n := eng.Notice(); n != "" {
			a.note("%s", n)
		}
		return run(cmd, eng)
	}
}

// note tells the user something on the side, on stderr.
func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.stderr, "perfls: "+format+"\n", args...)
}
