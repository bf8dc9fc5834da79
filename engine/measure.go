package engine

import (
	"context"
	"time"

	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// MeasureRequest asks to measure one workload.
type MeasureRequest struct {
	Dir      string // the project directory (absolute)
	Workload Workload
	Options  measure.Options
	Phase    service.Phase
	Fresh    bool          // measure even when the cache has a fresh result
	Budget   time.Duration // of the forked phase: the forks done when it runs out are reported; 0 = none
	Progress func(service.Progress)
}

// Measured is a measurement of one workload.
type Measured struct {
	Method, Workload string // as resolved, e.g. p.C#m(int[])
	Result           measure.Result
	Cached           bool // answered from the cache
	MeasuredAt       time.Time
	Notices          []string
}

// Measure measures one workload through the measurement service: from the
// cache when it has a fresh result, else in forked JVMs (Phase full), in
// the service's warm worker JVM (quick: a preliminary figure), or both, the
// preliminary figure arriving through Progress first. A failed measurement
// returns the result so far with the error (*measure.WorkloadError when the
// workload failed, *CompileError when the project does not compile).
func (e *Engine) Measure(ctx context.Context, req MeasureRequest) (*Measured, error) {
	p := service.Params{Project: req.Dir, Items: []service.Item{req.Workload.item()}, Options: req.Options,
		Priority: service.Interactive, Fresh: req.Fresh, Budget: req.Budget, Phase: req.Phase}
	resp, it, err := measureOne(ctx, e.service(ctx), p, req.Progress)
	out := &Measured{Method: req.Workload.Method.String()}
	if resp != nil {
		out.Notices = resp.Notices
	}
	if it == nil {
		return out, err
	}
	out.Method, out.Workload, out.Cached, out.MeasuredAt = it.Method, it.Workload, it.Cached, it.MeasuredAt
	out.Result = measure.Result{Forks: it.Forks, Env: it.Env, Err: err}
	if req.Phase == service.PhaseQuick && it.Preliminary != nil {
		out.Result = measure.Result{Forks: []measure.Fork{it.Preliminary.Fork}, Env: it.Preliminary.Env, Preliminary: true, Err: err}
	}
	return out, err
}
