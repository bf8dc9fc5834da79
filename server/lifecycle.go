package server

import (
	"context"
	"sync"

	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/perfls/perfls/engine"

	"go.lsp.dev/jsonrpc2"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/internal/version"
)

// lifecycle is where the session is between initialize and exit, and the
// engine Options.Connect opened at initialize.
type lifecycle struct {
	mu          sync.Mutex
	initialized bool
	shutdown    bool
	exited      bool   // the client sent exit
	initWarning string // bad initializationOptions, shown once initialized
	warnedSave  bool   // measure-on-save was refused once (allowMeasuring false)

	engine      *engine.Engine // opened by Options.Connect; closed when the session ends
	closeEngine sync.Once
}

// state reports whether the client initialized the session and whether it
// asked to shut it down.
func (l *lifecycle) state() (initialized, shutdown bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.initialized, l.shutdown
}

func (s *server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	var cfgErr error
	_, v := s.view.update(func(v *view) {
		v.caps = params.Capabilities
		for _, f := range params.WorkspaceFolders {
			v.folders = append(v.folders, uri.URI(f.URI).Filename())
		}
		if len(v.folders) == 0 && params.RootURI != "" {
			v.folders = []string{params.RootURI.Filename()}
		}
		v.cfg, cfgErr = applySettings(v.cfg, params.InitializationOptions)
	})
	// The one decision about the workspace, before anything reads it.
	s.trust.Set(v.cfg.AllowMeasuring, untrustedReason)
	s.connect(ctx, v.folders)
	s.life.mu.Lock()
	s.life.initialized = true
	if cfgErr != nil {
		// Shown once the client is initialized: messages before the
		// initialize reply are not allowed.
		s.life.initWarning = cfgErr.Error()
	}
	s.life.mu.Unlock()
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			// Incremental sync: each keystroke sends the edit, not the
			// file (textChanges decodes it, see DidChange).
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{IncludeText: false},
			},
			HoverProvider:      true,
			DefinitionProvider: true,
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: completionTriggers,
			},
			CodeLensProvider: &protocol.CodeLensOptions{},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: allCommands},
		},
		ServerInfo: &protocol.ServerInfo{Name: "perfls", Version: version.String()},
	}
	editorCapabilities(&res.Capabilities)
	return res, nil
}

func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s.life.mu.Lock()
	warning := s.life.initWarning
	s.life.initWarning = ""
	s.life.mu.Unlock()
	if warning != "" {
		s.showMessage(ctx, protocol.MessageTypeWarning, warning)
	}
	// Index the workspace folders (the root URI without any) now, not
	// during initialize: indexing reports progress, a request the client
	// may only get after the initialize reply (VS Code's client rejects
	// window/workDoneProgress/create before it).
	for _, f := range s.view.get().folders {
		s.sess.EnsureRoot(f)
	}
	return nil
}

// connect opens the engine with Options.Connect, under the session's
// trust: its actions and store serve the session from now on.
func (s *server) connect(ctx context.Context, folders []string) {
	if s.opts.Connect == nil {
		return
	}
	folder := ""
	if len(folders) > 0 {
		folder = folders[0]
	}
	eng, err := s.opts.Connect(trust.With(context.WithoutCancel(ctx), s.trust), folder)
	if err != nil {
		s.logf("no verdicts and no measuring: %v", err)
		return
	}
	if n := eng.Notice(); n != "" {
		s.logf("%s", n)
	}
	s.life.engine, s.opts.Actions = eng, eng
	if s.opts.Verdicts, err = eng.Store(); err != nil {
		s.logf("no recorded verdicts: %v", err)
	}
	s.sess.SetRecords(s.opts.records())
	s.pollVerdicts()
}

// Shutdown cancels background checks (their forked JVMs are killed) and
// waits for them to finish.
func (s *server) Shutdown(context.Context) error {
	s.life.mu.Lock()
	s.life.shutdown = true
	s.life.mu.Unlock()
	s.release.stop()
	s.jobs.cancel()
	s.jobs.wg.Wait()
	return nil
}

// Exit closes the connection; Serve's caller sees Done and exits.
func (s *server) Exit(context.Context) error {
	s.life.mu.Lock()
	s.life.exited = true
	s.life.mu.Unlock()
	return s.conn.Close()
}

// Session is one LSP session: its connection, and how it ended.
type Session struct {
	jsonrpc2.Conn
	s *server
}

// Wait waits until the session is Done and the server's background work
// has stopped with it: measuring jobs, index builds and classpath
// resolutions (which write to the cache directory).
func (ss *Session) Wait() {
	<-ss.Done()
	ss.s.jobs.wg.Wait()
	ss.s.sess.Stop()
	l := &ss.s.life
	l.closeEngine.Do(func() {
		if l.engine != nil {
			if err := l.engine.Close(); err != nil {
				ss.s.logf("close: %v", err)
			}
		}
	})
}

// WaitFor is Wait bounded by d; it reports whether the work stopped in
// time (what is still running then goes on without a waiter).
func (ss *Session) WaitFor(d time.Duration) bool {
	stopped := make(chan struct{})
	go func() {
		ss.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
		return true
	case <-time.After(d):
		return false
	}
}

// ExitCode is the exit status of a server process once the session is
// Done: 0 after shutdown and exit, or when the client closed the stream; 1
// after exit without shutdown (as the specification asks) or when the
// connection failed (a broken pipe, an unreadable stream). Malformed
// messages do not end a session: they are answered with errors.
func (ss *Session) ExitCode() int {
	l := &ss.s.life
	l.mu.Lock()
	exited, shutdown := l.exited, l.shutdown
	l.mu.Unlock()
	if exited {
		if shutdown {
			return 0
		}
		return 1
	}
	if err := ss.Err(); err != nil && !closedStream(err) {
		ss.s.logf("connection failed: %v", err)
		return 1
	}
	return 0
}

// closedStream tells the end of input, or a stream closed by this side,
// from a failure.
func closedStream(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed) || errors.Is(err, net.ErrClosed)
}
