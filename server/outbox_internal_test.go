package server

import (
	"context"
	"strings"
	"testing"
)

// The outgoing queue: a keyed message replaces the queued one and goes to
// the end; when full, droppable messages are dropped and the others wait
// for room.
func TestOutboxReplacesDropsAndWaits(t *testing.T) {
	var o outbox
	o.init(outLimits{messages: 3, bytes: 1 << 20})
	closed := make(chan struct{})
	defer close(closed)
	ctx := context.Background()
	put := func(data string, p policy) {
		if err := o.put(ctx, closed, []byte(data), p); err != nil {
			t.Fatalf("put %s: %v", data, err)
		}
	}
	queued := func() string {
		o.mu.Lock()
		defer o.mu.Unlock()
		var out []string
		for _, m := range o.queue {
			out = append(out, string(m.data))
		}
		return strings.Join(out, " ")
	}
	put("status-busy", policy{key: "status"})
	put("diagnostics-1", policy{key: "diagnostics a"})
	put("status-idle", policy{key: "status"})
	if got := queued(); got != "diagnostics-1 status-idle" {
		t.Errorf("queued %q, want the diagnostics, then the latest status", got)
	}
	put("reply-1", policy{})
	put("log", policy{drop: true})
	if got := queued(); got != "diagnostics-1 status-idle reply-1" {
		t.Errorf("queued %q: the log should have been dropped", got)
	}
	if _, dropped := o.stats(); dropped != 1 {
		t.Errorf("%d dropped, want 1", dropped)
	}
	waited := make(chan error)
	go func() { waited <- o.put(ctx, closed, []byte("reply-2"), policy{}) }()
	if data, ok := o.take(closed); !ok || string(data) != "diagnostics-1" {
		t.Fatalf("took %q, want the oldest", data)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if got := queued(); got != "status-idle reply-1 reply-2" {
		t.Errorf("queued %q, want the waiting reply at the end", got)
	}
	if peak, _ := o.stats(); peak != 3 {
		t.Errorf("peak %d, want the bound, 3", peak)
	}
}
