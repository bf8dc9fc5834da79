package main

// The workload selection of measure, profile, model, calibrate and verify:
// the project (DIR or --project) and --method, --workload, --args, what is
// left out taken from the method's source as the editor takes it
// (engine.SelectWorkloads), one action per workload.

import (
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

// selector is the workload selection of measure, profile, model,
// calibrate and verify: the project (DIR or --project) and --method,
// --workload, --args, the last two from the method's source when left out
// (engine.SelectWorkloads).
type selector struct{ project, method, workload, args, format string }

func (s *selector) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	cmd.Args = cli.UsageArgs(cobra.MaximumNArgs(1))
	projectFlag(cmd, &s.project)
	fs.StringVar(&s.method, "method", "", "method: pkg.Class#m or pkg.Class#m(int[],int)")
	fs.StringVar(&s.workload, "workload", "", "workload generator or loop, pkg.Class#gen (default: the method's own — its @Workload, or the generators its formulas measure it on; "+engine.NoWorkload+": call the method itself with --args)")
	fs.StringVar(&s.args, "args", "", "comma-separated arguments of the generator (or of the method without one; default: each parameter's @Param(min = …)); quote a string that holds commas: 'a, b'")
	cli.Enum(cmd, &s.format, "format", "text", "output format: text or json", "text", "json")
	cmd.RegisterFlagCompletionFunc("method", completeMethods(&s.project, false))
	cmd.RegisterFlagCompletionFunc("workload", completeMethods(&s.project, true))
}

// projectFlag binds --project, the project a command otherwise takes as its
// argument DIR: both spellings work on every command that takes a project.
func projectFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "project", ".", "project directory (or give it as the argument DIR)")
	cmd.MarkFlagDirname("project")
}

// projectArg is the project a command was given: its argument DIR (rest
// holds it, or nothing) or --project; both given must agree.
func projectArg(cmd *cobra.Command, project string, rest []string) (path string, flag bool, err error) {
	switch {
	case len(rest) == 0:
		return project, true, nil
	case cmd.Flags().Changed("project") && filepath.Clean(rest[0]) != filepath.Clean(project):
		return "", false, cli.Usagef("two projects named: %s and --project %s; give one", rest[0], project)
	}
	return rest[0], false, nil
}

// selection checks the selection and returns it with the project
// directory: DIR, or --project (both given must agree).
func (s *selector) selection(cmd *cobra.Command, args []string) (string, engine.Selection, error) {
	sel := engine.Selection{Method: s.method, Workload: s.workload, Args: s.args, ArgsSet: cmd.Flags().Changed("args")}
	if s.method == "" {
		return "", sel, cli.Usagef("%s needs --method pkg.Class#m", cmd.Name())
	}
	if _, err := sel.Named(); err != nil {
		return "", sel, cli.UsageError{Msg: err.Error()}
	}
	path, flag, err := projectArg(cmd, s.project, args)
	if err != nil {
		return "", sel, err
	}
	what := ""
	if flag {
		what = "--project "
	}
	dir, err := cli.Dir(path, what)
	return dir, sel, err
}

// run runs an action on the one workload the flags name (the engine
// completes it from the source: perfls model, which refuses --workload
// none) with an engine that measures through the daemon when one runs.
func (s *selector) run(a *app, cmd *cobra.Command, args []string, run func(dir string, w engine.Workload, eng *engine.Engine) error) error {
	dir, sel, err := s.selection(cmd, args)
	if err != nil {
		return err
	}
	if sel.Workload == engine.NoWorkload {
		// Taking the binding instead would answer another question than
		// the one asked.
		return cli.Usagef("%s varies a generator's parameter, and --workload %s names none: name the generator with --workload, or leave it out for the method's own binding", cmd.Name(), engine.NoWorkload)
	}
	w, _ := sel.Named() // checked by selection
	return a.withEngine(engine.UseDaemon, func(cmd *cobra.Command, eng *engine.Engine) error { return run(dir, w, eng) })(cmd, nil)
}

// each runs an action on every workload the selection names —
// engine.SelectWorkloads, or with calibrated the method's calibrated ones
// (engine.CalibratedWorkloads) — saying which the source supplied. A
// workload that fails does not stop the others (but a project that does
// not compile, or an interrupt, does); the worst outcome is returned.
func (s *selector) each(a *app, cmd *cobra.Command, args []string, calibrated bool, run func(dir string, w engine.Workload, eng *engine.Engine) error) error {
	dir, sel, err := s.selection(cmd, args)
	if err != nil {
		return err
	}
	return a.withEngine(engine.UseDaemon, func(cmd *cobra.Command, eng *engine.Engine) error {
		chosen, err := eng.WorkloadsOf(cmd.Context(), dir, sel, calibrated)
		if err != nil {
			return err
		}
		if note := chosen.Note(); note != "" {
			a.note("%s", note)
		}
		a.notices("", dir, true, chosen.Warnings) // about the selection: always shown
		ws := chosen.Workloads
		var worst error
		for _, w := range ws {
			err := run(dir, w, eng)
			var ce *engine.CompileError
			var status cli.ExitStatus
			switch {
			case errors.As(err, &ce) || cmd.Context().Err() != nil || len(ws) == 1:
				return err
			case err != nil && !errors.As(err, &status):
				// Said here, with its workload; the others still run.
				a.note("%s: %v", w, err)
				err = cli.ExitStatus(cli.ExitUsage)
			}
			worst = cli.Worse(worst, err)
		}
		return worst
	})(cmd, nil)
}
