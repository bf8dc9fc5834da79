package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/internal/lsptest"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// perflsBinary builds perfls once for the tests that run it as editors do.
func perflsBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "perfls-test-bin")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "perfls")
		if out, err := exec.Command("go", "build", "-o", built, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
	}
	sharedCaches.remove()
	os.Exit(code)
}

// serveProcess is perfls serve as an editor starts it: the built binary
// speaking LSP over its stdin and stdout.
type serveProcess struct {
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer
	done   chan error
	cmd    *exec.Cmd
}

func startServe(t *testing.T) *serveProcess {
	t.Helper()
	p := &serveProcess{cmd: exec.Command(perflsBinary(t), "serve"), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	p.stdin, _ = p.cmd.StdinPipe()
	out, _ := p.cmd.StdoutPipe()
	p.stdout = bufio.NewReader(out)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// exitCode waits for the process and returns its exit status.
func (p *serveProcess) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not exit\n%s", p.stderr.String())
		return -1
	}
}

// send writes raw bytes to the server.
func (p *serveProcess) send(t *testing.T, raw string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, raw); err != nil {
		t.Fatalf("write: %v\n%s", err, p.stderr.String())
	}
}

// reply reads messages until the response with id (a JSON value, "null"
// for errors about unreadable messages) and returns its error code (0 for a
// result).
func (p *serveProcess) reply(t *testing.T, id string) int {
	t.Helper()
	// A reply that does not come fails the test rather than hang it.
	timer := time.AfterFunc(30*time.Second, func() { p.cmd.Process.Kill() })
	defer timer.Stop()
	for {
		line, err := p.stdout.ReadString('\n')
		if err != nil {
			t.Fatalf("no reply with id %s: %v\n%s", id, err, p.stderr.String())
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
		if err != nil {
			t.Fatalf("bad header %q", line)
		}
		p.stdout.ReadString('\n')
		body := make([]byte, n)
		io.ReadFull(p.stdout, body)
		var m struct {
			ID     json.RawMessage
			Method string
			Error  *struct{ Code int }
		}
		json.Unmarshal(body, &m)
		if m.Method != "" || string(m.ID) != id {
			continue // a notification or another reply
		}
		if m.Error == nil {
			return 0
		}
		return m.Error.Code
	}
}

func lspFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// The built server answers malformed input with the JSON-RPC error for it
// and keeps serving, then exits 0 after shutdown and exit (issue #16, item
// 4); exit without shutdown exits 1, as LSP asks, and end of input 0.
func TestServeSurvivesMalformedInput(t *testing.T) {
	p := startServe(t)
	p.send(t, lspFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
	if code := p.reply(t, "1"); code != 0 {
		t.Fatalf("initialize: error %d", code)
	}
	p.send(t, lspFrame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
	steps := []struct {
		name, raw, id string
		code          int
	}{
		{"invalid JSON", lspFrame(`{"jsonrpc":"2.0","id":2,"method":`), "null", -32700},
		{"bad Content-Length", "Content-Length: twelve\r\n\r\n" + `{"jsonrpc":"2.0","id":3,"method":"shutdown"}`, "null", -32700},
		{"not a request", lspFrame(`[1, 2, 3]`), "null", -32600},
		// The body after a header without a length is skipped up to the
		// next Content-Length header.
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}", "null", -32700},
		{"unknown method", lspFrame(`{"jsonrpc":"2.0","id":4,"method":"perfls/frobnicate","params":{}}`), "4", -32601},
		{"unimplemented LSP method", lspFrame(`{"jsonrpc":"2.0","id":5,"method":"textDocument/formatting","params":{}}`), "5", -32601},
		{"bad params", lspFrame(`{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":"oops"}`), "6", -32602},
		{"bad command argument", lspFrame(`{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"perfls.checkFormulas","arguments":[]}}`), "7", -32602},
		{"still serving", lspFrame(`{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere/A.java"},"position":{"line":0,"character":0}}}`), "8", 0},
	}
	for _, s := range steps {
		p.send(t, s.raw)
		if code := p.reply(t, s.id); code != s.code {
			t.Errorf("%s: error code %d, want %d", s.name, code, s.code)
		}
	}
	p.send(t, lspFrame(`{"jsonrpc":"2.0","id":9,"method":"shutdown"}`))
	if code := p.reply(t, "9"); code != 0 {
		t.Errorf("shutdown: error %d", code)
	}
	p.send(t, lspFrame(`{"jsonrpc":"2.0","method":"exit"}`))
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit status %d after shutdown and exit, want 0\n%s", code, p.stderr.String())
	}

	p = startServe(t)
	p.send(t, lspFrame(`{"jsonrpc":"2.0","method":"exit"}`))
	if code := p.exitCode(t); code != 1 {
		t.Errorf("exit status %d after exit without shutdown, want 1", code)
	}
	p = startServe(t)
	p.stdin.Close()
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit status %d at end of input, want 0\n%s", code, p.stderr.String())
	}
}

// TestServeOverStdio starts the real binary and speaks LSP over its stdin and
// stdout: initialize → didOpen → publishDiagnostics → hover → shutdown → exit.
func TestServeOverStdio(t *testing.T) {
	p := startServe(t)
	// Like some clients, this one keeps the server's stdin open to the end
	// (closing the connection does not close it): the server must exit on
	// the exit notification alone.
	c := lsptest.Connect(t, pipe{p.stdout, keepOpen{p.stdin}})
	init := c.Initialize(t, t.TempDir(), nil, protocol.ClientCapabilities{})
	if init.ServerInfo == nil || init.ServerInfo.Name != "perfls" || init.ServerInfo.Version == "" {
		t.Errorf("serverInfo %+v", init.ServerInfo)
	}
	path := filepath.Join(t.TempDir(), "A.java")
	text := "package p;\nclass A {\n    @SPL(\"SELF[g](1) <= p.A#n[g](1) &\")\n    static void m() {}\n}\n"
	u := c.Open(t, path, text)
	if ds := c.LastDiagnostics(u); len(ds) == 0 || ds[0].Range.Start.Line != 2 {
		t.Errorf("diagnostics %+v, want an error on line 3 (dangling &)", ds)
	}
	if h := c.Hover(t, u, protocol.Position{Line: 3, Character: 17}); !strings.Contains(h, "p.A#m()") || !strings.Contains(h, "Not measured yet") {
		t.Errorf("hover:\n%s", h)
	}
	c.Call(t, protocol.MethodShutdown, nil, nil)
	c.Notify(t, protocol.MethodExit, nil)
	if code := p.exitCode(t); code != 0 {
		t.Errorf("serve exited with %d\n%s", code, p.stderr.String())
	}
}

type pipe struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (p pipe) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipe) Close() error                { return p.w.Close() }

// keepOpen is a writer whose Close leaves it open.
type keepOpen struct{ w io.Writer }

func (k keepOpen) Write(b []byte) (int, error) { return k.w.Write(b) }
func (keepOpen) Close() error                  { return nil }
