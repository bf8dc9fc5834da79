package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure"
)

// measureFlags are the flags of every command that measures (check,
// measure, calibrate), bound once.
type measureFlags struct {
	opts    measure.Options
	verbose bool
}

// bind defines the flags with def's values as defaults.
func (m *measureFlags) bind(fs *pflag.FlagSet, def measure.Options) {
	fs.IntVar(&m.opts.Forks, "forks", def.Forks, "JVM forks per measurement")
	fs.IntVar(&m.opts.SamplesPerFork, "samples", def.SamplesPerFork, "samples per fork")
	fs.DurationVar(&m.opts.Warmup, "warmup", def.Warmup, "minimum warm-up time per fork (warm-up then runs until JIT compilation settles)")
	fs.DurationVar(&m.opts.MaxWarmup, "max-warmup", def.MaxWarmup, "warm-up cap per fork")
	fs.DurationVar(&m.opts.ForkTimeout, "fork-timeout", def.ForkTimeout, "time limit of one fork")
	fs.IntVar(&m.opts.HeapMB, "heap", def.HeapMB, "heap of each forked JVM in MB (0: the default)")
	fs.StringArrayVar(&m.opts.JVMArgs, "jvm-arg", nil, "an extra flag of the forked JVMs, e.g. --jvm-arg=-XX:+UseSerialGC (repeatable)")
	fs.BoolVarP(&m.verbose, "verbose", "v", false, "report each fork on stderr")
	m.opts.MinSampleTime = def.MinSampleTime
}

func (m *measureFlags) check(minForks int) error {
	if m.opts.Forks < minForks || m.opts.SamplesPerFork < 2 {
		return usagef("--forks must be ≥ %d and --samples ≥ 2", minForks)
	}
	if m.opts.HeapMB < 0 {
		return usagef("--heap must be ≥ 0")
	}
	return nil
}

// measureDefaults are the measuring defaults of check and measure.
func measureDefaults() measure.Options {
	return measure.Options{Forks: measure.DefaultForks, SamplesPerFork: 30, Warmup: 300 * time.Millisecond,
		MaxWarmup: 5 * time.Second, ForkTimeout: 60 * time.Second}
}

// selector is the workload selection of measure, calibrate and verify.
type selector struct {
	project, method, workload, args, format string
}

func (s *selector) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&s.project, "project", ".", "project directory")
	fs.StringVar(&s.method, "method", "", "method: pkg.Class#m or pkg.Class#m(int[],int)")
	fs.StringVar(&s.workload, "workload", "", "workload generator: pkg.Class#gen (optional)")
	fs.StringVar(&s.args, "args", "", "comma-separated arguments of the generator (or of the method without one); quote a string that holds commas: 'a, b'")
	fs.StringVar(&s.format, "format", "text", "output format: text or json")
	cmd.RegisterFlagCompletionFunc("method", completeMethods(&s.project, false))
	cmd.RegisterFlagCompletionFunc("workload", completeMethods(&s.project, true))
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagDirname("project")
}

// parse checks the selection and returns the project directory and the
// workload.
func (s *selector) parse(cmd string) (string, engine.Workload, error) {
	var w engine.Workload
	if s.method == "" {
		return "", w, usagef("%s needs --method pkg.Class#m", cmd)
	}
	if err := checkFormat(s.format); err != nil {
		return "", w, err
	}
	var err error
	if w.Method, err = measure.ParseMethodSpec(s.method); err != nil {
		return "", w, usagef("--method: %v", err)
	}
	if s.workload != "" {
		g, err := measure.ParseMethodSpec(s.workload)
		if err != nil {
			return "", w, usagef("--workload: %v", err)
		}
		w.Generator = &g
	}
	w.Args = measure.ParseArgs(s.args)
	dir, err := projectDir(s.project, "--project ")
	return dir, w, err
}

// projectDir is the absolute path of a directory the user named.
func projectDir(path, what string) (string, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", usagef("%s%s is not a directory", what, path)
	}
	return dir, nil
}

func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return usagef("unknown --format %q (want text or json)", format)
	}
	return nil
}

// dirArg is the one optional directory argument of check and lint: "." when
// none is given.
func dirArg(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return args[0]
}

// atMostOne refuses more than one positional argument.
func atMostOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef("%s takes at most one %s (got %d arguments)", cmd.Name(), what, len(args))
		}
		return nil
	}
}

// count is "1 fork" or "2 forks".
func count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// subcommandNeeded is the action of a command that only groups others.
func subcommandNeeded(which string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown %s subcommand %q (want %s)", cmd.Name(), args[0], which)
		}
		return usagef("%s needs a subcommand: %s", cmd.Name(), which)
	}
}
