package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"

	"github.com/riverqueue/river/rivertype"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// brokenParams is a request whose project does not compile: a worker
// answers it at once with the compiler's messages, measuring nothing.
func brokenParams(t *testing.T, class string) service.Params {
	proj := writeTree(t, map[string]string{"p/" + class + ".java": "package p; public class " + class + " { int x = ; }"})
	return service.Params{Project: proj, Items: []service.Item{{Method: methodspec.Spec{Class: "p." + class, Name: "m"}}},
		Options: measure.Options{Forks: 1, SamplesPerFork: 2}}
}

// logLines collects a worker's log.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// untilProgress returns a progress that cancels when a message contains
// want, and the messages heard.
func untilProgress(cancel func(), want string) (func(service.Progress), func() []string) {
	var mu sync.Mutex
	var said []string
	return func(p service.Progress) {
			mu.Lock()
			defer mu.Unlock()
			said = append(said, p.Message)
			if strings.Contains(p.Message, want) {
				cancel()
			}
		}, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), said...)
		}
}

// An interrupted wait for a queued job cancels it: the job ends
// cancelled, and a worker started afterwards measures it not — it takes
// the next job, answers it, and has not touched the cancelled one.
func TestInterruptedWaitCancelsQueuedJob(t *testing.T) {
	ctx, url, svc := newQueue(t, "", 2*time.Minute)
	wctx, interrupt := context.WithCancel(ctx)
	progress, said := untilProgress(interrupt, ": queued")
	_, err := svc.Measure(wctx, brokenParams(t, "A"), progress)
	var ce *CancelledError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) || ce.CancelErr != nil || ce.Note() != fmt.Sprintf("cancelled job %d", ce.Job) {
		t.Fatalf("interrupted: %v (progress %q)", err, said())
	}
	job, err := svc.client.JobGet(ctx, ce.Job)
	if err != nil || job.State != rivertype.JobStateCancelled {
		t.Fatalf("job %d after the interrupt: %s, %v", ce.Job, jobState(job), err)
	}

	var log logLines
	startWorker(ctx, t, url, WorkerConfig{Logf: log.logf})
	next, err := svc.EnqueueArchive(ctx, brokenParams(t, "B"))
	if err != nil {
		t.Fatal(err)
	}
	if _, row, err := svc.Wait(ctx, next.ID, nil); err != nil || row.State != rivertype.JobStateCompleted {
		t.Fatalf("the next job: %s, %v", jobState(row), err)
	}
	job, err = svc.client.JobGet(ctx, ce.Job)
	if err != nil || job.State != rivertype.JobStateCancelled || job.Attempt != 0 || len(job.AttemptedBy) != 0 {
		t.Errorf("the cancelled job after a worker ran: %s, %v", jobState(job), err)
	}
	if log.has(fmt.Sprintf("job %d:", ce.Job)) || !log.has(fmt.Sprintf("job %d:", next.ID)) {
		t.Errorf("worker log %q", log.lines)
	}
}

// Identical requests share a job: when one waiting check is interrupted,
// the other's request is sent again and answered.
func TestInterruptedSharerResends(t *testing.T) {
	ctx, url, a := newQueue(t, "", 2*time.Minute)
	b, err := NewService(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := brokenParams(t, "A")
	queued := make(chan struct{})
	var once sync.Once
	var bSaid []string
	var bResp *service.Response
	bDone := make(chan error, 1)
	go func() {
		var err error
		bResp, err = b.Measure(ctx, p, func(pr service.Progress) {
			bSaid = append(bSaid, pr.Message)
			if strings.Contains(pr.Message, ": queued") {
				once.Do(func() { close(queued) })
			}
		})
		bDone <- err
	}()
	<-queued
	actx, interrupt := context.WithCancel(ctx)
	progress, said := untilProgress(interrupt, ": queued")
	_, err = a.Measure(actx, p, progress)
	var ce *CancelledError
	if !errors.As(err, &ce) {
		t.Fatalf("a: %v (%q)", err, said())
	}
	startWorker(ctx, t, url, WorkerConfig{})
	if err := <-bDone; err != nil || bResp == nil || len(bResp.CompileErrors) == 0 {
		t.Fatalf("b after a's interrupt: %+v, %v (%q)", bResp, err, bSaid)
	}
	resent := false
	for _, m := range bSaid {
		resent = resent || strings.Contains(m, fmt.Sprintf("job %d was cancelled because another check waiting for it was interrupted", ce.Job))
	}
	if !resent {
		t.Errorf("b's progress %q does not say it sent the request again", bSaid)
	}
}

// Wait says each state change once and that a job is still queued at most
// every StillEvery, on the service's clock; each message names its job.
func TestWaitSaysStatesOnce(t *testing.T) {
	ctx, url, svc := newQueue(t, "", 2*time.Minute)
	clock := time.Unix(0, 0)
	svc.now = func() time.Time { clock = clock.Add(7 * time.Second); return clock } // 7 s a poll
	job, err := svc.EnqueueArchive(ctx, brokenParams(t, "A"))
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	var msgs []service.Progress
	still := 0
	svc.Wait(wctx, job.ID, func(p service.Progress) {
		msgs = append(msgs, p)
		if strings.Contains(p.Message, "still queued") {
			if still++; still == 3 {
				stop()
			}
		}
	})
	want := []string{"queued", "still queued after 35s", "still queued after 1m10s", "still queued after 1m45s"}
	if len(msgs) != len(want) {
		t.Fatalf("messages %+v, want %q", msgs, want)
	}
	for i, m := range msgs {
		if m.Message != fmt.Sprintf("job %d on queue perfls: %s", job.ID, want[i]) || m.Job != job.ID {
			t.Errorf("message %d: %+v, want %q", i, m, want[i])
		}
	}
	// A worker takes it: running, then done, each said once.
	svc.now = time.Now
	startWorker(ctx, t, url, WorkerConfig{})
	msgs = nil
	if _, _, err := svc.Wait(ctx, job.ID, func(p service.Progress) { msgs = append(msgs, p) }); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, m := range msgs {
		states = append(states, strings.TrimPrefix(m.Message, fmt.Sprintf("job %d on queue perfls: ", job.ID)))
	}
	if n := len(states); n < 2 || !strings.HasPrefix(states[n-2], "running on worker ") || !strings.HasSuffix(states[n-2], "(attempt 1)") || states[n-1] != "done" {
		t.Errorf("states %q, want … running on worker X (attempt 1), done", states)
	}
	for i := 1; i < len(states); i++ {
		if states[i] == states[i-1] {
			t.Errorf("state %q said twice", states[i])
		}
	}
}

// A job cancelled while a worker measures it stops there: the job ends
// cancelled, the worker says so, and its forked JVM is killed and reaped.
func TestCancelStopsRunningMeasurement(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	if runtime.GOOS != "linux" {
		t.Skip("finds the worker's JVM in /proc")
	}
	ctx, url, svc := newQueue(t, "", 4*time.Minute)
	var log logLines
	startWorker(ctx, t, url, WorkerConfig{Logf: log.logf})
	proj := writeTree(t, map[string]string{"p/Spin.java": fixture.SpinJava})
	p := service.Params{Project: proj, Items: []service.Item{{Method: methodspec.Spec{Class: "p.Spin", Name: "forever"}, Args: []measured.Arg{measured.IntArg(1)}}},
		Options: measure.Options{Forks: 1, SamplesPerFork: 2, ForkTimeout: 10 * time.Minute}}
	wctx, interrupt := context.WithCancel(ctx)
	found := make(chan int, 1)
	go func() { // interrupts once the worker's JVM measures
		defer interrupt()
		jvm := 0
		for jvm == 0 && wctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			jvm = fixture.ForkOf(os.Getpid())
		}
		found <- jvm
	}()
	_, err := svc.Measure(wctx, p, func(p service.Progress) { t.Log(p.Message) })
	jvm := <-found
	var ce *CancelledError
	if !errors.As(err, &ce) || ce.CancelErr != nil || jvm == 0 {
		t.Fatalf("interrupted: %v (JVM %d)", err, jvm)
	}
	job, err := svc.client.JobGet(ctx, ce.Job)
	for err == nil && job.State == rivertype.JobStateRunning && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		job, err = svc.client.JobGet(ctx, ce.Job)
	}
	if err != nil || job.State != rivertype.JobStateCancelled || job.Attempt != 1 {
		t.Fatalf("the job after its cancel: %s, %v", jobState(job), err)
	}
	if !log.has(fmt.Sprintf("job %d: cancelled by its client: measuring stopped", ce.Job)) {
		t.Errorf("worker log %q", log.lines)
	}
	for fixture.Alive(jvm) && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	if fixture.Alive(jvm) {
		t.Errorf("the worker's JVM %d outlived its cancelled job", jvm)
	}
}

// jobState shows a job row's state for a test's message.
func jobState(j *rivertype.JobRow) string {
	if j == nil {
		return "no job"
	}
	return fmt.Sprintf("%s, attempt %d by %v, errors %v", j.State, j.Attempt, j.AttemptedBy, j.Errors)
}
