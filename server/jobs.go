package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
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

// errMeasuringDisabled is the answer to measuring commands when the
// client's allowMeasuring setting is false (an untrusted workspace).
var errMeasuringDisabled = errors.New("measuring is disabled in this workspace (setting allowMeasuring is false, e.g. the workspace is not trusted): perfls runs no code of it")

// jobKind names what a background job does, for titles and status.
type jobKind string

const (
	jobCheck   jobKind = "checking"
	jobMeasure jobKind = "measuring"
)

// request builds the engine's request of a method job with the current
// settings.
func (s *server) request(args MethodArgs) engine.MethodRequest {
	cfg := s.settings()
	file := uri.URI(args.URI).Filename()
	return engine.MethodRequest{
		Root: s.root(file), File: file,
		Class: args.Class, Method: args.Method, Params: args.Params,
		Alpha: cfg.Alpha, Interpretation: cfg.Interpretation, Semantics: cfg.Semantics,
		Budget:   time.Duration(cfg.BudgetSeconds * float64(time.Second)),
		JavaHome: cfg.JavaHome, JVMArgs: append([]string(nil), cfg.JVMArgs...), CPUs: cfg.CPUs,
	}
}

// remoteRequest is request with the remote settings: the actions that can
// measure on the shared store's workers (Check, Measure) use it.
func (s *server) remoteRequest(args MethodArgs) engine.MethodRequest {
	req, cfg := s.request(args), s.settings()
	req.Remote, req.Label = cfg.Remote, cfg.RemoteLabel
	return req
}

// startCheck queues a check of one method's formulas.
func (s *server) startCheck(ctx context.Context, args MethodArgs) bool {
	return s.startJob(ctx, jobCheck, args, s.opts.Actions.CheckMethod)
}

// startMeasure queues a measurement of one method's own workloads.
func (s *server) startMeasure(ctx context.Context, args MethodArgs) bool {
	return s.startJob(ctx, jobMeasure, args, s.opts.Actions.MeasureMethod)
}

// startJob runs a check or a measurement of one method as a measuring job
// (see runQueued) and records, publishes and shows its results.
func (s *server) startJob(ctx context.Context, kind jobKind, args MethodArgs, run func(context.Context, engine.MethodRequest, func(string)) ([]verdict.MethodResult, error)) bool {
	label := args.Class + "#" + args.Method
	key := string(kind) + " " + label + "(" + strings.Join(args.Params, ",") + ")"
	req := s.remoteRequest(args)
	req.Warn = func(msg string) {
		s.showMessage(context.WithoutCancel(ctx), protocol.MessageTypeWarning, "perfls: "+msg)
	}
	what := fmt.Sprintf("%s %s", kind, label)
	if req.Remote {
		what += " on the workers" + map[bool]string{true: " labelled " + req.Label}[req.Label != ""]
	}
	// A job for the workers measures nothing here: it does not wait for,
	// or hold, the local measuring slot.
	return s.runJob(ctx, key, what, !req.Remote, func(jobCtx context.Context, say func(string)) (string, func(context.Context), error) {
		results, err := run(jobCtx, req, say)
		if err != nil {
			return "", nil, err
		}
		publish := func(bg context.Context) {
			s.setResults(req.File, results)
			if doc := s.snapshot(args.URI); doc != nil {
				if err := s.publishDiagnostics(bg, doc); err != nil {
					s.logf("publish diagnostics for %s: %v", doc.path, err)
				}
			}
			s.refreshCodeLenses(bg)
		}
		if kind == jobMeasure {
			return measuredSummary(results), publish, nil
		}
		return summarize(results), publish, nil
	})
}

// runQueued runs measuring work in the background, one job at a time (two
// measurements at once would disturb each other); the others wait in a
// queue. A job belongs to the server: it is cancelled on shutdown, or by
// the user from its progress item ("perfls: what"), queued or running.
// work returns the progress's end message and what to do once the job has
// left the queue (publish its results: a request they prompt, such as a
// re-check on save, must not find the job still pending); its error is
// shown to the user. It reports false when a job with the same key is
// already queued or running.
func (s *server) runQueued(ctx context.Context, key, what string, work func(ctx context.Context, say func(string)) (string, func(context.Context), error)) bool {
	return s.runJob(ctx, key, what, true, work)
}

// runJob is runQueued; a job that does not measure locally (local false:
// its forks run on the shared store's workers) runs at once, beside the
// local one, and still shows in the status and can be cancelled.
func (s *server) runJob(ctx context.Context, key, what string, local bool, work func(ctx context.Context, say func(string)) (string, func(context.Context), error)) bool {
	s.mu.Lock()
	if s.pending[key] {
		s.mu.Unlock()
		return false
	}
	s.pending[key] = true
	s.queued++
	s.mu.Unlock()
	s.sendStatus(ctx)

	jobCtx, cancel := context.WithCancel(s.jobsCtx)
	wd := s.startProgress(ctx, "perfls: "+what, cancel)
	s.jobs.Add(1)
	go func() {
		defer s.jobs.Done()
		defer cancel()
		bg := context.WithoutCancel(jobCtx)
		running := false
		var after func(context.Context)
		defer func() { // runs last, once the job has left the queue
			if after != nil {
				after(bg)
			}
			// The status follows the publication, so a client that sees
			// "idle" has the job's results too.
			s.sendStatus(bg)
		}()
		defer func() {
			s.mu.Lock()
			delete(s.pending, key)
			if running {
				s.running--
				if i := slices.Index(s.current, what); i >= 0 {
					s.current = slices.Delete(s.current, i, i+1)
				}
			} else {
				s.queued--
			}
			s.mu.Unlock()
		}()
		if local {
			select {
			case s.slot <- struct{}{}:
			default:
				wd.report(jobCtx, "waiting for other measurements to finish")
				select {
				case s.slot <- struct{}{}:
				case <-jobCtx.Done():
					wd.end(jobCtx, "cancelled")
					return
				}
			}
			defer func() { <-s.slot }()
		}
		s.mu.Lock()
		s.queued--
		s.running++
		running = true
		s.current = append(s.current, what)
		s.mu.Unlock()
		s.sendStatus(bg)

		end, then, err := work(jobCtx, func(msg string) { wd.report(jobCtx, msg) })
		after = then
		switch {
		case err != nil && jobCtx.Err() != nil:
			wd.end(jobCtx, "cancelled")
		case err != nil:
			wd.end(jobCtx, "failed")
			s.showMessage(bg, protocol.MessageTypeError, fmt.Sprintf("perfls: %s failed: %v", what, err))
		default:
			wd.end(jobCtx, end)
		}
	}()
	return true
}

// sendStatus tells the client how many measuring jobs run and wait
// (perfls/status in the editor contract).
func (s *server) sendStatus(ctx context.Context) {
	// One status at a time, snapshot and send together, so the client's
	// last status is the current one.
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	s.mu.Lock()
	st := StatusParams{Running: s.running, Queued: s.queued, Message: "idle"}
	switch {
	case s.running > 0 && s.queued > 0:
		st.Message = fmt.Sprintf("%s (%d queued)", strings.Join(s.current, "; "), s.queued)
	case s.running > 0:
		st.Message = strings.Join(s.current, "; ")
	case s.queued > 0:
		st.Message = fmt.Sprintf("%d queued", s.queued)
	}
	s.mu.Unlock()
	if err := s.conn.Notify(context.WithoutCancel(ctx), MethodStatus, &st); err != nil {
		s.logf("%s: %v", MethodStatus, err)
	}
}

// MethodStatus is the server → client notification of the measuring jobs.
const MethodStatus = "perfls/status"

// StatusParams are the parameters of perfls/status.
type StatusParams struct {
	Running int    `json:"running"`
	Queued  int    `json:"queued"`
	Message string `json:"message"`
}

func summarize(results []verdict.MethodResult) string { return verdict.Count(results).String() }

func measuredSummary(results []verdict.MethodResult) string {
	var parts []string
	for _, r := range results {
		for _, m := range r.Measurements {
			parts = append(parts, measurementText(m))
		}
	}
	if len(parts) == 0 {
		return "nothing measured"
	}
	return strings.Join(parts, "; ")
}

// setResults replaces the in-memory verdicts of the methods in results.
func (s *server) setResults(file string, results []verdict.MethodResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.results[file]
	var merged []verdict.MethodResult
	for _, o := range old {
		replaced := false
		for _, r := range results {
			replaced = replaced || sameMethod(o, r)
		}
		if !replaced {
			merged = append(merged, o)
		}
	}
	s.results[file] = append(merged, results...)
}

func sameMethod(a, b verdict.MethodResult) bool {
	return a.Class == b.Class && a.Method == b.Method && strings.Join(a.Params, ",") == strings.Join(b.Params, ",")
}

// syncResults reloads the recorded verdicts when any process recorded new
// ones (a CLI check, another editor), so every window shows the latest. One
// small query per call keeps it cheap enough for every publish and hover.
// It reports whether the records changed.
func (s *server) syncResults() bool {
	if s.opts.Verdicts == nil {
		return false
	}
	ctx := s.base
	rev, err := s.opts.Verdicts.VerdictsRevision(ctx)
	if err != nil {
		s.logf("verdicts: %v", err)
		return false
	}
	s.mu.Lock()
	same := rev == s.recordRev
	s.lastSync = time.Now()
	s.mu.Unlock()
	if same {
		return false
	}
	recs, err := s.opts.Verdicts.Verdicts(ctx)
	if err != nil {
		s.logf("verdicts: %v", err)
		return false
	}
	byFile := map[string][]verdict.MethodResult{}
	for _, r := range recs {
		byFile[r.File] = append(byFile[r.File], r)
	}
	s.mu.Lock()
	first := s.recordRev == -1
	s.results, s.recordRev = byFile, rev
	s.mu.Unlock()
	if !first {
		// New verdicts change lens titles too, whichever request noticed
		// them first; the watcher sends the refresh (not from a handler).
		select {
		case s.lensesStale <- struct{}{}:
		default:
		}
	}
	return true
}

// publishSyncInterval is how stale the verdicts a publication shows may be.
// Publications follow every keystroke, and a database query each time showed
// as latency spikes (SQLite waits now and then); what other processes record
// arrives through watchVerdicts anyway, and this server's own checks update
// the results directly.
const publishSyncInterval = 500 * time.Millisecond

// syncResultsEvery is syncResults unless the verdicts were read less than
// interval ago (the first read always happens).
func (s *server) syncResultsEvery(interval time.Duration) bool {
	s.mu.Lock()
	recent := s.recordRev != -1 && time.Since(s.lastSync) < interval
	s.mu.Unlock()
	if recent {
		return false
	}
	return s.syncResults()
}

// watchVerdicts polls the recorded verdicts' revision, and HEAD of the
// open documents' work trees, every period until done closes; when another
// process recorded verdicts (a `perfls check` in a terminal, another
// editor) or HEAD moved (verdicts on @HEAD~1 may be stale), the open
// documents' diagnostics are republished and the lenses refreshed without
// waiting for the user.
func (s *server) watchVerdicts(done <-chan struct{}, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			s.mu.Lock()
			ready := s.initialized && !s.shutdown
			s.mu.Unlock()
			synced := ready && s.syncResults()
			if moved := ready && s.watchHeads(); synced || moved {
				s.republishOpen(s.base)
			}
		case <-s.lensesStale:
			s.refreshCodeLenses(s.base)
		}
	}
}

func (s *server) resultsOf(file string) []verdict.MethodResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.results[file]
}

// allResults returns every known method result, for lookups across files
// (@SeeAlso).
func (s *server) allResults() []verdict.MethodResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []verdict.MethodResult
	for _, rs := range s.results {
		out = append(out, rs...)
	}
	return out
}

func (s *server) root(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return innermostFolder(s.folders, path)
}

// refreshCodeLenses asks the client to re-request lenses so their titles show
// new results; only clients that declared refreshSupport get asked.
func (s *server) refreshCodeLenses(ctx context.Context) {
	s.mu.Lock()
	ok := s.clientCaps.Workspace != nil && s.clientCaps.Workspace.CodeLens != nil && s.clientCaps.Workspace.CodeLens.RefreshSupport
	s.mu.Unlock()
	if ok {
		ctx, cancel := untilDone(ctx, s.conn.Done())
		defer cancel()
		if _, err := s.conn.Call(ctx, protocol.MethodCodeLensRefresh, nil, nil); err != nil {
			s.logf("codeLens/refresh: %v", err)
		}
	}
}
