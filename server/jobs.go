package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/server/internal/session"
)

// errMeasuringDisabled is the answer to measuring commands when the
// client's allowMeasuring setting is false (an untrusted workspace).
var errMeasuringDisabled = errors.New("measuring is disabled in this workspace (setting allowMeasuring is false, e.g. the workspace is not trusted): perfls runs no code of it")

// jobQueue runs the measuring jobs in the background under ctx, local ones
// one at a time (slot); Shutdown cancels them and waits for them.
type jobQueue struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	slot   chan struct{} // admits one local measuring job at a time; the others queue

	statusMu sync.Mutex // orders perfls/status notifications

	mu      sync.Mutex
	pending map[string]bool   // jobs queued or running, by kind and method
	queued  int               // jobs waiting for slot
	running int               // jobs running (local ones hold slot)
	current []string          // what the running jobs do, for perfls/status
	cancels map[string]func() // progress token → cancel of its job
}

func newJobQueue(base context.Context) *jobQueue {
	q := &jobQueue{slot: make(chan struct{}, 1), pending: map[string]bool{}, cancels: map[string]func(){}}
	q.ctx, q.cancel = context.WithCancel(base)
	return q
}

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
			s.sess.SetResults(req.File, results)
			if doc := s.sess.Doc(args.URI); doc != nil {
				if err := s.publishDiagnostics(bg, doc); err != nil {
					s.logf("publish diagnostics for %s: %v", doc.Path, err)
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
	q := s.jobs
	q.mu.Lock()
	if q.pending[key] {
		q.mu.Unlock()
		return false
	}
	q.pending[key] = true
	q.queued++
	q.mu.Unlock()
	s.sendStatus(ctx)

	jobCtx, cancel := context.WithCancel(q.ctx)
	wd := s.startProgress(ctx, "perfls: "+what, cancel)
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
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
			q.mu.Lock()
			delete(q.pending, key)
			if running {
				q.running--
				if i := slices.Index(q.current, what); i >= 0 {
					q.current = slices.Delete(q.current, i, i+1)
				}
			} else {
				q.queued--
			}
			q.mu.Unlock()
		}()
		if local {
			select {
			case q.slot <- struct{}{}:
			default:
				wd.report(jobCtx, "waiting for other measurements to finish")
				select {
				case q.slot <- struct{}{}:
				case <-jobCtx.Done():
					wd.end(jobCtx, "cancelled")
					return
				}
			}
			defer func() { <-q.slot }()
		}
		q.mu.Lock()
		q.queued--
		q.running++
		running = true
		q.current = append(q.current, what)
		q.mu.Unlock()
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
	q := s.jobs
	q.statusMu.Lock()
	defer q.statusMu.Unlock()
	q.mu.Lock()
	st := StatusParams{Running: q.running, Queued: q.queued, Message: "idle"}
	switch {
	case q.running > 0 && q.queued > 0:
		st.Message = fmt.Sprintf("%s (%d queued)", strings.Join(q.current, "; "), q.queued)
	case q.running > 0:
		st.Message = strings.Join(q.current, "; ")
	case q.queued > 0:
		st.Message = fmt.Sprintf("%d queued", q.queued)
	}
	q.mu.Unlock()
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

// publishSyncInterval is how stale the verdicts a publication shows may be.
// Publications follow every keystroke, and a database query each time showed
// as latency spikes (SQLite waits now and then); what other processes record
// arrives through watchVerdicts anyway, and this server's own checks update
// the results directly.
const publishSyncInterval = 500 * time.Millisecond

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
			initialized, shutdown := s.life.state()
			ready := initialized && !shutdown
			synced := ready && s.sess.SyncVerdicts()
			if moved := ready && s.sess.WatchHeads(); synced || moved {
				s.republishOpen(s.base)
			}
		case <-s.sess.LensesStale():
			s.refreshCodeLenses(s.base)
		}
	}
}

func (s *server) root(path string) string { return innermostFolder(s.view.get().folders, path) }

// refreshCodeLenses asks the client to re-request lenses so their titles show
// new results; only clients that declared refreshSupport get asked.
func (s *server) refreshCodeLenses(ctx context.Context) {
	caps := s.view.get().caps
	if caps.Workspace != nil && caps.Workspace.CodeLens != nil && caps.Workspace.CodeLens.RefreshSupport {
		ctx, cancel := session.UntilDone(ctx, s.conn.Done())
		defer cancel()
		if _, err := s.conn.Call(ctx, protocol.MethodCodeLensRefresh, nil, nil); err != nil {
			s.logf("codeLens/refresh: %v", err)
		}
	}
	s.refreshInlayHints(ctx) // the same results show in the hints
}
