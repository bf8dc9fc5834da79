package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// Workload selects one measurement: a method, the generator of its inputs
// (nil: the method is called with Args itself) and the arguments — what
// perfls measure, calibrate and verify name with --method, --workload and
// --args.
type Workload struct {
	Method    methodspec.Spec
	Generator *methodspec.Spec
	Args      []measured.Arg
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
	if w.Method, err = methodspec.Parse(method); err != nil {
		return w, fmt.Errorf("--method: %w", err)
	}
	if generator != "" {
		g, err := methodspec.Parse(generator)
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
	Messages []measured.CompilerMessage
	// Hint says what likely made it fail and what fixes it (a missing
	// dependency, code older than the JDK): measure.CompileError's.
	Hint string
}

func (e *CompileError) Error() string { return "the project does not compile" }

// measureOne measures one workload through svc and returns its result; the
// workload's failure is the error (a *measured.WorkloadError when the
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

// NoWorkload, given as --workload, calls the method itself with --args,
// whatever workload its source binds it to.
const NoWorkload = "none"

// Selection is a workload as a user names it on the command line:
// --method, --workload and --args, the last two optional. What the user
// leaves out comes from the method's source, as the editor's lenses take
// it (SelectWorkloads); what the user gives overrides the source.
type Selection struct {
	Method string
	// Workload is the generator or workload loop ("" = the method's own
	// binding; NoWorkload = none: the method is called with Args).
	Workload string
	Args     string
	ArgsSet  bool // Args was given, possibly empty (a generator without parameters)
}

// Named is the workload s names as written — NoWorkload read as none, an
// empty Workload as no generator yet — or why its method, generator or
// arguments do not parse.
func (s Selection) Named() (Workload, error) {
	gen := s.Workload
	if gen == NoWorkload {
		gen = ""
	}
	return ParseWorkload(s.Method, gen, s.Args)
}

// Selected are the workloads a selection names.
type Selected struct {
	Workloads []Workload
	// From says, per workload, where the source supplied something ("" =
	// the command line named it all): "@Workload", "a formula", "@Param
	// minimum"…
	From []string
	// Problems are bindings of the method that could not be used (a
	// @Workload naming no generator, a parameter without a documented
	// minimum); the others were.
	Problems []string
	// Warnings are about the workloads chosen: an argument every call but
	// the first would see used up (consumedWarnings).
	Warnings []string
}

// Note says, for the user, which workloads the source supplied; "" when
// the command line named them all.
func (s *Selected) Note() string {
	var parts []string
	for i, w := range s.Workloads {
		if s.From[i] != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", w, s.From[i]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	what := "workload"
	if len(parts) > 1 {
		what = fmt.Sprintf("%d workloads", len(parts))
	}
	note := fmt.Sprintf("%s from the source: %s", what, strings.Join(parts, ", "))
	if len(s.Problems) > 0 {
		note += "; not usable: " + strings.Join(s.Problems, "; ")
	}
	return note
}

// WorkloadsOf is what a command runs an action on: SelectWorkloads, or
// with calibrated the method's calibrated workloads (CalibratedWorkloads:
// the calibration chose them, so nothing is noted about their source).
func (e *Engine) WorkloadsOf(ctx context.Context, dir string, sel Selection, calibrated bool) (*Selected, error) {
	if !calibrated {
		return SelectWorkloads(ctx, dir, sel)
	}
	ws, err := e.CalibratedWorkloads(ctx, sel)
	if err != nil {
		return nil, err
	}
	return &Selected{Workloads: ws, From: make([]string, len(ws))}, nil
}

// SelectWorkloads turns a selection into the workloads to act on, reading
// the method's binding from the project's source in dir exactly as the
// editor's lenses do (MethodRequest, sourceWorkloads):
//
//   - --workload named: that generator or loop, with --args, else with its
//     parameters' documented minimums (@Param(min = …));
//   - else, a method with bindings — @Workload generators (@Workloads),
//     formulas measuring SELF[gen](…) — is measured on each of them, as
//     the editor's Measure, Profile and Calibrate lenses do: with --args
//     given, each distinct generator with those arguments; without, each
//     formula's arguments and each @Workload with its documented minimums;
//   - a workload loop (void w(SPLController spl, …)), a method without
//     bindings, a method the source does not declare (a library's) and
//     --workload none: the method itself with --args (a loop without
//     them: its documented minimums).
//
// It fails, saying why and what to do, when the method has bindings but
// none is usable, or when overloads with bindings leave the choice open.
func SelectWorkloads(ctx context.Context, dir string, sel Selection) (*Selected, error) {
	w, err := ParseWorkload(sel.Method, "", sel.Args)
	if err != nil {
		return nil, err
	}
	direct := &Selected{Workloads: []Workload{w}, From: []string{""}}
	if sel.Workload == NoWorkload {
		return direct, nil
	}
	src, err := readSources(ctx, dir, nil)
	if err != nil {
		return nil, err
	}
	decl, file, declErr := sourceMethod(src.files, w.Method)
	if sel.Workload != "" {
		g, err := methodspec.Parse(sel.Workload)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		w.Generator = &g
		out := &Selected{Workloads: []Workload{w}, From: []string{""}}
		gen := findDecl(src.files, g)
		if !sel.ArgsSet {
			if out, err = withDocumentedArgs(w, gen, "--workload "+sel.Workload); err != nil {
				return nil, err
			}
		}
		if decl != nil && (gen == nil || !isLoop(gen)) {
			out.Warnings = consumedWarnings(decl)
		}
		return out, nil
	}
	if declErr != nil || decl == nil {
		return direct, declErr // not in the source: the method itself, as named
	}
	if isLoop(decl) {
		if sel.ArgsSet {
			return direct, nil
		}
		return withDocumentedArgs(w, decl, "the workload loop "+sel.Method)
	}
	req := MethodRequest{Root: dir, File: file.Path, Class: decl.Type.BinaryName, Method: decl.Name, Params: erasedParams(decl)}
	ws, err := sourceWorkloads(src, req, !sel.ArgsSet)
	if err != nil {
		return nil, err
	}
	if len(ws.reqs) == 0 {
		if len(ws.problems) == 0 {
			return direct, nil // no binding: the method itself, as before
		}
		return nil, fmt.Errorf("%s: %s; give the arguments with --args, name another workload with --workload, or call the method itself with --workload %s --args …",
			w.Method, strings.Join(ws.problems, "; "), NoWorkload)
	}
	out := &Selected{Problems: ws.problems, Warnings: ws.warnings}
	seen := map[string]bool{}
	for i, r := range ws.reqs {
		sw := requestWorkload(r)
		from := ws.from[i]
		if sel.ArgsSet {
			if seen[sw.generator()] {
				continue // a formula's generator measured at several sizes: once, with --args
			}
			seen[sw.generator()] = true
			sw.Args, from = w.Args, strings.SplitN(from, ",", 2)[0]
		}
		out.Workloads, out.From = append(out.Workloads, sw), append(out.From, from)
	}
	return out, nil
}

// requestWorkload is the workload of a planned request.
func requestWorkload(r workspace.Request) Workload {
	it := item(r)
	w := Workload{Method: it.Method, Args: it.Args}
	if it.Generator.Class != "" {
		w.Generator = &it.Generator
	}
	return w
}

// withDocumentedArgs is w called with each of decl's parameters' documented
// minimums (none when decl, outside the source, is nil); what names w in
// the refusal when one is missing.
func withDocumentedArgs(w Workload, decl *javasrc.Method, what string) (*Selected, error) {
	args, err := documentedArgs(decl)
	if err != nil {
		return nil, fmt.Errorf("%s: %w, or give --args", what, err)
	}
	from := ""
	for _, a := range args {
		w.Args = append(w.Args, arg(a))
		from = "@Param minimum"
	}
	return &Selected{Workloads: []Workload{w}, From: []string{from}}, nil
}

// sourceMethod is the source's declaration of the method s names, nil when
// the source has none. Of overloads (s without parameter types), the one
// with bindings is taken; it fails when several have bindings.
func sourceMethod(files []*javasrc.File, s methodspec.Spec) (*javasrc.Method, *javasrc.File, error) {
	type found struct {
		m *javasrc.Method
		f *javasrc.File
	}
	var all, bound []found
	for _, f := range files {
		for _, m := range f.Methods {
			if declIs(m, s) {
				all = append(all, found{m, f})
				if len(m.Workloads) > 0 || len(m.SPL) > 0 {
					bound = append(bound, found{m, f})
				}
			}
		}
	}
	switch {
	case len(all) == 1:
		return all[0].m, all[0].f, nil
	case len(bound) == 1:
		return bound[0].m, bound[0].f, nil
	case len(bound) > 1:
		var names []string
		for _, b := range bound {
			names = append(names, fmt.Sprintf("%s#%s(%s)", b.m.Type.BinaryName, b.m.Name, strings.Join(erasedParams(b.m), ",")))
		}
		return nil, nil, fmt.Errorf("%s names %d overloads with workloads (%s): give the parameter types, e.g. --method '%s'", s, len(bound), strings.Join(names, ", "), names[0])
	}
	return nil, nil, nil
}

func erasedParams(m *javasrc.Method) []string {
	out := make([]string, len(m.Params))
	for i, p := range m.Params {
		out[i] = p.Erased
	}
	return out
}

// isLoop tells a workload loop: its first parameter is the SPLController.
func isLoop(m *javasrc.Method) bool {
	return len(m.Params) > 0 && (m.Params[0].Erased == "SPLController" || strings.HasSuffix(m.Params[0].Erased, ".SPLController"))
}

// consumedOnce are the simple names of parameter types whose object a call
// uses up (reading it, iterating it), by suffix: a generator's tuples are
// built once per fork and passed to every call, so all calls but the first
// would see it empty.
var consumedOnce = []string{"Reader", "InputStream", "Iterator", "Spliterator", "Enumeration", "Scanner", "InputSource", "Stream"}

// consumedWarnings warn, for a method measured on a generator, about each
// parameter of a type a call consumes, and say what to do instead.
func consumedWarnings(m *javasrc.Method) []string {
	var out []string
	for _, p := range m.Params {
		simple := p.Erased[strings.LastIndexByte(p.Erased, '.')+1:]
		for _, s := range consumedOnce {
			if strings.HasSuffix(simple, s) && !strings.HasSuffix(simple, "OutputStream") {
				out = append(out, fmt.Sprintf("parameter %s of %s is a %s: a generator's arguments are built once per fork and passed to every call, so the first call consumes it and the others see it empty; "+
					"measure it with a workload loop that creates or resets it before spl.start() (docs/measurement.md, \"Arguments are built once per fork\")", p.Name, m.Name, p.Erased))
				break
			}
		}
	}
	return out
}
