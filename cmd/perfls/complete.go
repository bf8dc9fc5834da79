package main

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
)

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
