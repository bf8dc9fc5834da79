package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// dispatcher takes the client's messages from the connection's reader and
// hands them, in order, to a bounded pool of handlers; it replaces
// jsonrpc2.AsyncHandler, which starts a goroutine per message whatever the
// load. As there, a message starts once the one before it has replied, so
// document changes apply in order; handlers still writing their reply (to a
// client that reads slowly) hold one of inLimits.handlers slots.
//
// The messages waiting are bounded in count and bytes:
//   - A request that finds inLimits.calls messages waiting (or their
//     parameters past inLimits.callBytes) is answered at once with
//     RequestFailed (-32803) "server busy"; initialize, shutdown and exit
//     are always taken.
//   - A didChange is merged into a didChange of the same document still
//     waiting (nothing about that document, and nothing about the whole
//     workspace, between them): its changes are appended (after a
//     full-text change only the last one counts), so the document is
//     analysed, and its diagnostics computed and published, once.
//   - A change of a document (didOpen, didChange, didClose) answers the
//     requests about it still waiting with ContentModified (-32801), and
//     cancels those being handled, whose reply becomes ContentModified: their
//     answer would describe a text the client no longer has.
//   - Other notifications are taken up to inLimits.hardCount messages or
//     inLimits.hardBytes; past that, reading waits for room. Notifications
//     are not refused (dropping a change would lose text), and the hard
//     bound is far above the soft one so that the client's replies to the
//     server's own requests, read on the same stream, are not stuck behind
//     them.
type dispatcher struct {
	handler jsonrpc2.Handler
	closed  <-chan struct{} // the stream's: no more messages are handled
	limits  inLimits

	mu      sync.Mutex
	queue   []*inMsg
	bytes   int
	edits   map[protocol.DocumentURI]int64 // each open document's latest change, numbered by seq
	seq     int64
	running map[*inMsg]bool
	calls   map[jsonrpc2.ID]*inMsg // requests waiting or running, for $/cancelRequest
	ready   chan struct{}          // tells run the queue is not empty
	room    signal                 // a message left the queue
	slots   chan struct{}          // handlers running
	counts  dispatchCounts
}

// inLimits bound the messages waiting to be handled and the handlers
// running.
type inLimits struct {
	calls     int // messages waiting beyond which a request is answered busy
	callBytes int
	hardCount int // messages waiting beyond which reading waits
	hardBytes int
	handlers  int
	merged    int // changes one merged didChange holds at most
}

// inQueueLimits: a variable so tests can shrink it.
var inQueueLimits = inLimits{calls: 64, callBytes: 4 << 20, hardCount: 1024, hardBytes: 32 << 20, handlers: 4, merged: 256}

// maxTrackedDocs bounds the documents whose changes are numbered.
const maxTrackedDocs = 4096

// dispatchCounts count what the dispatcher did, for tests and the log.
type dispatchCounts struct {
	busy, stale, merged, cancelled int
}

// inMsg is a message waiting or being handled.
type inMsg struct {
	ctx    context.Context
	cancel context.CancelFunc // called once the message is answered or dropped
	reply  jsonrpc2.Replier
	req    jsonrpc2.Request
	call   bool
	id     jsonrpc2.ID
	uri    protocol.DocumentURI // the document the message is about; "" for none
	edit   int64                // edits[uri] when the message arrived
	size   int
	change *didChangeParams // a didChange's parameters, decoded to merge
	merges int              // didChanges merged into this one
}

// LSP's error codes for requests that were not carried out.
const (
	requestCancelled jsonrpc2.Code = -32800
	contentModified  jsonrpc2.Code = -32801
)

func newDispatcher(h jsonrpc2.Handler, closed <-chan struct{}) *dispatcher {
	d := &dispatcher{
		handler: h, closed: closed, limits: inQueueLimits,
		edits: map[protocol.DocumentURI]int64{}, running: map[*inMsg]bool{}, calls: map[jsonrpc2.ID]*inMsg{},
		ready: make(chan struct{}, 1), slots: make(chan struct{}, inQueueLimits.handlers),
	}
	go d.run()
	return d
}

// admit is the connection's handler: it runs on the reader goroutine, and
// queues, merges or answers the message.
func (d *dispatcher) admit(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method := req.Method()
	if method == protocol.MethodCancelRequest {
		d.cancelRequest(req.Params())
		return reply(ctx, nil, nil)
	}
	m := &inMsg{reply: reply, req: req, size: len(req.Params())}
	m.ctx, m.cancel = context.WithCancel(ctx)
	if c, ok := req.(*jsonrpc2.Call); ok {
		m.call, m.id = true, c.ID()
	}
	edits := method == protocol.MethodTextDocumentDidOpen || method == protocol.MethodTextDocumentDidChange || method == protocol.MethodTextDocumentDidClose
	if method == protocol.MethodTextDocumentDidChange {
		var p didChangeParams
		if json.Unmarshal(req.Params(), &p) == nil {
			m.change, m.uri = &p, p.TextDocument.URI
		}
	} else {
		var p struct {
			TextDocument struct {
				URI protocol.DocumentURI `json:"uri"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			m.uri = p.TextDocument.URI
		}
	}
	lifecycle := method == protocol.MethodInitialize || method == protocol.MethodShutdown || method == protocol.MethodExit

	d.mu.Lock()
	var stale []*inMsg
	if edits && m.uri != "" {
		stale = d.changedLocked(m.uri, method == protocol.MethodTextDocumentDidClose)
		if m.change != nil && d.mergeLocked(m) {
			d.mu.Unlock()
			m.cancel()
			d.answer(stale, contentModified, "the document changed: answer dropped")
			return nil
		}
	}
	m.edit = d.edits[m.uri]
	busy := false
	for {
		if d.fitsLocked(m, m.call && !lifecycle) {
			d.queue = append(d.queue, m)
			d.bytes += m.size
			if m.call {
				d.calls[m.id] = m
			}
			select {
			case d.ready <- struct{}{}:
			default:
			}
			break
		}
		if m.call && !lifecycle {
			busy = true
			d.counts.busy++
			break
		}
		if !d.waitLocked() {
			d.mu.Unlock()
			m.cancel()
			return nil // closed: the message is dropped with the connection
		}
	}
	waiting := len(d.queue)
	d.mu.Unlock()
	d.answer(stale, contentModified, "the document changed: answer dropped")
	if busy {
		m.cancel()
		return reply(context.WithoutCancel(ctx), nil, &jsonrpc2.Error{Code: requestFailed,
			Message: fmt.Sprintf("perfls: server busy (%d messages waiting): %s not handled, try again", waiting, method)})
	}
	return nil
}

// fitsLocked tells whether m fits in the queue: a request within the soft
// bounds, a notification within the hard ones. One message alone always
// fits, whatever its size.
func (d *dispatcher) fitsLocked(m *inMsg, soft bool) bool {
	n, b := len(d.queue), d.bytes+m.size
	switch {
	case n == 0:
		return true
	case soft:
		return n < d.limits.calls && b <= d.limits.callBytes
	default:
		return n < d.limits.hardCount && b <= d.limits.hardBytes
	}
}

// waitLocked waits, with d.mu released meanwhile, until a message leaves
// the queue; false when the connection closed instead.
func (d *dispatcher) waitLocked() bool {
	room := d.room.wait()
	d.mu.Unlock()
	select {
	case <-room:
		d.mu.Lock()
		return true
	case <-d.closed:
		d.mu.Lock()
		return false
	}
}

// changedLocked records a change of u: the requests about u still waiting
// are taken out of the queue and returned (to be answered ContentModified),
// and those being handled are cancelled.
func (d *dispatcher) changedLocked(u protocol.DocumentURI, closing bool) []*inMsg {
	d.seq++
	switch _, known := d.edits[u]; {
	case closing:
		delete(d.edits, u) // no entry: the document is not open
	case !known && len(d.edits) >= maxTrackedDocs:
		// Changes of documents never opened, by the thousand: start over
		// rather than grow. The requests under way count as stale, once.
		clear(d.edits)
		fallthrough
	default:
		d.edits[u] = d.seq
	}
	var stale []*inMsg
	kept := d.queue[:0]
	for _, q := range d.queue {
		if q.call && q.uri == u {
			stale = append(stale, q)
			d.bytes -= q.size
			continue
		}
		kept = append(kept, q)
	}
	clear(d.queue[len(kept):])
	d.queue = kept
	if len(stale) > 0 {
		d.room.fire()
	}
	for q := range d.running {
		if q.call && q.uri == u {
			q.cancel()
		}
	}
	d.counts.stale += len(stale)
	return stale
}

// mergeLocked merges the didChange m into the last didChange of its
// document still waiting, when nothing between them is about the document
// or about the whole workspace; it reports whether it did.
func (d *dispatcher) mergeLocked(m *inMsg) bool {
	for i := len(d.queue) - 1; i >= 0; i-- {
		q := d.queue[i]
		switch {
		case q.uri == "":
			return false // about the workspace: it may read the document
		case q.uri != m.uri:
			continue
		case q.change == nil:
			return false // didOpen, didSave, didClose of the document
		}
		changes := append(q.change.ContentChanges, m.change.ContentChanges...)
		for j := len(changes) - 1; j > 0; j-- {
			if changes[j].Range == nil { // the whole text: what came before it is replaced
				changes = changes[j:]
				break
			}
		}
		size := 0
		for _, c := range changes {
			size += len(c.Text) + 64
		}
		if len(changes) > d.limits.merged || d.bytes-q.size+size > d.limits.hardBytes {
			return false // applying the changes would take long: queued as it is
		}
		q.change.ContentChanges = changes
		q.change.TextDocument.Version = m.change.TextDocument.Version
		d.bytes += size - q.size
		q.size = size
		q.merges++
		d.counts.merged++
		return true
	}
	return false
}

// answer replies to requests that will not be handled with code.
func (d *dispatcher) answer(ms []*inMsg, code jsonrpc2.Code, message string) {
	for _, q := range ms {
		d.finish(q)
		q.reply(context.WithoutCancel(q.ctx), nil, &jsonrpc2.Error{Code: code, Message: "perfls: " + message})
	}
}

// next takes the oldest waiting message; nil once the connection closed.
func (d *dispatcher) next() *inMsg {
	d.mu.Lock()
	for len(d.queue) == 0 {
		d.mu.Unlock()
		select {
		case <-d.ready:
		case <-d.closed:
			return nil
		}
		d.mu.Lock()
	}
	m := d.queue[0]
	d.queue[0] = nil
	d.queue = d.queue[1:]
	d.bytes -= m.size
	d.running[m] = true
	d.room.fire()
	d.mu.Unlock()
	return m
}

// run hands the waiting messages to handlers, one after the other's reply,
// until the connection closes; then it cancels what is still running.
func (d *dispatcher) run() {
	defer d.stop()
	for {
		m := d.next()
		if m == nil {
			return
		}
		select {
		case d.slots <- struct{}{}:
		case <-d.closed:
			d.finish(m)
			return
		}
		started := make(chan struct{})
		go d.handle(m, started)
		select {
		case <-started:
		case <-d.closed:
			return
		}
	}
}

// handle runs one message's handler; started closes when it replies (or
// returns without replying).
func (d *dispatcher) handle(m *inMsg, started chan struct{}) {
	defer func() { <-d.slots }()
	var once sync.Once
	start := func() { once.Do(func() { close(started) }) }
	defer start()
	defer d.finish(m)
	if m.call && m.ctx.Err() != nil { // cancelled, or its document changed, while waiting
		start()
		err := &jsonrpc2.Error{Code: requestCancelled, Message: "perfls: request cancelled"}
		if d.stale(m) {
			err = &jsonrpc2.Error{Code: contentModified, Message: "perfls: the document changed: answer dropped"}
		}
		d.mu.Lock()
		d.counts.cancelled++
		d.mu.Unlock()
		m.reply(context.WithoutCancel(m.ctx), nil, err)
		return
	}
	req := m.req
	if m.merges > 0 {
		if n, err := jsonrpc2.NewNotification(req.Method(), m.change); err == nil {
			req = n
		}
	}
	reply := func(ctx context.Context, result any, err error) error {
		start()
		if m.call && d.stale(m) {
			result, err = nil, &jsonrpc2.Error{Code: contentModified, Message: "perfls: the document changed: answer dropped"}
		}
		return m.reply(ctx, result, err)
	}
	d.mu.Lock()
	h := d.handler // tests replace it (export_test.go)
	d.mu.Unlock()
	_ = h(m.ctx, reply, req) // errors are in the replies
}

// stale tells whether m's document changed since m arrived.
func (d *dispatcher) stale(m *inMsg) bool {
	if m.uri == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.edits[m.uri] != m.edit
}

// finish takes m off the running messages and releases its context.
func (d *dispatcher) finish(m *inMsg) {
	d.mu.Lock()
	delete(d.running, m)
	if m.call && d.calls[m.id] == m {
		delete(d.calls, m.id)
	}
	d.mu.Unlock()
	m.cancel()
}

// cancelRequest honours $/cancelRequest for numeric and string ids
// (protocol.CancelHandler misses numeric ids: JSON numbers decode to float64
// there, anchors-lsp.md §1.2 #1; jsonrpc2.CancelHandler keeps a context per
// request referenced by the connection's for good): the request's context
// is cancelled, and one still waiting is answered RequestCancelled when its
// turn comes.
func (d *dispatcher) cancelRequest(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var id jsonrpc2.ID
	var n int32
	var str string
	switch {
	case json.Unmarshal(p.ID, &n) == nil:
		id = jsonrpc2.NewNumberID(n)
	case json.Unmarshal(p.ID, &str) == nil:
		id = jsonrpc2.NewStringID(str)
	default:
		return
	}
	d.mu.Lock()
	m := d.calls[id]
	d.mu.Unlock()
	if m != nil {
		m.cancel()
	}
}

// stop cancels the messages still waiting and running once the connection
// closed: their handlers end, and nothing waits for a reply that cannot be
// written.
func (d *dispatcher) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.queue {
		m.cancel()
	}
	d.queue, d.bytes = nil, 0
	clear(d.calls)
	for m := range d.running {
		m.cancel()
	}
}

// stats are the dispatcher's counters.
func (d *dispatcher) stats() dispatchCounts {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.counts
}

// logLoad logs, once the connection ended, what the bounds did to the
// session's messages, when they did anything.
func (s *server) logLoad() {
	c := s.inbox.stats()
	peak, dropped := s.wire.out.stats()
	if c != (dispatchCounts{}) || dropped > 0 {
		s.logf("load: %d requests answered busy, %d stale, %d cancelled while waiting; %d didChanges merged; %d messages to the client dropped (at most %d queued)",
			c.busy, c.stale, c.cancelled, c.merged, dropped, peak)
	}
}
