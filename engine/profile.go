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

	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/atomicfile"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// profileJVMFlags are the flags a profiled fork runs with before the
// user's: the collector and a pre-touched fixed heap of the validation
// (on a VM, first-touch page faults of a heap that grows showed as a false
// ramp).
var profileJVMFlags = []string{"-XX:+UseSerialGC", "-XX:+AlwaysPreTouch"}

// ProfileDefaults are perfls's defaults for a profiled fork: 20 recorded
// iterations of at least 50 ms after 500 ms to 2 s of warm-up, in a 512 MB
// heap — the settings the findings were validated with (the validation
// warmed up for 500 ms; the cap keeps a profile quick on a loaded machine,
// where JIT compilation settles late).
func ProfileDefaults() measure.Options {
	return measure.Options{Forks: 1, SamplesPerFork: 20, MinSampleTime: 50 * time.Millisecond, Warmup: 500 * time.Millisecond,
		MaxWarmup: 2 * time.Second, ForkTimeout: 60 * time.Second, HeapMB: 512}
}

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
}

// Profiled is the profile of one workload.
type Profiled struct {
	Dir              string // the project directory: report files are relative to it
	Method, Workload string // as resolved, e.g. p.C#m(int[])
	Args             []measure.Arg
	Report           *profile.Report
	Profile          *profile.Profile // the attributed profile (pprof, call trees)
	Cached           bool             // answered from the cache
	MeasuredAt       time.Time
	Notices          []string
}

// Profile runs one profiled fork of a workload through the measurement
// service (or takes its summary from the cache while the code is
// unchanged) and attributes it to the project's declarations. A failed
// fork is the error (*measure.WorkloadError when the workload failed,
// *CompileError when the project does not compile).
func (e *Engine) Profile(ctx context.Context, req ProfileRequest) (*Profiled, error) {
	opt := ProfileOptions(req.Options)
	p := service.Params{Project: req.Dir, Items: []service.Item{req.Workload.item()}, Options: opt, Priority: req.Priority,
		Fresh: req.Fresh, Budget: req.Budget, Profile: true}
	out := &Profiled{Dir: req.Dir, Method: req.Workload.Method.String(), Workload: req.Workload.generator(), Args: req.Workload.Args}
	resp, it, err := measureOne(ctx, e.service(ctx), p, req.Progress)
	if resp != nil {
		out.Notices = resp.Notices
	}
	if err != nil {
		return out, err
	}
	if it.Profile == nil {
		return out, fmt.Errorf("profile %s: the measurement service returned no profile (a daemon of an older perfls? perfls daemon stop)", req.Workload)
	}
	out.Method, out.Workload, out.Cached, out.MeasuredAt = it.Method, it.Workload, it.Cached, it.MeasuredAt
	if err := out.attribute(ctx, it.Profile, req.Thresholds); err != nil {
		return out, err
	}
	return out, nil
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
	spec, err := measure.ParseMethodSpec(p.Method)
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
// method" lens. A workload that cannot be profiled is reported; it fails
// when none could be.
func (e *Engine) ProfileMethod(ctx context.Context, req MethodRequest, report func(string)) ([]*Profiled, error) {
	opt, err := req.options(e.editorBase(ProfileDefaults()))
	if err != nil {
		return nil, err
	}
	w, err := methodWorkloads(req)
	if err != nil {
		return nil, err
	}
	var out []*Profiled
	var problems []string
	for i, r := range w.reqs {
		it := item(r)
		wl := Workload{Method: it.Method, Args: it.Args}
		if it.Generator.Class != "" {
			wl.Generator = &it.Generator
		}
		progress := messages(func(m string) { report(fmt.Sprintf("%d/%d %s", i+1, len(w.reqs), m)) })
		p, err := e.Profile(ctx, ProfileRequest{Dir: req.dir(), Workload: wl, Options: opt, Priority: service.Interactive,
			Budget: req.Budget, Progress: progress})
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
	spec := measure.MethodSpec{Class: req.Class, Name: req.Method, Params: req.Params}
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
