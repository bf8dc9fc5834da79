package server

// The seam between the editor and the engine: Actions are what the server
// asks the engine to do, Records what it reads of the store. *engine.Engine
// and the engine's store (with its regression watch) implement them;
// tests put fakes in their place.

import (
	"context"
	"sync"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/server/internal/session"
)

// Actions are what the server asks of perfls's engine (engine.Engine): to
// measure and decide the formulas of one method (the Check lens), to measure
// its own workloads (Measure) and to calibrate the bounds oracle on them
// (Calibrate), and to profile them (Profile). Each records what it found in the store, where hovers and
// other editors read it, and reports progress through report. Tests put a
// fake in its place.
type Actions interface {
	CheckMethod(ctx context.Context, req engine.MethodRequest, say func(message string)) ([]verdict.MethodResult, error)
	MeasureMethod(ctx context.Context, req engine.MethodRequest, say func(message string)) ([]verdict.MethodResult, error)
	CalibrateMethod(ctx context.Context, req engine.MethodRequest, forks int, say func(message string)) ([]cache.OracleKey, error)
	// ProfileMethod profiles the method's workloads (the Profile lens);
	// StoredProfiles reads the cached profiles of a method, measuring
	// nothing.
	ProfileMethod(ctx context.Context, req engine.MethodRequest, say func(message string)) ([]*engine.Profiled, error)
	StoredProfiles(ctx context.Context, req engine.MethodRequest) ([]*engine.Profiled, error)
	// StoredModels reads the stored performance models of a method
	// (perfls model), measuring nothing: the hover shows their callees.
	StoredModels(ctx context.Context, req engine.MethodRequest) ([]*model.Model, error)
	// DiffMethod compares the method's workloads with the base commit
	// (the Compare with base lens); Revision describes the commit a
	// revision name names (hover on "@rev"). revisions.go.
	DiffMethod(ctx context.Context, req engine.MethodRequest, say func(message string)) (*report.Diff, error)
	Revision(ctx context.Context, dir, name string) (engine.RevisionInfo, error)
}

// Records is what the editor reads of the store: the latest verdicts, the
// bounds oracle's models and runs, and the regression watch of hovered
// methods (session.Records).
type Records = session.Records

// storeRecords reads a store; its regression watch is built on the first
// hover that asks (engine.RegressionWatch).
type storeRecords struct {
	*cache.Store
	once  sync.Once
	watch *engine.RegressionWatch
}

func (r *storeRecords) SlowerSince(ctx context.Context, dir, method string) (*report.RegressionChange, error) {
	r.once.Do(func() { r.watch = engine.NewRegressionWatch(r.Store) })
	return r.watch.SlowerSince(ctx, dir, method)
}

// records is what the session reads: Records, else Verdicts; nil for
// neither.
func (o Options) records() Records {
	switch {
	case o.Records != nil:
		return o.Records
	case o.Verdicts != nil:
		return &storeRecords{Store: o.Verdicts}
	}
	return nil
}
