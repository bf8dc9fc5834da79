package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Priority orders waiting work: an explicit user action first, background
// refinement last.
type Priority int

const (
	Background  Priority = iota // refining results nobody asked for yet
	Batch                       // CI and command-line checks
	OnSave                      // re-checking after a save
	Interactive                 // a user clicked "Measure"
)

func (p Priority) String() string {
	switch p {
	case Interactive:
		return "interactive"
	case OnSave:
		return "on-save"
	case Batch:
		return "batch"
	default:
		return "background"
	}
}

// Progress is a partial result streamed to every waiter of a job.
type Progress struct {
	Key     string `json:"key"`
	Message string `json:"message"`
	Fork    int    `json:"fork,omitempty"`
	Of      int    `json:"of,omitempty"`
	// NsPerOp is the mean of a fork that just finished: a partial result.
	NsPerOp float64 `json:"ns_per_op,omitempty"`
	// Preliminary is the quick phase's run when this reports it (NsPerOp
	// is then its mean).
	Preliminary *Preliminary `json:"preliminary,omitempty"`
	// Planned is the forks a request is about to run, once the cache has
	// answered what it could: sent once per request, before its forks, in
	// a Progress without a Message.
	Planned int `json:"planned,omitempty"`
	// Job is the job on the workers' queue (measure/remote) whose state
	// Message reports: a line of its own in a log.
	Job int64 `json:"job,omitempty"`
}

// JobFunc does a job's work, reporting progress through emit. It must
// return promptly once ctx is cancelled.
type JobFunc func(ctx context.Context, emit func(Progress)) (any, error)

// StepFunc does one step of a job that runs in steps (a measurement: one fork
// per step). It returns the result so far, and done when the job is complete.
// Between steps the job goes back to the end of its priority's queue, so jobs
// of equal priority take turns: requests measured at the same time
// interleave their forks, and a slow disturbance of the machine spreads over
// all of them instead of biasing one. When the budget runs out the job ends
// with the last result returned (nil: a budget error). It must return
// promptly once ctx is cancelled.
type StepFunc func(ctx context.Context, emit func(Progress)) (result any, done bool, err error)

type job struct {
	key      string
	label    string
	priority Priority
	seq      int64 // FIFO order within a priority
	step     StepFunc
	budget   time.Duration
	spent    time.Duration // running time of the steps so far, against budget
	partial  any           // the last result a step returned

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	result any
	err    error

	// guarded by Scheduler.mu
	waiters   int
	listeners map[int]func(Progress)
	started   time.Time
	history   []Progress // progress so far, replayed to waiters who join late
}

// maxReplay bounds the progress kept for late joiners.
const maxReplay = 256

// Scheduler runs jobs a few at a time (one by default: two measurements on
// the same cores disturb each other), highest priority first; identical
// jobs (same key) are merged, and a job nobody waits for any more is
// cancelled. A Scheduler owns its worker goroutines; Close stops them.
type Scheduler struct {
	mu       sync.Mutex
	queue    []*job
	running  map[string]*job
	byKey    map[string]*job
	seq      int64
	nextID   int
	wake     chan struct{}
	closed   bool
	workers  sync.WaitGroup
	stopping context.CancelFunc
	finished int
}

// NewScheduler starts a scheduler with the given number of concurrent jobs.
func NewScheduler(concurrency int) *Scheduler {
	if concurrency < 1 {
		concurrency = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Scheduler{
		running:  map[string]*job{},
		byKey:    map[string]*job{},
		wake:     make(chan struct{}, 1),
		stopping: cancel,
	}
	for i := 0; i < concurrency; i++ {
		s.workers.Add(1)
		go s.work(ctx)
	}
	return s
}

// ErrClosed is returned for work submitted to, or pending in, a closed scheduler.
var ErrClosed = errors.New("the measurement scheduler is shut down")

// Do runs fn under key, or joins the identical job already queued or
// running, and waits for its result. progress receives the job's partial
// results (possibly from another caller's identical request). When ctx ends
// Do returns ctx.Err(); the job is cancelled if no one else waits for it.
// budget, when positive, limits the job's running time.
func (s *Scheduler) Do(ctx context.Context, key, label string, prio Priority, budget time.Duration, fn JobFunc, progress func(Progress)) (any, error) {
	return s.DoSteps(ctx, key, label, prio, budget, func(ctx context.Context, emit func(Progress)) (any, bool, error) {
		r, err := fn(ctx, emit)
		return r, true, err
	}, progress)
}

// DoSteps is Do for a job done in steps (see StepFunc); budget limits the
// steps' total running time, not the time spent waiting between them.
func (s *Scheduler) DoSteps(ctx context.Context, key, label string, prio Priority, budget time.Duration, fn StepFunc, progress func(Progress)) (any, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	j := s.byKey[key]
	if j == nil {
		jctx, cancel := context.WithCancel(context.Background())
		s.seq++
		j = &job{key: key, label: label, priority: prio, seq: s.seq, step: fn, budget: budget,
			ctx: jctx, cancel: cancel, done: make(chan struct{}), listeners: map[int]func(Progress){}}
		s.byKey[key] = j
		s.queue = append(s.queue, j)
		s.signal()
	} else if prio > j.priority {
		j.priority = prio // a more urgent caller lifts the merged job
	}
	j.waiters++
	id := s.nextID
	s.nextID++
	var replay []Progress
	if progress != nil {
		j.listeners[id] = progress
		replay = append(replay, j.history...)
	}
	s.mu.Unlock()
	for _, p := range replay { // what a merged job reported before we joined
		progress(p)
	}

	select {
	case <-j.done:
		s.leave(j, id)
		return j.result, j.err
	case <-ctx.Done():
		s.leave(j, id)
		return nil, ctx.Err()
	}
}

// leave removes a waiter; the last one to leave an unfinished job cancels it.
func (s *Scheduler) leave(j *job, id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j.waiters--
	delete(j.listeners, id)
	select {
	case <-j.done:
		return
	default:
	}
	if j.waiters > 0 {
		return
	}
	j.cancel()
	for i, q := range s.queue {
		if q == j { // never started: finish it here
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			delete(s.byKey, j.key)
			j.err = context.Canceled
			close(j.done)
			break
		}
	}
}

func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Scheduler) work(ctx context.Context) {
	defer s.workers.Done()
	for {
		j := s.next()
		if j == nil {
			select {
			case <-s.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		s.runJob(j)
		s.signal() // another worker may be waiting for the next job
	}
}

// next pops the most urgent queued job: highest priority, then oldest.
func (s *Scheduler) next() *job {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := -1
	for i, j := range s.queue {
		if best < 0 || j.priority > s.queue[best].priority || (j.priority == s.queue[best].priority && j.seq < s.queue[best].seq) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	j := s.queue[best]
	s.queue = append(s.queue[:best], s.queue[best+1:]...)
	s.running[j.key] = j
	if j.started.IsZero() {
		j.started = time.Now()
	}
	return j
}

// runJob runs one step of j, then either finishes j or puts it back in the
// queue behind the jobs of its priority.
func (s *Scheduler) runJob(j *job) {
	ctx := j.ctx
	var budgetCtx context.Context
	if j.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, j.budget-j.spent)
		defer cancel()
		budgetCtx = ctx
	}
	emit := func(p Progress) {
		p.Key = j.key
		s.mu.Lock()
		if len(j.history) < maxReplay {
			j.history = append(j.history, p)
		}
		ls := make([]func(Progress), 0, len(j.listeners))
		for _, l := range j.listeners {
			ls = append(ls, l)
		}
		s.mu.Unlock()
		for _, l := range ls {
			l(p)
		}
	}
	began := time.Now()
	result, done, err := func() (result any, done bool, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("measurement job %s panicked: %v", j.label, r)
			}
		}()
		return j.step(ctx, emit)
	}()
	j.spent += time.Since(began)
	if result != nil {
		j.partial = result
	}
	budgetOut := budgetCtx != nil && j.ctx.Err() == nil &&
		(errors.Is(budgetCtx.Err(), context.DeadlineExceeded) || (!done && err == nil && j.spent >= j.budget))
	switch {
	case budgetOut:
		result, err = j.partial, nil
		if result == nil {
			err = fmt.Errorf("%s: time budget of %s exceeded", j.label, j.budget)
		}
	case err == nil && !done && j.ctx.Err() == nil:
		s.mu.Lock()
		delete(s.running, j.key)
		if !s.closed {
			s.seq++
			j.seq = s.seq
			s.queue = append(s.queue, j)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		err = ErrClosed
	case err == nil && !done:
		err = j.ctx.Err()
	}
	s.mu.Lock()
	j.result, j.err = result, err
	delete(s.running, j.key)
	delete(s.byKey, j.key)
	s.finished++
	close(j.done)
	s.mu.Unlock()
	j.cancel()
}

// JobStatus describes one queued or running job.
type JobStatus struct {
	Label    string        `json:"label"`
	Priority string        `json:"priority"`
	Running  bool          `json:"running"`
	Waiters  int           `json:"waiters"`
	Elapsed  time.Duration `json:"elapsed_ns,omitempty"`
}

// Status lists running jobs, then queued ones in the order they will run.
func (s *Scheduler) Status() (jobs []JobStatus, finished int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.running {
		jobs = append(jobs, JobStatus{Label: j.label, Priority: j.priority.String(), Running: true, Waiters: j.waiters, Elapsed: time.Since(j.started)})
	}
	queued := append([]*job(nil), s.queue...)
	for len(queued) > 0 {
		best := 0
		for i, j := range queued {
			if j.priority > queued[best].priority || (j.priority == queued[best].priority && j.seq < queued[best].seq) {
				best = i
			}
		}
		j := queued[best]
		jobs = append(jobs, JobStatus{Label: j.label, Priority: j.priority.String(), Waiters: j.waiters})
		queued = append(queued[:best], queued[best+1:]...)
	}
	return jobs, s.finished
}

// Close cancels all work, waits for the workers to stop, and fails every
// waiter still queued.
func (s *Scheduler) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for _, j := range s.running {
		j.cancel()
	}
	for _, j := range s.queue {
		j.cancel()
		j.err = ErrClosed
		delete(s.byKey, j.key)
		close(j.done)
	}
	s.queue = nil
	s.mu.Unlock()
	s.stopping()
	s.workers.Wait()
}
