// Package lsptest is the editor side of perfls's language-server tests: a
// client that speaks LSP to the real server — in this process over a pipe
// (Start), or over any stream, such as a child process's stdin and stdout
// (Connect) — and records everything the server sends, so a test can wait
// for it. The projects the tests write are internal/fixture's.
package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/server"
)

// Timeout is how long a test waits for a reply or a message from the server.
const Timeout = 30 * time.Second

// Client is an editor in a test.
type Client struct {
	Conn jsonrpc2.Conn

	mu    sync.Mutex
	msgs  []Message // every request and notification from the server
	diags map[protocol.DocumentURI][]*protocol.PublishDiagnosticsParams
	ch    chan struct{} // signalled on every message
}

// Message is one request or notification from the server.
type Message struct {
	Method string
	Params json.RawMessage
}

// Start runs the real server in this process with opts and connects a
// client to it over a pipe; both end with the test.
func Start(t testing.TB, opts server.Options) *Client {
	t.Helper()
	c, _ := StartSession(t, opts)
	return c
}

// StartSession is Start, also returning the server's session.
func StartSession(t testing.TB, opts server.Options) (*Client, *server.Session) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	session := server.Serve(ctx, serverEnd, opts)
	c := Connect(t, clientEnd)
	t.Cleanup(func() {
		c.Conn.Close()
		cancel()
		if !session.WaitFor(10 * time.Second) { // before the test's temporary directories go
			t.Error("the server did not stop")
		}
	})
	return c, session
}

// Connect speaks LSP over rwc (Content-Length framing). The server's
// requests are answered with null.
func Connect(t testing.TB, rwc io.ReadWriteCloser) *Client {
	c := &Client{
		Conn:  jsonrpc2.NewConn(jsonrpc2.NewStream(rwc)),
		diags: map[protocol.DocumentURI][]*protocol.PublishDiagnosticsParams{},
		ch:    make(chan struct{}, 100),
	}
	c.Conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		c.mu.Lock()
		c.msgs = append(c.msgs, Message{req.Method(), append(json.RawMessage(nil), req.Params()...)})
		c.mu.Unlock()
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("bad publishDiagnostics: %v", err)
			}
			// The specification requires an array; a nil slice would arrive
			// as null.
			if !strings.Contains(string(req.Params()), `"diagnostics":[`) {
				t.Errorf("diagnostics not an array: %s", req.Params())
			}
			c.mu.Lock()
			c.diags[p.URI] = append(c.diags[p.URI], &p)
			c.mu.Unlock()
		}
		select {
		case c.ch <- struct{}{}:
		default:
		}
		// A reply failing because the test already closed the pipe must not
		// fail the connection: jsonrpc2 v0.10.0 then panics on the next read
		// error (atomic.Value stored with a different error type).
		reply(ctx, nil, nil)
		return nil
	})
	return c
}

// Call sends a request and fails the test when it fails.
func (c *Client) Call(t testing.TB, method string, params, result any) {
	t.Helper()
	if err := c.CallErr(method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// CallErr sends a request and returns its error.
func (c *Client) CallErr(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	_, err := c.Conn.Call(ctx, method, params, result)
	return err
}

// Notify sends a notification.
func (c *Client) Notify(t testing.TB, method string, params any) {
	t.Helper()
	if err := c.Conn.Notify(context.Background(), method, params); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// Initialize sends initialize (with root as the root URI, initOpts as the
// initialization options and caps) and initialized.
func (c *Client) Initialize(t testing.TB, root string, initOpts any, caps protocol.ClientCapabilities) *protocol.InitializeResult {
	t.Helper()
	var res protocol.InitializeResult
	c.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(root), InitializationOptions: initOpts, Capabilities: caps}, &res)
	c.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	return &res
}

// Open opens the document at path with text (version 1) and waits for its
// diagnostics.
func (c *Client) Open(t testing.TB, path, text string) protocol.DocumentURI {
	t.Helper()
	u := uri.File(path)
	c.Notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: text},
	})
	c.AwaitDiagnostics(t, u, 1)
	return u
}

// Change is a content change of didChange as editors send it: without
// Range, the whole text (protocol v0.12.0's struct cannot leave the range
// out, anchors-lsp.md §1.2 #3).
type Change struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// ChangeParams are the parameters of a didChange of u to version.
func ChangeParams(u protocol.DocumentURI, version int32, changes ...Change) any {
	return map[string]any{
		"textDocument":   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		"contentChanges": changes,
	}
}

// Replace sends the whole new text of u as its version (a full-text
// didChange) without waiting.
func (c *Client) Replace(t testing.TB, u protocol.DocumentURI, version int32, text string) {
	t.Helper()
	c.Notify(t, protocol.MethodTextDocumentDidChange, ChangeParams(u, version, Change{Text: text}))
}

// Hover returns the hover's Markdown at pos, "" when there is none.
func (c *Client) Hover(t testing.TB, u protocol.DocumentURI, pos protocol.Position) string {
	t.Helper()
	var h *protocol.Hover
	c.Call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &h)
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

// Lenses returns the document's code lenses.
func (c *Client) Lenses(t testing.TB, u protocol.DocumentURI) []protocol.CodeLens {
	t.Helper()
	var lenses []protocol.CodeLens
	c.Call(t, protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &lenses)
	return lenses
}

// Completion returns the completion items at pos.
func (c *Client) Completion(t testing.TB, u protocol.DocumentURI, pos protocol.Position) *protocol.CompletionList {
	t.Helper()
	var list protocol.CompletionList
	c.Call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &list)
	return &list
}

// Await waits up to Timeout for ok, checking on every message from the
// server.
func (c *Client) Await(t testing.TB, what string, ok func() bool) {
	t.Helper()
	c.AwaitFor(t, Timeout, what, ok)
}

// AwaitFor waits up to limit for ok.
func (c *Client) AwaitFor(t testing.TB, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.After(limit)
	for !ok() {
		select {
		case <-c.ch:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// AwaitDiagnostics waits for the publication for u with the given version.
func (c *Client) AwaitDiagnostics(t testing.TB, u protocol.DocumentURI, version uint32) []protocol.Diagnostic {
	t.Helper()
	return c.awaitPublication(t, u, fmt.Sprintf("version %d", version), func(p *protocol.PublishDiagnosticsParams) bool { return p.Version == version })
}

// AwaitMatch waits for a publication for u whose diagnostics ok accepts.
func (c *Client) AwaitMatch(t testing.TB, u protocol.DocumentURI, what string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	t.Helper()
	return c.awaitPublication(t, u, what, func(p *protocol.PublishDiagnosticsParams) bool { return ok(p.Diagnostics) })
}

func (c *Client) awaitPublication(t testing.TB, u protocol.DocumentURI, what string, ok func(*protocol.PublishDiagnosticsParams) bool) []protocol.Diagnostic {
	t.Helper()
	var found []protocol.Diagnostic
	c.Await(t, fmt.Sprintf("diagnostics for %s with %s", u, what), func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, p := range c.diags[u] {
			if ok(p) {
				found = p.Diagnostics
				return true
			}
		}
		return false
	})
	return found
}

// LastDiagnostics is the latest publication for u.
func (c *Client) LastDiagnostics(u protocol.DocumentURI) []protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.diags[u]
	if len(ps) == 0 {
		return nil
	}
	return ps[len(ps)-1].Diagnostics
}

// Publications counts the publications for u.
func (c *Client) Publications(u protocol.DocumentURI) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.diags[u])
}

// Messages lists every message from the server, in order.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.msgs...)
}

// Received lists the parameters of every message method the server sent.
func (c *Client) Received(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, m := range c.msgs {
		if m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// Seen tells whether the server sent method with parameters ok accepts.
func (c *Client) Seen(method string, ok func(json.RawMessage) bool) bool {
	for _, p := range c.Received(method) {
		if ok(p) {
			return true
		}
	}
	return false
}

// Count is how many times the server sent method with parameters ok
// accepts.
func (c *Client) Count(method string, ok func(json.RawMessage) bool) int {
	n := 0
	for _, p := range c.Received(method) {
		if ok(p) {
			n++
		}
	}
	return n
}

// Methods lists the methods of every message from the server, in order.
func (c *Client) Methods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.msgs))
	for i, m := range c.msgs {
		out[i] = m.Method
	}
	return out
}

// Log is every message from the server, one a line, for failure messages.
func (c *Client) Log() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, m := range c.msgs {
		fmt.Fprintf(&b, "%s %s\n", m.Method, m.Params)
	}
	return b.String()
}
