package main

import (
	"errors"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
	"github.com/perfls/perfls/measure/service"
)

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

// notices prints the service's notices.
func (a *app) notices(ns []string) {
	for _, n := range ns {
		a.note("%s", n)
	}
}

// output writes v as JSON when format is json, else runs text.
func (a *app) output(format string, v any, text func()) error {
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
