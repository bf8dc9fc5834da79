// Package remote measures on other machines through a job queue in the
// team's PostgreSQL store: River (github.com/riverqueue/river), no
// protocol of perfls's own. A client (Service) sends the project's code as
// its repository and commit when the work tree is clean and on its remote
// (source.go), else packs the sources into a content-addressed archive
// (archive.go) stored in the database; it enqueues one job per measurement
// request and waits for it. A worker (RunWorker, perfls worker) takes jobs
// one at a time, fetches the commit into its mirror of the repository or
// unpacks the archive, checks the code against the job's fingerprint (the
// commit's tree hash, the archive's SHA-256), measures with the ordinary
// in-process service (results go to the shared store) and records the
// response as the job's output. A commit the worker cannot fetch ends its
// job, and the client sends the archive instead.
//
// River gives the rest: identical requests in flight merge (unique jobs by
// args), a failed attempt is retried, a job whose worker was killed is
// rescued after a while and run again; a request that cannot be measured
// for good (its archive is damaged or missing) is cancelled, and one whose
// code does not compile completes with the compiler's messages as its
// answer — neither is retried.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/perfls/perfls/internal/redact"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/measure/service"
)

// MeasureArgs is a job: measure Params on the project in archive Archive,
// or, when Git is set, at a commit of a repository.
type MeasureArgs struct {
	Archive string         `json:"archive"`       // SHA-256 of the sources (perfls_archives)
	Git     *GitSource     `json:"git,omitempty"` // instead of Archive
	Params  service.Params `json:"params"`        // Project is the worker's to fill
}

// Kind names the job kind in River's table.
func (MeasureArgs) Kind() string { return "perfls_measure" }

// InsertOpts: an identical request already queued or running is the same
// job; a few attempts for transient failures.
func (MeasureArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByArgs: true, ByQueue: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled}}}
}

var labelPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// Queue is the queue of workers labelled label ("" = unlabelled).
func Queue(label string) (string, error) {
	if label == "" {
		return "perfls", nil
	}
	if !labelPattern.MatchString(label) {
		return "", fmt.Errorf("worker label %q: use lower-case letters, digits, - and _ (e.g. quiet-x86)", label)
	}
	return "perfls_" + label, nil
}

// setupLock is the advisory lock held while the queue's schema is set up.
const setupLock = 0x50524651 // "PRFQ"

// connect opens a pool on the store's database and sets up River's schema
// and the archive table, once, under an advisory lock.
func connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	if err := trust.Check(ctx, "connect to the job queue "+redact.Address(url)); err != nil {
		return nil, err
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, redact.Wrap("job queue", url, err)
	}
	if err := setup(ctx, pool); err != nil {
		pool.Close()
		return nil, redact.Wrap("job queue", url, err)
	}
	return pool, nil
}

func setup(ctx context.Context, pool *pgxpool.Pool) error {
	// River's migrations run one transaction each (a new enum value must
	// be committed before use), so the lock is a session's, on a
	// connection held meanwhile.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(setupLock)); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(setupLock))
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: quiet()})
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("set up River's tables: %w", err)
	}
	_, err = conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS perfls_archives (
		sha256     TEXT PRIMARY KEY,
		data       BYTEA NOT NULL,
		created_at TIMESTAMPTZ NOT NULL DEFAULT now())`)
	return err
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Service measures through the queue: it is a service.Service, so the
// engine's actions run unchanged against it.
type Service struct {
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	queue  string
	poll   time.Duration
	now    func() time.Time // the clock of the "still queued" lines (tests)
}

// NewService connects to the queue in the store at url; jobs go to the
// workers labelled label ("" = any unlabelled worker).
func NewService(ctx context.Context, url, label string) (*Service, error) {
	queue, err := Queue(label)
	if err != nil {
		return nil, err
	}
	pool, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: quiet()})
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &Service{pool: pool, client: client, queue: queue, poll: 100 * time.Millisecond, now: time.Now}, nil
}

// Enqueue enqueues p with the project's code as a repository and commit
// when it is a clean work tree on its remote (gitSource), else as an
// archive of its sources in the store. It returns the job (an identical
// request in flight is that request's job) and what its sources are, for
// the user.
func (s *Service) Enqueue(ctx context.Context, p service.Params) (*rivertype.JobRow, string, error) {
	src, why := gitSource(ctx, p.Project)
	if src == nil {
		job, err := s.EnqueueArchive(ctx, p)
		return job, "an archive of the sources (" + why + ")", err
	}
	p.Project = ""
	res, err := s.client.Insert(ctx, MeasureArgs{Git: src, Params: p}, &river.InsertOpts{Queue: s.queue})
	if err != nil {
		return nil, "", fmt.Errorf("enqueue: %w", err)
	}
	return res.Job, fmt.Sprintf("commit %.12s of %s, which the workers fetch", src.Commit, redact.Address(src.URL)), nil
}

// EnqueueArchive stores the project's sources and enqueues p with them.
func (s *Service) EnqueueArchive(ctx context.Context, p service.Params) (*rivertype.JobRow, error) {
	data, sum, err := Pack(p.Project)
	if err != nil {
		return nil, err
	}
	if _, err := s.pool.Exec(ctx, "INSERT INTO perfls_archives (sha256, data) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING", sum, data); err != nil {
		return nil, fmt.Errorf("store the sources: %w", err)
	}
	p.Project = ""
	res, err := s.client.Insert(ctx, MeasureArgs{Archive: sum, Params: p}, &river.InsertOpts{Queue: s.queue})
	if err != nil {
		return nil, fmt.Errorf("enqueue: %w", err)
	}
	return res.Job, nil
}

// StillEvery is how often a job that stays queued or running is said to
// be still so: a CI log hears that the check is alive, not a line a poll.
const StillEvery = 30 * time.Second

// Wait waits for job id to end and returns its response and final row.
// progress hears each change of the job's state (queued, running on a
// worker, retrying, done, failed, cancelled) once, and that it is still
// queued or running at most every StillEvery; each Progress names the job.
func (s *Service) Wait(ctx context.Context, id int64, progress func(service.Progress)) (*service.Response, *rivertype.JobRow, error) {
	var said string
	var since, last time.Time // when the state said last began, and when a line was said
	for {
		job, err := s.client.JobGet(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, fmt.Errorf("job %d: %w", id, err)
		}
		state, now := describe(job), s.now()
		switch {
		case state != said:
			s.say(progress, id, fmt.Sprintf("job %d on queue %s: %s", id, job.Queue, state))
			said, since, last = state, now, now
		case now.Sub(last) >= StillEvery:
			s.say(progress, id, fmt.Sprintf("job %d on queue %s: still %s after %s", id, job.Queue, state, now.Sub(since).Round(time.Second)))
			last = now
		}
		switch job.State {
		case rivertype.JobStateCompleted:
			var resp service.Response
			if err := json.Unmarshal(job.Output(), &resp); err != nil {
				return nil, job, fmt.Errorf("job %d: its output: %w", id, err)
			}
			return &resp, job, nil
		case rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
			return nil, job, fmt.Errorf("job %d %s: %s", id, job.State, lastError(job))
		}
		select {
		case <-ctx.Done():
			return nil, job, ctx.Err()
		case <-time.After(s.poll):
		}
	}
}

// describe says a job's state for the user.
func describe(job *rivertype.JobRow) string {
	switch job.State {
	case rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateScheduled:
		return "queued"
	case rivertype.JobStateRunning:
		if n := len(job.AttemptedBy); n > 0 {
			return fmt.Sprintf("running on worker %s (attempt %d)", job.AttemptedBy[n-1], job.Attempt)
		}
		return fmt.Sprintf("running (attempt %d)", job.Attempt)
	case rivertype.JobStateRetryable:
		return fmt.Sprintf("attempt %d failed (%s); retrying", job.Attempt, lastError(job))
	case rivertype.JobStateCompleted:
		return "done"
	case rivertype.JobStateDiscarded:
		return "failed: " + lastError(job)
	case rivertype.JobStateCancelled:
		return "cancelled: " + lastError(job)
	}
	return string(job.State)
}

// lastError is the error the job's last attempt recorded, on one line.
func lastError(job *rivertype.JobRow) string {
	n := len(job.Errors)
	if n == 0 {
		if interrupted(job) {
			return "a check waiting for it was interrupted"
		}
		return "no error recorded"
	}
	msg := strings.Join(strings.Fields(job.Errors[n-1].Error), " ")
	if len(msg) > 300 {
		msg = msg[:297] + "..."
	}
	return msg
}

// say tells progress msg about job id.
func (s *Service) say(progress func(service.Progress), id int64, msg string) {
	if progress != nil {
		progress(service.Progress{Message: msg, Job: id})
	}
}

// Measure enqueues p and waits for a worker's answer. A job whose commit
// the worker could not fetch is sent again with the sources as an archive.
// Interrupted (ctx ends), it cancels its job and returns a
// *CancelledError.
func (s *Service) Measure(ctx context.Context, p service.Params, progress func(service.Progress)) (*service.Response, error) {
	var first int64
	resp, err := s.run(ctx, progress, func() (*rivertype.JobRow, string, error) {
		job, sources, err := s.Enqueue(ctx, p)
		if job != nil {
			first = job.ID
		}
		return job, sources, err
	})
	if !isUnreachable(err) {
		return resp, err
	}
	s.say(progress, first, fmt.Sprintf("%v: sending the sources instead", err))
	return s.run(ctx, progress, func() (*rivertype.JobRow, string, error) {
		job, err := s.EnqueueArchive(ctx, p)
		return job, "an archive of the sources", err
	})
}

// maxResends bounds how often a request is sent again because a check
// that shared its job was interrupted.
const maxResends = 3

// run enqueues a job (enqueue returns it and what its sources are) and
// waits for its end. When ctx ends first, the job is cancelled, on the
// queue or on the worker running it: nobody would read what a worker
// measured. Identical requests share a job (MeasureArgs.InsertOpts), so a
// job cancelled because another check waiting for it was interrupted is
// sent again.
func (s *Service) run(ctx context.Context, progress func(service.Progress), enqueue func() (*rivertype.JobRow, string, error)) (*service.Response, error) {
	for resent := 0; ; resent++ {
		job, sources, err := enqueue()
		if err != nil {
			return nil, err
		}
		s.say(progress, job.ID, fmt.Sprintf("job %d: sources: %s", job.ID, sources))
		resp, row, err := s.Wait(ctx, job.ID, progress)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, s.cancel(ctx, job.ID, err)
		case err != nil && row != nil && row.State == rivertype.JobStateCancelled && interrupted(row) && resent < maxResends:
			s.say(progress, job.ID, fmt.Sprintf("job %d was cancelled because another check waiting for it was interrupted: sending the request again", job.ID))
			continue
		}
		return resp, err
	}
}

// interruptedKey marks, in a job's metadata, a job cancelled because a
// check waiting for it was interrupted (not by a worker, nor by hand).
const interruptedKey = "perfls_interrupted"

func interrupted(job *rivertype.JobRow) bool {
	var meta map[string]any
	return json.Unmarshal(job.Metadata, &meta) == nil && meta[interruptedKey] == true
}

// cancelTimeout bounds cancelling a job after an interrupt: the user
// waits for the command to end.
const cancelTimeout = 2 * time.Second

// CancelledError ends a wait that its context ended: the job was
// cancelled (River's JobCancel: taken off the queue, or its worker told
// to stop), unless CancelErr says why not.
type CancelledError struct {
	Job       int64
	Err       error // why the wait ended: the context's error
	CancelErr error // cancelling failed: a worker may still measure the job
}

func (e *CancelledError) Error() string { return fmt.Sprintf("%v (%s)", e.Err, e.Note()) }
func (e *CancelledError) Unwrap() error { return e.Err }

// Note says what became of the job, for the user.
func (e *CancelledError) Note() string {
	if e.CancelErr != nil {
		return fmt.Sprintf("job %d could not be cancelled (%v): a worker may still measure it", e.Job, e.CancelErr)
	}
	return fmt.Sprintf("cancelled job %d", e.Job)
}

// cancel cancels job id after its wait ended with cause, marking it as
// cancelled for an interrupt (see run).
func (s *Service) cancel(ctx context.Context, id int64, cause error) error {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer stop()
	_, err := s.pool.Exec(cctx, "UPDATE river_job SET metadata = metadata || jsonb_build_object($2::text, true) WHERE id = $1 AND finalized_at IS NULL", id, interruptedKey)
	if err == nil {
		_, err = s.client.JobCancel(cctx, id)
	}
	return &CancelledError{Job: id, Err: cause, CancelErr: err}
}

// Status names the queue.
func (s *Service) Status(ctx context.Context) (*service.Status, error) {
	return &service.Status{Cache: "queue " + s.queue}, nil
}

// Close releases the connections.
func (s *Service) Close() error {
	s.pool.Close()
	return nil
}

// worker works measurement jobs with an in-process service.
type worker struct {
	river.WorkerDefaults[MeasureArgs]
	pool     *pgxpool.Pool
	local    *service.Local
	workDir  string // where archives are unpacked, one directory per archive
	cacheDir string // repository mirrors and the commits materialised from them
	logf     func(string, ...any)
}

// Work measures one job. A missing or damaged archive cancels the job
// (another attempt cannot mend it); other errors are retried. A job its
// client cancels (River's JobCancel) ends ctx: the measurement stops, its
// JVMs are killed and reaped by the in-process service.
func (w *worker) Work(ctx context.Context, job *river.Job[MeasureArgs]) (err error) {
	defer func() {
		if err != nil && errors.Is(context.Cause(ctx), river.ErrJobCancelledRemotely) {
			w.logf("job %d: cancelled by its client: measuring stopped", job.ID)
		}
	}()
	a := job.Args
	dir, what, err := w.sources(ctx, a)
	if err != nil {
		return err
	}
	p := a.Params
	p.Project = dir
	w.logf("job %d: measuring %d item(s) of %s", job.ID, len(p.Items), what)
	resp, err := w.local.Measure(ctx, p, nil)
	if err != nil {
		return err
	}
	if len(resp.CompileErrors) > 0 {
		w.logf("job %d: the sources do not compile: answered with the compiler's messages", job.ID)
	}
	return river.RecordOutput(ctx, resp)
}

// sources writes the job's code into a directory of its own and says
// what it is. The job is cancelled (river.JobCancel) when its archive is
// missing or damaged, its commit cannot be fetched (the client then sends
// an archive) or the commit's tree is not the job's fingerprint: another
// attempt mends none of them. Other errors are retried.
func (w *worker) sources(ctx context.Context, a MeasureArgs) (dir, what string, err error) {
	if a.Git != nil {
		what = fmt.Sprintf("commit %.12s", a.Git.Commit)
		if dir, err = w.checkout(ctx, a.Git); err != nil && ctx.Err() == nil {
			err = river.JobCancel(err)
		}
		return dir, what, err
	}
	var data []byte
	err = w.pool.QueryRow(ctx, "SELECT data FROM perfls_archives WHERE sha256 = $1", a.Archive).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", river.JobCancel(fmt.Errorf("the sources %.12s are not in the store", a.Archive))
	}
	if err != nil {
		return "", "", err
	}
	if dir, err = w.unpack(data, a.Archive); err != nil {
		return "", "", river.JobCancel(err)
	}
	return dir, fmt.Sprintf("archive %.12s", a.Archive), nil
}
