package main

import (
	"context"
	"encoding/json"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/server"
)

// The editor's Calibrate lens with real javac and forked JVMs: every
// workload of the method (its formula's and its @Workload generator's) is
// measured in fresh forks and gets a stored model, measured with the
// editor's JVM flags; a method without workloads is refused.
func TestLSPCheckerCalibrate(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	cacheDir, dir, src := writeJavaProject(t, "p/A.java", classA("long s = 0; for (int i = 0; i < n; i++) s += i ^ s; return s;"))
	c := &lspChecker{cacheDir: cacheDir, logf: log.New(os.Stderr, "", 0).Printf, inProcess: true,
		base: measure.Options{SamplesPerFork: 12, Warmup: 50 * time.Millisecond, MaxWarmup: 200 * time.Millisecond}}
	defer c.close()
	ctx := context.Background()
	req := server.CalibrateRequest{Forks: 3, CheckRequest: server.CheckRequest{Root: dir, File: src, Class: "p.A", Method: "fast", Params: []string{"int"},
		JVMArgs: []string{"-XX:+UseSerialGC"}}}
	var reports []string
	keys, err := c.Calibrate(ctx, req, func(m string) { reports = append(reports, m) })
	if err != nil {
		t.Fatal(err)
	}
	want := map[cache.OracleKey]bool{
		{Method: "p.A#fast(int)", Workload: "p.A#gen(int)", Args: "100"}:  true,
		{Method: "p.A#fast(int)", Workload: "p.A#sizes(int)", Args: "50"}: true,
	}
	if len(keys) != 2 || !want[keys[0]] || !want[keys[1]] {
		t.Fatalf("calibrated %+v", keys)
	}
	store, _, err := cache.OpenStore(ctx, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, k := range keys {
		m, err := store.OracleModel(ctx, k)
		if err != nil || m == nil {
			t.Fatalf("model of %s: %v %v", k, m, err)
		}
		if len(m.Model.Runs) != 3 || !m.Model.Provisional || len(m.Model.Metrics) == 0 {
			t.Errorf("model of %s: %d runs, provisional %v, %d metrics", k, len(m.Model.Runs), m.Model.Provisional, len(m.Model.Metrics))
		}
		if !strings.Contains(m.Model.Measure["jvm_args"], "-XX:+UseSerialGC") || !strings.Contains(m.Model.Env["jvm.args"], "-XX:+UseSerialGC") {
			t.Errorf("the editor's JVM flags are not in the model of %s: measure %v env %v", k, m.Model.Measure, m.Model.Env)
		}
	}
	if len(reports) == 0 || !strings.HasPrefix(reports[0], "1/2 ") {
		t.Errorf("progress %q", reports)
	}
	req.Method = "idle"
	if _, err := c.Calibrate(ctx, req, func(string) {}); err == nil || !strings.Contains(err.Error(), "no workload to measure it on") {
		t.Errorf("method without workloads: %v", err)
	}
}

// lspClient is a minimal editor for an in-process session: it answers the
// server's requests and keeps its notifications.
type lspClient struct {
	conn jsonrpc2.Conn
	mu   sync.Mutex
	msgs []jsonrpc2.Request
}

func (c *lspClient) seen(method string, ok func(json.RawMessage) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.msgs {
		if m.Method() == method && ok(m.Params()) {
			return true
		}
	}
	return false
}

// From the lens to the hover with real forks: the Calibrate lens of a
// method calibrates its workloads in the background, then the lens and the
// hover show the models.
func TestCalibrateLensEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	text := `package p;
import dev.perfls.*;
public class B {
    @Workload("p.B#sizes")
    public static long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i ^ s; return s; }
    @Generator("one call with n")
    public static Iterable<Object[]> sizes(@Param(value = "n", min = 500) int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
	cacheDir, dir, src := writeJavaProject(t, "p/B.java", text)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store, _, err := cache.OpenStore(ctx, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	lc := &lspChecker{cacheDir: cacheDir, logf: t.Logf, inProcess: true,
		base: measure.Options{SamplesPerFork: 12, Warmup: 50 * time.Millisecond, MaxWarmup: 200 * time.Millisecond}}
	defer lc.close()
	serverEnd, clientEnd := net.Pipe()
	sconn := server.Serve(ctx, serverEnd, server.Options{Verdicts: store, Checker: lc})
	c := &lspClient{conn: jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))}
	c.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		c.mu.Lock()
		c.msgs = append(c.msgs, req)
		c.mu.Unlock()
		return reply(ctx, nil, nil)
	})
	defer func() {
		c.conn.Close()
		cancel()
		<-sconn.Done()
	}()
	call := func(method string, params, result any) error {
		cctx, done := context.WithTimeout(ctx, 2*time.Minute)
		defer done()
		_, err := c.conn.Call(cctx, method, params, result)
		return err
	}
	if err := call(protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir), Capabilities: protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true}}}, nil); err != nil {
		t.Fatal(err)
	}
	c.conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File(src)
	c.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: text}})
	lensTitled := func(prefix string) *protocol.CodeLens {
		var lenses []protocol.CodeLens
		if err := call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &lenses); err != nil {
			t.Fatal(err)
		}
		for i := range lenses {
			if strings.HasPrefix(lenses[i].Command.Title, prefix) {
				return &lenses[i]
			}
		}
		return nil
	}
	var lens *protocol.CodeLens
	for deadline := time.Now().Add(30 * time.Second); lens == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		lens = lensTitled("▶ Calibrate (30 forks)")
	}
	if lens == nil {
		t.Fatal("no Calibrate lens")
	}
	arg := lens.Command.Arguments[0].(map[string]any)
	arg["forks"] = 3
	var reply any
	if err := call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lens.Command.Command, Arguments: []any{arg}}, &reply); err != nil || reply != "started" {
		t.Fatalf("calibrate: %v %v", reply, err)
	}
	ended := func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"kind":"end"`) && !strings.Contains(string(p), "perfls/index")
	}
	for deadline := time.Now().Add(2 * time.Minute); !c.seen(protocol.MethodProgress, ended); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the calibration did not end")
		}
	}
	if !c.seen(protocol.MethodProgress, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"message":"calibrated sizes(500): 3 runs, provisional"`)
	}) {
		c.mu.Lock()
		for _, m := range c.msgs {
			t.Logf("%s %s", m.Method(), m.Params())
		}
		c.mu.Unlock()
		t.Fatal("the calibration did not succeed")
	}
	if lensTitled("▶ Recalibrate · oracle: calibrated (3 runs, provisional)") == nil {
		t.Error("the lens does not show the model")
	}
	var h protocol.Hover
	if err := call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 4, Character: 25}}}, &h); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Bounds oracle** `sizes(500)`: **calibrated** — model of 3 runs (provisional: fewer than 20)", "| ns_per_op |", "| classes |"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
}
