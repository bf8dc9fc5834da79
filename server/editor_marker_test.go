package server_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/internal/lsp317"
	"github.com/perfls/perfls/internal/lsptest"
)

// editorMarker answers the marker sections of the editor features (issue
// 38), each as the real server answers over the pipe:
//
//	-- tokens --              the opened file's semantic tokens: line:col text type
//	-- symbols --             its document symbols, children indented
//	-- codeactions NAME --    the code actions at NAME: title [kind] (preferred), then each edit
//	-- rename NAME NEW --     prepareRename at NAME, then the edits renaming it to NEW
//	-- references NAME --     the references at NAME, the declaration included
//	-- inlayhints --          the opened file's inlay hints over the whole text
//	-- signature NAME --      the signature help at NAME
//
// ok is false for a section of another kind.
func editorMarker(t *testing.T, fc *lsptest.Client, mf *markedFiles, u protocol.DocumentURI, kind, name string) (string, bool) {
	td := protocol.TextDocumentIdentifier{URI: u}
	at := func(name string) protocol.TextDocumentPositionParams {
		u, pos := mf.position(t, name)
		return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}
	}
	switch kind {
	case "tokens":
		var st protocol.SemanticTokens
		fc.Call(t, protocol.MethodSemanticTokensFull, &protocol.SemanticTokensParams{TextDocument: td}, &st)
		return tokensText(mf.texts[mf.main], st.Data), true
	case "symbols":
		var syms []editor.Symbol
		fc.Call(t, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: td}, &syms)
		var b strings.Builder
		var walk func([]editor.Symbol, string)
		walk = func(ss []editor.Symbol, indent string) {
			for _, s := range ss {
				fmt.Fprintf(&b, "%s%s (%d) %s %d:%d\n", indent, s.Name, s.Kind, s.Detail, s.SelectionRange.Start.Line+1, s.SelectionRange.Start.Character+1)
				walk(s.Children, indent+"  ")
			}
		}
		walk(syms, "")
		return orNone(b.String()), true
	case "codeactions":
		p := at(name)
		var acts []protocol.CodeAction
		fc.Call(t, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: p.TextDocument,
			Range: protocol.Range{Start: p.Position, End: p.Position}}, &acts)
		var b strings.Builder
		for _, a := range acts {
			pref := ""
			if a.IsPreferred {
				pref = " (preferred)"
			}
			var codes []string
			for _, d := range a.Diagnostics {
				codes = append(codes, fmt.Sprint(d.Code))
			}
			fmt.Fprintf(&b, "%s [%s]%s for %s\n", a.Title, a.Kind, pref, strings.Join(codes, ","))
			if a.Edit != nil {
				b.WriteString(editText(mf, a.Edit))
			}
		}
		return orNone(b.String()), true
	case "rename":
		marker, newName, _ := strings.Cut(name, " ")
		p := at(marker)
		var b strings.Builder
		var rng *protocol.Range
		if err := fc.CallErr(protocol.MethodTextDocumentPrepareRename, &protocol.PrepareRenameParams{TextDocumentPositionParams: p}, &rng); err != nil {
			fmt.Fprintf(&b, "prepare: error: %v\n", err)
		} else if rng == nil {
			b.WriteString("prepare: null\n")
		} else {
			fmt.Fprintf(&b, "prepare: %s\n", rangeText(mf, p.TextDocument.URI, *rng))
		}
		var we *protocol.WorkspaceEdit
		if err := fc.CallErr(protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: p, NewName: newName}, &we); err != nil {
			fmt.Fprintf(&b, "rename: error: %v\n", err)
		} else if we != nil {
			b.WriteString(editText(mf, we))
		}
		return b.String(), true
	case "references":
		var locs []protocol.Location
		fc.Call(t, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: at(name),
			Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &locs)
		var lines []string
		for _, l := range locs {
			lines = append(lines, rangeText(mf, l.URI, l.Range))
		}
		return orNone(joinLines(lines)), true
	case "inlayhints":
		var hs []lsp317.InlayHint
		fc.Call(t, lsp317.MethodInlayHint, &lsp317.InlayHintParams{TextDocument: td,
			Range: protocol.Range{End: protocol.Position{Line: 1 << 20}}}, &hs)
		var b strings.Builder
		for _, h := range hs {
			fmt.Fprintf(&b, "%d:%d %v\n", h.Position.Line+1, h.Position.Character+1, h.Label)
		}
		return orNone(b.String()), true
	case "signature":
		var sh *protocol.SignatureHelp
		fc.Call(t, protocol.MethodTextDocumentSignatureHelp, &protocol.SignatureHelpParams{TextDocumentPositionParams: at(name)}, &sh)
		if sh == nil {
			return "(none)\n", true
		}
		var b strings.Builder
		for _, s := range sh.Signatures {
			fmt.Fprintf(&b, "%s — %v\n", s.Label, s.Documentation)
			for i, pa := range s.Parameters {
				mark := " "
				if uint32(i) == sh.ActiveParameter {
					mark = "*"
				}
				fmt.Fprintf(&b, "%s %v — %v\n", mark, pa.Label, pa.Documentation)
			}
		}
		return b.String(), true
	}
	return "", false
}

// tokensText decodes semantic tokens against the text: line:col text type.
func tokensText(text string, data []uint32) string {
	m := textpos.NewMapper(text)
	var b strings.Builder
	var line, char uint32
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			char = 0
		}
		line, char = line+data[i], char+data[i+1]
		start := m.Offset(textpos.Position{Line: int(line), Character: int(char)})
		end := m.Offset(textpos.Position{Line: int(line), Character: int(char + data[i+2])})
		mods := ""
		if data[i+4]&1 != 0 {
			mods = " declaration"
		}
		fmt.Fprintf(&b, "%d:%d %s %s%s\n", line+1, char+1, text[start:end], editor.TokenTypes[data[i+3]], mods)
	}
	return orNone(b.String())
}

// editText lists a workspace edit's changes: file:line:col-line:col "old" → "new".
func editText(mf *markedFiles, we *protocol.WorkspaceEdit) string {
	var lines []string
	for u, es := range we.Changes {
		for _, e := range es {
			lines = append(lines, fmt.Sprintf("%s → %q", rangeText(mf, u, e.Range), e.NewText))
		}
	}
	sort.Strings(lines)
	return joinLines(lines)
}

// rangeText is file:line:col-line:col "text".
func rangeText(mf *markedFiles, u protocol.DocumentURI, r protocol.Range) string {
	path := uri.URI(u).Filename()
	m := textpos.NewMapper(mf.texts[path])
	a := m.Offset(textpos.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)})
	z := m.Offset(textpos.Position{Line: int(r.End.Line), Character: int(r.End.Character)})
	rel, _ := filepath.Rel(mf.dir, path)
	return fmt.Sprintf("%s:%d:%d-%d:%d %q", filepath.ToSlash(rel), r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1, mf.texts[path][a:z])
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func orNone(s string) string {
	if s == "" {
		return "(none)\n"
	}
	return s
}
