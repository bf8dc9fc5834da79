package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
)

// completeMethods completes --method (generators false) or --workload
// (true) with the methods declared in the project that --project names,
// read from the declaration index. perfls completion bash|zsh|fish prints
// the script that asks for them.
func completeMethods(project *string, generators bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		dir, err := filepath.Abs(*project)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		cacheDir, _ := cache.Dir() // none: the project is parsed again each time
		names, err := engine.MethodNames(dir, cacheDir, generators)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
