package server

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/perfls/perfls/server/internal/session"
	"go.lsp.dev/protocol"
)

// workDone reports one piece of long work with $/progress, when the client
// supports it (window.workDoneProgress); otherwise its methods do nothing.
// Progress messages are never cancelled with the request that started the
// work, and End always runs (callers defer it).
type workDone struct {
	s     *server
	token *protocol.ProgressToken // nil: the client does not show progress
	ended atomic.Bool
}

var progressSeq atomic.Int64

// startProgress creates a server-side token (the work outlives the request
// that started it, so a client-sent token would not do) and sends begin.
// cancel, when set, is called if the user cancels the work in the client.
func (s *server) startProgress(ctx context.Context, title string, cancel func()) *workDone {
	wd := &workDone{s: s}
	if !workDoneProgress(s.view.get().caps) {
		return wd
	}
	ctx, end := session.UntilDone(context.WithoutCancel(ctx), s.conn.Done())
	defer end()
	tok := protocol.NewProgressToken(fmt.Sprintf("perfls-%d", progressSeq.Add(1)))
	if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: *tok}); err != nil {
		s.logf("progress %q: %v", title, err)
		return wd
	}
	wd.token = tok
	if cancel != nil {
		s.jobs.mu.Lock()
		s.jobs.cancels[tok.String()] = cancel
		s.jobs.mu.Unlock()
	}
	s.client.Progress(ctx, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressBegin{
		Kind: protocol.WorkDoneProgressKindBegin, Title: title, Cancellable: cancel != nil,
	}})
	return wd
}

func (wd *workDone) report(ctx context.Context, message string) {
	if wd.token == nil || wd.ended.Load() {
		return
	}
	wd.s.client.Progress(context.WithoutCancel(ctx), &protocol.ProgressParams{Token: *wd.token, Value: &protocol.WorkDoneProgressReport{
		Kind: protocol.WorkDoneProgressKindReport, Message: message,
	}})
}

func (wd *workDone) end(ctx context.Context, message string) {
	if wd.token == nil || wd.ended.Swap(true) {
		return
	}
	q := wd.s.jobs
	q.mu.Lock()
	delete(q.cancels, wd.token.String())
	q.mu.Unlock()
	wd.s.client.Progress(context.WithoutCancel(ctx), &protocol.ProgressParams{Token: *wd.token, Value: &protocol.WorkDoneProgressEnd{
		Kind: protocol.WorkDoneProgressKindEnd, Message: message,
	}})
}

// WorkDoneProgressCancel is the user pressing cancel on a progress item.
func (s *server) WorkDoneProgressCancel(_ context.Context, p *protocol.WorkDoneProgressCancelParams) error {
	s.jobs.mu.Lock()
	cancel := s.jobs.cancels[p.Token.String()]
	s.jobs.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}
