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
	// CommandMeasure measures one method's own workloads (its @Workload
	// generators and the workloads its formulas measure it on).
	CommandMeasure = "perfls.measure"
	// CommandCheckFile checks every formula of one document.
	CommandCheckFile = "perfls.checkFile"
	// CommandCalibrate calibrates the bounds oracle on one method's
	// workloads (oracle.go); it measures, like the commands above.
	CommandCalibrate = "perfls.calibrate"
	// CommandAcceptBaseline accepts the latest oracle run of a method's
	// workload as normal behaviour; it measures nothing.
	CommandAcceptBaseline = "perfls.acceptBaseline"
)

var allCommands = []string{CommandCheck, CommandMeasure, CommandCheckFile, CommandCalibrate, CommandAcceptBaseline, CommandProfile, CommandCompareBase}

// MethodArgs names an annotated method in a document: the argument of
// CommandCheck and CommandMeasure.
type MethodArgs struct {
	URI    protocol.DocumentURI `json:"uri"`
	Class  string               `json:"class"` // binary name
	Method string               `json:"method"`
	Params []string             `json:"params"` // erased parameter types
}

// FileArgs names a document: the argument of CommandCheckFile.
type FileArgs struct {
	URI protocol.DocumentURI `json:"uri"`
}

// newCheckCommand builds the typed command of a "Check" code lens.
func newCheckCommand(title string, args MethodArgs) *protocol.Command {
	return &protocol.Command{Title: title, Command: CommandCheck, Arguments: []any{args}}
}

// newMeasureCommand builds the typed command of a "Measure" code lens.
func newMeasureCommand(title string, args MethodArgs) *protocol.Command {
	return &protocol.Command{Title: title, Command: CommandMeasure, Arguments: []any{args}}
}

// newCalibrateCommand builds the typed command of a "Calibrate" code lens.
func newCalibrateCommand(title string, args OracleArgs) *protocol.Command {
	return &protocol.Command{Title: title, Command: CommandCalibrate, Arguments: []any{args}}
}

// newAcceptBaselineCommand builds the typed command of an "Accept latest run
// as baseline" code lens.
func newAcceptBaselineCommand(title string, args OracleArgs) *protocol.Command {
	return &protocol.Command{Title: title, Command: CommandAcceptBaseline, Arguments: []any{args}}
}

// ExecuteCommand starts the command's work in the background and replies at
// once: measuring takes seconds and must not hold up other requests. The
// work reports through $/progress, perfls/status, diagnostics and a code
// lens refresh.
func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	if res, ok, err := s.executeOracle(ctx, p); ok {
		return res, err
	}
	if res, ok, err := s.executeProfile(ctx, p); ok {
		return res, err
	}
	if res, ok, err := s.executeCompareBase(ctx, p); ok {
		return res, err
	}
	switch p.Command {
	case CommandCheck, CommandMeasure, CommandCheckFile:
	default:
		return nil, invalidParams("unknown command %q (perfls knows %v)", p.Command, allCommands)
	}
	if !s.settings().AllowMeasuring {
		return nil, fmt.Errorf("%s: %w", p.Command, errMeasuringDisabled)
	}
	if s.opts.Actions == nil {
		return nil, fmt.Errorf("%s: measuring is not enabled in this server", p.Command)
	}
	switch p.Command {
	case CommandCheck:
		var args MethodArgs
		if err := decodeMethodArg(p, &args); err != nil {
			return nil, err
		}
		return started(s.startCheck(ctx, args)), nil
	case CommandMeasure:
		var args MethodArgs
		if err := decodeMethodArg(p, &args); err != nil {
			return nil, err
		}
		return started(s.startMeasure(ctx, args)), nil
	default: // CommandCheckFile
		var args FileArgs
		if err := decodeArg(p, &args); err != nil {
			return nil, err
		}
		if args.URI == "" {
			return nil, invalidParams("%s: the argument needs a uri", p.Command)
		}
		doc := s.sess.Doc(args.URI)
		if doc == nil || doc.Java == nil {
			return nil, invalidParams("%s: %s is not an open Java document", p.Command, args.URI)
		}
		n := 0
		for _, a := range formulaMethods(doc) {
			if s.startCheck(ctx, a) {
				n++
			}
		}
		if len(formulaMethods(doc)) == 0 {
			return "no formulas in this file", nil
		}
		return fmt.Sprintf("started %d %s", n, plural(n, "check", "checks")), nil
	}
}

func started(ok bool) string {
	if ok {
		return "started"
	}
	return "already queued"
}

// formulaMethods lists the methods of doc that carry formulas.
func formulaMethods(doc *document) []MethodArgs {
	var out []MethodArgs
	for _, m := range doc.Java.Methods {
		if m.Type == nil {
			continue
		}
		for _, ann := range m.SPL {
			if len(ann.Formulas) > 0 {
				out = append(out, MethodArgs{URI: doc.URI, Class: m.Type.BinaryName, Method: m.Name, Params: erased(m)})
				break
			}
		}
	}
	return out
}

// decodeMethodArg reads a MethodArgs argument and checks that it names a
// method.
func decodeMethodArg(p *protocol.ExecuteCommandParams, args *MethodArgs) error {
	if err := decodeArg(p, args); err != nil {
		return err
	}
	if args.URI == "" || args.Class == "" || args.Method == "" {
		return invalidParams("%s: the argument needs uri, class and method (got %+v)", p.Command, *args)
	}
	return nil
}

// decodeArg reads the single object argument of a command. Arguments arrive
// as generic JSON values, so they are re-encoded into the typed struct.
func decodeArg(p *protocol.ExecuteCommandParams, into any) error {
	if len(p.Arguments) != 1 {
		return invalidParams("%s: want 1 argument, got %d", p.Command, len(p.Arguments))
	}
	b, err := json.Marshal(p.Arguments[0])
	if err != nil {
		return invalidParams("%s: %v", p.Command, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return invalidParams("%s: bad argument: %v", p.Command, err)
	}
	return nil
}
