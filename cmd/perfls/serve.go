package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/measure"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure/service"
	"github.com/perfls/perfls/server"
)

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	logFile := fl.String("logfile", "", "append server logs to this file (default: stderr)")
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	logOut := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return exitUsage, fmt.Errorf("serve: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	opts := server.Options{Logger: log.New(logOut, "perfls: ", log.LstdFlags)}
	if dir, err := cache.Dir(); err == nil {
		opts.CacheDir = dir
		if store, notice, err := cache.OpenStore(ctx, dir); err == nil {
			defer store.Close()
			opts.Verdicts = store
			if notice != "" {
				opts.Logger.Print(notice)
			}
		} else {
			opts.Logger.Printf("no recorded verdicts: %v", err)
		}
		lc := &lspChecker{cacheDir: dir, logf: opts.Logger.Printf}
		defer lc.close()
		opts.Checker = lc
	} else {
		opts.Logger.Printf("no cache directory, so no verdicts and no measuring: %v", err)
	}
	// stdout belongs to the protocol from here on. The connection reads
	// stdin through a pipe: closing a blocked read of the process's stdin
	// does not interrupt it, so without the pipe the exit notification
	// would close the connection but leave it waiting for input that the
	// client may never close. The copying goroutine ends at end of input,
	// or with the process.
	in := stdin
	if stdin != nil {
		pr, pw := io.Pipe()
		go func() {
			_, err := io.Copy(pw, stdin)
			pw.CloseWithError(err)
		}()
		in = pr
	}
	conn := server.Serve(ctx, stdio{in: in, out: stdout}, opts)
	select {
	case <-conn.Done():
	case <-ctx.Done():
		conn.Close()
		<-conn.Done()
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, os.ErrClosed) {
		opts.Logger.Printf("connection closed: %v", err)
	}
	return exitOK, nil
}

// stdio joins the process's standard streams into one io.ReadWriteCloser.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	var errs []error
	if c, ok := s.in.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.out.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// lspChecker runs the "Check" code lens through the per-user daemon,
// starting it when none answers — so a daemon that died is replaced on the
// next request — and through an in-process service when no daemon can run.
type lspChecker struct {
	cacheDir string
	logf     func(string, ...any)
	// base are the measurement options before the editor's settings
	// (zero: the defaults); tests make them small.
	base measure.Options
	// inProcess skips the daemon (tests: the daemon is this executable).
	inProcess bool

	mu    sync.Mutex
	local service.Service // fallback, created on first need
}

func (c *lspChecker) service(ctx context.Context) service.Service {
	if exe, err := os.Executable(); err == nil && !c.inProcess {
		if client, err := service.EnsureDaemon(ctx, c.cacheDir, exe); err == nil {
			return client
		} else {
			c.logf("measuring in-process: %v", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local == nil {
		c.local = service.NewLocal(ctx, c.cacheDir, 1)
	}
	return c.local
}

func (c *lspChecker) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local != nil {
		c.local.Close()
	}
}

// lazyService reaches the measurement service only when a measurement is
// needed, so a check with nothing to measure starts no daemon, and applies
// the editor's time budget of one command to its measurements
// (service.Params.Budget, which checkJob does not set itself).
type lazyService struct {
	c      *lspChecker
	budget time.Duration
}

func (l lazyService) Measure(ctx context.Context, p service.Params, progress func(service.Progress)) (*service.Response, error) {
	if p.Budget == 0 && l.budget > 0 && len(p.Items) > 0 {
		// The budget is the command's: each measurement gets an equal
		// share (the service's budget is per item).
		p.Budget = l.budget / time.Duration(len(p.Items))
	}
	return l.c.service(ctx).Measure(ctx, p, progress)
}

func (l lazyService) Status(ctx context.Context) (*service.Status, error) {
	return l.c.service(ctx).Status(ctx)
}

// Close does nothing: the lspChecker owns the service.
func (l lazyService) Close() error { return nil }

// measureOptions turns the editor's JVM settings into measurement options.
// javaHome selects the java that forks; the compiling JDK is the one of the
// measurement service (the daemon's JAVA_HOME / PATH), which compiles for
// javaHome's release when that is older (measure.ForkRelease).
func measureOptions(base measure.Options, req server.CheckRequest) (measure.Options, error) {
	opt := base
	opt.JVMArgs = append(append([]string(nil), base.JVMArgs...), req.JVMArgs...)
	if req.JavaHome != "" {
		java := filepath.Join(req.JavaHome, "bin", "java")
		if info, err := os.Stat(java); err != nil || info.IsDir() {
			return opt, fmt.Errorf("javaHome %s: no bin/java there", req.JavaHome)
		}
		opt.Java = java
	}
	return opt, nil
}

// keepMethod selects the formulas of the requested method.
func keepMethod(req server.CheckRequest) func(*workspace.Formula) bool {
	return func(f *workspace.Formula) bool {
		m := f.Method
		return m != nil && m.Type != nil && f.Path == req.File && isMethod(m, req)
	}
}

func isMethod(m *javasrc.Method, req server.CheckRequest) bool {
	if m.Type == nil || m.Type.BinaryName != req.Class || m.Name != req.Method || len(m.Params) != len(req.Params) {
		return false
	}
	for i, p := range m.Params {
		if p.Erased != req.Params[i] {
			return false
		}
	}
	return true
}

func projectDir(req server.CheckRequest) string {
	if req.Root != "" {
		return req.Root
	}
	return filepath.Dir(req.File)
}

// Check measures and decides the formulas of one method, as an explicit user
// action (the code lens), ahead of batch and background work, with the
// editor's settings (α, interpretation, budget, JVM).
func (c *lspChecker) Check(ctx context.Context, req server.CheckRequest, report func(string)) ([]verdict.MethodResult, error) {
	opts, err := measureOptions(c.base, req)
	if err != nil {
		return nil, err
	}
	job := checkJob{
		dir: projectDir(req), keep: keepMethod(req), priority: service.Interactive, opts: opts,
		interpretation: req.Interpretation,
		progress:       func(p service.Progress) { report(p.Message) },
	}
	if req.Alpha > 0 {
		job.verdict.Alpha, job.alphaSet = req.Alpha, true
	}
	out, err := runCheckJob(ctx, lazyService{c, req.Budget}, job)
	if err != nil {
		return nil, err
	}
	if len(out.compileErrors) > 0 {
		m := out.compileErrors[0]
		return nil, fmt.Errorf("the project does not compile: %s:%d: %s (and %d more)", m.File, m.Line, m.Message, len(out.compileErrors)-1)
	}
	return out.methods, nil
}

// Measure measures one method on its own workloads — those its formulas
// measure SELF on, and its @Workload generators (called with each
// parameter's documented minimum) — and records the figures in the
// method's verdict record, keeping its verdicts.
func (c *lspChecker) Measure(ctx context.Context, req server.CheckRequest, report func(string)) ([]verdict.MethodResult, error) {
	opts, err := measureOptions(c.base, req)
	if err != nil {
		return nil, err
	}
	dir := projectDir(req)
	w, err := methodWorkloads(req)
	if err != nil {
		return nil, err
	}
	reqs, problems, self, selfFile := w.reqs, w.problems, w.self, w.selfFile
	// Both phases: the user who clicked Measure sees a preliminary figure
	// from the warm worker JVM in the progress within a second or so, then
	// the forks refine it.
	params := service.Params{Project: dir, Options: opts, Priority: service.Interactive, Budget: req.Budget, Phase: service.PhaseBoth}
	for _, r := range reqs {
		params.Items = append(params.Items, workloadItem(r))
	}
	resp, err := lazyService{c, req.Budget}.Measure(ctx, params, func(p service.Progress) { report(p.Message) })
	if err != nil {
		return nil, err
	}
	if len(resp.CompileErrors) > 0 {
		m := resp.CompileErrors[0]
		return nil, fmt.Errorf("the project does not compile: %s:%d: %s (and %d more)", m.File, m.Line, m.Message, len(resp.CompileErrors)-1)
	}
	var ms []verdict.Measurement
	var failures []string
	for i, r := range reqs {
		it := resp.Items[i]
		if it.Failure != nil {
			failures = append(failures, it.Failure.Error())
		} else if it.Error != "" {
			failures = append(failures, it.Error)
		}
		ms = addMeasurement(ms, r, it)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("nothing could be measured: %s", strings.Join(append(problems, failures...), "; "))
	}
	for _, p := range append(problems, failures...) {
		report("not measured: " + p)
	}
	rec, err := c.recordMeasurements(ctx, req, self, selfFile, ms)
	if err != nil {
		return nil, err
	}
	return []verdict.MethodResult{rec}, nil
}

// workloads are the workloads of one method: what Measure measures and
// Calibrate calibrates.
type workloads struct {
	reqs     []workspace.Request
	problems []string // @Workload annotations that name no usable workload
	self     *javasrc.Method
	selfFile *javasrc.File
}

// workloadItem is the measurement service's item of a workload.
func workloadItem(r workspace.Request) service.Item {
	item := service.Item{Method: toSpec(r.Method), Generator: toSpec(r.Generator)}
	for _, a := range r.Args {
		item.Args = append(item.Args, toMeasureArg(a))
	}
	return item
}

// methodWorkloads finds the requested method's workloads: those its
// formulas measure SELF on, and its @Workload generators (called with each
// parameter's documented minimum). It fails when there is none.
func methodWorkloads(req server.CheckRequest) (workloads, error) {
	proj, err := measure.FindProject(projectDir(req))
	if err != nil {
		return workloads{}, err
	}
	var files []*javasrc.File
	var formulas []*workspace.Formula
	var self *javasrc.Method
	var selfFile *javasrc.File
	for _, path := range proj.Sources {
		src, err := os.ReadFile(path)
		if err != nil {
			return workloads{}, fmt.Errorf("read %s: %w", path, err)
		}
		f, err := javasrc.Parse(path, src)
		if err != nil {
			return workloads{}, fmt.Errorf("parse %s: %w", path, err)
		}
		files = append(files, f)
		if path != req.File {
			continue
		}
		for _, m := range f.Methods {
			if isMethod(m, req) {
				self, selfFile = m, f
			}
		}
		fs, _ := workspace.JavaFormulas(f)
		for _, fm := range fs {
			if keepMethod(req)(fm) && !fm.Broken {
				formulas = append(formulas, fm)
			}
		}
	}
	if self == nil {
		return workloads{}, fmt.Errorf("%s#%s(%s) is not declared in %s", req.Class, req.Method, strings.Join(req.Params, ","), req.File)
	}
	ix := workspace.NewIndex(files)
	var reqs []workspace.Request
	seen := map[string]bool{}
	addReq := func(r workspace.Request) {
		if !seen[r.Key()] {
			seen[r.Key()] = true
			reqs = append(reqs, r)
		}
	}
	for _, r := range workspace.PlanCheck(ix, formulas).Requests {
		if r.Method.Decl == self {
			addReq(r)
		}
	}
	var problems []string
	at := &workspace.Formula{Path: req.File, File: selfFile, Method: self}
	for _, w := range self.Workloads {
		gen, ds := spl.ParseGenerator(strings.TrimSpace(w.Text))
		if gen == nil || len(ds) > 0 {
			problems = append(problems, fmt.Sprintf("@Workload(%q) is not a generator reference", w.Text))
			continue
		}
		t, err := ix.ResolveGenerator(at, gen)
		if err != nil {
			problems = append(problems, fmt.Sprintf("@Workload(%q): %v", w.Text, err))
			continue
		}
		args, err := documentedArgs(t.Decl)
		if err != nil {
			problems = append(problems, fmt.Sprintf("@Workload(%q): %v", w.Text, err))
			continue
		}
		addReq(workspace.Request{Method: workspace.Target{Class: req.Class, Method: req.Method, Params: req.Params, Decl: self}, Generator: t, Args: args})
	}
	if len(reqs) == 0 {
		msg := "no workload to measure it on: add @Workload(\"pkg.Class#generator\") or a formula measuring SELF[generator](…)"
		if len(problems) > 0 {
			msg = strings.Join(problems, "; ")
		}
		return workloads{}, fmt.Errorf("%s#%s: %s", req.Class, req.Method, msg)
	}
	return workloads{reqs: reqs, problems: problems, self: self, selfFile: selfFile}, nil
}

// documentedArgs are the arguments a @Workload generator is called with:
// each parameter's documented minimum (@Param(min=…), @ParamNum).
func documentedArgs(gen *javasrc.Method) ([]spl.Value, error) {
	if gen == nil {
		return nil, nil // outside the workspace: called without arguments
	}
	var args []spl.Value
	for i, p := range gen.Params {
		if strings.HasSuffix(p.Erased, "SPLController") {
			continue // a workload loop's controller is supplied by the harness
		}
		var min *float64
		if gen.Generator != nil && i < len(gen.Generator.Params) {
			min = gen.Generator.Params[i].Min
		}
		if min == nil {
			return nil, fmt.Errorf("parameter %s of %s has no documented minimum to measure with: add @Param(min = …)", p.Name, gen.Name)
		}
		args = append(args, spl.Value{Kind: spl.Int, Int: int64(*min), Float: float64(int64(*min))})
	}
	return args, nil
}

// recordMeasurements stores the method's new figures in its verdict record
// (created when the method has none), keeping the recorded verdicts.
func (c *lspChecker) recordMeasurements(ctx context.Context, req server.CheckRequest, m *javasrc.Method, f *javasrc.File, ms []verdict.Measurement) (verdict.MethodResult, error) {
	rec := verdict.MethodResult{File: req.File, Class: req.Class, Method: req.Method, Params: req.Params,
		Source: m.SourceHash(f), CheckedAt: time.Now().UTC()}
	store, _, err := cache.OpenStore(ctx, c.cacheDir)
	if err != nil {
		return rec, fmt.Errorf("record measurements: %w", err)
	}
	defer store.Close()
	recs, err := store.Verdicts(ctx)
	if err != nil {
		return rec, err
	}
	for _, r := range recs {
		if r.File == req.File && r.Class == req.Class && r.Method == req.Method && strings.Join(r.Params, ",") == strings.Join(req.Params, ",") {
			hash := rec.Source
			rec = r // keep its verdicts and the source hash they were decided on
			if len(r.Instances) == 0 {
				rec.Source = hash
			}
			break
		}
	}
	rec.Measurements = ms
	if err := store.ReplaceVerdicts(ctx, []verdict.MethodResult{rec}); err != nil {
		return rec, err
	}
	return rec, nil
}
