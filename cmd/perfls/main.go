// Command perfls decides Java performance formulas (@SPL) by measuring the
// methods they name in forked JVMs, and serves the results to editors over
// the Language Server Protocol. Each subcommand is a file here holding its
// flags and the wiring from them to the engine (package engine) and the
// output formats (package report); what a command does lives there.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/version"
)

// Exit statuses shared by the subcommands.
const (
	exitOK        = 0
	exitViolated  = 1 // check: a formula is violated; lint: an error was found
	exitUsage     = 2 // bad arguments, build errors, unreadable input, formulas that could not be decided
	exitInterrupt = 130
)

// usageError marks errors the user fixes by changing the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitStatus ends a command with a status and nothing more to say.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// app is what every command shares: the command line and the standard
// streams.
type app struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{args: args, stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(longFlags(root, args))
	cmd, err := root.ExecuteContextC(ctx)
	var ue usageError
	var status exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "perfls: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
		return exitUsage
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintln(stderr, "perfls: interrupted")
		return exitInterrupt
	default:
		fmt.Fprintf(stderr, "perfls: %v\n", err)
		return exitUsage
	}
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "perfls",
		Short: "Java performance formulas, measured and shown where code is written",
		Long: `perfls reads @SPL performance formulas and @Workload bindings from Java sources,
measures the methods they name in forked JVMs, and decides each formula with a
statistical test; as a language server it shows the results in editors.`,
		Version:       version.String(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q", args[0])
			}
			cmd.SetOut(a.stderr)
			cmd.Usage()
			return exitStatus(exitUsage)
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetVersionTemplate("perfls {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.AddCommand(a.checkCommand(), a.lintCommand(), a.evaluateCommand(), a.measureCommand(), a.calibrateCommand(),
		a.verifyCommand(), a.serveCommand(), a.cacheCommand(), a.daemonCommand(), a.versionCommand())
	return root
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{Use: "version", Short: "Print the version and the commit perfls was built from", Args: noArgs,
		Run: func(cmd *cobra.Command, _ []string) { fmt.Fprintln(a.stdout, "perfls", version.String()) }}
}

// openEngine opens the engine on the user's cache directory, reaching the
// measurement service as mode says; the caller closes it.
func (a *app) openEngine(ctx context.Context, mode engine.ServiceMode) (*engine.Engine, error) {
	dir, err := cache.Dir()
	if err != nil {
		return nil, err
	}
	eng, err := engine.Open(ctx, engine.Config{CacheDir: dir, Service: mode, Logf: a.note})
	if err != nil {
		return nil, err
	}
	if n := eng.Notice(); n != "" {
		a.note("%s", n)
	}
	return eng, nil
}

// note tells the user something on the side, on stderr.
func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.stderr, "perfls: "+format+"\n", args...)
}

// noArgs refuses positional arguments as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no positional arguments (got %q)", cmd.Name(), args[0])
	}
	return nil
}

var singleDashLong = regexp.MustCompile(`^-([a-z][a-z0-9-]+)(=.*)?$`)

// longFlags rewrites a long flag written with one dash (-forks 3, as Go's
// flag package accepted) to two, when the command has that flag.
func longFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil {
		return args
	}
	out := append([]string(nil), args...)
	for i, arg := range out {
		if arg == "--" {
			break
		}
		if m := singleDashLong.FindStringSubmatch(arg); m != nil && cmd.Flags().Lookup(m[1]) != nil {
			out[i] = "-" + arg
		}
	}
	return out
}
