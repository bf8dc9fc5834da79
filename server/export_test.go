package server

import (
	"context"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Hold makes the session's handlers wait until release is called, so that
// the messages sent meanwhile queue (tests of the bounds). held receives the
// method of each message reaching a handler while held.
func Hold(ss *Session) (held <-chan string, release func()) {
	d := ss.s.inbox
	gate := make(chan struct{})
	ch := make(chan string, 1024)
	d.mu.Lock()
	inner := d.handler
	d.handler = func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		select {
		case ch <- req.Method():
		default:
		}
		<-gate
		return inner(ctx, reply, req)
	}
	d.mu.Unlock()
	return ch, func() {
		d.mu.Lock()
		d.handler = inner
		d.mu.Unlock()
		close(gate)
	}
}

// Load is what a session's bounds hold and did.
type Load struct {
	Waiting           int // messages waiting for a handler
	OutQueued         int // messages waiting to be written
	OutPeak           int // the most ever waiting to be written
	Busy, Stale       int // requests answered busy, ContentModified while waiting
	Merged            int // didChanges merged into another
	InCalls, OutLimit int // the limits: requests waiting before busy, messages to write
}

func LoadOf(ss *Session) Load {
	d, o := ss.s.inbox, &ss.s.wire.out
	d.mu.Lock()
	l := Load{Waiting: len(d.queue), Busy: d.counts.busy, Stale: d.counts.stale, Merged: d.counts.merged, InCalls: d.limits.calls}
	d.mu.Unlock()
	o.mu.Lock()
	l.OutQueued, l.OutPeak, l.OutLimit = len(o.queue), o.peak, o.limits.messages
	o.mu.Unlock()
	return l
}

// SetOutLimits sets the outgoing queue's limits of the sessions started
// next; restore puts the defaults back.
func SetOutLimits(messages int, giveUpAfter time.Duration) (restore func()) {
	old := outQueueLimits
	outQueueLimits.messages, outQueueLimits.giveUpAfter = messages, giveUpAfter
	return func() { outQueueLimits = old }
}

// Indexed lists the roots the session's workspace index walks (or walked)
// and the files it holds, sorted.
func Indexed(ss *Session) (roots, files []string) { return ss.s.sess.Indexed() }
