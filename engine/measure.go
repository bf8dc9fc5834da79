package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// MeasureDefaults are perfls's measuring defaults (check, measure, the
// editor): 5 forks of 30 samples after at least 300 ms of warm-up.
func MeasureDefaults() measure.Options {
	return measure.Options{Forks: measure.DefaultForks, SamplesPerFork: 30, Warmup: 300 * time.Millisecond,
		MaxWarmup: measure.DefaultMaxWarmup, ForkTimeout: 60 * time.Second}
}

// ValidateOptions says what is wrong with measurement options a user gave:
// fewer forks than minForks, fewer than 2 samples per fork, a negative heap.
func ValidateOptions(o measure.Options, minForks int) error {
	if o.Forks < minForks || o.SamplesPerFork < 2 {
		return fmt.Errorf("forks must be ≥ %d and samples ≥ 2 (got %d and %d)", minForks, o.Forks, o.SamplesPerFork)
	}
	if o.HeapMB < 0 {
		return fmt.Errorf("heap must be ≥ 0 MB (got %d)", o.HeapMB)
	}
	if o.CPUs != "" {
		if _, err := measure.CheckCPUs(o.CPUs); err != nil {
			return err
		}
	}
	if err := measure.CheckRelease(o.Release); err != nil {
		return fmt.Errorf("--release: %w", err)
	}
	if err := measure.CheckJavacArgs(o.JavacArgs); err != nil {
		return fmt.Errorf("--javac-arg: %w", err)
	}
	return nil
}

// MeasureRequest asks to measure one workload.
type MeasureRequest struct {
	Dir      string // the project directory (absolute)
	Workload Workload
	Options  measure.Options
	Phase    service.Phase
	Fresh    bool          // measure even when the cache has a fresh result
	Budget   time.Duration // of the forked phase: the forks done when it runs out are reported; 0 = none
	// Besides, with Fresh, lets a stored measurement that is none of these
	// (cache IDs) answer: forks this caller has not used yet.
	Besides  []int64
	Progress func(service.Progress)
	// Preliminary receives the quick phase's figure as it arrives
	// (PhaseBoth), before the forks; nil: it is not wanted.
	Preliminary func(*Measured)
}

// Measured is a measurement of one workload.
type Measured struct {
	Method, Workload string // as resolved, e.g. p.C#m(int[])
	Args             []measured.Arg
	Result           measured.Result
	Cached           bool // answered from the cache
	MeasuredAt       time.Time
	Notices          []string
	CacheID          int64 // the stored measurement's ID; 0 when none is stored
}

// Measure measures one workload through the measurement service: from the
// cache when it has a fresh result, else in forked JVMs (Phase full), in
// the service's warm worker JVM (quick: a preliminary figure), or both, the
// preliminary figure arriving through Progress first. A failed measurement
// returns the result so far with the error (*measured.WorkloadError when the
// workload failed, *CompileError when the project does not compile).
func (e *Engine) Measure(ctx context.Context, req MeasureRequest) (*Measured, error) {
	p := service.Params{Project: req.Dir, Items: []service.Item{req.Workload.item()}, Options: req.Options,
		Priority: service.Interactive, Fresh: req.Fresh, Budget: req.Budget, Phase: req.Phase, Besides: req.Besides}
	out := &Measured{Method: req.Workload.Method.String(), Workload: req.Workload.generator(), Args: req.Workload.Args}
	progress := req.Progress
	if req.Preliminary != nil {
		progress = func(pr service.Progress) {
			if req.Progress != nil {
				req.Progress(pr)
			}
			if q := pr.Preliminary; q != nil {
				req.Preliminary(&Measured{Method: out.Method, Workload: out.Workload, Args: out.Args,
					Result: measured.Result{Forks: []measured.Fork{q.Fork}, Env: q.Env, Preliminary: true}})
			}
		}
	}
	resp, it, err := measureOne(ctx, e.service(ctx), p, progress)
	if resp != nil {
		out.Notices = resp.Notices
	}
	if it == nil {
		return out, err
	}
	out.Method, out.Workload, out.Cached, out.MeasuredAt, out.CacheID = it.Method, it.Workload, it.Cached, it.MeasuredAt, it.CacheID
	out.Result = measured.Result{Forks: it.Forks, Env: it.Env, Err: err}
	out.Notices = append(out.Notices, measure.SteadyStateWarnings(out.Method, it.Forks, req.Options.Defaults().MaxWarmup)...)
	if forks := req.Options.Defaults().Forks; err == nil && req.Phase != service.PhaseQuick && req.Budget > 0 && !it.Cached && len(it.Forks) < forks {
		out.Notices = append(out.Notices, fmt.Sprintf("the budget of %s ended after %d of %d forks", req.Budget, len(it.Forks), forks))
	}
	if req.Phase == service.PhaseQuick && it.Preliminary != nil {
		out.Result = measured.Result{Forks: []measured.Fork{it.Preliminary.Fork}, Env: it.Preliminary.Env, Preliminary: true, Err: err}
	}
	return out, err
}

// Report is the measurement's document (its JSON, its text).
func (m *Measured) Report() report.MeasureDocument {
	return report.NewMeasurement(m.Method, m.Workload, m.Args, m.Result)
}
