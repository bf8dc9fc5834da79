package session

import (
	"sync"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/editor"
)

// highlighters hold each open document's semantic-token highlighter,
// which remembers the strings of the last request so that after an edit
// only the changed ones are classified again.
type highlighters struct {
	mu sync.Mutex
	m  map[protocol.DocumentURI]*editor.Highlighter
}

// Highlighter is u's highlighter (made on first use; forgotten at Close).
func (s *Session) Highlighter(u protocol.DocumentURI) *editor.Highlighter {
	h := &s.highlight
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[protocol.DocumentURI]*editor.Highlighter{}
	}
	if hl := h.m[u]; hl != nil {
		return hl
	}
	hl := new(editor.Highlighter)
	h.m[u] = hl
	return hl
}

func (h *highlighters) forget(u protocol.DocumentURI) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, u)
}
