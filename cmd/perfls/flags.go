package main

import (
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
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
	m.opts.MinSampleTime = def.MinSampleTime
	fs.IntVar(&m.opts.Forks, "forks", def.Forks, "JVM forks per measurement")
	fs.IntVar(&m.opts.SamplesPerFork, "samples", def.SamplesPerFork, "samples per fork")
	fs.DurationVar(&m.opts.Warmup, "warmup", def.Warmup, "minimum warm-up time per fork (warm-up then runs until a steady state: docs/measurement.md)")
	fs.DurationVar(&m.opts.MaxWarmup, "max-warmup", def.MaxWarmup, "warm-up cap per fork")
	fs.DurationVar(&m.opts.ForkTimeout, "fork-timeout", def.ForkTimeout, "time limit of one fork")
	fs.IntVar(&m.opts.HeapMB, "heap", def.HeapMB, "heap of each forked JVM in MB (0: the default)")
	fs.StringVar(&m.opts.CPUs, "cpus", "", "pin each fork's measuring thread to these processors, e.g. 0 or 2-3 (Linux; processors can differ in speed: docs/measurement.md)")
	fs.StringArrayVar(&m.opts.JVMArgs, "jvm-arg", nil, "an extra flag of the forked JVMs, e.g. --jvm-arg=-XX:+UseSerialGC (repeatable)")
	fs.IntVar(&m.opts.Release, "release", 0, "compile the project (and every commit measured) for this Java release, e.g. 8 for old code that clashes with a newer JDK's methods (default: perfls.json's \"release\")")
	fs.StringArrayVar(&m.opts.JavacArgs, "javac-arg", nil, "an extra javac flag for the project, e.g. --javac-arg=-Xlint:none (repeatable; after perfls.json's \"javacArgs\")")
	fs.BoolVarP(&m.verbose, "verbose", "v", false, "report each fork on stderr")
}

// selector is the workload selection of measure, calibrate and verify.
type selector struct{ project, method, workload, args, format string }

func (s *selector) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&s.project, "project", ".", "project directory")
	fs.StringVar(&s.method, "method", "", "method: pkg.Class#m or pkg.Class#m(int[],int)")
	fs.StringVar(&s.workload, "workload", "", "workload generator: pkg.Class#gen (optional)")
	fs.StringVar(&s.args, "args", "", "comma-separated arguments of the generator (or of the method without one); quote a string that holds commas: 'a, b'")
	cli.Enum(cmd, &s.format, "format", "text", "output format: text or json", "text", "json")
	cmd.RegisterFlagCompletionFunc("method", completeMethods(&s.project, false))
	cmd.RegisterFlagCompletionFunc("workload", completeMethods(&s.project, true))
	cmd.MarkFlagDirname("project")
}

// run checks the selection and runs an action on its project directory
// and workload with an engine that measures through the daemon when one
// runs.
func (s *selector) run(a *app, cmd *cobra.Command, run func(dir string, w engine.Workload, eng *engine.Engine) error) error {
	if s.method == "" {
		return cli.Usagef("%s needs --method pkg.Class#m", cmd.Name())
	}
	w, err := engine.ParseWorkload(s.method, s.workload, s.args)
	if err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	dir, err := cli.Dir(s.project, "--project ")
	if err != nil {
		return err
	}
	return a.withEngine(engine.UseDaemon, func(cmd *cobra.Command, eng *engine.Engine) error { return run(dir, w, eng) })(cmd, nil)
}

// completeMethods completes --method (generators false) or --workload
// (true) with the methods declared in the project --project names, read
// from the declaration index. perfls completion bash|zsh|fish prints the
// script that asks for them.
func completeMethods(project *string, generators bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		dir, err := filepath.Abs(*project)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		cacheDir, _ := cache.Dir() // none: the project is parsed again each time
		names, err := engine.MethodNames(dir, cacheDir, prefix, generators)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
