package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The server's messages to the client wait in a bounded queue (outbox),
// which one goroutine writes out (stream.writeLoop), so a client that does
// not read holds a bounded number of messages, not a goroutine per message.
//   - A publishDiagnostics replaces the one still queued for its document, a
//     perfls/status the one queued before it, a $/progress report the one
//     queued for its token: only the latest counts, and it goes to the end
//     of the queue.
//   - When the queue is full, a progress report, window/logMessage and
//     telemetry are dropped; replies, requests to the client and the other
//     notifications (progress begin and end among them: they come in pairs)
//     wait for room. The handler or job sending them waits, and so, in
//     turn, does reading (dispatch.go).
//   - A write blocked for giveUpAfter closes the connection: the session
//     ends as failed (exit status 1) and its jobs are cancelled.
//
// A variable so tests can shrink it. A minute: an editor that stops reading
// its server's output that long is hung.
var outQueueLimits = outLimits{messages: 256, bytes: 8 << 20, giveUpAfter: time.Minute}

// errStreamClosed is what a write queued after the stream closed returns.
var errStreamClosed = fmt.Errorf("connection closed: %w", net.ErrClosed)

type outLimits struct {
	messages, bytes int
	giveUpAfter     time.Duration
}

// outbox is the stream's queue of framed messages.
type outbox struct {
	limits outLimits

	mu      sync.Mutex
	queue   []outMsg
	bytes   int
	writing bool          // the writer holds a message taken from the queue
	wake    chan struct{} // tells the writer the queue is not empty
	room    signal        // a message left the queue
	idle    signal        // the queue is empty and nothing is being written
	dropped int           // messages dropped because the queue was full
	peak    int           // the most messages queued at once
}

type outMsg struct {
	data []byte
	key  string
}

// policy says what a message does when the queue is full.
type policy struct {
	key  string // a queued message with the same key is replaced by the newer one
	drop bool   // dropped, rather than waited for, when there is no room
}

func (o *outbox) init(l outLimits) {
	o.limits = l
	o.wake = make(chan struct{}, 1)
}

// policyOf is the queueing policy of a message to the client.
func policyOf(msg jsonrpc2.Message) policy {
	n, ok := msg.(*jsonrpc2.Notification)
	if !ok {
		return policy{} // replies and requests wait
	}
	switch n.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(n.Params(), &p) == nil {
			return policy{key: "diagnostics " + p.URI}
		}
	case MethodStatus:
		return policy{key: "status"}
	case protocol.MethodProgress:
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if json.Unmarshal(n.Params(), &p) == nil && p.Value.Kind == string(protocol.WorkDoneProgressKindReport) {
			return policy{key: "progress " + string(p.Token), drop: true}
		}
	case protocol.MethodWindowLogMessage, protocol.MethodTelemetryEvent:
		return policy{drop: true}
	}
	return policy{}
}

// put queues data as p says; it waits for room until ctx ends or closed
// closes.
func (o *outbox) put(ctx context.Context, closed <-chan struct{}, data []byte, p policy) error {
	o.mu.Lock()
	for {
		select {
		case <-closed:
			o.mu.Unlock()
			return errStreamClosed
		default:
		}
		if p.key != "" {
			// The older message leaves the queue and the newer one goes
			// to its end: what was sent between them stays before it (a
			// client that sees "idle" in perfls/status has the results).
			if i := slices.IndexFunc(o.queue, func(m outMsg) bool { return m.key == p.key }); i >= 0 {
				o.bytes -= len(o.queue[i].data)
				o.queue = slices.Delete(o.queue, i, i+1)
			}
		}
		// One message larger than the byte bound still goes out, alone.
		if len(o.queue) == 0 || len(o.queue) < o.limits.messages && o.bytes+len(data) <= o.limits.bytes {
			o.queue = append(o.queue, outMsg{data: data, key: p.key})
			o.bytes += len(data)
			o.peak = max(o.peak, len(o.queue))
			select {
			case o.wake <- struct{}{}:
			default:
			}
			o.mu.Unlock()
			return nil
		}
		if p.drop {
			o.dropped++
			o.mu.Unlock()
			return nil
		}
		room := o.room.wait()
		o.mu.Unlock()
		select {
		case <-room:
		case <-closed:
			return errStreamClosed
		case <-ctx.Done():
			return ctx.Err()
		}
		o.mu.Lock()
	}
}

// take removes the oldest message for the writer; false once closed
// closes.
func (o *outbox) take(closed <-chan struct{}) ([]byte, bool) {
	o.mu.Lock()
	for len(o.queue) == 0 {
		o.mu.Unlock()
		select {
		case <-o.wake:
		case <-closed:
			return nil, false
		}
		o.mu.Lock()
	}
	select {
	case <-closed:
		o.mu.Unlock()
		return nil, false
	default:
	}
	m := o.queue[0]
	o.queue[0] = outMsg{}
	o.queue = o.queue[1:]
	o.bytes -= len(m.data)
	o.writing = true
	o.room.fire()
	o.mu.Unlock()
	return m.data, true
}

// written tells that the message taken last has been written.
func (o *outbox) written() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.writing = false
	if len(o.queue) == 0 {
		o.idle.fire()
	}
}

// flush waits until the queue is empty and nothing is being written, or
// closed closes.
func (o *outbox) flush(closed <-chan struct{}) {
	o.mu.Lock()
	if len(o.queue) == 0 && !o.writing {
		o.mu.Unlock()
		return
	}
	idle := o.idle.wait()
	o.mu.Unlock()
	select {
	case <-idle:
	case <-closed:
	}
}

// drop empties the queue once the stream is closed.
func (o *outbox) drop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.queue, o.bytes = nil, 0
}

// stats are the queue's counters, for tests and logs.
func (o *outbox) stats() (peak, dropped int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.peak, o.dropped
}

// signal wakes every goroutine waiting for an event; its owner's mutex
// guards it. The channel is made only when someone waits.
type signal struct{ ch chan struct{} }

// wait is the channel that closes at the next fire.
func (s *signal) wait() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) fire() {
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
