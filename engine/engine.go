// Package engine holds perfls's actions as both faces run them: the command
// line (cmd/perfls) and the language server (server/, through its Actions
// interface). An Engine owns one measurement store and one cache directory,
// both given to Open, and reaches the measurement service (the per-user
// daemon, or a scheduler in this process) as its Config says. An action is
// a file here: its request, its result and the method that runs it.
//
// The actions, by file:
//   - check.go: Check (decide a project's formulas; adaptive forks, capped
//     forks replaced), with report.go (cost curves) and revision.go/overlay.go
//     (terms naming a revision, built with the working tree's set-up;
//     Revision: what a revision name resolves to, for the hover)
//   - method.go: CheckMethod, MeasureMethod, CalibrateMethod (the editor's
//     lenses on one method)
//   - measure.go: Measure, MeasurePrecise (perfls measure)
//   - profile.go: Profile, ProfileMethod, StoredProfiles (perfls profile)
//   - model.go: ExtractModel, StoredModels, PredictStored, Predict (perfls
//     model, predict)
//   - oracle.go: Calibrate, RunCalibrate, Verify, CalibratedWorkloads,
//     Rebuild, Accept (the bounds oracle)
//   - evaluate.go: EvaluateFile, Evaluate (formulas decided on recorded
//     data: perfls evaluate)
//   - diff.go: Diff, DiffMethod (working tree against a base commit)
//   - bisect.go, bisect_formula.go: Bisect (first bad commit, by workload or
//     by formula)
//   - explain.go: Explain (from a slow-down to its first bad commit and what
//     grew in its profile: regressions, bisect and diff --profile in one)
//   - regressions.go, regressions_watch.go: Regressions and the editor's
//     "slower since" watch (NewRegressionWatch, SlowerSince); the series and
//     their change points are analysis/regression's
//   - ensemble.go: Ensemble (perfls ensemble: CSV runs or stored results),
//     StoredEnsemble (the ensemble detector on stored results, made runs by
//     analysis/ensemble's StoredRun)
//   - team.go: MethodHistory, HistoryPage (perfls history), RunWorker (a
//     worker taking measurement jobs from the shared queue)
//   - lint.go: LintWith (formula diagnostics without measuring); names.go:
//     MethodNames (completion of --method and --workload)
//   - notices.go: NoticesToShow (which notices a command prints, once per
//     change)
//   - annotations.go: Annotations, AnnotationsJar, InstallAnnotations
//   - cache.go: CacheList, CacheShow, CacheClear, GC (perfls cache)
//   - daemon.go: StartDaemon, StopDaemon, DaemonStatus, RunDaemon
//
// The engine does the I/O of an action (reading sources, measuring, the
// store); deciding and rendering are the analysis packages' (verdict, oracle,
// regression, ensemble, report), and the command line and the server only translate flags and
// protocol values to requests and results to output.
package engine

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// ServiceMode says how an engine reaches the measurement service.
type ServiceMode int

const (
	// UseDaemon measures through the per-user daemon when one answers,
	// else in this process: the command line.
	UseDaemon ServiceMode = iota
	// StartDaemon starts the daemon when none answers, so a daemon that
	// died is replaced on the next request, and measures in this process
	// when no daemon can run: the language server.
	StartDaemon
	// InProcess never uses a daemon: tests, and the daemon itself.
	InProcess
)

// Config configures an engine.
type Config struct {
	// CacheDir is perfls's cache directory: the store, compiled projects
	// and harnesses, the declaration index. Required.
	CacheDir string
	// Service says how measurements reach the measurement service.
	Service ServiceMode
	// Executable is the perfls binary StartDaemon runs as the daemon; ""
	// means this process's executable.
	Executable string
	// Logf receives what the engine has to say on the side (the daemon in
	// use, a store that could not record); nil discards it.
	Logf func(format string, args ...any)
	// Base are the measurement options the editor's requests start from
	// (zero: perfls's defaults); tests make them small.
	Base measure.Options
	// Store names the measurement store: a postgres:// URL for a store
	// the team shares. "" means $PERFLS_STORE, else perfls.json's "store"
	// in the project holding ProjectDir, else the SQLite file in CacheDir.
	Store string
	// ProjectDir is where perfls.json's "store" is looked for; "" means
	// the working directory.
	ProjectDir string
	// Given, when set, answers every measurement instead of the service
	// Service names; the engine does not close it. Command tests give a
	// recording of real measurements (internal/fixture/replay).
	Given service.Service
}

// Engine runs actions. It is safe for concurrent use.
type Engine struct {
	cfg      Config
	store    *cache.Store // nil when it could not be opened: storeErr says why
	storeErr error
	notice   string // from opening the store, e.g. a damaged store set aside
	storeURL string // the shared store's URL, with its credentials: never shown

	mu     sync.Mutex
	local  *service.Local // the in-process service, created on first need
	daemon bool           // the last service used was the daemon
}

// Open opens the store in cfg.CacheDir. A store that cannot be opened is
// no error here: actions that need it fail, and measuring goes on without a
// cache.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.CacheDir == "" {
		return nil, errors.New("engine: no cache directory")
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	e := &Engine{cfg: cfg}
	e.openStore(ctx)
	return e, nil
}

// Close stops the in-process service, if one ran, and closes the store.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	if e.local != nil {
		errs = append(errs, e.local.Close())
		e.local = nil
	}
	if e.store != nil {
		errs = append(errs, e.store.Close())
		e.store = nil
	}
	return errors.Join(errs...)
}

// CacheDir is the engine's cache directory.
func (e *Engine) CacheDir() string { return e.cfg.CacheDir }

// Store is the engine's measurement store, or why there is none.
func (e *Engine) Store() (*cache.Store, error) {
	if e.store == nil {
		if e.storeErr == nil {
			return nil, errors.New("the engine is closed")
		}
		return nil, e.storeErr
	}
	return e.store, nil
}

// Notice is what opening the store had to say ("" mostly), for the user.
func (e *Engine) Notice() string { return e.notice }

// service returns the measurement service to use now, as the mode says.
// The caller does not close it: the daemon's client holds nothing, and the
// in-process service lives as long as the engine.
func (e *Engine) service(ctx context.Context) service.Service {
	if e.cfg.Given != nil {
		return e.cfg.Given
	}
	switch e.cfg.Service {
	case UseDaemon:
		c, err := service.Dial(ctx, e.cfg.CacheDir)
		if err == nil {
			err = e.sameStore(c)
		}
		if err == nil {
			e.noteDaemon(true)
			return c
		}
		// No daemon is the usual case; a daemon that may not be used (another
		// cache directory, another user) is worth a word.
		if !errors.Is(err, service.ErrNoDaemon) {
			e.cfg.Logf("measuring in-process: %v", err)
		}
	case StartDaemon:
		exe := e.cfg.Executable
		if exe == "" {
			exe, _ = os.Executable()
		}
		if exe != "" {
			c, err := service.EnsureDaemon(ctx, e.cfg.CacheDir, exe)
			if err == nil {
				err = e.sameStore(c)
			}
			if err == nil {
				e.noteDaemon(true)
				return c
			}
			e.cfg.Logf("measuring in-process: %v", err)
		}
	}
	e.noteDaemon(false)
	return e.localService(ctx)
}

func (e *Engine) localService(ctx context.Context) service.Service {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.local == nil {
		e.local = service.NewLocal(ctx, e.cfg.CacheDir, e.store, 1)
	}
	return e.local
}

// noteDaemon says once when measurements start going through a running
// daemon (they then wait for other clients' measurements).
func (e *Engine) noteDaemon(daemon bool) {
	e.mu.Lock()
	changed := daemon && !e.daemon
	e.daemon = daemon
	e.mu.Unlock()
	if changed && e.cfg.Service == UseDaemon {
		e.cfg.Logf("measuring through the running perfls daemon")
	}
}
