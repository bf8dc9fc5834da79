// Package server is perfls's LSP wire layer. It translates protocol values to
// calls into the engine (Actions: check, measure, calibrate; Records: what
// it reads of the store, actions.go) and the analysis packages and back; it
// holds no parsing, statistics or measuring logic of its own, and no state
// between messages: that is the session's (server/internal/session), which
// hands each handler an immutable Snapshot. One file per LSP feature;
// stream.go is the framing that survives malformed input, nyi.go the
// generated stubs of what perfls does not do.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/server/internal/session"
)

// Options configure a server.
type Options struct {
	// Verdicts is the cache holding the latest verdicts, shown in hovers,
	// lenses and diagnostics; nil disables them.
	Verdicts *cache.Store
	// Records, when set, is read instead of Verdicts (tests fake it): the
	// verdicts, the bounds oracle and the regression watch.
	Records Records
	// Logger receives the server's own log lines (never stdout: that is the
	// protocol stream). nil discards them.
	Logger *log.Logger
	// Actions measure, decide and calibrate for the code lenses (the
	// engine); nil disables measuring (the server then only reads and
	// reports).
	Actions Actions
	// CacheDir is perfls's cache directory, where the workspace's
	// declarations are persisted between sessions (cache/declindex); ""
	// persists nothing.
	CacheDir string
	// VerdictPoll is how often the recorded verdicts are polled for
	// records of other processes (0: every 2 s; negative: never, they are
	// then read on the next publish, hover or lens request).
	VerdictPoll time.Duration
	// Connect, when set, opens the engine once initialize has told the
	// workspace folders and whether the workspace is trusted: ctx carries
	// that decision (package trust), so a shared store the workspace's
	// perfls.json names is connected to only with trust. folder is the
	// first workspace folder ("" without one). The engine becomes Actions
	// and its store Verdicts; the session closes it when it ends.
	Connect func(ctx context.Context, folder string) (*engine.Engine, error)
}

// untrustedReason is why the editor's session runs nothing of the
// workspace when the client says so.
const untrustedReason = "the workspace is not trusted (the editor's setting allowMeasuring is false)"

//go:generate go run ./internal/gennyi -o nyi.go

// server implements protocol.Server; nyi (generated) answers what perfls
// does not do. It holds wiring only: the editor's state is the session's
// (package session), the measuring jobs the queue's (jobs.go), the
// client's settings and capabilities the view's (settings.go).
type server struct {
	nyi
	opts   Options // Actions and Verdicts are set once, at initialize (Connect)
	conn   jsonrpc2.Conn
	client protocol.Client
	logf   func(format string, args ...any)

	// trust is the workspace's one decision (package trust): closed until
	// initialize, then the client's allowMeasuring. base carries it; every
	// context of the session derives from base, so no process starts and
	// no connection opens around it.
	trust *trust.Gate
	base  context.Context

	sess    *session.Session // open documents, index, verdicts, caches, watches
	view    views            // the client's capabilities, folders and settings (settings.go)
	life    lifecycle        // initialize, shutdown, exit and the engine (lifecycle.go)
	jobs    *jobQueue        // background measuring jobs (jobs.go)
	release releaser         // returns memory after large documents (memory.go)
	wire    *stream          // the connection's framing and outgoing queue (stream.go, outbox.go)
	inbox   *dispatcher      // the incoming queue and the handlers' pool (dispatch.go)
}

// Serve runs an LSP session on rwc until the client sends exit or the stream
// closes. The returned session's Done channel closes then.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) *Session {
	logf := func(string, ...any) {}
	if opts.Logger != nil {
		logf = opts.Logger.Printf
	}
	wire := newStream(rwc, logf)
	conn := jsonrpc2.NewConn(wire)
	s := &server{
		opts:   opts,
		conn:   conn,
		client: protocol.ClientDispatcher(conn, zap.NewNop()),
		logf:   logf,
		view:   views{cur: &view{cfg: DefaultSettings()}},
	}
	s.trust = trust.Closed("the client has not initialized the session")
	s.base = trust.With(context.Background(), s.trust)
	s.jobs = newJobQueue(s.base)
	s.sess = session.New(session.Config{
		Base: s.base, Done: conn.Done(), CacheDir: opts.CacheDir, Logf: logf, Client: s.client,
		Progress: func() bool { return workDoneProgress(s.view.get().caps) },
		Indexed:  func() { s.recheckOpen(s.base) },
		FolderOf: s.root,
		JavaHome: func() string { return s.settings().JavaHome },
		Notice:   func(msg string) { s.showMessage(s.base, protocol.MessageTypeInfo, msg) },
		// A repository's refs arrived: its unknown revisions can be shown.
		RefsChanged: func() { s.republishOpen(s.base) },
	})
	s.sess.SetRecords(opts.records())
	h := protocol.ServerHandler(s, nil)
	// Messages wait in the dispatcher's bounded queue for a bounded pool of
	// handlers (dispatch.go); replies in the stream's (outbox.go).
	s.wire = wire
	s.inbox = newDispatcher(jsonrpc2.ReplyHandler(s.gate(coded(recoverHandler(s.textChanges(s.lsp317Routes(h)))))), wire.closed)
	conn.Go(trust.With(ctx, s.trust), s.inbox.admit)
	// A client that disappears without shutdown leaves no measurement
	// running: background jobs end with the connection.
	go func() {
		<-conn.Done()
		s.jobs.cancel()
		s.release.stop()
		s.logLoad()
	}()
	if opts.Connect == nil {
		s.pollVerdicts()
	}
	return &Session{Conn: conn, s: s}
}

// pollVerdicts starts watching the recorded verdicts, when there are any
// to watch; the watch ends with the connection.
func (s *server) pollVerdicts() {
	if s.sess.Records() == nil || s.opts.VerdictPoll < 0 {
		return
	}
	period := s.opts.VerdictPoll
	if period == 0 {
		period = 2 * time.Second
	}
	go s.watchVerdicts(s.conn.Done(), period)
}

// gate refuses requests before initialize (-32002) and after shutdown, as
// the specification requires, and logs errors of notifications, which
// jsonrpc2 would otherwise drop.
func (s *server) gate(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		initialized, shutdown := s.life.state()
		_, isCall := req.(*jsonrpc2.Call)
		switch m := req.Method(); {
		case m == protocol.MethodInitialize || m == protocol.MethodExit:
		case !initialized:
			if isCall {
				return reply(ctx, nil, &jsonrpc2.Error{Code: -32002, Message: "server not initialized"})
			}
			return reply(ctx, nil, nil)
		case shutdown && isCall:
			return reply(ctx, nil, &jsonrpc2.Error{Code: jsonrpc2.InvalidRequest, Message: "server is shutting down"})
		}
		if isCall {
			return h(ctx, reply, req)
		}
		return h(ctx, func(ctx context.Context, result any, err error) error {
			if err != nil {
				s.logf("%s: %v", req.Method(), err)
			}
			return reply(ctx, result, nil)
		}, req)
	}
}

// requestFailed is LSP's code for a request that was well formed but could
// not be carried out.
const requestFailed jsonrpc2.Code = -32803

// coded gives every error reply a JSON-RPC code: an error that has one
// keeps it (MethodNotFound from nyi, InvalidParams from commands,
// RequestCancelled); parameters that do not decode are InvalidParams
// (protocol answers them as a parse error without a code); any other error
// of a handler is RequestFailed.
func coded(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		return h(ctx, func(ctx context.Context, result any, err error) error {
			return reply(ctx, result, wireError(err))
		}, req)
	}
}

func wireError(err error) error {
	var we *jsonrpc2.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &we):
		return &jsonrpc2.Error{Code: we.Code, Message: err.Error(), Data: we.Data}
	case strings.HasPrefix(err.Error(), jsonrpc2.ErrParse.Message+": "):
		return &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: "invalid params: " + strings.TrimPrefix(err.Error(), jsonrpc2.ErrParse.Message+": ")}
	default:
		return &jsonrpc2.Error{Code: requestFailed, Message: err.Error()}
	}
}

// invalidParams is the error of a request whose parameters are wrong.
func invalidParams(format string, args ...any) error {
	return &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: fmt.Sprintf(format, args...)}
}

// recoverHandler turns a panic in a handler into an error reply instead of a
// dead server.
func recoverHandler(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
		replied := false
		guarded := func(ctx context.Context, result any, rerr error) error {
			replied = true
			return reply(ctx, result, rerr)
		}
		defer func() {
			if r := recover(); r != nil {
				if replied {
					err = nil
					return
				}
				err = reply(ctx, nil, &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: fmt.Sprintf("perfls: internal error in %s: %v", req.Method(), r)})
			}
		}()
		return h(ctx, guarded, req)
	}
}
