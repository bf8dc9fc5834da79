package measure

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

var quickProject struct {
	once sync.Once
	dir  string
	b    *Build
	err  error
}

// quickBuild compiles testdata/quick (once per test binary).
func quickBuild(t *testing.T) (string, *Build) {
	t.Helper()
	requireJDK(t)
	quickProject.once.Do(func() {
		dir := copyTreeTo(t, "quick", sharedCache)
		p, err := FindProject(dir)
		if err != nil {
			quickProject.err = err
			return
		}
		quickProject.dir = dir
		quickProject.b, quickProject.err = Compile(context.Background(), p, sharedCache)
	})
	if quickProject.err != nil {
		t.Fatal(quickProject.err)
	}
	return quickProject.dir, quickProject.b
}

// copyTreeTo copies testdata/<name> into a new directory under parent that
// outlives the test.
func copyTreeTo(t *testing.T, name, parent string) string {
	t.Helper()
	dst := filepath.Join(parent, name+"-"+strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func quickRequest(t *testing.T, b *Build, method string, gen string, args ...int64) measured.Request {
	t.Helper()
	specs := []string{method}
	if gen != "" {
		specs = append(specs, gen)
	}
	rs := resolveAll(t, b, specs...)
	r := measured.Request{Method: rs[0]}
	if gen != "" {
		r.Generator = rs[1]
	}
	for _, a := range args {
		r.Args = append(r.Args, measured.IntArg(a))
	}
	return r
}

// TestWorkerReusesJVMWithFreshClasses: two requests share one worker JVM,
// each sees freshly loaded project classes (the generator fails if its static
// state survives), results are preliminary and complete.
func TestWorkerReusesJVMWithFreshClasses(t *testing.T) {
	_, b := quickBuild(t)
	req := quickRequest(t, b, "q.Q#inc", "q.Q#once", 8)
	w := NewWorker(context.Background())
	defer w.Close()
	var pids []int
	for i := 0; i < 2; i++ {
		res, err := w.Measure(context.Background(), b, req, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Err != nil {
			t.Fatalf("request %d: %v", i+1, res.Err)
		}
		if !res.Preliminary || len(res.Forks) != 1 {
			t.Fatalf("request %d: preliminary=%v forks=%d, want a preliminary result with one fork", i+1, res.Preliminary, len(res.Forks))
		}
		f := res.Forks[0]
		if len(f.NsPerOp) != QuickOptions(Options{}).SamplesPerFork || f.Calls != 8 {
			t.Errorf("request %d: %d samples, %d calls per pass", i+1, len(f.NsPerOp), f.Calls)
		}
		for _, v := range f.NsPerOp {
			if !(v > 0) {
				t.Errorf("request %d: sample %v ns/op", i+1, v)
			}
		}
		if res.Env.JavaVersion == "" {
			t.Errorf("request %d: no environment", i+1)
		}
		pids = append(pids, w.PID())
	}
	if pids[0] == 0 || pids[0] != pids[1] {
		t.Errorf("worker pids %v: want one JVM reused", pids)
	}
	pid := pids[0]
	w.Close()
	if !processGone(pid) {
		t.Errorf("worker %d still runs after Close", pid)
	}
}

// TestWorkerPackagePrivate: the harness shares the runtime package of the
// measured class in the worker's class loader.
func TestWorkerPackagePrivate(t *testing.T) {
	_, b := quickBuild(t)
	req := quickRequest(t, b, "q.Q#hidden", "", 4)
	w := NewWorker(context.Background())
	defer w.Close()
	res, err := w.Measure(context.Background(), b, req, Options{})
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
}

// TestWorkerFailuresRestartIt: each failure gives its structured error, the
// broken worker is replaced, and the next request succeeds.
func TestWorkerFailuresRestartIt(t *testing.T) {
	dir, b := quickBuild(t)
	src := filepath.Join(dir, "src", "q", "Q.java")
	good := quickRequest(t, b, "q.Q#inc", "", 1)
	cases := []struct {
		name, method string
		opt          Options
		kind         string
		line         int
	}{
		{"exception", "q.Q#boom", Options{}, measured.KindException, lineOf(t, src, "// BOOM")},
		{"exit", "q.Q#quit", Options{}, measured.KindExit, 0},
		{"timeout", "q.Q#spin", Options{ForkTimeout: 1500 * time.Millisecond}, measured.KindTimeout, lineOf(t, src, "// SPIN")},
	}
	w := NewWorker(context.Background())
	defer w.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := w.Measure(context.Background(), b, good, Options{}); err != nil {
				t.Fatal(err)
			}
			before := w.PID()
			res, err := w.Measure(context.Background(), b, quickRequest(t, b, c.method, "", 5), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			var we *measured.WorkloadError
			if !errors.As(res.Err, &we) || we.Kind != c.kind {
				t.Fatalf("err = %v, want a %s WorkloadError", res.Err, c.kind)
			}
			if c.line > 0 && (we.Frame == nil || we.Frame.Line != c.line || we.Frame.Path != src) {
				t.Errorf("frame %+v, want %s:%d", we.Frame, src, c.line)
			}
			if !processGone(before) {
				t.Errorf("broken worker %d still runs", before)
			}
			res, err = w.Measure(context.Background(), b, good, Options{})
			if err != nil || res.Err != nil {
				t.Fatalf("after the failure: %v %v", err, res.Err)
			}
			if w.PID() == before {
				t.Errorf("worker %d was not restarted", before)
			}
		})
	}
}

// TestWorkerStrayThreadRestartsIt: a request that leaves a thread running
// still reports its figure, but the worker is replaced.
func TestWorkerStrayThreadRestartsIt(t *testing.T) {
	_, b := quickBuild(t)
	w := NewWorker(context.Background())
	defer w.Close()
	res, err := w.Measure(context.Background(), b, quickRequest(t, b, "q.Q#stray", "", 0), Options{})
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	if pid := w.PID(); pid != 0 {
		t.Errorf("worker %d kept after a request left a thread running", pid)
	}
}

// TestWorkerStopsWithContext: cancelling the context given to NewWorker
// stops the worker, and cancelling a request kills it.
func TestWorkerStopsWithContext(t *testing.T) {
	_, b := quickBuild(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := NewWorker(ctx)
	defer w.Close()
	if res, err := w.Measure(context.Background(), b, quickRequest(t, b, "q.Q#inc", "", 1), Options{}); err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	pid := w.PID()
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !processGone(pid) {
		t.Fatalf("worker %d runs on after its context ended", pid)
	}

	w2 := NewWorker(context.Background())
	defer w2.Close()
	rctx, rcancel := context.WithCancel(context.Background())
	spin := quickRequest(t, b, "q.Q#spin", "", 5)
	time.AfterFunc(time.Second, rcancel)
	_, err := w2.Measure(rctx, b, spin, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if w2.PID() != 0 {
		t.Errorf("worker kept after a cancelled request")
	}

	// The worker's own context ending in the middle of a request (the
	// request has another context) stops the JVM at once.
	wctx, wcancel := context.WithCancel(context.Background())
	w3 := NewWorker(wctx)
	defer w3.Close()
	pidc := make(chan int, 1)
	go func() { // ends once the worker runs (or after 30s)
		defer wcancel()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if pid := w3.PID(); pid != 0 {
				time.Sleep(200 * time.Millisecond) // into the request
				pidc <- pid
				return
			}
		}
		pidc <- 0
	}()
	_, err = w3.Measure(context.Background(), b, spin, Options{ForkTimeout: time.Minute})
	pid3 := <-pidc
	if !errors.Is(err, errClosed) {
		t.Fatalf("err = %v, want the worker closed", err)
	}
	if pid3 == 0 || !processGone(pid3) {
		t.Errorf("worker %d runs on after Close", pid3)
	}
}
