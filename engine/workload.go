package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// Workload selects one measurement: a method, the generator of its inputs
// (nil: the method is called with Args itself) and the arguments — what
// perfls measure, calibrate and verify name with --method, --workload and
// --args.
type Workload struct {
	Method    measure.MethodSpec
	Generator *measure.MethodSpec
	Args      []measure.Arg
}

func (w Workload) item() service.Item {
	it := service.Item{Method: w.Method, Args: w.Args}
	if w.Generator != nil {
		it.Generator = *w.Generator
	}
	return it
}

func (w Workload) generator() string {
	if w.Generator == nil {
		return ""
	}
	return w.Generator.String()
}

// String reads p.C#m[p.C#gen](1000).
func (w Workload) String() string {
	s := w.Method.String()
	if w.Generator != nil {
		s += "[" + w.Generator.String() + "]"
	}
	return s + "(" + measure.ArgsKey(w.Args) + ")"
}

// ParseWorkload reads the workload a user named on the command line:
// method (pkg.Class#m or pkg.Class#m(int[],int)), generator ("" = none)
// and comma-separated arguments.
func ParseWorkload(method, generator, args string) (Workload, error) {
	var w Workload
	var err error
	if w.Method, err = measure.ParseMethodSpec(method); err != nil {
		return w, fmt.Errorf("--method: %w", err)
	}
	if generator != "" {
		g, err := measure.ParseMethodSpec(generator)
		if err != nil {
			return w, fmt.Errorf("--workload: %w", err)
		}
		w.Generator = &g
	}
	w.Args = measure.ParseArgs(args)
	return w, nil
}

// CompileError says that the project does not compile: nothing was
// measured. Messages are javac's.
type CompileError struct {
	Messages []measure.CompilerMessage
	// Hint says what likely made it fail and what fixes it (a missing
	// dependency, code older than the JDK): measure.CompileError's.
	Hint string
}

func (e *CompileError) Error() string { return "the project does not compile" }

// measureOne measures one workload through svc and returns its result; the
// workload's failure is the error (a *measure.WorkloadError when the
// workload itself failed), as is a project that does not compile
// (*CompileError).
func measureOne(ctx context.Context, svc service.Service, p service.Params, progress func(service.Progress)) (*service.Response, *service.ItemResult, error) {
	resp, err := svc.Measure(ctx, p, progress)
	if err != nil {
		return nil, nil, err
	}
	if len(resp.CompileErrors) > 0 {
		return resp, nil, &CompileError{Messages: resp.CompileErrors, Hint: resp.CompileHint}
	}
	if len(resp.Items) != len(p.Items) || len(p.Items) != 1 {
		return resp, nil, fmt.Errorf("the measurement service answered %d items for %d", len(resp.Items), len(p.Items))
	}
	it := &resp.Items[0]
	switch {
	case it.Failure != nil:
		return resp, it, it.Failure
	case it.Error != "":
		return resp, it, errors.New(it.Error)
	}
	return resp, it, nil
}
