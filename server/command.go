package server

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// Commands run on the server, so every client (VS Code, Neovim, any LSP
// client) can execute them from a code lens; all are listed in
// executeCommandProvider.
const (
	// CommandCheck measures and decides the formulas of one method.
	CommandCheck = "perfls.checkFormulas"
)

var allCommands = []string{CommandCheck}

// MethodArgs names an annotated method in a document: the argument of
// CommandCheck.
type MethodArgs struct {
	URI    protocol.DocumentURI `json:"uri"`
	Class  string               `json:"class"` // binary name
	Method string               `json:"method"`
	Params []string             `json:"params"` // erased parameter types
}

// newCheckCommand builds the typed command of a "Check" code lens.
func newCheckCommand(title string, args MethodArgs) *protocol.Command {
	return &protocol.Command{Title: title, Command: CommandCheck, Arguments: []any{args}}
}

// ExecuteCommand starts the command's work in the background and replies at
// once: measuring takes seconds and must not hold up other requests. The
// work reports through $/progress, diagnostics and a code lens refresh.
func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	switch p.Command {
	case CommandCheck:
		var args MethodArgs
		if err := decodeArg(p, &args); err != nil {
			return nil, err
		}
		if s.opts.Checker == nil {
			return nil, fmt.Errorf("%s: measuring is not enabled in this server", p.Command)
		}
		s.startCheck(ctx, args)
		return "started", nil
	}
	return nil, fmt.Errorf("unknown command %q (perfls knows %v)", p.Command, allCommands)
}

// decodeArg reads the single object argument of a command. Arguments arrive
// as generic JSON values, so they are re-encoded into the typed struct.
func decodeArg(p *protocol.ExecuteCommandParams, into any) error {
	if len(p.Arguments) != 1 {
		return fmt.Errorf("%s: want 1 argument, got %d", p.Command, len(p.Arguments))
	}
	b, err := json.Marshal(p.Arguments[0])
	if err != nil {
		return fmt.Errorf("%s: %w", p.Command, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s: bad argument: %w", p.Command, err)
	}
	return nil
}
