package main

import (
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfls/perfls/cache"
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
