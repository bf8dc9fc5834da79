// Command perfls decides Java performance formulas (@SPL) by measuring the
// methods they name in forked JVMs, and serves the results to editors over
// the Language Server Protocol.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/perfls/perfls/internal/version"
)

// Exit codes shared by the subcommands.
const (
	exitOK        = 0
	exitViolated  = 1 // check: a formula is violated; lint: an error was found
	exitUsage     = 2 // bad arguments, build errors, unreadable input
	exitInterrupt = 130
)

// usageError marks errors the user fixes by changing the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `perfls — Java performance formulas, measured and shown where code is written

Usage:
  perfls check [flags] DIR      measure and decide every @SPL formula under DIR
  perfls evaluate [flags]       decide a formula against recorded JMH or perfls results
  perfls lint [flags] PATH...   report SPL syntax errors in .java and .spl files
  perfls measure [flags]        measure one method on one workload (--method, --workload, --args)
  perfls calibrate [flags]      learn the bounds oracle of one workload from N forks (same selectors)
  perfls verify [flags]         run a calibrated workload once and classify it against its oracle
  perfls serve                  run the language server on stdin/stdout
  perfls cache ls|show|gc|clear inspect and trim the measurement cache
  perfls daemon run|start|status|stop  the per-user measurement server
  perfls version                print the version

Run 'perfls COMMAND -h' for the flags of a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var code int
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "check":
		code, err = runCheck(ctx, rest, stdout, stderr)
	case "evaluate":
		code, err = runEvaluate(rest, stdout, stderr)
	case "lint":
		code, err = runLint(rest, stdout, stderr)
	case "calibrate":
		code, err = runCalibrate(ctx, rest, stdout, stderr)
	case "verify":
		code, err = runVerify(ctx, rest, stdout, stderr)
	case "measure":
		code, err = runMeasure(ctx, rest, stdout, stderr)
	case "daemon":
		code, err = runDaemon(ctx, rest, stdout, stderr)
	case "cache":
		code, err = runCache(ctx, rest, stdout, stderr)
	case "serve":
		code, err = runServe(ctx, rest, stdin, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "perfls", version.String())
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		err = usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
	var ue usageError
	switch {
	case err == nil:
		return code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "perfls: %v\n\n%s", err, usage)
		return exitUsage
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintln(stderr, "perfls: interrupted")
		return exitInterrupt
	default:
		fmt.Fprintf(stderr, "perfls: %v\n", err)
		if code == exitOK {
			code = exitUsage
		}
		return code
	}
}
