// Command perfls decides Java performance formulas (@SPL) by measuring the
// methods they name in forked JVMs, and serves the results to editors over
// the Language Server Protocol. Each family of subcommands is a file here holding their
// flags and the wiring from them to the engine (package engine) and the
// output formats (package report); what a command does lives there.
package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/internal/version"
	"github.com/perfls/perfls/measure/service"
)

// helpFiles hold each command's help, help/NAME.txt: its one-line
// summary, a blank line and the long help. Prose is kept apart from the
// wiring, as gopls keeps its usage texts.
//
//go:embed help/*.txt
var helpFiles embed.FS

// app is what every command shares: the command line and the streams.
type app struct {
	ctx            context.Context // cancelled by a signal: nothing more is printed
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func main() {
	// SIGINT, SIGTERM and SIGHUP cancel the command's context; a command
	// that has not returned soon after is ended with the signal's status.
	ctx, stop := cli.NotifyContext(context.Background(), "perfls", os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, args: args, stdin: stdin, stdout: stdout, stderr: stderr}
	root := cli.Root("perfls", "Java performance formulas, measured and shown where code is written", version.String(), stdin, stdout, stderr)
	root.AddCommand(a.commands()...)
	cli.Describe(root.Commands(), helpFiles)
	return cli.Run(ctx, root, args, stderr)
}

// commands are perfls's subcommands.
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{a.checkCommand(), a.lintCommand(), a.evaluateCommand(), a.measureCommand(), a.profileCommand(), a.modelCommand(), a.predictCommand(),
		a.calibrateCommand(), a.verifyCommand(), a.serveCommand(), a.daemonCommand(), a.workerCommand(), a.cacheCommand(), a.annotationsCommand(),
		a.historyCommand(false), a.historyCommand(true), a.explainCommand(), a.historyListCommand(), a.regressionsCommand(), a.ensembleCommand()}
}

// withEngine runs an action with an engine on the user's cache directory
// that reaches the measurement service as mode says.
func (a *app) withEngine(mode engine.ServiceMode, run func(*cobra.Command, *engine.Engine) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		eng, err := openEngine(cmd.Context(), mode, a.note)
		if err != nil {
			return err
		}
		defer eng.Close()
		return run(cmd, eng)
	}
}

// measuringService, when set, answers every measurement of the commands
// instead of the measurement service: only tests set it, to a recording of
// real measurements (internal/fixture/replay).
var measuringService service.Service

// openEngine opens an engine on the user's cache directory and passes
// on what the engine noticed while opening (a replaced corrupt cache).
func openEngine(ctx context.Context, mode engine.ServiceMode, logf func(string, ...any)) (*engine.Engine, error) {
	dir, err := cache.Dir()
	if err != nil {
		return nil, err
	}
	eng, err := engine.Open(ctx, engine.Config{CacheDir: dir, Service: mode, Logf: logf, Given: measuringService})
	if err == nil && eng.Notice() != "" {
		logf("%s", eng.Notice())
	}
	return eng, err
}

// note tells the user something on the side, on stderr.
func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.stderr, "perfls: "+format+"\n", args...)
}

// progress reports measuring on stderr (report.Progress): every message
// with -v, else a line rewritten in place on a terminal.
func (a *app) progress(verbose bool) (func(service.Progress), func()) {
	line, done := report.Progress(a.stderr, verbose, cli.IsTerminal(a.stderr))
	return func(p service.Progress) { line(p.Message, p.NsPerOp > 0, p.Planned) }, done
}

// measureError prints what an action's error says in detail — javac's
// messages, where a workload failed — and returns the error for the last
// line.
func (a *app) measureError(dir string, err error) error {
	var ce *engine.CompileError
	if errors.As(err, &ce) {
		report.WriteCompileErrors(a.stderr, dir, ce.Messages)
	}
	report.WriteWorkloadError(a.stderr, dir, err)
	return err
}

// output writes v as JSON when format is json, else runs text; nothing
// once a signal has cancelled the command, which then exits with the
// signal's status.
func (a *app) output(format string, v any, text func()) error {
	if err := a.ctx.Err(); err != nil {
		return err
	}
	if format == "json" {
		return report.WriteJSON(a.stdout, v)
	}
	text()
	return nil
}

// result prints res (as JSON when format is json) and ends the command
// with res's exit status.
func (a *app) result(format string, res report.Result) error {
	if err := a.output(format, res, func() { res.WriteText(a.stdout) }); err != nil {
		return err
	}
	return cli.ExitStatus(res.ExitStatus())
}
