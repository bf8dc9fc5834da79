package server

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/version"
)

func (s *server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	s.initialized = true
	s.clientCaps = params.Capabilities
	switch {
	case len(params.WorkspaceFolders) > 0:
		s.rootDir = uri.URI(params.WorkspaceFolders[0].URI).Filename()
	case params.RootURI != "":
		s.rootDir = params.RootURI.Filename()
	}
	cfg, cfgErr := applySettings(s.cfg, params.InitializationOptions)
	s.cfg = cfg
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
			// Full sync: protocol v0.12.0 cannot tell a range-less change
			// from an edit at 0:0 (anchors-lsp.md §1.2 #3).
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindFull,
				Save:      &protocol.SaveOptions{IncludeText: false},
			},
			HoverProvider:      true,
			DefinitionProvider: true,
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: completionTriggers,
			},
			CodeLensProvider:       &protocol.CodeLensOptions{},
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

// Shutdown cancels background checks (their forked JVMs are killed) and
// waits for them to finish.
func (s *server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.cancelJobs()
	s.jobs.Wait()
	return nil
}

// Exit closes the connection; Serve's caller sees Done and exits.
func (s *server) Exit(context.Context) error { return s.conn.Close() }
