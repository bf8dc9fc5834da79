package server_test

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/server"
)

// fakeClient is the editor side of an in-process session: it records the
// server's notifications so tests can wait for them.
type fakeClient struct {
	conn jsonrpc2.Conn

	mu    sync.Mutex
	diags map[protocol.DocumentURI][]*protocol.PublishDiagnosticsParams
	calls []recorded    // every request and notification from the server
	ch    chan struct{} // signalled on every notification
}

// recorded is one message from the server to the client.
type recorded struct {
	method string
	params json.RawMessage
}

func startSession(t *testing.T, opts server.Options) *fakeClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	sconn := server.Serve(ctx, serverEnd, opts)
	fc := &fakeClient{
		conn:  jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd)),
		diags: map[protocol.DocumentURI][]*protocol.PublishDiagnosticsParams{},
		ch:    make(chan struct{}, 100),
	}
	fc.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		fc.mu.Lock()
		fc.calls = append(fc.calls, recorded{req.Method(), append(json.RawMessage(nil), req.Params()...)})
		fc.mu.Unlock()
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("bad publishDiagnostics: %v", err)
			}
			// The spec requires an array; a nil slice would arrive as null.
			if !strings.Contains(string(req.Params()), `"diagnostics":[`) {
				t.Errorf("diagnostics not an array: %s", req.Params())
			}
			fc.mu.Lock()
			fc.diags[p.URI] = append(fc.diags[p.URI], &p)
			fc.mu.Unlock()
			select {
			case fc.ch <- struct{}{}:
			default:
			}
		}
		// A reply failing because the test already closed the pipe must not
		// fail the connection: jsonrpc2 v0.10.0 then panics on the next read
		// error (atomic.Value stored with a different error type).
		reply(ctx, nil, nil)
		return nil
	})
	t.Cleanup(func() {
		fc.conn.Close()
		cancel()
		select {
		case <-sconn.Done():
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return fc
}

func (fc *fakeClient) call(t *testing.T, method string, params, result any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := fc.conn.Call(ctx, method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func (fc *fakeClient) notify(t *testing.T, method string, params any) {
	t.Helper()
	if err := fc.conn.Notify(context.Background(), method, params); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// awaitDiagnostics waits for a publication for u with the given version.
func (fc *fakeClient) awaitDiagnostics(t *testing.T, u protocol.DocumentURI, version uint32) []protocol.Diagnostic {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		fc.mu.Lock()
		for _, p := range fc.diags[u] {
			if p.Version == version {
				fc.mu.Unlock()
				return p.Diagnostics
			}
		}
		fc.mu.Unlock()
		select {
		case <-fc.ch:
		case <-deadline:
			t.Fatalf("no diagnostics for %s version %d", u, version)
		}
	}
}

const javaSource = `package demo;

import dev.perfls.SPL;

public class Demo {
    // The comment before the formula puts non-ASCII text on the same line.
    @SPL(/* café 😀 */ "for n in {10, 20} SELF[gen](n) <= demo.Demo#slow[gen](n")
    public static int fast(int[] a) { return a.length; }

    public static int slow(int[] a) { return a.length; }

    public static Iterable<Object[]> gen(int n) { return null; }
}
`

func TestSessionDiagnosticsHoverShutdown(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the persisted index goes there
	dir := t.TempDir()
	path := filepath.Join(dir, "Demo.java")
	verdicts, _, err := cache.OpenStore(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer verdicts.Close()
	err = verdicts.ReplaceVerdicts(context.Background(), []verdict.MethodResult{{
		File: path, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"},
		CheckedAt: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
		Instances: []verdict.InstanceResult{{
			Formula: "…", Instance: "n=10", Outcome: verdict.Violated,
			Comparisons: []verdict.ComparisonResult{{
				Text: "SELF[gen](10) <= demo.Demo#slow[gen](10)", Outcome: verdict.Violated,
				Evidence: verdict.Evidence{
					Left:  verdict.SideEvidence{MeanNs: 1520, Samples: 90, Forks: 3},
					Right: verdict.SideEvidence{MeanNs: 310, Samples: 90, Forks: 3},
					Ratio: 4.9, P: 1e-30, Alpha: 0.05,
				},
			}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}

	fc := startSession(t, server.Options{Verdicts: verdicts})
	var init protocol.InitializeResult
	fc.call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir)}, &init)
	if init.Capabilities.HoverProvider != true {
		t.Errorf("hover not advertised: %+v", init.Capabilities)
	}
	fc.notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})

	u := uri.File(path)
	fc.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: javaSource},
	})
	diags := fc.awaitDiagnostics(t, u, 1)
	if len(diags) == 0 {
		t.Fatal("no diagnostic for the unclosed argument list")
	}
	// The formula lacks ")" before its closing quote on line 7 (0-based 6).
	d := diags[0]
	if d.Range.Start.Line != 6 || d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("diagnostic %+v, want an error on line 7", d)
	}
	line := strings.Split(javaSource, "\n")[6]
	quote := len(utf16.Encode([]rune(line[:strings.Index(line, `n")`)+1]))) // UTF-16 column of the closing quote
	if int(d.Range.Start.Character) != quote {
		t.Errorf("diagnostic at character %d, want %d (the end of the formula): %s", d.Range.Start.Character, quote, d.Message)
	}

	// Fixing the formula clears the diagnostics (an empty array, not null).
	fixed := strings.Replace(javaSource, `[gen](n")`, `[gen](n)")`, 1)
	fc.notify(t, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: fixed}},
	})
	if diags := fc.awaitDiagnostics(t, u, 2); len(diags) != 0 {
		t.Errorf("diagnostics after the fix: %+v", diags)
	}

	var hover protocol.Hover
	fc.call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Position:     protocol.Position{Line: 7, Character: 23}, // on "fast"
		},
	}, &hover)
	md := hover.Contents.Value
	for _, want := range []string{"demo.Demo#fast(int[])", "for n in {10, 20}", "| n=10 | violated | 1.52 µs/op | 310 ns/op | 4.9 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("hover lacks %q:\n%s", want, md)
		}
	}

	// Hover elsewhere is empty, not an error.
	var none *protocol.Hover
	fc.call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Position:     protocol.Position{Line: 0, Character: 3},
		},
	}, &none)
	if none != nil {
		t.Errorf("hover on the package line: %+v", none)
	}

	fc.call(t, protocol.MethodShutdown, nil, nil)
	fc.notify(t, protocol.MethodExit, nil)
}

func TestRequestsBeforeInitializeAreRefused(t *testing.T) {
	fc := startSession(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var hover protocol.Hover
	_, err := fc.conn.Call(ctx, protocol.MethodTextDocumentHover, &protocol.HoverParams{}, &hover)
	if err == nil || !strings.Contains(err.Error(), "not initialized") {
		t.Errorf("hover before initialize: err = %v", err)
	}
}
