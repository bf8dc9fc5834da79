package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

func (a *app) annotationsCommand() *cobra.Command {
	var jar, repo string
	var install bool
	cmd := &cobra.Command{
		Use:  "annotations (--jar FILE | --install [--repo DIR])",
		Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			if (jar == "") == !install {
				return cli.Usagef("give --jar FILE or --install")
			}
			path, err := eng.Annotations(cmd.Context(), jar, install, repo)
			if err == nil {
				fmt.Fprintf(a.stdout, "wrote %s\n%s\n", path, engine.AnnotationsDependency())
			}
			return err
		}),
	}
	cmd.Flags().StringVar(&jar, "jar", "", "write the jar to this file")
	cmd.Flags().BoolVar(&install, "install", false, "install the jar and its pom into the local Maven repository")
	cmd.Flags().StringVar(&repo, "repo", "", "the local Maven repository (default ~/.m2/repository)")
	return cmd
}
