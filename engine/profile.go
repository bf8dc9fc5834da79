package engine

// Profiles: where the time and the memory of one workload go (docs/profiling.md).
// A profile comes from one profiled fork run through the measurement
// service apart from the timing forks; its figures never feed a verdict.
// The service caches only the reduced summary; the engine attributes it
// to the project's declarations and computes the report (hot lines,
// allocation sites, blocking, findings).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/atomicfile"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// profileJVMFlags are the flags a profiled fork runs with before the
// user's: the collector of the validation, in a fixed heap
// (ProfileDefaults.HeapMB). The heap is not pre-touched
// (-XX:+AlwaysPreTouch): on this project's VMs touching 512 MB at start
// took 1 to 30 s, most of a forked profile's time, depending on the host's
// load. What it guarded against — a false ramp from first-touch page
// faults, seen with the validation's driver, which has no memory warm-up —
// the harness's warm-up covers: code that allocates warms up until it has
// allocated the committed heap (rule 5, docs/measurement.md), so eden is
// touched before the recorded iterations, and the old generation is
// touched by the collector, which the ramp's CPU-time series does not see.
var profileJVMFlags = []string{"-XX:+UseSerialGC"}

// ProfileDefaults are perfls's defaults for a profiled fork: 20 recorded
// iterations of at least 50 ms after 500 ms to 2 s of warm-up, in a 512 MB
// heap — the settings the findings were validated with (the validation
// warmed up for 500 ms; the cap keeps a profile quick on a loaded machine,
// where JIT compilation settles late) — then ProfileRampRounds rounds of
// the ramp test's paired control (three windows of 25 ms each).
func ProfileDefaults() measure.Options {
	return measure.Options{Forks: 1, SamplesPerFork: 20, MinSampleTime: 50 * time.Millisecond, Warmup: 500 * time.Millisecond,
		MaxWarmup: 2 * time.Second, ForkTimeout: 90 * time.Second, HeapMB: 512, RampRounds: ProfileRampRounds}
}

// ProfileRampRounds are the rounds of the ramp test's control in a profiled
// fork (docs/profiling.md, "ramp").
const ProfileRampRounds = 30

// ProfileRequest asks for a profile of one workload.
type ProfileRequest struct {
	Dir      string // the project directory (absolute)
	Workload Workload
	// Options of the profiled fork; zero fields take ProfileDefaults'
	// values. Forks is ignored: a profile is one fork.
	Options    measure.Options
	Fresh      bool // profile even when the cache has a profile of this code
	Priority   service.Priority
	Budget     time.Duration
	Thresholds profile.Thresholds // zero: the documented defaults
	Progress   func(service.Progress)
	// Phase: PhaseFull (the default) profiles in a fork; PhaseQuick in the
	// service's warm worker JVM (a preliminary profile, never cached);
	// PhaseBoth first in the worker (given to Preliminary), then in a fork.
	Phase service.Phase
	// Preliminary receives the quick profile of PhaseBoth as it arrives,
	// before the fork; nil: it is not wanted.
	Preliminary func(*Profiled)
	// SharesOnly is for a caller that reads the profile's shares only (a
	// model apportioning its demand to callees): no ramp control in the
	// fork and no counting forks for a treasure hunt; those two findings
	// are then not decided (notes say so).
	SharesOnly bool
}

// Profiled is the profile of one workload.
type Profiled struct {
	Dir              string // the project directory: report files are relative to it
	Method, Workload string // as resolved, e.g. p.C#m(int[])
	Args             []measured.Arg
	Report           *profile.Report
	Profile          *profile.Profile // the attributed profile (pprof, call trees)
	Cached           bool             // answered from the cache
	// Scaling are the invocation counts that decided a treasure hunt; nil
	// when none was to be decided.
	Scaling *profile.Scaling
	// Preliminary marks a quick profile from the warm worker JVM
	// (Report.Preliminary too).
	Preliminary bool
	MeasuredAt  time.Time
	Notices     []string
}

// Profile runs one profiled fork of a workload through the measurement
// service (or takes its summary from the cache while the code is
// unchanged) and attributes it to the project's declarations. A failed
// fork is the error (*measured.WorkloadError when the workload failed,
// *CompileError when the project does not compile).
//
// With PhaseQuick or PhaseBoth the workload is profiled first in the
// service's warm worker JVM (unless the cache has a forked profile of this
// code and Fresh is false: that is the answer then), with the request's
// options but not the profiled fork's own JVM flags, so that the worker
// JVM is the one quick measurements use.
func (e *Engine) Profile(ctx context.Context, req ProfileRequest) (*Profiled, error) {
	if req.Phase == service.PhaseQuick || req.Phase == service.PhaseBoth {
		q, err := e.profileOnce(ctx, req, service.PhaseQuick)
		if err != nil || req.Phase == service.PhaseQuick || !q.Preliminary {
			return q, err
		}
		if req.Preliminary != nil {
			req.Preliminary(q)
		}
	}
	return e.profileOnce(ctx, req, service.PhaseFull)
}

// profileOnce asks the service for one profile: a profiled fork (PhaseFull)
// or a quick profile (PhaseQuick), which the cache may answer with a
// forked one.
func (e *Engine) profileOnce(ctx context.Context, req ProfileRequest, phase service.Phase) (*Profiled, error) {
	opt := ProfileOptions(req.Options)
	if req.SharesOnly {
		opt.RampRounds = -1
	}
	p := service.Params{Project: req.Dir, Items: []service.Item{req.Workload.item()}, Options: opt,
		Priority: req.Priority, Fresh: req.Fresh, Budget: req.Budget, Profile: true, Phase: phase}
	if phase == service.PhaseQuick {
		quick := req.Options  // the worker's own flags, not a profiled fork's
		quick.RampRounds = -1 // and no ramp control: a preliminary profile has no ramp
		p.QuickOptions = &quick
	}
	out := &Profiled{Dir: req.Dir, Method: req.Workload.Method.String(), Workload: req.Workload.generator(), Args: req.Workload.Args}
	// The project's declarations are read while the JVM runs (overlap: a
	// second core is idle while a single-threaded workload is profiled).
	var decls []profile.Declaration
	var declErr error
	parsed := make(chan struct{})
	go func() { // owned by profileOnce, which waits for it before returning
		defer close(parsed)
		decls, declErr = projectDeclarations(ctx, req.Dir)
	}()
	defer func() { <-parsed }()
	resp, it, err := measureOne(ctx, e.service(ctx), p, req.Progress)
	if resp != nil {
		out.Notices = resp.Notices
	}
	if err != nil {
		return out, err
	}
	summary := it.Profile
	if phase == service.PhaseQuick && !it.Cached {
		summary, out.Preliminary = it.PreliminaryProfile, true
	}
	if summary == nil {
		return out, fmt.Errorf("profile %s: the measurement service returned no profile (a daemon of an older perfls? perfls daemon stop)", req.Workload)
	}
	out.Method, out.Workload, out.Cached, out.MeasuredAt = it.Method, it.Workload, it.Cached, it.MeasuredAt
	if <-parsed; declErr != nil {
		return out, declErr
	}
	if err := out.attributeTo(decls, summary, req.Thresholds); err != nil {
		return out, err
	}
	if out.Profile.NeedsCounts(req.Thresholds) {
		switch {
		case req.SharesOnly:
			out.Scaling = &profile.Scaling{Problem: "not asked for"}
		case out.Preliminary:
			out.Scaling = &profile.Scaling{Problem: "a quick profile does not count them; the forked profile does"}
		default:
			out.Scaling = e.huntScaling(ctx, req)
		}
		out.Report = out.Profile.ReportWithCounts(req.Thresholds, out.Scaling)
	}
	if out.Preliminary {
		out.Report.MarkPreliminary()
	}
	return out, nil
}

// huntScaling counts the project's calls and loop passes per operation at
// the workload's size n (its first argument) and at n/4, in counting forks
// (cached like any count): the evidence that decides a circuitous treasure
// hunt (analysis/profile, hunt.go). What could not be counted is the
// Scaling's Problem.
func (e *Engine) huntScaling(ctx context.Context, req ProfileRequest) *profile.Scaling {
	w := req.Workload
	if len(w.Args) == 0 || w.Args[0].IsString {
		return &profile.Scaling{Problem: "the workload has no integer first argument to count it at two sizes"}
	}
	n := w.Args[0].Int
	if n < 40 {
		return &profile.Scaling{Problem: fmt.Sprintf("its first argument, %d, is below 40: counted at a quarter of it, a search cannot be told from an index", n)}
	}
	opt := ProfileOptions(req.Options)
	copt := measure.CountDefaults()
	copt.HeapMB, copt.JVMArgs, copt.Java, copt.CPUs = opt.HeapMB, req.Options.JVMArgs, opt.Java, opt.CPUs
	sc := &profile.Scaling{}
	for _, v := range []int64{n / 4, n} {
		wv := w
		wv.Args = append([]measured.Arg{measured.IntArg(v)}, w.Args[1:]...)
		p := service.Params{Project: req.Dir, Items: []service.Item{wv.item()}, Fresh: req.Fresh, Count: true, Options: copt,
			Priority: req.Priority, Budget: req.Budget}
		_, it, err := measureOne(ctx, e.service(ctx), p, req.Progress)
		switch {
		case err != nil:
			return &profile.Scaling{Problem: fmt.Sprintf("counting at n = %d failed: %v", v, err)}
		case it.Counts == nil:
			return &profile.Scaling{Problem: "the measurement service returned no invocation counts (a daemon of an older perfls? perfls daemon stop)"}
		case !it.Counts.LoopsCounted:
			return &profile.Scaling{Problem: "the counts carry no loop passes (counted by an older perfls; profile again with --fresh)"}
		}
		sc.Sizes = append(sc.Sizes, sizeCounts(float64(v), it.Counts))
	}
	return sc
}

// sizeCounts are a counting fork's counts as the profile's analysis reads them.
func sizeCounts(n float64, c *measured.CallCounts) profile.SizeCounts {
	by := map[string]*profile.MethodCount{}
	var order []string
	get := func(m string) *profile.MethodCount {
		if by[m] == nil {
			by[m] = &profile.MethodCount{Method: m}
			order = append(order, m)
		}
		return by[m]
	}
	for _, cc := range c.Calls {
		get(cc.Method).Calls = cc.PerOp
	}
	for _, cc := range c.Loops {
		get(cc.Method).LoopPasses = cc.PerOp
	}
	out := profile.SizeCounts{N: n}
	for _, m := range order {
		out.Counts = append(out.Counts, *by[m])
	}
	return out
}

// ProfileOptions are the options of a profiled fork asked for with o: its
// zero fields filled from ProfileDefaults, one fork, and the profile's JVM
// flags before the user's. The service adds the recording's own
// (measure.ProfileJVMArgs) and Options.Profile.
func ProfileOptions(o measure.Options) measure.Options {
	o = o.Fill(ProfileDefaults())
	o.Forks = 1
	o.JVMArgs = append(slices.Clone(profileJVMFlags), o.JVMArgs...)
	return o
}

// attribute attributes a summary to the declarations of the project in
// p.Dir and computes the report.
func (p *Profiled) attribute(ctx context.Context, s *profile.Summary, th profile.Thresholds) error {
	decls, err := projectDeclarations(ctx, p.Dir)
	if err != nil {
		return err
	}
	return p.attributeTo(decls, s, th)
}

// attributeTo attributes a summary to decls and computes the report.
func (p *Profiled) attributeTo(decls []profile.Declaration, s *profile.Summary, th profile.Thresholds) error {
	spec, err := methodspec.Parse(p.Method)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	if spec.Params == nil {
		spec.Params = []string{}
	}
	prof, err := profile.New(s, decls, profile.Target{Class: spec.Class, Name: spec.Name, Params: spec.Params})
	if err != nil {
		return fmt.Errorf("profile %s: %w", p.Method, err)
	}
	p.Profile, p.Report = prof, prof.Report(th)
	return nil
}

// projectDeclarations are the declarations of every Java source of the
// project in dir, with paths relative to it.
func projectDeclarations(ctx context.Context, dir string) ([]profile.Declaration, error) {
	src, err := readSources(ctx, dir, func(*workspace.Formula) bool { return false })
	if err != nil {
		return nil, err
	}
	var decls []profile.Declaration
	for _, f := range src.files {
		rel, err := filepath.Rel(src.project.Dir, f.Path)
		if err != nil {
			rel = f.Path
		}
		decls = append(decls, profile.Declarations(f, filepath.ToSlash(rel))...)
	}
	return decls, nil
}

// ProfileMethod profiles one method on its own workloads (those
// MeasureMethod measures), with the editor's settings: the "profile this
// method" lens; with req.Preliminary, each first in the warm worker JVM. A
// workload that cannot be profiled is reported; it fails when none could
// be.
func (e *Engine) ProfileMethod(ctx context.Context, req MethodRequest, report func(string)) ([]*Profiled, error) {
	opt, err := req.options(e.editorBase(ProfileDefaults()))
	if err != nil {
		return nil, err
	}
	w, err := methodWorkloads(req)
	if err != nil {
		return nil, err
	}
	req.warn(w.warnings)
	var out []*Profiled
	var problems []string
	for i, r := range w.reqs {
		wl := requestWorkload(r)
		progress := messages(func(m string) { report(fmt.Sprintf("%d/%d %s", i+1, len(w.reqs), m)) })
		pr := ProfileRequest{Dir: req.dir(), Workload: wl, Options: opt, Priority: service.Interactive,
			Budget: req.Budget, Progress: progress, Preliminary: req.Preliminary}
		if req.Preliminary != nil {
			pr.Phase = service.PhaseBoth
		}
		p, err := e.Profile(ctx, pr)
		if p != nil {
			req.warn(p.Notices)
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		var ce *CompileError
		if errors.As(err, &ce) {
			return out, compileError(ce.Messages)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", wl, err))
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		problems = append(w.problems, problems...)
		return nil, fmt.Errorf("nothing profiled: %s", strings.Join(problems, "; "))
	}
	for _, p := range problems {
		report("not profiled: " + p)
	}
	return out, nil
}

// StoredProfiles are the cached profiles of one method (any workload,
// newest first), attributed to the project's current declarations; it
// measures nothing. A profile of code since edited is shown as it was.
func (e *Engine) StoredProfiles(ctx context.Context, req MethodRequest) ([]*Profiled, error) {
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	spec := methodspec.Spec{Class: req.Class, Name: req.Method, Params: req.Params}
	if spec.Params == nil {
		spec.Params = []string{}
	}
	stored, err := store.ProfilesOf(ctx, cache.KindProfile, spec.Matches)
	if err != nil || len(stored) == 0 {
		return nil, err
	}
	var out []*Profiled
	for _, cp := range stored {
		var s profile.Summary
		if err := json.Unmarshal(cp.Summary, &s); err != nil || s.Validate() != nil {
			continue // an older format: profiled again on request
		}
		p := &Profiled{Dir: req.dir(), Method: cp.Key.Method, Workload: cp.Key.Workload,
			Args: measure.ParseArgs(cp.Key.Args), Cached: true, MeasuredAt: cp.CreatedAt}
		if err := p.attribute(ctx, &s, profile.Thresholds{}); err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, nil
}

// WritePprof writes the profile in pprof format (gzipped protobuf, as
// go tool pprof and other viewers read it) to path, replacing it whole;
// nothing when path is "".
func (p *Profiled) WritePprof(path string) error {
	if path == "" {
		return nil
	}
	if p.Profile == nil {
		return errors.New("write pprof: no profile")
	}
	if err := atomicfile.WriteWith(path, 0o644, p.Profile.Pprof().Write); err != nil {
		return fmt.Errorf("write pprof %s: %w", path, err)
	}
	return nil
}
