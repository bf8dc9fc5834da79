// Package service is perfls's measurement server: it answers measurement
// requests from the cache when a fresh result exists, and otherwise compiles
// the project, measures in forked JVMs through one scheduler, and stores the
// result. The same Local service runs inside a per-user daemon (shared by
// every editor and the CLI) or in-process when no daemon runs.
package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"

	"gonum.org/v1/gonum/stat"

	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/measure"
)

// Item is one measurement wanted: a method run on a generator's inputs.
type Item struct {
	Method    methodspec.Spec `json:"method"`
	Generator methodspec.Spec `json:"generator"`
	Args      []measured.Arg  `json:"args"`
}

// Params is a measurement request for one project.
type Params struct {
	Project string `json:"project"` // absolute project directory
	// Commit, for a project that is a commit's materialised tree (not a
	// git work tree), is that commit, and Tree the git tree hash of the
	// project's directory in it: results are stored with them. "" for a
	// work tree, whose HEAD (and changes) git tells (ProjectCommit).
	Commit   string          `json:"commit,omitempty"`
	Tree     string          `json:"tree,omitempty"`
	Items    []Item          `json:"items"`
	Options  measure.Options `json:"options"`
	Priority Priority        `json:"priority"`
	Fresh    bool            `json:"fresh"`  // measure even when the cache has a fresh result
	Budget   time.Duration   `json:"budget"` // per item; 0 = no limit
	Phase    Phase           `json:"phase,omitempty"`
	// Profile asks for one profiled fork per item instead of timing forks
	// (profile.go): ItemResult.Profile, cached as a profile, never as a
	// measurement. With PhaseQuick it asks instead for a quick profile in
	// the warm worker JVM (ItemResult.PreliminaryProfile, never cached;
	// without Fresh a cached profiled fork with Options answers instead),
	// run with QuickOptions when given; PhaseBoth is PhaseFull for
	// profiles (the engine asks for the quick profile first).
	Profile      bool             `json:"profile,omitempty"`
	QuickOptions *measure.Options `json:"quick_options,omitempty"`
	// Count asks for one counting fork per item instead of timing forks
	// (count.go): ItemResult.Counts, invocations per operation of the
	// project's methods. Phase and Profile are ignored.
	Count bool `json:"count,omitempty"`
	// Besides, with Fresh, lets a stored measurement of the same key with
	// the forks asked for answer when it is none of these (by ID): forks
	// another run measured are as new to the caller as forks measured now
	// (check's added forks, reused by a second machine). A service that
	// does not know it measures, which is only slower.
	Besides []int64 `json:"besides,omitempty"`
	// ClasspathFile, when set, is the absolute path of a file holding the
	// project's whole classpath (measure.Project.UseClasspathFile): what a
	// build tool's plugin resolved, passed by perfls check --classpath-file.
	ClasspathFile string `json:"classpath_file,omitempty"`
}

// Phase says which measurements a request wants.
type Phase string

const (
	// PhaseFull (the default) measures in forked JVMs.
	PhaseFull Phase = ""
	// PhaseQuick measures once in the service's warm worker JVM: a
	// preliminary figure, in ItemResult.Preliminary, and nothing else.
	PhaseQuick Phase = "quick"
	// PhaseBoth streams the preliminary figure as a Progress first, then
	// measures in forked JVMs.
	PhaseBoth Phase = "both"
)

// ItemResult is the outcome of one Item, in the same order as Params.Items.
type ItemResult struct {
	Method   string                  `json:"method"`   // resolved, e.g. p.C#m(int[])
	Workload string                  `json:"workload"` // resolved generator
	Args     []measured.Arg          `json:"args"`
	Forks    []measured.Fork         `json:"forks"`
	Env      measured.Environment    `json:"environment"`
	Error    string                  `json:"error,omitempty"`   // the measurement failed
	Failure  *measured.WorkloadError `json:"failure,omitempty"` // where and how, when the workload failed
	// History holds the fork means of earlier measurements with the same
	// key (same code, JVM and machine): the run history that lets the
	// parametric interpretation estimate between-run variance.
	History    []float64 `json:"history,omitempty"`
	Cached     bool      `json:"cached"` // answered from the cache
	MeasuredAt time.Time `json:"measured_at"`
	CacheID    int64     `json:"cache_id,omitempty"`
	// Preliminary is the quick phase's figure (PhaseQuick and PhaseBoth;
	// nil when the cache answered): one run in a warm JVM, short warm-up,
	// few samples.
	Preliminary *Preliminary `json:"preliminary,omitempty"`
	// Profile is the profiled fork's summary (Params.Profile).
	Profile *profile.Summary `json:"profile,omitempty"`
	// PreliminaryProfile is the summary of a quick profile in the warm
	// worker JVM (Params.Profile with PhaseQuick): never cached, never
	// feeds a verdict.
	PreliminaryProfile *profile.Summary `json:"preliminary_profile,omitempty"`
	// Counts are the counting fork's invocation counts (Params.Count).
	Counts *measured.CallCounts `json:"counts,omitempty"`
}

// fail records that the measurement failed with err, and where and how
// when the workload failed.
func (out *ItemResult) fail(err error) {
	out.Error = err.Error()
	var we *measured.WorkloadError
	if errors.As(err, &we) {
		out.Failure = we
	}
}

// Preliminary is a quick-phase figure: one run in the warm worker JVM.
type Preliminary struct {
	Fork measured.Fork        `json:"fork"`
	Env  measured.Environment `json:"environment"`
}

// Response answers Params.
type Response struct {
	Items         []ItemResult               `json:"items"`
	CompileErrors []measured.CompilerMessage `json:"compile_errors,omitempty"` // the project did not compile
	// CompileHint says what likely made it fail and what fixes it (a
	// missing dependency, code older than the JDK); also a notice.
	CompileHint string   `json:"compile_hint,omitempty"`
	Notices     []string `json:"notices,omitempty"` // e.g. a corrupt cache was set aside
}

// Status describes what a measurement server is doing.
type Status struct {
	PID      int         `json:"pid"`
	Socket   string      `json:"socket,omitempty"`
	Cache    string      `json:"cache"`               // the store's file
	CacheDir string      `json:"cache_dir,omitempty"` // the daemon's cache directory, absolute
	Started  time.Time   `json:"started"`
	Jobs     []JobStatus `json:"jobs"`
	Finished int         `json:"finished"`
}

// Service measures. Local implements it in this process; Client through the
// daemon.
type Service interface {
	Measure(ctx context.Context, p Params, progress func(Progress)) (*Response, error)
	Status(ctx context.Context) (*Status, error)
	Close() error
}

// Local is the in-process service.
type Local struct {
	cacheDir string
	store    *cache.Store    // nil: no cache; owned by the caller of NewLocal
	worker   *measure.Worker // the quick phase's JVM, started on first use
	maxBytes int64           // size limit of stored samples; older measurements are evicted
	// notice is what opening the cache found: repeated in every response
	// while there is no cache, given once when the cache was set aside
	// or is read-only.
	noticeMu sync.Mutex
	notice   string
	sched    *Scheduler
	started  time.Time

	buildMu sync.Mutex
	builds  map[string]*sync.Mutex // per project: one compile at a time

	// resolved memoizes resolution by spec, JVM, the fingerprint of the
	// spec's class and the dependencies' digest, so a request the cache
	// answers starts no JVM; nil until first read from the cache
	// directory (resolved.go).
	resolvedMu sync.Mutex
	resolved   map[string]measured.Resolved
}

// NewLocal starts a scheduler running concurrency measurements at once (1
// unless the user asks otherwise) that compiles into cacheDir and keeps its
// results in store. The caller owns store (nil: measure without a cache) and
// closes it after the service.
func NewLocal(ctx context.Context, cacheDir string, store *cache.Store, concurrency int) *Local {
	l := &Local{cacheDir: cacheDir, store: store, sched: NewScheduler(concurrency), started: time.Now(), maxBytes: cacheLimit(),
		builds: map[string]*sync.Mutex{},
		// The worker outlives requests (that is what makes it quick) and
		// stops with the service: Close stops it.
		worker: measure.NewWorker(context.WithoutCancel(ctx))}
	if store == nil {
		l.notice = "measuring without a cache: the measurement store could not be opened"
	}
	return l
}

// DefaultCacheMB is the default size limit of the stored samples, in MiB;
// PERFLS_CACHE_MAX_MB overrides it.
const DefaultCacheMB = 1024

func cacheLimit() int64 {
	mb := int64(DefaultCacheMB)
	if v, err := strconv.ParseInt(os.Getenv("PERFLS_CACHE_MAX_MB"), 10, 64); err == nil && v > 0 {
		mb = v
	}
	return mb << 20
}

// Close stops the scheduler (cancelling running forks) and the worker JVM;
// the store stays open for its owner.
func (l *Local) Close() error {
	l.sched.Close()
	l.worker.Close()
	return nil
}

// Status reports the scheduler's jobs.
func (l *Local) Status(context.Context) (*Status, error) {
	jobs, finished := l.sched.Status()
	st := &Status{Started: l.started, Jobs: jobs, Finished: finished, Cache: l.cacheDir}
	if l.store != nil {
		st.Cache = l.store.Path()
	}
	return st, nil
}

// Measure answers p: from the cache where a fresh result exists, else by
// measuring. Per-item failures are reported in the items; the error is for
// failures of the whole request (no JDK, unreadable project, cancelled).
func (l *Local) Measure(ctx context.Context, p Params, progress func(Progress)) (*Response, error) {
	// The scheduler runs jobs under contexts of its own, which carry no
	// gate: the request is the place to ask.
	if err := trust.Check(ctx, "measure"); err != nil {
		return nil, err
	}
	resp := &Response{Items: make([]ItemResult, len(p.Items))}
	l.takeNotice(resp)
	// Problems with the cache do not fail the request, but the user hears
	// of each: a result that could not be saved is measured again next time.
	var noticeMu sync.Mutex
	warn := func(msg string) {
		noticeMu.Lock()
		defer noticeMu.Unlock()
		if !slices.Contains(resp.Notices, msg) {
			resp.Notices = append(resp.Notices, msg)
		}
	}
	defer func() {
		if l.store != nil {
			for _, n := range l.store.Notices() {
				warn(n)
			}
		}
	}()
	proj, err := l.openProject(ctx, &p)
	if err != nil {
		return nil, err
	}
	build, err := l.compile(ctx, proj)
	var ce *measure.CompileError
	if errors.As(err, &ce) {
		resp.CompileErrors = ce.Messages
		if ce.Hint != "" { // a missing dependency, a newer JDK: what to do
			resp.Notices = append(resp.Notices, ce.Hint)
			resp.CompileHint = ce.Hint
		}
		return resp, nil
	}
	if err != nil {
		return nil, err
	}
	for _, n := range build.Notices { // a build tool that failed to give the classpath
		warn(n)
	}
	b := &batch{p: p, proj: proj, build: build, opt: p.Options.Defaults(), progress: progress, warn: warn}
	if err := l.measureItems(ctx, b, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// takeNotice adds what opening the cache found to resp: every time while
// there is no cache, once otherwise.
func (l *Local) takeNotice(resp *Response) {
	l.noticeMu.Lock()
	defer l.noticeMu.Unlock()
	if l.notice != "" {
		resp.Notices = append(resp.Notices, l.notice)
		if l.store != nil {
			l.notice = ""
		}
	}
}

// openProject finds p's project and applies its settings, putting
// perfls.json's JVM flags into p's options.
func (l *Local) openProject(ctx context.Context, p *Params) (*measure.Project, error) {
	if p.Project == "" {
		return nil, errors.New("measure: the request names no project directory")
	}
	proj, err := measure.FindProject(p.Project)
	if err != nil {
		return nil, err
	}
	if p.ClasspathFile != "" {
		if err := proj.UseClasspathFile(p.ClasspathFile); err != nil {
			return nil, err
		}
	}
	// perfls.json's JVM flags come first: the request's (the command line,
	// the editor's settings) can override them.
	p.Options.JVMArgs = append(slices.Clone(proj.JVMArgs), p.Options.JVMArgs...)
	if q := p.QuickOptions; q != nil {
		qo := *q
		qo.JVMArgs = append(slices.Clone(proj.JVMArgs), qo.JVMArgs...)
		p.QuickOptions = &qo
	}
	// The release and javac flags asked for; a JVM older than the
	// compiling JDK (an editor's javaHome) needs classes compiled for its
	// release.
	if err := proj.ApplyOptions(ctx, p.Options); err != nil {
		return nil, err
	}
	return proj, nil
}

// batch is what the items of one Measure request share, and the
// goroutines measuring them.
type batch struct {
	p        Params
	proj     *measure.Project
	build    *measure.Build
	opt      measure.Options // p.Options with defaults
	jvm      string          // measure.JVMIdentity of opt
	progress func(Progress)
	warn     func(string)

	wg      sync.WaitGroup // the items being measured
	planned int            // forks to run, for progress bars

	// The commit the project holds, asked of git once per batch (commitOf)
	// when an item is answered from the cache.
	commitOnce sync.Once
	commit     string
	dirty      bool
}

// distinctSpecs lists every distinct method and generator of items once,
// with each one's index in the list by its string.
func distinctSpecs(items []Item) ([]methodspec.Spec, map[string]int) {
	var specs []methodspec.Spec
	index := map[string]int{}
	for _, it := range items {
		for _, s := range []methodspec.Spec{it.Method, it.Generator} {
			if s.Class == "" {
				continue // no generator: the method takes the literal arguments
			}
			if _, ok := index[s.String()]; !ok {
				index[s.String()] = len(specs)
				specs = append(specs, s)
			}
		}
	}
	return specs, index
}

// itemRequest is the request of it from the resolved methods and
// generators, or why they could not be resolved.
func itemRequest(it Item, index map[string]int, resolved []measured.Resolved, errs []error) (measured.Request, error) {
	mi := index[it.Method.String()]
	req := measured.Request{Method: resolved[mi], Args: it.Args}
	err := errs[mi]
	if it.Generator.Class != "" {
		gi := index[it.Generator.String()]
		req.Generator = resolved[gi]
		err = errors.Join(err, errs[gi])
	}
	return req, err
}

// measureItems resolves every distinct method and generator once, then
// answers or measures each item of b into resp, measuring once what several
// items name.
func (l *Local) measureItems(ctx context.Context, b *batch, resp *Response) error {
	specs, index := distinctSpecs(b.p.Items)
	jvm, err := measure.JVMIdentity(b.opt)
	if err != nil {
		return err
	}
	b.jvm = jvm
	resolved, errs, err := l.resolve(ctx, b.build, specs, jvm)
	if err != nil {
		return err
	}
	first := map[string]int{} // cache key → the item measuring it
	var copies [][2]int       // (item, the item whose result it shares)
	for i, it := range b.p.Items {
		out := &resp.Items[i]
		out.Args = it.Args
		req, err := itemRequest(it, index, resolved, errs)
		if err != nil {
			out.Error = err.Error()
			continue
		}
		out.Method = req.Method.String()
		if !req.Generator.IsZero() {
			out.Workload = req.Generator.String()
		}
		if req.Generator.IsLoop() {
			// m[loop](args): the loop drives m itself, so what is measured
			// (and cached) is the loop, whichever method names it.
			if n := loopMisses(b.build, req); n != "" {
				b.warn(n)
			}
			req = measured.Request{Method: req.Generator, Args: req.Args}
		}
		key, err := l.key(b.build, req, b.opt, jvm)
		if err != nil {
			out.Error = err.Error()
			continue
		}
		if j, ok := first[key.Hash()]; ok {
			// The same measurement under another name (loops standing for
			// several methods): measured once.
			copies = append(copies, [2]int{i, j})
			continue
		}
		first[key.Hash()] = i
		l.startItem(ctx, b, req, key, out)
	}
	if b.planned > 0 && b.progress != nil {
		b.progress(Progress{Planned: b.planned}) // no message: a count for progress bars
	}
	b.wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, c := range copies {
		named := resp.Items[c[0]]
		resp.Items[c[0]] = resp.Items[c[1]]
		resp.Items[c[0]].Method, resp.Items[c[0]].Workload = named.Method, named.Workload
	}
	return nil
}

// startItem answers out from the cache where it can, else starts measuring
// req in b's goroutines: call counts, a profile or timings, as b asks.
func (l *Local) startItem(ctx context.Context, b *batch, req measured.Request, key cache.Key, out *ItemResult) {
	p, build, opt, progress, warn := b.p, b.build, b.opt, b.progress, b.warn
	if p.Count {
		if !p.Fresh && l.countFromCache(ctx, key, out) {
			return
		}
		b.planned++
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			l.countItem(ctx, p, b.proj, build, req, key, p.Options, out, progress, warn)
		}()
		return
	}
	if p.Profile && p.Phase == PhaseQuick {
		if !p.Fresh && l.profileFromCache(ctx, key, out, warn) {
			return // a forked profile of this code: better than a quick one
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			l.profileQuick(ctx, p, build, req, key, opt, out, progress)
		}()
		return
	}
	if p.Profile {
		if !p.Fresh && l.profileFromCache(ctx, key, out, warn) {
			return
		}
		b.planned++
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			l.profileItem(ctx, p, build, req, key, opt, out, progress, warn)
		}()
		return
	}
	if (!p.Fresh || p.Besides != nil) && l.answerFromCache(ctx, key, opt, p.Besides, out, warn) {
		if p.Besides == nil {
			l.noteSeenAt(ctx, b, out.CacheID)
		}
		l.addHistory(ctx, key, out, warn)
		return
	}
	if p.Phase != PhaseQuick {
		b.planned += opt.Forks
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if p.Phase == PhaseQuick || p.Phase == PhaseBoth {
			if !l.measureQuick(ctx, p, build, req, key, opt, out, progress) || p.Phase == PhaseQuick {
				return
			}
		}
		l.measureItem(ctx, p, build, req, key, opt, out, progress, warn)
		l.addHistory(ctx, key, out, warn)
	}()
}

// loopMisses says when the workload loop of req cannot reach the class of
// the method it stands for: its figure would not be that method's.
func loopMisses(b *measure.Build, req measured.Request) string {
	_, covered, err := cache.Fingerprint(classDirs(b), []string{req.Generator.Class})
	if err != nil || slices.Contains(covered, req.Method.Class) {
		return ""
	}
	if _, err := os.Stat(filepath.Join(b.ClassesDir, filepath.FromSlash(strings.ReplaceAll(req.Method.Class, ".", "/"))+".class")); err != nil {
		return "" // not a project class (the JDK's, a jar's): not followed
	}
	return fmt.Sprintf("workload loop %s does not reach %s: its figure is the loop's, not %s's", req.Generator, req.Method.Class, req.Method)
}

// key builds the cache key of req (DESIGN §7).
func (l *Local) key(b *measure.Build, req measured.Request, opt measure.Options, jvm string) (cache.Key, error) {
	roots := []string{req.Method.Class}
	if !req.Generator.IsZero() {
		roots = append(roots, req.Generator.Class)
	}
	code, _, err := cache.Fingerprint(classDirs(b), roots)
	if err != nil {
		return cache.Key{}, err
	}
	// The project's classes are followed from the roots; what they use
	// from jars and other class folders counts as a whole.
	deps, err := measure.ClasspathDigest(dependencies(b))
	if err != nil {
		return cache.Key{}, err
	}
	code += " classpath:" + deps
	workload := ""
	if !req.Generator.IsZero() {
		workload = req.Generator.String()
	}
	return cache.Key{
		Method:   req.Method.String(),
		Workload: workload,
		Args:     measure.ArgsKey(req.Args),
		Code:     code,
		JVM:      jvm,
		Harness:  measure.HarnessSettings(opt),
		Machine:  measure.MachineIdentity(),
	}, nil
}

// answerFromCache fills out from a fresh cached result with at least the
// requested forks and samples, and reports whether it did.
func (l *Local) answerFromCache(ctx context.Context, key cache.Key, opt measure.Options, besides []int64, out *ItemResult, warn func(string)) bool {
	if l.store == nil {
		return false
	}
	var m *cache.Measurement
	var stale bool
	var err error
	if besides != nil {
		m, err = l.store.LookupOther(ctx, key, besides)
	} else {
		m, stale, err = l.store.Lookup(ctx, key)
	}
	if err != nil && ctx.Err() == nil {
		warn(fmt.Sprintf("could not read the cache %s (%v): measuring again", l.store.Path(), err))
	}
	if err != nil || m == nil || stale || len(m.Forks) < opt.Forks {
		return false
	}
	for _, f := range m.Forks {
		if len(f.NsPerOp) < opt.SamplesPerFork {
			return false
		}
	}
	fillFromCache(out, m)
	return true
}

func fillFromCache(out *ItemResult, m *cache.Measurement) {
	out.Cached, out.CacheID, out.MeasuredAt = true, m.ID, m.CreatedAt
	json.Unmarshal(m.Environment, &out.Env)
	out.Forks = m.Forks
}

// measureItem measures one item through the scheduler as a job of one fork
// per step: the forks of items measured at the same time — from this request
// or another editor's — run round-robin, as measure.Measure runs the forks of
// one call, so a disturbance of the machine spreads over all of them. Every
// step is a fresh JVM; its harness is compiled once and then found in the
// harness cache by content.
func (l *Local) measureItem(ctx context.Context, p Params, build *measure.Build, req measured.Request, key cache.Key, opt measure.Options, out *ItemResult, progress func(Progress), warn func(string)) {
	one := opt
	one.Forks = 1
	var acc measured.Result // the forks so far; owned by the job's steps, which never overlap
	step := func(ctx context.Context, emit func(Progress)) (any, bool, error) {
		f := len(acc.Forks) + 1
		results, err := measure.Measure(ctx, build, []measured.Request{req}, one, func(e measure.Event) {
			if e.Fork == 0 {
				return // the request failed before its fork: reported below
			}
			p := Progress{Message: fmt.Sprintf("fork %d/%d of %s", f, opt.Forks, req.Key()), Fork: f, Of: opt.Forks}
			if e.Done && e.Result != nil && len(e.Result.NsPerOp) > 0 {
				p.NsPerOp = stat.Mean(e.Result.NsPerOp, nil)
				p.Message += fmt.Sprintf(": %.4g ns/op", p.NsPerOp)
			} else if e.Done {
				p.Message += " done"
			}
			emit(p)
		})
		partial := func() any {
			if len(acc.Forks) == 0 {
				return nil
			}
			return storedResult{Result: acc, at: time.Now()}
		}
		if err != nil {
			return partial(), false, err
		}
		res := results[0]
		if res.Err != nil {
			// Later forks would fail the same way: the job ends here, with
			// the forks that succeeded and the failure, numbered as the fork
			// it was.
			acc.Err = res.Err
			if we := (*measured.WorkloadError)(nil); errors.As(res.Err, &we) {
				acc.Err = fmt.Errorf("measure %s (fork %d of %d): %w", req.Key(), f, opt.Forks, we)
			}
			return storedResult{Result: acc, at: time.Now()}, true, nil
		}
		acc.Request = res.Request
		acc.Forks = append(acc.Forks, res.Forks...)
		if acc.Env.JavaVersion == "" {
			acc.Env = res.Env
		}
		if len(acc.Forks) < opt.Forks {
			return partial(), false, nil
		}
		// Which commit was measured, for history across commits and machines.
		acc.Env.Commit, acc.Env.Dirty = l.commitOf(ctx, p)
		return l.save(ctx, key, acc, req.Key(), p.Tree, emit), true, nil
	}
	label := req.Key()
	v, err := l.sched.DoSteps(ctx, key.Hash()+fmt.Sprint(opt.Forks, opt.SamplesPerFork), label, p.Priority, p.Budget, step, progress)
	if err != nil {
		out.Error = err.Error()
		return
	}
	sr := v.(storedResult)
	for _, w := range sr.warnings {
		warn(w)
	}
	out.Forks, out.Env, out.CacheID, out.MeasuredAt = sr.Forks, sr.Env, sr.id, sr.at
	if sr.Err != nil {
		out.fail(sr.Err)
	}
}

// save stores a finished measurement, keeps the cache within its size
// limit, and reports (through emit and the result's warnings) what failed:
// the measurement is returned either way.
func (l *Local) save(ctx context.Context, key cache.Key, acc measured.Result, label, tree string, emit func(Progress)) storedResult {
	if l.store == nil {
		return storedResult{Result: acc, at: time.Now()}
	}
	m := toCache(key, acc)
	m.Commit = acc.Env.Commit
	if !acc.Env.Dirty {
		m.Tree = tree
	}
	if err := l.store.Put(ctx, m); err != nil {
		msg := fmt.Sprintf("could not save the measurement of %s in the cache (%v): it is not kept and will be measured again next time", label, err)
		if cache.IsReadOnly(err) {
			msg += fmt.Sprintf("; make %s writable or set PERFLS_CACHE_DIR to a writable directory", l.store.Path())
		}
		emit(Progress{Message: "warning: " + msg})
		return storedResult{Result: acc, at: time.Now(), warnings: []string{msg}}
	}
	sr := storedResult{Result: acc, id: m.ID, at: m.CreatedAt}
	if _, err := l.store.GC(ctx, l.maxBytes, false); err != nil {
		msg := fmt.Sprintf("could not keep the cache within its size limit: %v", err)
		emit(Progress{Message: "warning: " + msg})
		sr.warnings = append(sr.warnings, msg)
	}
	return sr
}

// measureQuick measures req once in the warm worker JVM, through the
// scheduler so that it does not overlap a fork: at the same priority it runs
// before the item's forks, and an interactive request gets the next turn
// after the fork that is running. The figure goes into out.Preliminary and
// to progress; it is never cached. It reports whether the forks should
// follow: not when the workload failed (they would fail the same way).
func (l *Local) measureQuick(ctx context.Context, p Params, build *measure.Build, req measured.Request, key cache.Key, opt measure.Options, out *ItemResult, progress func(Progress)) bool {
	run := func(ctx context.Context, emit func(Progress)) (any, error) {
		r, err := l.worker.Measure(ctx, build, req, opt)
		if err != nil {
			return nil, err
		}
		if r.Err == nil && len(r.Forks) == 1 && len(r.Forks[0].NsPerOp) > 0 {
			mean := stat.Mean(r.Forks[0].NsPerOp, nil)
			emit(Progress{Message: fmt.Sprintf("preliminary figure of %s: %.4g ns/op", req.Key(), mean),
				NsPerOp: mean, Preliminary: &Preliminary{r.Forks[0], r.Env}})
		}
		return r, nil
	}
	r, ok := l.runResult(ctx, p, key.Hash()+"/quick", req.Key()+" (quick)", run, progress, out)
	if ok {
		out.Preliminary = &Preliminary{r.Forks[0], r.Env}
	}
	return ok
}

// runResult runs a job that returns a measured.Result (one run in the worker
// or one fork) through the scheduler and records in out when it ended and
// how it failed; ok is false when it failed.
func (l *Local) runResult(ctx context.Context, p Params, id, label string, run JobFunc, progress func(Progress), out *ItemResult) (measured.Result, bool) {
	v, err := l.sched.Do(ctx, id, label, p.Priority, p.Budget, run, progress)
	if err != nil {
		out.Error = err.Error()
		return measured.Result{}, false
	}
	r := v.(measured.Result)
	out.MeasuredAt = time.Now()
	if r.Err != nil {
		out.fail(r.Err)
		return r, false
	}
	return r, true
}

// historyLimit bounds how many earlier measurements feed one history.
const historyLimit = 10

// addHistory attaches the fork means of earlier measurements of key.
func (l *Local) addHistory(ctx context.Context, key cache.Key, out *ItemResult, warn func(string)) {
	if l.store == nil || out.Error != "" {
		return
	}
	prev, err := l.store.Previous(ctx, key, out.CacheID, historyLimit)
	if err != nil {
		if ctx.Err() == nil {
			warn(fmt.Sprintf("could not read the run history of %s from the cache (%v): it is decided without it", key.Method, err))
		}
		return
	}
	for _, m := range prev {
		for _, f := range m.Forks {
			if len(f.NsPerOp) > 0 {
				out.History = append(out.History, stat.Mean(f.NsPerOp, nil))
			}
		}
	}
}

type storedResult struct {
	measured.Result
	id       int64
	at       time.Time
	warnings []string // e.g. the result could not be saved
}

func toCache(key cache.Key, res measured.Result) *cache.Measurement {
	env, _ := json.Marshal(res.Env)
	m := &cache.Measurement{Key: key, Environment: env}
	for _, f := range res.Forks {
		// The store keeps the series and the warm-up; the rest (profile,
		// output, pid) is of this run only.
		m.Forks = append(m.Forks, cache.Fork{
			NsPerOp: f.NsPerOp, CPUNsPerOp: f.CPUNsPerOp, AllocBytesPerOp: f.AllocBytesPerOp, GCs: f.GCs,
			Warmup: f.Warmup, WarmupSettled: f.WarmupSettled, Ops: f.Ops,
			GCMs: f.GCMs, HeapUsed: f.HeapUsed, JITMs: f.JITMs, Classes: f.Classes, ProcCPUNsPerOp: f.ProcCPUNsPerOp,
			Processors: f.Processors,
		})
	}
	return m
}

// noteSeenAt records that the cached result id answered for a clean commit,
// so that the result's code is known to be there too (regressions place a
// result at the first commit known to hold its code, also when the same
// code was measured once at a later commit).
func (l *Local) noteSeenAt(ctx context.Context, b *batch, id int64) {
	if l.store == nil {
		return
	}
	b.commitOnce.Do(func() { b.commit, b.dirty = l.commitOf(ctx, b.p) })
	if b.commit == "" || b.dirty {
		return
	}
	if err := l.store.SeenAt(ctx, id, b.commit); err != nil && ctx.Err() == nil {
		b.warn(fmt.Sprintf("could not record in %s that result %d's code is at commit %.12s: %v", l.store.Path(), id, b.commit, err))
	}
}

// commitOf is the commit a request's project holds: the one it names
// (a materialised tree), else its work tree's HEAD and whether the tree
// has changes. A tree materialised in the cache directory is no work
// tree: git would answer for a repository around the cache directory.
func (l *Local) commitOf(ctx context.Context, p Params) (string, bool) {
	if p.Commit != "" {
		return p.Commit, false
	}
	if rel, err := filepath.Rel(filepath.Join(l.cacheDir, "revisions"), p.Project); err == nil && filepath.IsLocal(rel) {
		return "", false
	}
	return measure.ProjectCommit(ctx, p.Project)
}

// compile builds a project, one compile per project at a time.
func (l *Local) compile(ctx context.Context, p *measure.Project) (*measure.Build, error) {
	l.buildMu.Lock()
	mu := l.builds[p.Dir]
	if mu == nil {
		mu = &sync.Mutex{}
		l.builds[p.Dir] = mu
	}
	l.buildMu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	return measure.Compile(ctx, p, l.cacheDir)
}

func classDirs(b *measure.Build) []string {
	return append([]string{b.ClassesDir}, b.ClassDirs...)
}

// dependencies are the classpath entries that are not the project's own
// class directories: perfls's library and the project's jars and class
// folders.
func dependencies(b *measure.Build) []string {
	own := classDirs(b)
	var out []string
	for _, e := range b.Classpath {
		if !slices.Contains(own, e) {
			out = append(out, e)
		}
	}
	return out
}

// resolve resolves specs, starting the resolver JVM only for those not
// resolved before against the same class file, dependencies and JVM, by
// this process or, through the cache directory, another.
func (l *Local) resolve(ctx context.Context, b *measure.Build, specs []methodspec.Spec, jvm string) ([]measured.Resolved, []error, error) {
	out := make([]measured.Resolved, len(specs))
	errs := make([]error, len(specs))
	keys := make([]string, len(specs))
	deps, err := measure.ClasspathDigest(dependencies(b))
	if err != nil {
		return nil, nil, err
	}
	var missing []methodspec.Spec
	var missingAt []int
	l.resolvedMu.Lock()
	if l.resolved == nil {
		l.resolved = map[string]measured.Resolved{}
		for k, e := range loadResolved(l.cacheDir) {
			l.resolved[k] = e.Resolved
		}
	}
	l.resolvedMu.Unlock()
	for i, s := range specs {
		fp, _, err := cache.Fingerprint(classDirs(b), []string{s.Class})
		if err != nil {
			return nil, nil, err
		}
		keys[i] = s.String() + "\x00" + fp + "\x00" + deps + "\x00" + jvm
		l.resolvedMu.Lock()
		r, ok := l.resolved[keys[i]]
		l.resolvedMu.Unlock()
		if ok {
			out[i] = r
			continue
		}
		missing = append(missing, s)
		missingAt = append(missingAt, i)
	}
	if len(missing) == 0 {
		return out, errs, nil
	}
	resolverRuns.Add(1)
	rs, rerrs := measure.Resolve(ctx, b, missing)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	found := map[string]measured.Resolved{}
	l.resolvedMu.Lock()
	for j, i := range missingAt {
		out[i], errs[i] = rs[j], rerrs[j]
		if rerrs[j] == nil {
			l.resolved[keys[i]] = rs[j]
			found[keys[i]] = rs[j]
		}
	}
	l.resolvedMu.Unlock()
	saveResolved(l.cacheDir, found)
	return out, errs, nil
}
