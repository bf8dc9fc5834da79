package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
)

// progressClient records work-done progress; other methods are not used.
type progressClient struct {
	protocol.Client
	mu        sync.Mutex
	createErr error
	events    []string
}

func (c *progressClient) WorkDoneProgressCreate(_ context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, "create "+p.Token.String())
	return c.createErr
}

func (c *progressClient) Progress(_ context.Context, p *protocol.ProgressParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch v := p.Value.(type) {
	case *protocol.WorkDoneProgressBegin:
		c.events = append(c.events, "begin "+v.Title)
	case *protocol.WorkDoneProgressReport:
		c.events = append(c.events, fmt.Sprintf("report %d%%", v.Percentage))
	case *protocol.WorkDoneProgressEnd:
		c.events = append(c.events, "end "+v.Message)
	}
	return nil
}

func TestIndexProgress(t *testing.T) {
	root := t.TempDir()
	for i := range 30 {
		p := filepath.Join(root, "p", fmt.Sprintf("C%d.java", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("package p;\nclass C%d { void m() {} }\n", i)), 0o644)
	}
	newIndex := func(c *progressClient, progress bool) *wsIndex {
		return &wsIndex{base: context.Background(), done: make(chan struct{}), roots: map[string]bool{root: true}, files: map[string]*javasrc.File{},
			logf: t.Logf, client: c, progressOK: func() bool { return progress }, onReady: func() {}, building: 1}
	}

	c := &progressClient{}
	w := newIndex(c, true)
	w.build(root)
	ev := c.events
	if len(ev) < 4 || ev[0] != "create perfls/index/1" || ev[1] != "begin perfls: indexing Java files" ||
		ev[len(ev)-2] != "report 100%" || ev[len(ev)-1] != "end 30 Java files (30 parsed, 0 from the cache)" {
		t.Errorf("progress events: %q", ev)
	}
	if len(ev) > 2+21+1 {
		t.Errorf("%d reports: at most one per 5 %% expected", len(ev)-3)
	}
	if ix, complete := w.snapshot(); !complete || ix.Type("p.C7") == nil {
		t.Error("index not built")
	}

	// Reopened from the persisted index; a client without progress support
	// sees nothing.
	c2 := &progressClient{}
	w2 := newIndex(c2, false)
	w2.build(root)
	if len(c2.events) != 0 {
		t.Errorf("events without progress support: %q", c2.events)
	}
	if ix, _ := w2.snapshot(); ix.Type("p.C29") == nil {
		t.Error("reopened index incomplete")
	}

	// A client that refuses the token gets no progress notifications.
	c3 := &progressClient{createErr: errors.New("no")}
	w3 := newIndex(c3, true)
	w3.build(root)
	if len(c3.events) != 1 || !strings.HasPrefix(c3.events[0], "create") {
		t.Errorf("events after a refused token: %q", c3.events)
	}
}
