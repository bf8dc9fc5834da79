//go:build unix

package service

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	// The transport encodes with segmentio's JSON (durations as "50ms"), so
	// decode with it too.
	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"

	"github.com/perfls/perfls/cache"
)

// JSON-RPC methods of the daemon.
const (
	methodMeasure  = "perfls/measure"
	methodStatus   = "perfls/status"
	methodShutdown = "perfls/shutdown"
	methodProgress = "perfls/progress" // notification, daemon → client
)

// RuntimeDir is the private directory of the daemon's socket and lock:
// $XDG_RUNTIME_DIR/perfls, else run/ in the user's perfls cache directory.
// It is created with mode 0700 so only its owner can reach the socket.
func RuntimeDir(cacheDir string) (string, error) {
	dir := filepath.Join(cacheDir, "run")
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		dir = filepath.Join(x, "perfls")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("daemon directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("daemon directory: %w", err)
	}
	return dir, nil
}

// SocketPath is where the daemon listens.
func SocketPath(cacheDir string) (string, error) {
	dir, err := RuntimeDir(cacheDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "daemon.sock"), nil
}

// ErrDaemonRunning means another daemon holds the lock.
var ErrDaemonRunning = errors.New("a perfls daemon is already running")

// Daemon serves a Local service on a Unix socket.
type Daemon struct {
	svc    *Local
	socket string
	lock   *os.File
	ln     net.Listener
	logf   func(string, ...any)

	stop     context.CancelFunc
	conns    sync.WaitGroup
	stopOnce sync.Once
}

// Listen takes the per-user daemon lock and listens on the socket. A socket
// file left by a dead daemon is replaced; while another daemon lives,
// Listen fails with ErrDaemonRunning.
func Listen(cacheDir string, svc *Local, logger *log.Logger) (*Daemon, error) {
	dir, err := RuntimeDir(cacheDir)
	if err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "daemon.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(lock.Name())
		lock.Close()
		return nil, fmt.Errorf("%w (pid %s)", ErrDaemonRunning, strings.TrimSpace(string(pid)))
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	socket := filepath.Join(dir, "daemon.sock")
	os.Remove(socket) // we hold the lock: any socket file is a dead daemon's
	ln, err := net.Listen("unix", socket)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	os.Chmod(socket, 0o600)
	d := &Daemon{svc: svc, socket: socket, lock: lock, ln: ln, logf: func(string, ...any) {}}
	if logger != nil {
		d.logf = logger.Printf
	}
	return d, nil
}

// Socket is the path the daemon listens on.
func (d *Daemon) Socket() string { return d.socket }

// Serve accepts clients until ctx ends or a client asks for shutdown, then
// closes every connection (cancelling their requests), stops the service
// and releases the socket and lock.
func (d *Daemon) Serve(ctx context.Context) error {
	ctx, d.stop = context.WithCancel(ctx)
	go func() {
		<-ctx.Done()
		d.ln.Close()
	}()
	var err error
	for {
		c, aerr := d.ln.Accept()
		if aerr != nil {
			if ctx.Err() == nil {
				err = fmt.Errorf("daemon accept: %w", aerr)
			}
			break
		}
		d.conns.Add(1)
		go func() {
			defer d.conns.Done()
			d.serveConn(ctx, c)
		}()
	}
	d.stop()
	d.conns.Wait()
	d.svc.Close()
	os.Remove(d.socket)
	d.lock.Close()
	return err
}

func (d *Daemon) serveConn(ctx context.Context, c net.Conn) {
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(c))
	// Requests of this client are cancelled when it disconnects: that is how
	// a client cancels, and why no work outlives the editor that asked.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn.Go(cctx, jsonrpc2.AsyncHandler(func(hctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		switch req.Method() {
		case methodMeasure:
			var p struct {
				Params
				Token string `json:"token"`
			}
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				return reply(hctx, nil, fmt.Errorf("%s: bad params: %w", methodMeasure, err))
			}
			resp, err := d.svc.Measure(cctx, p.Params, func(pr Progress) {
				conn.Notify(cctx, methodProgress, struct {
					Token string `json:"token"`
					Progress
				}{p.Token, pr})
			})
			return reply(hctx, resp, err)
		case methodStatus:
			st, err := d.svc.Status(cctx)
			if st != nil {
				st.PID, st.Socket = os.Getpid(), d.socket
			}
			return reply(hctx, st, err)
		case methodShutdown:
			d.logf("shutdown requested")
			err := reply(hctx, "ok", nil)
			d.stop()
			return err
		}
		return reply(hctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "unknown method "+req.Method()))
	}))
	select {
	case <-conn.Done():
	case <-ctx.Done():
		conn.Close()
		<-conn.Done()
	}
}

// Client talks to a running daemon. Each Measure call uses its own
// connection, so cancelling it (closing the connection) cancels exactly that
// request on the daemon.
type Client struct {
	socket string
}

// Dial checks that a daemon answers on the socket in cacheDir.
func Dial(ctx context.Context, cacheDir string) (*Client, error) {
	socket, err := SocketPath(cacheDir)
	if err != nil {
		return nil, err
	}
	c := &Client{socket: socket}
	if _, err := c.Status(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Client) call(ctx context.Context, method string, params, result any, onNotify func(json.RawMessage)) error {
	var dialer net.Dialer
	nc, err := dialer.DialContext(ctx, "unix", c.socket)
	if err != nil {
		return fmt.Errorf("connect to the perfls daemon: %w", err)
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(nc))
	defer func() {
		conn.Close()
		<-conn.Done()
	}()
	conn.Go(ctx, func(hctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == methodProgress && onNotify != nil {
			onNotify(req.Params())
		}
		return reply(hctx, nil, nil)
	})
	done := make(chan error, 1)
	go func() {
		_, err := conn.Call(ctx, method, params, result)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("perfls daemon: %s: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-conn.Done():
		// The reply may have arrived just before the close (shutdown does
		// exactly that): prefer it.
		select {
		case err := <-done:
			if err == nil {
				return nil
			}
		case <-time.After(200 * time.Millisecond):
		}
		return fmt.Errorf("perfls daemon closed the connection during %s", method)
	}
}

// Measure runs p on the daemon.
func (c *Client) Measure(ctx context.Context, p Params, progress func(Progress)) (*Response, error) {
	var resp Response
	token := strconv.FormatInt(int64(os.Getpid()), 10)
	err := c.call(ctx, methodMeasure, struct {
		Params
		Token string `json:"token"`
	}{p, token}, &resp, func(raw json.RawMessage) {
		var pr Progress
		if progress != nil && json.Unmarshal(raw, &pr) == nil {
			progress(pr)
		}
	})
	if err != nil {
		return nil, err
	}
	return &resp, nil
}

// Status asks the daemon what it is doing.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	var st Status
	if err := c.call(ctx, methodStatus, nil, &st, nil); err != nil {
		return nil, err
	}
	return &st, nil
}

// Shutdown asks the daemon to stop.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, methodShutdown, nil, nil, nil)
}

// Close releases nothing: connections live per call.
func (c *Client) Close() error { return nil }

// Open returns the daemon's client when a daemon runs, else a Local service
// in this process keeping results in store; the caller closes it.
func Open(ctx context.Context, cacheDir string, store *cache.Store) (Service, error) {
	if c, err := Dial(ctx, cacheDir); err == nil {
		return c, nil
	}
	return NewLocal(ctx, cacheDir, store, 1), nil
}

// EnsureDaemon returns a client of the running daemon, starting one first
// (exe daemon, detached in its own session, logging to daemon.log beside
// the socket) when none answers.
func EnsureDaemon(ctx context.Context, cacheDir, exe string) (*Client, error) {
	if c, err := Dial(ctx, cacheDir); err == nil {
		return c, nil
	}
	dir, err := RuntimeDir(cacheDir)
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(filepath.Join(dir, "daemon.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon log: %w", err)
	}
	defer logFile.Close()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devNull.Close()
	proc, err := os.StartProcess(exe, []string{exe, "daemon", "run"}, &os.ProcAttr{
		Env:   append(os.Environ(), "PERFLS_CACHE_DIR="+cacheDir),
		Files: []*os.File{devNull, logFile, logFile},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return nil, fmt.Errorf("start the perfls daemon: %w", err)
	}
	// The daemon outlives us on purpose; reap it if it exits early so it is
	// no zombie while we wait.
	exited := make(chan struct{})
	go func() {
		proc.Wait()
		close(exited)
	}()
	for i := 0; i < 100; i++ {
		if c, err := Dial(ctx, cacheDir); err == nil {
			return c, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("the perfls daemon exited at start; see %s", logFile.Name())
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("the perfls daemon did not answer within 2s; see %s", logFile.Name())
}
