// Package lsp317 declares the LSP 3.17 messages perfls uses that
// go.lsp.dev/protocol v0.12.0 (LSP 3.16) lacks: inlay hints. The wire
// format is the specification's
// (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocument_inlayHint);
// the types reuse v0.12.0's for what 3.16 already has.
package lsp317

import "go.lsp.dev/protocol"

// Methods.
const (
	MethodInlayHint        = "textDocument/inlayHint"
	MethodInlayHintResolve = "inlayHint/resolve"
	// MethodInlayHintRefresh is sent by the server when results arrive.
	MethodInlayHintRefresh = "workspace/inlayHint/refresh"
)

// InlayHintKind is what a hint stands for.
type InlayHintKind uint32

const (
	InlayHintKindType      InlayHintKind = 1
	InlayHintKindParameter InlayHintKind = 2
)

// InlayHintLabelPart is one part of a label made of parts.
type InlayHintLabelPart struct {
	Value    string                  `json:"value"`
	Tooltip  *protocol.MarkupContent `json:"tooltip,omitempty"`
	Location *protocol.Location      `json:"location,omitempty"`
	Command  *protocol.Command       `json:"command,omitempty"`
}

// InlayHint is one hint. Label is a string or []InlayHintLabelPart;
// Tooltip a string or a *protocol.MarkupContent.
type InlayHint struct {
	Position     protocol.Position   `json:"position"`
	Label        any                 `json:"label"`
	Kind         InlayHintKind       `json:"kind,omitempty"`
	TextEdits    []protocol.TextEdit `json:"textEdits,omitempty"`
	Tooltip      any                 `json:"tooltip,omitempty"`
	PaddingLeft  bool                `json:"paddingLeft,omitempty"`
	PaddingRight bool                `json:"paddingRight,omitempty"`
	Data         any                 `json:"data,omitempty"`
}

// InlayHintParams asks for the hints of a range of a document.
type InlayHintParams struct {
	TextDocument  protocol.TextDocumentIdentifier `json:"textDocument"`
	Range         protocol.Range                  `json:"range"`
	WorkDoneToken *protocol.ProgressToken         `json:"workDoneToken,omitempty"`
}

// InlayHintOptions is the server capability's value (true also serves).
type InlayHintOptions struct {
	ResolveProvider  bool `json:"resolveProvider,omitempty"`
	WorkDoneProgress bool `json:"workDoneProgress,omitempty"`
}

// InlayHintClientCapabilities is textDocument.inlayHint in the client's
// capabilities.
type InlayHintClientCapabilities struct {
	DynamicRegistration bool `json:"dynamicRegistration,omitempty"`
	ResolveSupport      *struct {
		Properties []string `json:"properties"`
	} `json:"resolveSupport,omitempty"`
}

// InlayHintWorkspaceClientCapabilities is workspace.inlayHint: whether the
// client honours workspace/inlayHint/refresh.
type InlayHintWorkspaceClientCapabilities struct {
	RefreshSupport bool `json:"refreshSupport,omitempty"`
}

// ServerCapabilities is v0.12.0's with the 3.17 inlayHintProvider; the
// embedded struct's fields marshal at the same level.
type ServerCapabilities struct {
	protocol.ServerCapabilities
	InlayHintProvider *InlayHintOptions `json:"inlayHintProvider,omitempty"`
}
