package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"

	"github.com/riverqueue/river/rivertype"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure/remote"
	"github.com/perfls/perfls/measure/service"
)

// perfls history: a method's results over commits and machines, oldest
// first, each with its commit, machine and figure.
func TestMethodHistory(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, small)
	store, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	put := func(commit, machine string, at int64, forkMeans ...float64) {
		env, _ := json.Marshal(measured.Environment{Commit: commit, JavaVendor: "Debian", JavaVersion: "17", Perfls: "v1"})
		m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Code: "c-" + commit, Machine: machine},
			Environment: env, CreatedAt: time.Unix(at, 0)}
		for _, x := range forkMeans {
			m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{x - 1, x + 1}})
		}
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	put("bbb", "cpu y, 8 cores", 200, 50)
	put("aaa", "cpu x, 2 cores", 100, 10, 12, 14)
	rows, err := e.MethodHistory(ctx, "p.A#m")
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	r := rows[0]
	if r.Commit != "aaa" || r.Machine != "cpu x, 2 cores" || r.JVM != "Debian 17" || r.Forks != 3 || r.Samples != 6 || r.MeanNs != 12 {
		t.Errorf("first row %+v", r)
	}
	// Fork means 10, 12, 14: sd 2, t(0.975, 2) = 4.303; half-width 4.303·2/√3.
	if h := 4.302653 * 2 / math.Sqrt(3); math.Abs(r.CIHighNs-12-h) > 1e-3 || math.Abs(12-r.CILowNs-h) > 1e-3 {
		t.Errorf("CI [%g, %g], want 12 ± %g", r.CILowNs, r.CIHighNs, h)
	}
	if rows[1].Commit != "bbb" || rows[1].CILowNs != 0 {
		t.Errorf("second row (one fork: no interval) %+v", rows[1])
	}
	if _, err := e.MethodHistory(ctx, "binarySearch"); err == nil {
		t.Error("a method without its class was accepted")
	}
}

// perfls check --remote: the check enqueues its measurements and a worker
// (another engine, another cache directory, the same shared store)
// measures them; the client measures nothing itself.
func TestRemoteCheckThroughAWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	url := newPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	open := func() *Engine {
		e, err := Open(ctx, Config{CacheDir: t.TempDir(), Service: InProcess, Logf: t.Logf, Store: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	worker, client := open(), open()
	fixture.Background(t, ctx, func(ctx context.Context) error { return worker.RunWorker(ctx, "t") })
	dir, _ := writeProject(t, "p/A.java", classA("return n;"))
	var said []string
	// Forks whose warm-up hits the cap do not decide: a cap the JIT settles
	// within on a busy machine, and room to replace a fork that still hits it.
	opts := small
	opts.MaxWarmup = 3 * time.Second
	res, err := client.Check(ctx, CheckRequest{Dir: dir, Options: opts, MaxForks: 4, Remote: true, Label: "t",
		Progress: func(p service.Progress) { said = append(said, p.Message) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Methods) != 1 || len(res.Methods[0].Instances) != 1 || res.Requests != 2 {
		t.Fatalf("check %+v", res)
	}
	if ev := res.Methods[0].Instances[0].Comparisons[0].Evidence; ev.Left.Forks < 2 || ev.Right.Forks < 2 {
		t.Errorf("evidence %+v, want at least 2 settled forks a side", ev)
	}
	if client.local != nil {
		t.Error("the client measured in-process")
	}
	store, _ := client.Store()
	if entries, _ := store.List(ctx); len(entries) < 2 {
		t.Errorf("%d measurements in the shared store, want the worker's 2", len(entries))
	}
	running := false
	for _, m := range said {
		running = running || strings.Contains(m, "running on worker")
	}
	if !running {
		t.Errorf("progress %q never said a worker took the job", said)
	}
	// Without a shared store there is no queue.
	if _, err := openEngine(t, small).Check(ctx, CheckRequest{Dir: dir, Remote: true}); err == nil || !strings.Contains(err.Error(), "PERFLS_STORE") {
		t.Errorf("remote without a shared store: %v", err)
	}
}

// An interrupted perfls check --remote cancels its job: the error says
// which (QueueNote), the job is cancelled in the queue, and a worker
// started afterwards measures nothing of it — it answers the next job and
// the shared store holds no measurement.
func TestInterruptedRemoteCheckCancelsItsJob(t *testing.T) {
	url := newPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client, err := Open(ctx, Config{CacheDir: t.TempDir(), Service: InProcess, Logf: t.Logf, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	dir, _ := writeProject(t, "p/A.java", classA("return n;"))
	cctx, interrupt := context.WithCancel(ctx)
	var job int64
	_, err = client.Check(cctx, CheckRequest{Dir: dir, Options: small, Remote: true, Progress: func(p service.Progress) {
		if strings.HasSuffix(p.Message, ": queued") {
			job = p.Job
			interrupt()
		}
	}})
	note := QueueNote(err)
	if !errors.Is(err, context.Canceled) || job == 0 || note != fmt.Sprintf("cancelled job %d", job) {
		t.Fatalf("interrupted check: %v, note %q, job %d", err, note, job)
	}
	q, err := remote.NewService(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	worker, err := Open(ctx, Config{CacheDir: t.TempDir(), Service: InProcess, Logf: t.Logf, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Close()
	fixture.Background(t, ctx, func(ctx context.Context) error { return worker.RunWorker(ctx, "") })
	broken, _ := writeProject(t, "p/B.java", "package p; class B { int x = ; }")
	next, err := q.EnqueueArchive(ctx, service.Params{Project: broken, Options: small})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.Wait(ctx, next.ID, nil); err != nil {
		t.Fatal(err)
	}
	_, row, err := q.Wait(ctx, job, nil)
	if row == nil {
		t.Fatal(err)
	}
	if row.State != rivertype.JobStateCancelled || row.Attempt != 0 {
		t.Errorf("the interrupted check's job after a worker ran: %s after %d attempt(s)", row.State, row.Attempt)
	}
	store, _ := client.Store()
	if entries, err := store.List(ctx); err != nil || len(entries) != 0 {
		t.Errorf("%d measurements in the shared store (%v), want none", len(entries), err)
	}
}
