//go:build unix

package service

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/measure"
)

const workJava = `package w;

public class Work {
    public static long spin(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += i ^ (x >>> 3);
        return x;
    }
    public static Iterable<Object[]> gen(int n) {
        return java.util.Collections.singletonList(new Object[] {(long) n});
    }
    public static Iterable<Object[]> sleepy(int n) throws Exception {
        Thread.sleep(60_000);
        return null;
    }
}
`

func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeProject(t, dir)
	return dir
}

func writeProject(t testing.TB, dir string) {
	p := filepath.Join(dir, "src", "w", "Work.java")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(workJava), 0o644); err != nil {
		t.Fatal(err)
	}
}

func quick() measure.Options {
	return measure.Options{Forks: 2, SamplesPerFork: 5, Warmup: 50 * time.Millisecond}
}

func startDaemon(t *testing.T, cacheDir string) *Daemon {
	t.Helper()
	return startDaemonWith(t, cacheDir, nil)
}

// startDaemonWith starts a daemon of cacheDir in this process, letting
// adjust change it before it serves; it stops when the test ends.
func startDaemonWith(t *testing.T, cacheDir string, adjust func(*Daemon)) *Daemon {
	t.Helper()
	d, err := Listen(cacheDir, NewLocal(context.Background(), cacheDir, openStore(t, cacheDir), 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if adjust != nil {
		adjust(d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("daemon did not stop")
		}
	})
	return d
}

func TestDaemonSingleInstanceAndStaleSocket(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	socket, _ := SocketPath(cacheDir)
	// A dead daemon's socket file: nobody listens on it.
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()

	d := startDaemon(t, cacheDir)
	if d.Socket() != socket {
		t.Errorf("socket %s, want %s", d.Socket(), socket)
	}
	if st, err := os.Stat(filepath.Dir(socket)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v %v, want 0700", st.Mode().Perm(), err)
	}
	if _, err := Listen(cacheDir, nil, nil); !errors.Is(err, ErrDaemonRunning) {
		t.Errorf("second daemon: %v, want ErrDaemonRunning", err)
	}
	c, err := Dial(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(context.Background())
	if err != nil || st.PID != os.Getpid() || st.Socket != socket || st.CacheDir != cacheDir {
		t.Errorf("status %+v %v", st, err)
	}
}

// TestClientsShareMeasurementsThroughDaemon: two clients ask for the same
// measurement at once and get one result; a later request is answered from
// the cache, also by an in-process service on the same cache.
func TestClientsShareMeasurementsThroughDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	cacheDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	startDaemon(t, cacheDir)
	dir := project(t)
	p := Params{Project: dir, Options: quick(), Priority: Interactive, Items: []Item{{
		Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
		Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args:      []measured.Arg{measured.IntArg(2000)},
	}}}
	ctx := context.Background()
	var wg sync.WaitGroup
	resps := make([]*Response, 2)
	var mu sync.Mutex
	partial := make([]int, 2) // partial results each client saw
	for i := range resps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Dial(ctx, cacheDir)
			if err != nil {
				t.Error(err)
				return
			}
			resps[i], err = c.Measure(ctx, p, func(pr Progress) {
				if pr.NsPerOp > 0 {
					mu.Lock()
					partial[i]++
					mu.Unlock()
				}
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// Every waiter, also the one whose request was merged into the other's,
	// got the finished forks' figures before the result.
	if partial[0] == 0 || partial[1] == 0 {
		t.Errorf("partial results seen by the two clients: %v", partial)
	}
	a, b := resps[0].Items[0], resps[1].Items[0]
	if a.Error != "" || len(a.Forks) != 2 || len(a.Forks[0].NsPerOp) != 5 {
		t.Fatalf("result %+v", a)
	}
	if a.CacheID == 0 || a.CacheID != b.CacheID {
		t.Errorf("concurrent identical requests were measured twice (cache ids %d, %d)", a.CacheID, b.CacheID)
	}
	// Asked again, the cache answers; so does an in-process service.
	c, _ := Dial(ctx, cacheDir)
	again, err := c.Measure(ctx, p, nil)
	if err != nil || !again.Items[0].Cached || again.Items[0].CacheID != a.CacheID {
		t.Errorf("second request not answered from the cache: %+v %v", again.Items[0], err)
	}
	local := NewLocal(ctx, cacheDir, openStore(t, cacheDir), 1)
	defer local.Close()
	if r, err := local.Measure(ctx, p, nil); err != nil || !r.Items[0].Cached {
		t.Errorf("in-process service did not see the daemon's result: %+v %v", r, err)
	}
	// --fresh measures again, and the earlier measurement of the same code
	// becomes run history: one mean per earlier fork.
	p.Fresh = true
	r, err := c.Measure(ctx, p, nil)
	if err != nil || r.Items[0].Cached || r.Items[0].CacheID == a.CacheID {
		t.Errorf("fresh request answered from the cache: %+v %v", r.Items[0], err)
	}
	if r != nil && len(r.Items[0].History) != 2 {
		t.Errorf("history %v, want the 2 fork means of the first measurement", r.Items[0].History)
	}
}

func TestDisconnectCancelsTheWork(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	cacheDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	d := startDaemon(t, cacheDir)
	dir := project(t)
	p := Params{Project: dir, Options: quick(), Items: []Item{{
		Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
		Generator: methodspec.Spec{Class: "w.Work", Name: "sleepy"},
		Args:      []measured.Arg{measured.IntArg(1)},
	}}}
	c, err := Dial(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Measure(ctx, p, nil)
		errc <- err
	}()
	// Wait until the fork runs (compiling first takes long on a loaded
	// machine), then give up on the request.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if st, _ := d.svc.Status(context.Background()); len(st.Jobs) > 0 && st.Jobs[0].Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never started")
		}
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client error %v", err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, _ := d.svc.Status(context.Background()); len(st.Jobs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon kept working for a client that left")
		}
	}
}

// TestDaemonSocketKeyedByCacheDir: a daemon serves one cache directory; a
// client with another PERFLS_CACHE_DIR finds no daemon (and measures
// in-process, into its own cache) rather than the other directory's daemon.
func TestDaemonSocketKeyedByCacheDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	a, b := t.TempDir(), t.TempDir()
	sa, _ := SocketPath(a)
	sb, _ := SocketPath(b)
	if sa == sb {
		t.Fatalf("cache directories %s and %s share the socket %s", a, b, sa)
	}
	// The same directory spelled differently is the same daemon.
	if s, _ := SocketPath(a + "/./"); s != sa {
		t.Errorf("%s/./ has socket %s, %s has %s", a, s, a, sa)
	}
	startDaemon(t, a)
	if _, err := Dial(context.Background(), b); err == nil {
		t.Errorf("a client of %s reached the daemon of %s", b, a)
	}
	// Each cache directory can have its daemon.
	startDaemon(t, b)
	for _, dir := range []string{a, b} {
		c, err := Dial(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := c.Status(context.Background()); err != nil || st.Cache != filepath.Join(dir, "perfls.db") {
			t.Errorf("daemon of %s reports cache %+v %v", dir, st, err)
		}
	}
}

// TestDaemonRejectsProjectItCannotPlace: a request without an absolute
// project directory is refused; the daemon never falls back to its own
// working directory.
func TestDaemonRejectsProjectItCannotPlace(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	startDaemon(t, cacheDir)
	c, err := Dial(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, project := range []string{"", ".", "src"} {
		// Sent as is: the Go client makes a relative path absolute first,
		// other clients may not.
		var resp Response
		err := c.call(context.Background(), methodMeasure, struct {
			Params
			Token string `json:"token"`
		}{Params: Params{Project: project, Items: []Item{{Method: methodspec.Spec{Class: "w.Work", Name: "spin"}}}}}, &resp, nil)
		if err == nil || !strings.Contains(err.Error(), "project directory") {
			t.Errorf("project %q: %v %+v, want a refusal naming the project directory", project, err, resp)
		}
	}
}

// TestDaemonRefusesAnotherCacheDir: should a client reach a daemon that
// keeps its measurements elsewhere, both sides refuse, naming both
// directories.
func TestDaemonRefusesAnotherCacheDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	mine, theirs := t.TempDir(), t.TempDir()
	startDaemon(t, mine)
	c, err := Dial(context.Background(), mine)
	if err != nil {
		t.Fatal(err)
	}
	// The daemon refuses a request for another cache.
	other := *c
	other.cacheDir = theirs
	_, err = other.Measure(context.Background(), Params{Project: project(t)}, nil)
	if !errors.Is(err, ErrCacheMismatch) || !strings.Contains(err.Error(), mine) || !strings.Contains(err.Error(), theirs) {
		t.Errorf("measure for another cache: %v, want ErrCacheMismatch naming %s and %s", err, mine, theirs)
	}
	// The client refuses a daemon that reports another cache.
	startDaemonWith(t, theirs, func(d *Daemon) { d.cacheDir = mine })
	_, err = Dial(context.Background(), theirs)
	if !errors.Is(err, ErrCacheMismatch) || errors.Is(err, ErrNoDaemon) || !strings.Contains(err.Error(), mine) || !strings.Contains(err.Error(), theirs) {
		t.Errorf("dial a daemon of another cache: %v, want ErrCacheMismatch naming %s and %s", err, mine, theirs)
	}
}
