package server

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/internal/lsp317"
)

// lsp317Routes handles what go.lsp.dev/protocol v0.12.0 (LSP 3.16) cannot
// dispatch or declare, before its dispatcher does: textDocument/inlayHint,
// the client's workspace.inlayHint.refreshSupport in initialize, and the
// inlayHintProvider capability in initialize's result.
func (s *server) lsp317Routes(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		switch req.Method() {
		case lsp317.MethodInlayHint:
			var p lsp317.InlayHintParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				return reply(ctx, nil, invalidParams("%s: %v", lsp317.MethodInlayHint, err))
			}
			return reply(ctx, s.inlayHints(ctx, &p), nil)
		case protocol.MethodInitialize:
			var p struct {
				Capabilities struct {
					Workspace struct {
						InlayHint lsp317.InlayHintWorkspaceClientCapabilities `json:"inlayHint"`
					} `json:"workspace"`
				} `json:"capabilities"`
			}
			if json.Unmarshal(req.Params(), &p) == nil { // a bad one is protocol's to refuse
				s.view.update(func(v *view) { v.inlayRefresh = p.Capabilities.Workspace.InlayHint.RefreshSupport })
			}
			return h(ctx, func(ctx context.Context, result any, err error) error {
				if r, ok := result.(*protocol.InitializeResult); ok && err == nil {
					result = initializeResult317{
						Capabilities: lsp317.ServerCapabilities{ServerCapabilities: r.Capabilities, InlayHintProvider: &lsp317.InlayHintOptions{}},
						ServerInfo:   r.ServerInfo,
					}
				}
				return reply(ctx, result, err)
			}, req)
		}
		return h(ctx, reply, req)
	}
}

// initializeResult317 is protocol.InitializeResult with 3.17's capabilities.
type initializeResult317 struct {
	Capabilities lsp317.ServerCapabilities `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo      `json:"serverInfo,omitempty"`
}

// editorCapabilities advertises the editor features of issue 38 that
// protocol v0.12.0 can declare (inlay hints are added by lsp317Routes).
func editorCapabilities(c *protocol.ServerCapabilities) {
	c.SemanticTokensProvider = semanticTokensProvider()
	c.DocumentSymbolProvider = true
	c.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.RefactorRewrite}}
	c.RenameProvider = &protocol.RenameOptions{PrepareProvider: true}
	c.ReferencesProvider = true
	c.SignatureHelpProvider = &protocol.SignatureHelpOptions{TriggerCharacters: signatureTriggers, RetriggerCharacters: []string{","}}
}
