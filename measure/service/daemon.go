//go:build unix

package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"runtime"
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
	"github.com/perfls/perfls/internal/trust"
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
// It is created with mode 0700 so only its owner can reach the socket, and
// refused when it is a symbolic link or belongs to another user: whoever
// owns it could put their own socket where clients look for the daemon.
func RuntimeDir(cacheDir string) (string, error) {
	dir := filepath.Join(cacheDir, "run")
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		dir = filepath.Join(x, "perfls")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("daemon directory: %w", err)
	}
	if err := checkPrivateDir(dir, os.Geteuid()); err != nil {
		return "", err
	}
	return dir, nil
}

// daemonFiles are the paths of one cache directory's daemon.
type daemonFiles struct {
	cacheDir string // absolute and clean: what the daemon and its clients compare
	socket   string
	lock     string
	log      string
}

// filesFor names the daemon files of cacheDir: one daemon per cache
// directory, so a client with another PERFLS_CACHE_DIR never reaches a
// daemon that would keep its results elsewhere.
func filesFor(cacheDir string) (daemonFiles, error) {
	abs, err := absCacheDir(cacheDir)
	if err != nil {
		return daemonFiles{}, err
	}
	dir, err := RuntimeDir(abs)
	if err != nil {
		return daemonFiles{}, err
	}
	sum := sha256.Sum256([]byte(abs))
	base := filepath.Join(dir, "daemon-"+hex.EncodeToString(sum[:])[:12])
	return daemonFiles{cacheDir: abs, socket: base + ".sock", lock: base + ".lock", log: base + ".log"}, nil
}

func absCacheDir(cacheDir string) (string, error) {
	if cacheDir == "" {
		return "", errors.New("perfls daemon: no cache directory")
	}
	abs, err := filepath.Abs(cacheDir) // also cleans
	if err != nil {
		return "", fmt.Errorf("perfls daemon: cache directory: %w", err)
	}
	return abs, nil
}

// SocketPath is where the daemon of cacheDir listens.
func SocketPath(cacheDir string) (string, error) {
	f, err := filesFor(cacheDir)
	if err != nil {
		return "", err
	}
	return f.socket, nil
}

// ErrDaemonRunning means another daemon holds the lock.
var ErrDaemonRunning = errors.New("a perfls daemon is already running")

// ErrNoDaemon means no daemon answers on the socket: the caller measures
// in-process or starts one. Every other Dial error is worth telling the user.
var ErrNoDaemon = errors.New("no perfls daemon answers")

// ErrCacheMismatch means the daemon keeps its measurements in another cache
// directory than the client's.
var ErrCacheMismatch = errors.New("the perfls daemon serves another cache directory")

// errDaemonGone marks a request the daemon did not answer because it went
// away (killed, restarted, shutting down): the client may ask again, as a
// measurement request is idempotent (the cache answers what was finished).
var errDaemonGone = errors.New("the perfls daemon went away")

// Error codes of the daemon's replies, in the JSON-RPC server-error range.
const (
	codeShuttingDown  jsonrpc2.Code = -32001
	codeCacheMismatch jsonrpc2.Code = -32002
)

// Daemon serves a Local service on a Unix socket.
type Daemon struct {
	svc      *Local
	cacheDir string // absolute: requests naming another are refused
	socket   string
	lock     *os.File
	ln       net.Listener
	logf     func(string, ...any)
	uid      int // the only user whose connections are served

	stop     context.CancelFunc
	conns    sync.WaitGroup
	stopOnce sync.Once
}

// Listen takes the lock of cacheDir's daemon and listens on its socket. A
// socket file left by a dead daemon is replaced; while another daemon of the
// same cache directory lives, Listen fails with ErrDaemonRunning.
func Listen(cacheDir string, svc *Local, logger *log.Logger) (*Daemon, error) {
	f, err := filesFor(cacheDir)
	if err != nil {
		return nil, err
	}
	lock, err := openPrivate(f.lock, os.O_CREATE|os.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(lock.Name())
		lock.Close()
		return nil, fmt.Errorf("%w for %s (pid %s)", ErrDaemonRunning, f.cacheDir, strings.TrimSpace(string(pid)))
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	os.Remove(f.socket) // we hold the lock: any socket file is a dead daemon's
	ln, err := net.Listen("unix", f.socket)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	os.Chmod(f.socket, 0o600)
	d := &Daemon{svc: svc, cacheDir: f.cacheDir, socket: f.socket, lock: lock, ln: ln, logf: func(string, ...any) {}, uid: os.Geteuid()}
	if logger != nil {
		d.logf = logger.Printf
	}
	if !peerCredSupported {
		d.logf("peer credentials cannot be checked on %s: only the permissions of %s keep other users out", runtime.GOOS, filepath.Dir(f.socket))
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
		// The directory's mode is the first guard; the peer's uid is the
		// second, for a directory someone loosened.
		if perr := checkPeer(c, d.uid); perr != nil {
			d.logf("refused a connection: %v", perr)
			c.Close()
			continue
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

// measureParams is a measure request on the wire.
type measureParams struct {
	Params
	Token    string `json:"token"`
	CacheDir string `json:"cache_dir"` // the client's: must be the daemon's
}

// checkRequest refuses what the daemon must not guess: a project directory
// relative to its own working directory, or a cache it does not keep.
func (d *Daemon) checkRequest(p measureParams) error {
	if p.Project == "" {
		return errors.New("measure: the request names no project directory")
	}
	if !filepath.IsAbs(p.Project) {
		return fmt.Errorf("measure: the project directory %q is not absolute", p.Project)
	}
	if p.CacheDir != d.cacheDir {
		return jsonrpc2.Errorf(codeCacheMismatch, "%s: this daemon keeps its measurements in %s, the client's cache directory is %q; "+
			"stop the daemon or measure with PERFLS_CACHE_DIR=%s", ErrCacheMismatch, d.cacheDir, p.CacheDir, d.cacheDir)
	}
	return nil
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
			var p measureParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				return reply(hctx, nil, fmt.Errorf("%s: bad params: %w", methodMeasure, err))
			}
			if err := d.checkRequest(p); err != nil {
				return reply(hctx, nil, err)
			}
			resp, err := d.svc.Measure(cctx, p.Params, func(pr Progress) {
				conn.Notify(cctx, methodProgress, struct {
					Token string `json:"token"`
					Progress
				}{p.Token, pr})
			})
			if err != nil && ctx.Err() != nil {
				// Stopped by the daemon, not by the client: say so, so the
				// client asks the next daemon.
				err = jsonrpc2.NewError(codeShuttingDown, "the perfls daemon is shutting down")
			}
			return reply(hctx, resp, err)
		case methodStatus:
			st, err := d.svc.Status(cctx)
			if st != nil {
				st.PID, st.Socket, st.CacheDir = os.Getpid(), d.socket, d.cacheDir
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
	socket   string
	cacheDir string // absolute: the daemon must keep its measurements here
	uid      int    // the user the daemon must run as
	store    string // where the daemon keeps its results (Status.Cache), as Dial found
	// restart starts a daemon again when it went away (EnsureDaemon's
	// clients); nil: Measure only waits for someone else to start one.
	restart func(context.Context) error
	// Measure asks again this many times, waiting backoff, doubling up to
	// maxBackoff, when the daemon went away.
	retries    int
	backoff    time.Duration
	maxBackoff time.Duration
}

func newClient(f daemonFiles) *Client {
	return &Client{socket: f.socket, cacheDir: f.cacheDir, uid: os.Geteuid(), retries: 6, backoff: 100 * time.Millisecond, maxBackoff: 2 * time.Second}
}

// Dial checks that the daemon of cacheDir answers and keeps its
// measurements in cacheDir.
func Dial(ctx context.Context, cacheDir string) (*Client, error) {
	f, err := filesFor(cacheDir)
	if err != nil {
		return nil, err
	}
	c := newClient(f)
	st, err := c.Status(ctx)
	if errors.Is(err, errDaemonGone) {
		return nil, fmt.Errorf("%w: %w", ErrNoDaemon, err)
	}
	if err != nil {
		return nil, err
	}
	// The socket is named after the cache directory; this catches a daemon
	// that disagrees all the same (an older perfls, a hash collision).
	if st.CacheDir != c.cacheDir {
		return nil, fmt.Errorf("%w: the daemon on %s (pid %d) keeps its measurements in %q, this client's cache directory is %s",
			ErrCacheMismatch, c.socket, st.PID, st.CacheDir, c.cacheDir)
	}
	c.store = st.Cache
	return c, nil
}

// Store is where the daemon keeps its results: its SQLite file, or its
// shared store's URL without a password. A client whose store differs
// must not measure through it.
func (c *Client) Store() string { return c.store }

func (c *Client) call(ctx context.Context, method string, params, result any, onNotify func(json.RawMessage)) error {
	var dialer net.Dialer
	nc, err := dialer.DialContext(ctx, "unix", c.socket)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("connect to the perfls daemon on %s: %w", c.socket, errors.Join(errDaemonGone, err))
	}
	// Whoever listens must be us: a socket planted by another user would
	// see every request and could answer anything.
	if err := checkPeer(nc, c.uid); err != nil {
		nc.Close()
		return fmt.Errorf("refusing the perfls daemon on %s: %w", c.socket, err)
	}
	// Cancelled on return, so the goroutines below end with the call.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
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
	classify := func(err error) error {
		var rpcErr *jsonrpc2.Error
		switch {
		case err == nil:
			return nil
		case errors.As(err, &rpcErr) && rpcErr.Code == codeShuttingDown:
			return fmt.Errorf("perfls daemon: %s: %w", method, errors.Join(errDaemonGone, err))
		case errors.As(err, &rpcErr) && rpcErr.Code == codeCacheMismatch:
			return fmt.Errorf("perfls daemon: %s: %w", method, errors.Join(ErrCacheMismatch, err))
		case errors.As(err, &rpcErr):
			return fmt.Errorf("perfls daemon: %s: %w", method, err)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		// Writing the request failed: the daemon is gone.
		return fmt.Errorf("perfls daemon: %s: %w", method, errors.Join(errDaemonGone, err))
	}
	select {
	case err := <-done:
		return classify(err)
	case <-ctx.Done():
		return ctx.Err()
	case <-conn.Done():
		// The reply may have arrived just before the close (shutdown does
		// exactly that): prefer it.
		select {
		case err := <-done:
			return classify(err)
		case <-time.After(200 * time.Millisecond):
		}
		return fmt.Errorf("perfls daemon closed the connection during %s: %w", method, errDaemonGone)
	}
}

// Measure runs p on the daemon. When the daemon goes away before it
// answers (killed, restarted), Measure connects again and asks again, a
// bounded number of times: the new daemon answers what the old one
// finished from the cache.
func (c *Client) Measure(ctx context.Context, p Params, progress func(Progress)) (*Response, error) {
	// The daemon runs what it is asked without a gate of its own.
	if err := trust.Check(ctx, "measure"); err != nil {
		return nil, err
	}
	// The daemon's working directory is not ours: send the project as an
	// absolute path.
	if p.Project != "" {
		abs, err := filepath.Abs(p.Project)
		if err != nil {
			return nil, fmt.Errorf("measure: project directory: %w", err)
		}
		p.Project = abs
	}
	params := measureParams{Params: p, Token: strconv.Itoa(os.Getpid()), CacheDir: c.cacheDir}
	onNotify := func(raw json.RawMessage) {
		var pr Progress
		if progress != nil && json.Unmarshal(raw, &pr) == nil {
			progress(pr)
		}
	}
	wait := c.backoff
	for attempt := 0; ; attempt++ {
		var resp Response
		err := c.call(ctx, methodMeasure, params, &resp, onNotify)
		if err == nil {
			return &resp, nil
		}
		if !errors.Is(err, errDaemonGone) || attempt >= c.retries {
			if attempt > 0 {
				err = fmt.Errorf("%w (asked %d times)", err, attempt+1)
			}
			return nil, err
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
		wait = min(2*wait, c.maxBackoff)
		if c.restart != nil {
			// A failed start is no reason to stop: another client may have
			// started the daemon meanwhile, and the next call finds out.
			c.restart(ctx)
		}
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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

// EnsureDaemon returns a client of the running daemon of cacheDir, starting
// one first (exe daemon, detached in its own session, logging beside the
// socket) when none answers. The client starts one again when the daemon
// goes away during a request.
func EnsureDaemon(ctx context.Context, cacheDir, exe string) (*Client, error) {
	c, err := ensureDaemon(ctx, cacheDir, exe)
	if err != nil {
		return nil, err
	}
	c.restart = func(ctx context.Context) error {
		_, err := ensureDaemon(ctx, cacheDir, exe)
		return err
	}
	return c, nil
}

func ensureDaemon(ctx context.Context, cacheDir, exe string) (*Client, error) {
	c, err := Dial(ctx, cacheDir)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, ErrNoDaemon) {
		return nil, err // a daemon answers but is not ours to use
	}
	f, err := filesFor(cacheDir)
	if err != nil {
		return nil, err
	}
	logFile, err := openPrivate(f.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY)
	if err != nil {
		return nil, fmt.Errorf("daemon log: %w", err)
	}
	defer logFile.Close()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devNull.Close()
	proc, err := trust.StartProcess(ctx, exe, []string{exe, "daemon", "run"}, &os.ProcAttr{
		Env:   append(os.Environ(), "PERFLS_CACHE_DIR="+f.cacheDir),
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
		c, err := Dial(ctx, cacheDir)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, ErrNoDaemon) {
			return nil, err
		}
		select {
		case <-exited:
			// Another client may have started one first: ours then exits
			// at once, and that one answers.
			if c, err := Dial(ctx, cacheDir); err == nil {
				return c, nil
			}
			return nil, fmt.Errorf("the perfls daemon exited at start; see %s", logFile.Name())
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("the perfls daemon did not answer within 2s; see %s", logFile.Name())
}
