package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blocker is a job that runs until released, recording that it started.
type blocker struct {
	started chan string
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan string, 10), release: make(chan struct{})}
}

func (b *blocker) job(name string) JobFunc {
	return func(ctx context.Context, emit func(Progress)) (any, error) {
		b.started <- name
		emit(Progress{Message: name + " started"})
		select {
		case <-b.release:
			return name, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func waitStarted(t *testing.T, b *blocker) string {
	t.Helper()
	select {
	case n := <-b.started:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no job started")
		return ""
	}
}

func TestPriorityOrderAndMerging(t *testing.T) {
	s := NewScheduler(1)
	defer s.Close()
	b := newBlocker()
	ctx := context.Background()
	results := make(chan string, 10)
	submit := func(key string, p Priority) {
		go func() {
			r, err := s.Do(ctx, key, key, p, 0, b.job(key), nil)
			if err != nil {
				results <- key + ": " + err.Error()
				return
			}
			results <- r.(string)
		}()
	}
	submit("first", Background)
	if got := waitStarted(t, b); got != "first" {
		t.Fatalf("started %s", got)
	}
	// While "first" runs, queue a background, a batch and an interactive job,
	// and a second request identical to the batch one.
	queued := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if jobs, _ := s.Status(); len(jobs) == n {
				return
			}
		}
		t.Fatalf("queue never reached %d jobs", n)
	}
	submit("bg", Background)
	queued(2)
	submit("ci", Batch)
	queued(3)
	submit("click", Interactive)
	queued(4)
	var progress atomic.Int32
	go func() {
		r, _ := s.Do(ctx, "ci", "ci", Batch, 0, func(context.Context, func(Progress)) (any, error) {
			t.Error("an identical request ran twice")
			return nil, nil
		}, func(Progress) { progress.Add(1) })
		results <- "merged " + r.(string)
	}()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if jobs, _ := s.Status(); len(jobs) == 4 && jobs[2].Waiters == 2 {
			break
		}
	}
	if jobs, _ := s.Status(); len(jobs) != 4 || !jobs[0].Running || jobs[1].Label != "click" || jobs[2].Label != "ci" || jobs[2].Waiters != 2 {
		t.Errorf("status %+v", jobs)
	}
	var order []string
	for i := 0; i < 4; i++ {
		b.release <- struct{}{}
		if i < 3 {
			order = append(order, waitStarted(t, b))
		}
	}
	if strings.Join(order, ",") != "click,ci,bg" {
		t.Errorf("run order %v, want click,ci,bg", order)
	}
	got := map[string]bool{}
	for i := 0; i < 5; i++ {
		got[<-results] = true
	}
	if !got["merged ci"] || !got["ci"] || !got["first"] {
		t.Errorf("results %v", got)
	}
	if progress.Load() == 0 {
		t.Errorf("the merged waiter saw no progress")
	}
}

func TestJobCancelledWhenNobodyWaits(t *testing.T) {
	s := NewScheduler(1)
	defer s.Close()
	var cancelled atomic.Bool
	started := make(chan struct{})
	fn := func(ctx context.Context, _ func(Progress)) (any, error) {
		close(started)
		<-ctx.Done()
		cancelled.Store(true)
		return nil, ctx.Err()
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, c := range []context.Context{ctx1, ctx2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Do(c, "k", "k", Batch, 0, fn, nil)
		}()
	}
	<-started
	// Both callers must wait on the job before the first leaves; on a
	// loaded machine the second may not have joined yet.
	for {
		jobs, _ := s.Status()
		if len(jobs) == 1 && jobs[0].Waiters == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel1()
	time.Sleep(50 * time.Millisecond)
	if cancelled.Load() {
		t.Fatal("cancelled while a second caller still waits")
	}
	cancel2()
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for !cancelled.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !cancelled.Load() {
		t.Error("job not cancelled after its last waiter left")
	}
}

func TestQueuedJobDroppedWhenItsWaiterLeaves(t *testing.T) {
	s := NewScheduler(1)
	defer s.Close()
	b := newBlocker()
	go s.Do(context.Background(), "busy", "busy", Batch, 0, b.job("busy"), nil)
	waitStarted(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := s.Do(ctx, "later", "later", Batch, 0, func(context.Context, func(Progress)) (any, error) {
			t.Error("a job nobody waits for ran")
			return nil, nil
		}, nil)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if jobs, _ := s.Status(); len(jobs) != 1 {
		t.Errorf("queue after cancel: %+v", jobs)
	}
	b.release <- struct{}{}
}

func TestBudgetAndPanicAndClose(t *testing.T) {
	s := NewScheduler(1)
	_, err := s.Do(context.Background(), "slow", "slow job", Batch, 50*time.Millisecond, func(ctx context.Context, _ func(Progress)) (any, error) {
		<-ctx.Done()
		return nil, nil
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "time budget") {
		t.Errorf("budget: %v", err)
	}
	_, err = s.Do(context.Background(), "bad", "bad job", Batch, 0, func(context.Context, func(Progress)) (any, error) {
		panic("boom")
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "panicked: boom") {
		t.Errorf("panic: %v", err)
	}
	b := newBlocker()
	go s.Do(context.Background(), "running", "running", Batch, 0, b.job("running"), nil)
	waitStarted(t, b)
	queued := make(chan error)
	go func() {
		_, err := s.Do(context.Background(), "queued", "queued", Batch, 0, b.job("queued"), nil)
		queued <- err
	}()
	time.Sleep(50 * time.Millisecond)
	s.Close() // cancels the running job and fails the queued one
	if err := <-queued; !errors.Is(err, ErrClosed) {
		t.Errorf("queued job after Close: %v", err)
	}
	if _, err := s.Do(context.Background(), "x", "x", Batch, 0, b.job("x"), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close: %v", err)
	}
}

// Jobs done in steps take turns, so two measurements requested together
// interleave their forks; a budget ends a job with its partial result.
func TestStepJobsInterleaveAndKeepPartialResults(t *testing.T) {
	s := NewScheduler(1)
	defer s.Close()
	var mu sync.Mutex
	var order []string
	gate := make(chan struct{})
	steps := func(name string, n int) StepFunc {
		done := 0
		return func(ctx context.Context, emit func(Progress)) (any, bool, error) {
			<-gate
			done++
			mu.Lock()
			order = append(order, fmt.Sprintf("%s%d", name, done))
			mu.Unlock()
			return done, done == n, nil
		}
	}
	var wg sync.WaitGroup
	results := make([]any, 2)
	for i, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.DoSteps(context.Background(), name, name, Batch, 0, steps(name, 3), nil)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			results[i] = r
		}()
		// Both jobs must be queued before the first step runs.
		for {
			if jobs, _ := s.Status(); len(jobs) == i+1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	close(gate)
	wg.Wait()
	if got := strings.Join(order, " "); got != "a1 b1 a2 b2 a3 b3" {
		t.Errorf("step order %q, want the jobs to take turns", got)
	}
	if results[0] != 3 || results[1] != 3 {
		t.Errorf("results %v, want the last step's", results)
	}

	n := 0
	r, err := s.DoSteps(context.Background(), "long", "long", Batch, 30*time.Millisecond, func(ctx context.Context, _ func(Progress)) (any, bool, error) {
		n++
		if n == 3 {
			<-ctx.Done() // the budget runs out during the third step
			return nil, false, ctx.Err()
		}
		return n, false, nil
	}, nil)
	if err != nil || r != 2 {
		t.Errorf("budget: result %v, err %v; want the partial result 2", r, err)
	}
}
