//go:build unix

package service

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
)

// TestHelperDaemon is not a test: it is the daemon process that
// TestClientRetriesOnRestartedDaemon kills.
func TestHelperDaemon(t *testing.T) {
	cacheDir := os.Getenv("PERFLS_TEST_DAEMON_CACHE")
	if cacheDir == "" {
		t.Skip("only run as TestClientRetriesOnRestartedDaemon's daemon")
	}
	d, err := Listen(cacheDir, NewLocal(context.Background(), cacheDir, openStore(t, cacheDir), 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Serve(context.Background()) // until killed
}

// TestClientRetriesOnRestartedDaemon: the daemon is killed (SIGKILL) while
// a client waits for a measurement; once another daemon is up, the client's
// request completes.
func TestClientRetriesOnRestartedDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	cacheDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperDaemon$")
	helper.Env = append(os.Environ(), "PERFLS_TEST_DAEMON_CACHE="+cacheDir)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	defer func() {
		if !reaped {
			helper.Process.Kill()
			helper.Wait()
		}
	}()
	ctx := context.Background()
	var c *Client
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if c, err = Dial(ctx, cacheDir); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the helper daemon never answered: %v", err)
		}
	}
	p := Params{Project: project(t), Options: quick(), Items: []Item{{
		Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
		Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args:      []measured.Arg{measured.IntArg(2000)},
	}}}
	type result struct {
		resp *Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := c.Measure(ctx, p, nil)
		done <- result{r, err}
	}()
	// Kill the daemon once its fork runs: the client is mid-request.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, err := c.Status(ctx); err == nil && len(st.Jobs) > 0 && st.Jobs[0].Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper daemon never started the measurement")
		}
	}
	forks := descendants(helper.Process.Pid)
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	reaped = true
	// Until forks watch their parent (issue #16 item 1), the killed
	// daemon's JVMs outlive it: end them here.
	for _, pid := range forks {
		syscall.Kill(-pid, syscall.SIGKILL)
		syscall.Kill(pid, syscall.SIGKILL)
	}

	startDaemon(t, cacheDir)
	r := <-done
	if r.err != nil {
		t.Fatalf("the request failed with the daemon's restart: %v", r.err)
	}
	if it := r.resp.Items[0]; it.Error != "" || len(it.Forks) != 2 {
		t.Errorf("result after the restart: %+v", it)
	}
}

// TestClientRetriesOnStoppedDaemon: a daemon stopped mid-request (perfls
// daemon stop, SIGTERM) cancels its work and tells the client so; the
// client asks the daemon started next.
func TestClientRetriesOnStoppedDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	cacheDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	first, err := Listen(cacheDir, NewLocal(context.Background(), cacheDir, openStore(t, cacheDir), 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- first.Serve(ctx) }()
	stopFirst := sync.OnceValue(func() error {
		stop()
		return <-served
	})
	defer stopFirst()
	c, err := Dial(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	p := Params{Project: project(t), Options: quick(), Items: []Item{{
		Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
		Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args:      []measured.Arg{measured.IntArg(3000)},
	}}}
	type result struct {
		resp *Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := c.Measure(context.Background(), p, nil)
		done <- result{r, err}
	}()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, _ := first.svc.Status(context.Background()); len(st.Jobs) > 0 && st.Jobs[0].Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first daemon never started the measurement")
		}
	}
	if err := stopFirst(); err != nil {
		t.Fatal(err)
	}
	startDaemon(t, cacheDir)
	r := <-done
	if r.err != nil {
		t.Fatalf("the request failed with the daemon's restart: %v", r.err)
	}
	if it := r.resp.Items[0]; it.Error != "" || len(it.Forks) != 2 {
		t.Errorf("result after the restart: %+v", it)
	}
}

// TestClientRetriesAreBounded: with no daemon coming back, Measure gives up
// after its retries and says so.
func TestClientRetriesAreBounded(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cacheDir := t.TempDir()
	d := startDaemon(t, cacheDir)
	c, err := Dial(context.Background(), cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	c.backoff, c.maxBackoff = time.Millisecond, time.Millisecond
	// The daemon goes away and nothing replaces it.
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(d.Socket()); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not stop")
		}
	}
	_, err = c.Measure(context.Background(), Params{Project: project(t)}, nil)
	if err == nil || !strings.Contains(err.Error(), "asked "+strconv.Itoa(c.retries+1)+" times") {
		t.Errorf("measure without a daemon: %v, want a failure after %d attempts", err, c.retries+1)
	}
}

// descendants lists the processes below pid, from /proc (empty elsewhere).
func descendants(pid int) []int {
	parent := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		me, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
		if len(f) > 1 {
			parent[me], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for child, pp := range parent {
			if pp == p {
				out = append(out, child)
				walk(child)
			}
		}
	}
	walk(pid)
	return out
}
