package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// until polls ok until it holds; the deadline only keeps a broken server
// from hanging the test (nothing is timed).
func until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(lsptest.Timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// errorCode is the JSON-RPC code of a request's error, 0 for none.
func errorCode(err error) jsonrpc2.Code {
	var we *jsonrpc2.Error
	if errors.As(err, &we) {
		return we.Code
	}
	if err != nil {
		return -1
	}
	return 0
}

// hoverAsync sends a hover without waiting; its error arrives on the
// channel.
func hoverAsync(fc *lsptest.Client, u protocol.DocumentURI) <-chan error {
	ch := make(chan error, 1)
	go func() {
		var h *protocol.Hover
		ch <- fc.CallErr(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 7, Character: 23}}}, &h)
	}()
	return ch
}

func startDemo(t *testing.T) (*lsptest.Client, *server.Session, protocol.DocumentURI) {
	dir := t.TempDir()
	fc, ss := lsptest.StartSession(t, server.Options{})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	u := fc.Open(t, filepath.Join(dir, "Demo.java"), javaSource)
	return fc, ss, u
}

// Requests beyond the queue's limit, while the handlers are busy, are
// answered "server busy" (RequestFailed) at once; the queued ones are
// answered once the handlers are free, and the server goes on serving.
func TestRequestsBeyondTheLimitAreAnsweredBusy(t *testing.T) {
	fc, ss, u := startDemo(t)
	held, release := server.Hold(ss)
	first := hoverAsync(fc, u)
	<-held // the first hover is being handled; the others wait
	limit := server.LoadOf(ss).InCalls
	const extra = 10
	var replies []<-chan error
	for range limit + extra {
		replies = append(replies, hoverAsync(fc, u))
	}
	until(t, "every hover to be queued or refused", func() bool {
		l := server.LoadOf(ss)
		return l.Waiting+l.Busy == limit+extra
	})
	if l := server.LoadOf(ss); l.Waiting != limit || l.Busy != extra {
		t.Errorf("%d waiting and %d answered busy, want %d and %d", l.Waiting, l.Busy, limit, extra)
	}
	release()
	codes := map[jsonrpc2.Code]int{}
	for _, ch := range append(replies, first) {
		err := <-ch
		codes[errorCode(err)]++
		if errorCode(err) == -32803 && !strings.Contains(err.Error(), "server busy") {
			t.Errorf("busy answer %q does not say so", err)
		}
	}
	if codes[0] != limit+1 || codes[-32803] != extra {
		t.Errorf("answers by code %v, want %d results and %d busy (-32803)", codes, limit+1, extra)
	}
	if h := fc.Hover(t, u, protocol.Position{Line: 7, Character: 23}); h == "" {
		t.Error("no hover after the burst")
	}
}

// didChanges that arrive while the document's previous change is handled
// are merged: the document is analysed once more, with the final text, and
// only that version's diagnostics are published.
func TestQueuedChangesAreMerged(t *testing.T) {
	fc, ss, u := startDemo(t)
	fixed := strings.Replace(javaSource, `[gen](n")`, `[gen](n)")`, 1)
	held, release := server.Hold(ss)
	fc.Replace(t, u, 2, fixed)
	<-held // version 2 is being handled
	for v := int32(3); v <= 10; v++ {
		text := fixed
		if v%2 == 0 { // the error, on line 6 + (v-2)
			text = strings.Repeat("// edit\n", int(v-2)) + javaSource
		}
		fc.Replace(t, u, v, text)
	}
	until(t, "versions 4 to 10 merged into 3", func() bool { return server.LoadOf(ss).Merged == 7 })
	release()
	diags := fc.AwaitDiagnostics(t, u, 10)
	if len(diags) != 1 || diags[0].Range.Start.Line != 6+8 {
		t.Errorf("diagnostics of version 10: %+v, want the error on line %d", diags, 6+8)
	}
	for v := uint32(3); v < 10; v++ {
		if n := fc.Count(protocol.MethodTextDocumentPublishDiagnostics, func(p json.RawMessage) bool {
			return bytes.Contains(p, fmt.Appendf(nil, `"version":%d,`, v))
		}); n > 0 {
			t.Errorf("version %d, merged, got %d publications", v, n)
		}
	}
}

// A hover about a document that changed after it was sent is answered
// ContentModified: while it waits (at once, when the change arrives) and
// while it is handled (when it replies).
func TestStaleHoversAreContentModified(t *testing.T) {
	fc, ss, u := startDemo(t)
	held, release := server.Hold(ss)
	running := hoverAsync(fc, u)
	<-held
	waiting := hoverAsync(fc, u)
	until(t, "the second hover to wait", func() bool { return server.LoadOf(ss).Waiting == 1 })
	fc.Replace(t, u, 2, "// a new first line\n"+javaSource)
	if err := <-waiting; errorCode(err) != -32801 {
		t.Errorf("the waiting hover: %v, want ContentModified (-32801)", err)
	}
	release()
	if err := <-running; errorCode(err) != -32801 {
		t.Errorf("the running hover: %v, want ContentModified (-32801)", err)
	}
	fc.AwaitDiagnostics(t, u, 2)
	if h := fc.Hover(t, u, protocol.Position{Line: 8, Character: 23}); h == "" {
		t.Error("no hover on the changed document")
	}
}

// syncBuffer is a log written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rawFrame is one LSP message as the wire carries it.
func rawFrame(msg map[string]any) []byte {
	msg["jsonrpc"] = "2.0"
	b, _ := json.Marshal(msg)
	return fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

// A client that sends hovers and whole texts as fast as it can and never
// reads: the server's queue of messages to write stays within its bound,
// reading stops (the client's writes block) instead of goroutines piling
// up, and closing the connection ends the session.
func TestClientThatDoesNotRead(t *testing.T) {
	defer server.SetOutLimits(8, time.Minute)()
	dir := t.TempDir()
	before := runtime.NumGoroutine()
	serverEnd, clientEnd := net.Pipe()
	ss := server.Serve(context.Background(), serverEnd, server.Options{Logger: log.New(io.Discard, "", 0)})
	watchdog := time.AfterFunc(2*lsptest.Timeout, func() { clientEnd.Close() })
	defer watchdog.Stop()

	u := string(uri.File(filepath.Join(dir, "Demo.java")))
	text := strings.Repeat("// padding to about 100 KB\n", 4000) + javaSource
	var sent atomic.Int64
	flooded := make(chan struct{})
	go func() { // ends when the pipe closes
		defer close(flooded)
		send := func(msg map[string]any) bool {
			_, err := clientEnd.Write(rawFrame(msg))
			sent.Add(1)
			return err == nil
		}
		send(map[string]any{"id": 0, "method": "initialize", "params": map[string]any{"rootUri": string(uri.File(dir)), "capabilities": map[string]any{}}})
		send(map[string]any{"method": "initialized", "params": map[string]any{}})
		send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "java", "version": 1, "text": text}}})
		for i := 1; ; i++ {
			if !send(map[string]any{"id": i, "method": "textDocument/hover", "params": map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 4007, "character": 23}}}) ||
				!send(map[string]any{"method": "textDocument/didChange", "params": map[string]any{"textDocument": map[string]any{"uri": u, "version": i + 1}, "contentChanges": []map[string]any{{"text": text}}}}) {
				return
			}
		}
	}()
	until(t, "the queue of messages to the client to fill", func() bool {
		l := server.LoadOf(ss)
		return l.OutQueued == l.OutLimit
	})
	// Once the server stopped reading, the client's count of messages sent
	// stops too; give it a moment to show.
	for n := int64(-1); n != sent.Load(); {
		n = sent.Load()
		time.Sleep(50 * time.Millisecond)
	}
	l := server.LoadOf(ss)
	t.Logf("%d messages sent before the server stopped reading; %+v", sent.Load(), l)
	if l.OutPeak > l.OutLimit {
		t.Errorf("%d messages queued for the client, the bound is %d", l.OutPeak, l.OutLimit)
	}
	if g := runtime.NumGoroutine() - before; g > 64 {
		t.Errorf("%d more goroutines after %d messages: writes pile up", g, sent.Load())
	}
	clientEnd.Close()
	if !ss.WaitFor(lsptest.Timeout) {
		t.Fatal("the session did not end when the client closed the connection")
	}
	<-flooded
}

// A write blocked for longer than the server waits for a client closes the
// connection: the session ends, as failed, and says why.
func TestServerGivesUpOnAClientThatDoesNotRead(t *testing.T) {
	defer server.SetOutLimits(8, 200*time.Millisecond)()
	serverEnd, clientEnd := net.Pipe()
	defer clientEnd.Close()
	logs := &syncBuffer{}
	ss := server.Serve(context.Background(), serverEnd, server.Options{Logger: log.New(logs, "", 0)})
	watchdog := time.AfterFunc(2*lsptest.Timeout, func() { clientEnd.Close() })
	defer watchdog.Stop()
	go clientEnd.Write(rawFrame(map[string]any{"id": 0, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}}))
	if !ss.WaitFor(lsptest.Timeout) {
		t.Fatal("the session did not end")
	}
	if code := ss.ExitCode(); code != 1 {
		t.Errorf("exit status %d, want 1 (failed connection)", code)
	}
	if !strings.Contains(logs.String(), "gave up") {
		t.Errorf("the log does not say the server gave up on the client:\n%s", logs)
	}
}
