// Package cli is the command-line plumbing under perfls's commands (as
// gopls's internal/tool is under its): running a cobra command tree with
// conventional exit statuses, usage errors that print one line and a hint,
// long flags accepted with one dash as Go's flag package took them, and the
// argument checks the commands share.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfls/perfls/internal/atomicfile"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/measure/service"
)

// Exit statuses.
const (
	ExitOK        = 0
	ExitFailed    = 1   // what was checked failed: a formula violated, a lint error, a slower workload
	ExitUsage     = 2   // bad arguments, build errors, unreadable input, formulas that could not be decided
	ExitInterrupt = 130 // interrupted: a cancelled context (a signal exits 128 + its number: Interrupted)
)

// UsageError marks errors the user fixes by changing the command line.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef is a UsageError.
func Usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// ExitStatus ends a command with a status and nothing more to say.
type ExitStatus int

func (e ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Run runs root with args and returns the exit status: 0, or the command's
// ExitStatus; for a usage error 2 after one line and a hint on stderr; 128
// + the signal's number when a signal cancelled ctx (NotifyContext), 130
// when ctx was cancelled otherwise; 2 after the message for any other
// error. Messages are printed cut and with terminal escapes defused
// (message). Help goes to root's output (stdout), errors to stderr.
func Run(ctx context.Context, root *cobra.Command, args []string, stderr io.Writer) int {
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if strings.Contains(err.Error(), "unknown shorthand flag: 'v'") {
			return UsageError{err.Error() + " (-v is --verbose on the commands that measure; the version is --version)"}
		}
		return UsageError{err.Error()}
	})
	root.SetErr(stderr)
	root.SetArgs(longFlags(root, args))
	cmd, err := root.ExecuteContextC(ctx)
	var ue UsageError
	var status ExitStatus
	var sig Interrupted
	switch {
	case errors.As(context.Cause(ctx), &sig):
		// Whatever the command made of it: it was told to stop.
		fmt.Fprintf(stderr, "%s: %v\n", root.Name(), sig)
		return sig.Status()
	case err == nil:
		return ExitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", root.Name(), message(err), cmd.CommandPath())
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintf(stderr, "%s: interrupted\n", root.Name())
		return ExitInterrupt
	default:
		fmt.Fprintf(stderr, "%s: %s\n", root.Name(), message(err))
	}
	return ExitUsage
}

// maxMessage is the most of an error message printed: messages quote
// their input (input.Quote cuts it), but a message should never be what
// floods a terminal.
const maxMessage = 16 << 10

// message is err's text as printed: cut at maxMessage, and nothing in it
// that drives a terminal (input.Printable), whatever input it quotes.
func message(err error) string {
	s := err.Error()
	if head, more := input.Cut(s, maxMessage); more > 0 {
		s = fmt.Sprintf("%s… (%d bytes more)", head, more)
	}
	return input.Printable(s)
}

var singleDashLong = regexp.MustCompile(`^-([a-z][a-z0-9-]+)(=.*)?$`)

// longFlags rewrites a long flag written with one dash (-forks 3) to two,
// when the command has that flag.
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

// quoteAll quotes names for a message: "a", "a" or "b".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// NoArgs refuses positional arguments as a usage error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("%s takes no positional arguments (got %q)", cmd.Name(), args[0])
	}
	return nil
}

// OneInt is the argument check of a command that takes one integer, which
// it stores in p: missing is the usage error without one, and a word that
// is no integer is "not what".
func OneInt(p *int64, missing, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) (err error) {
		if len(args) != 1 {
			return UsageError{missing}
		}
		if *p, err = strconv.ParseInt(args[0], 10, 64); err != nil {
			return Usagef("%q is not %s", args[0], what)
		}
		return nil
	}
}

// LogTo is where a command logs: the file at path, appended to (created
// private), or def when path is "". close releases the file.
func LogTo(path string, def io.Writer) (w io.Writer, close func() error, err error) {
	if path == "" {
		return def, func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// UsageArgs makes the errors of an argument check usage errors.
func UsageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return UsageError{err.Error()}
		}
		return nil
	}
}

// Group is the action of a command that only groups subcommands: a usage
// error naming them.
func Group(which string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return Usagef("unknown %s subcommand %q (want %s)", cmd.Name(), args[0], which)
		}
		return Usagef("%s needs a subcommand: %s", cmd.Name(), which)
	}
}

// Enum defines a flag of cmd that takes one of allowed (anything else is an
// error when the command line is parsed, so a usage error) and completes
// them; value is its default.
func Enum(cmd *cobra.Command, p *string, name, value, usage string, allowed ...string) {
	*p = value
	cmd.Flags().Var(&enum{p, allowed}, name, usage)
	cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
}

// Phase defines the --phase flag of a command that can answer from the
// measurement service's warm worker JVM first: "quick" (the worker only, a
// preliminary answer), "full" (forked JVMs; the default) or "both".
func Phase(cmd *cobra.Command, p *service.Phase, usage string) {
	*p = service.PhaseFull
	cmd.Flags().Var(phaseFlag{p}, "phase", usage)
	cmd.RegisterFlagCompletionFunc("phase", cobra.FixedCompletions(phases, cobra.ShellCompDirectiveNoFileComp))
}

var phases = []string{"quick", "full", "both"}

type phaseFlag struct{ p *service.Phase }

func (f phaseFlag) Type() string { return "string" }
func (f phaseFlag) String() string {
	if f.p == nil || *f.p == service.PhaseFull {
		return "full"
	}
	return string(*f.p)
}
func (f phaseFlag) Set(v string) error {
	switch v {
	case "quick", "both":
		*f.p = service.Phase(v)
	case "full":
		*f.p = service.PhaseFull
	default:
		return fmt.Errorf("want %s", orList(phases))
	}
	return nil
}

type enum struct {
	p       *string
	allowed []string
}

func (e *enum) String() string { return *e.p }
func (e *enum) Type() string   { return "string" }
func (e *enum) Set(v string) error {
	if !slices.Contains(e.allowed, v) {
		return fmt.Errorf("want %s", orList(e.allowed))
	}
	*e.p = v
	return nil
}

func orList(xs []string) string {
	switch len(xs) {
	case 0:
		return "nothing"
	case 1:
		return xs[0]
	}
	s := xs[0]
	for _, x := range xs[1 : len(xs)-1] {
		s += ", " + x
	}
	return s + " or " + xs[len(xs)-1]
}

// Dir is the absolute path of a directory the user named (what names it in
// messages, e.g. "--project ").
func Dir(path, what string) (string, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", Usagef("%s%s is not a directory", what, path)
	}
	return dir, nil
}

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Colour reports whether output to w may be coloured: w is a terminal,
// NO_COLOR (no-color.org) is unset or empty, and TERM is not "dumb".
func Colour(w io.Writer) bool {
	return IsTerminal(w) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// OutputDir rejects an output directory named by flag that exists and is
// not a directory, before anything is done.
func OutputDir(flag, dir string) error {
	info, err := os.Stat(dir)
	switch {
	case dir == "" || errors.Is(err, fs.ErrNotExist):
		return nil // created when written
	case err != nil:
		return Usagef("%s %s: %v", flag, dir, err)
	case !info.IsDir():
		return Usagef("%s %s: exists and is not a directory", flag, dir)
	}
	return nil
}

// WriteOutput writes what render renders to path, or to the file name in
// the directory path when name is given; nothing when path is "". flag
// names the option in the error.
func WriteOutput(flag, path, name string, render func() ([]byte, error)) error {
	if path == "" {
		return nil
	}
	b, err := render()
	if err == nil {
		err = atomicfile.Write(filepath.Join(path, name), b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// Describe sets the summary and long help of every command in cmds that
// has no summary of its own from help/NAME.txt in files: the summary, a
// blank line, the long help. Prose is kept apart from the wiring, as
// gopls keeps its usage texts.
func Describe(cmds []*cobra.Command, files fs.FS) {
	for _, c := range cmds {
		b, err := fs.ReadFile(files, "help/"+c.Name()+".txt")
		if err != nil || c.Short != "" {
			continue
		}
		short, long, _ := strings.Cut(strings.TrimSuffix(string(b), "\n"), "\n\n")
		c.Short, c.Long = short, long
	}
}

// Root is a program's root command: it prints the version as "name
// version" (--version, and a version command), help on stdout, and
// answers no command (or an unknown one) with the usage on stderr and
// exit status 2.
func Root(name, short, version string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use: name, Short: short, Version: version, Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					return Usagef("unknown command %q; did you mean %s?", args[0], quoteAll(s))
				}
				return Usagef("unknown command %q", args[0])
			}
			cmd.SetOut(stderr)
			cmd.Usage()
			return ExitStatus(ExitUsage)
		},
	}
	root.SuggestionsMinimumDistance = 2 // "chek" → check, "od" → do
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetVersionTemplate(name + " {{.Version}}\n")
	// -v is --verbose wherever a command has it (measure, calibrate); the
	// version is --version only, so one letter never means two things.
	root.Flags().Bool("version", false, "print the version and exit")
	root.AddCommand(&cobra.Command{Use: "version", Short: "Print the version and the commit " + name + " was built from", Args: NoArgs,
		Run: func(*cobra.Command, []string) { fmt.Fprintln(stdout, name, version) }})
	return root
}

// AdoptFlags adds to cmd the flags that bind defines, except those named in
// except: for a command that shares another's flags but defines some of them
// differently (perfls model: the selector's flags with its own --format).
func AdoptFlags(cmd *cobra.Command, bind func(*cobra.Command), except ...string) {
	tmp := &cobra.Command{}
	bind(tmp)
	tmp.Flags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(except, f.Name) {
			cmd.Flags().AddFlag(f)
		}
	})
}
