package server

import (
	"context"
	"errors"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// $/cancelRequest, with a numeric or a string id, cancels a request waiting
// for a handler: it is answered RequestCancelled without being handled.
func TestCancelRequestWhileWaiting(t *testing.T) {
	closed := make(chan struct{})
	defer close(closed)
	gate, handled := make(chan struct{}), make(chan jsonrpc2.ID, 3)
	d := newDispatcher(func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		<-gate
		handled <- req.(*jsonrpc2.Call).ID()
		return reply(ctx, "ok", nil)
	}, closed)
	replies := make(chan error, 3)
	call := func(id jsonrpc2.ID) {
		c, err := jsonrpc2.NewCall(id, protocol.MethodWorkspaceSymbol, map[string]string{"query": "x"})
		if err != nil {
			t.Fatal(err)
		}
		d.admit(context.Background(), func(_ context.Context, _ any, err error) error { replies <- err; return nil }, c)
	}
	cancel := func(id any) {
		n, err := jsonrpc2.NewNotification(protocol.MethodCancelRequest, map[string]any{"id": id})
		if err != nil {
			t.Fatal(err)
		}
		d.admit(context.Background(), func(context.Context, any, error) error { return nil }, n)
	}
	call(jsonrpc2.NewNumberID(1)) // handled, held at the gate
	call(jsonrpc2.NewNumberID(2))
	call(jsonrpc2.NewStringID("three"))
	cancel(2)
	cancel("three")
	close(gate)
	codes := map[jsonrpc2.Code]int{}
	for range 3 {
		var we *jsonrpc2.Error
		if err := <-replies; errors.As(err, &we) {
			codes[we.Code]++
		} else if err == nil {
			codes[0]++
		}
	}
	if codes[0] != 1 || codes[requestCancelled] != 2 {
		t.Errorf("answers by code %v, want one result and two RequestCancelled", codes)
	}
	if id := <-handled; id != jsonrpc2.NewNumberID(1) || len(handled) != 0 {
		t.Errorf("handled %v and %d more, want only request 1", id, len(handled))
	}
}
