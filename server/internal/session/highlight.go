package session

import (
	"strconv"
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
	// last holds each document's latest encoded tokens sent, by result id,
	// for semanticTokens/full/delta.
	last map[protocol.DocumentURI]SentTokens
	seq  int
}

// SentTokens are encoded semantic tokens sent under a result id.
type SentTokens struct {
	ID   string
	Data []uint32
}

// SendTokens records data as u's latest tokens and returns them with a
// new result id; the tokens sent before are returned too (zero when none).
func (s *Session) SendTokens(u protocol.DocumentURI, data []uint32) (sent, before SentTokens) {
	h := &s.highlight
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil {
		h.last = map[protocol.DocumentURI]SentTokens{}
	}
	h.seq++
	before = h.last[u]
	sent = SentTokens{ID: strconv.Itoa(h.seq), Data: data}
	if len(data) > 0 || before.ID != "" {
		// A document without tokens (or not open, which Close never
		// forgets) is not remembered: its delta is the full answer.
		h.last[u] = sent
	}
	return sent, before
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
	delete(h.last, u)
}
