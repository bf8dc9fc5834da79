package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/measure/service"
)

func (a *app) profileCommand() *cobra.Command {
	var sel selector
	var mf measureFlags
	var pprof string
	var fresh bool
	cmd := &cobra.Command{
		Use:  "profile --method pkg.Class#m [--workload pkg.Class#gen] [--args 100,5] [--pprof FILE] [flags]",
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := engine.ValidateOptions(mf.opts, 1); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			return sel.run(a, cmd, func(dir string, w engine.Workload, eng *engine.Engine) error {
				progress, done := a.progress(mf.verbose)
				p, err := eng.Profile(cmd.Context(), engine.ProfileRequest{Dir: dir, Workload: w, Options: mf.opts,
					Fresh: fresh, Priority: service.Interactive, Progress: progress})
				if done(); p != nil {
					a.notices(p.Notices)
				}
				switch {
				case err != nil:
					return a.measureError(dir, err)
				case p.Cached:
					a.note("answered from the cache: profiled %s, code unchanged since (--fresh profiles again)", p.MeasuredAt.Local().Format(time.DateTime))
				}
				if err := p.WritePprof(pprof); err != nil {
					return err
				}
				return a.output(sel.format, p.Report, func() { fmt.Fprint(a.stdout, p.Report.Text(10)) })
			})
		},
	}
	sel.bind(cmd)
	mf.bind(cmd.Flags(), engine.ProfileDefaults())
	cmd.Flags().StringVar(&pprof, "pprof", "", "also write the profile in pprof format to `FILE` (go tool pprof)")
	cmd.Flags().BoolVar(&fresh, "fresh", false, "profile again even when the cache has a profile of this code")
	return cmd
}
