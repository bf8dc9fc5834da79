package server

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"go.lsp.dev/jsonrpc2"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/internal/version"
)

func (s *server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	s.clientCaps = params.Capabilities
	for _, f := range params.WorkspaceFolders {
		s.folders = append(s.folders, uri.URI(f.URI).Filename())
	}
	if len(s.folders) == 0 && params.RootURI != "" {
		s.folders = []string{params.RootURI.Filename()}
	}
	cfg, cfgErr := applySettings(s.cfg, params.InitializationOptions)
	s.cfg = cfg
	folders := s.folders
	s.mu.Unlock()
	// The one decision about the workspace, before anything reads it.
	s.trust.Set(cfg.AllowMeasuring, untrustedReason)
	s.connect(ctx, folders)
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	if cfgErr != nil {
		// Shown once the client is initialized: messages before the
		// initialize reply are not allowed.
		s.mu.Lock()
		s.initWarning = cfgErr.Error()
		s.mu.Unlock()
	}
	s.noteClient(params) // start indexing the workspace folders
	return &protocol.InitializeResult{
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
	}, nil
}

func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s.mu.Lock()
	warning := s.initWarning
	s.initWarning = ""
	s.mu.Unlock()
	if warning != "" {
		s.showMessage(ctx, protocol.MessageTypeWarning, warning)
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
	s.engine, s.opts.Actions = eng, eng
	if s.opts.Verdicts, err = eng.Store(); err != nil {
		s.logf("no recorded verdicts: %v", err)
	}
	s.pollVerdicts()
}

// Shutdown cancels background checks (their forked JVMs are killed) and
// waits for them to finish.
func (s *server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.release.stop()
	s.cancelJobs()
	s.jobs.Wait()
	return nil
}

// Exit closes the connection; Serve's caller sees Done and exits.
func (s *server) Exit(context.Context) error {
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
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
	ss.s.jobs.Wait()
	ss.s.index.stop()
	ss.s.closeEngine.Do(func() {
		if ss.s.engine != nil {
			if err := ss.s.engine.Close(); err != nil {
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
	ss.s.mu.Lock()
	exited, shutdown := ss.s.exited, ss.s.shutdown
	ss.s.mu.Unlock()
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
