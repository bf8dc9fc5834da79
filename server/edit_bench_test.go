package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/benchtime"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// benchSource generates a Java file of about lines lines where every third
// method carries an @SPL formula comparing it with another method of the
// class on a generator (about 180 formulas in 5,000 lines).
func benchSource(lines int) string {
	var sb strings.Builder
	sb.WriteString("package bench.gen;\n\nimport java.util.*;\n\npublic class Generated {\n")
	sb.WriteString("    public static Iterable<Object[]> ints(int n) { return null; }\n\n")
	count := 7
	for i := 0; count < lines-2; i++ {
		var m string
		if i%3 == 0 {
			m = fmt.Sprintf(`    /** Sorts a copy, variant %d. */
    @SPL("for n in {10, 100, 1000} SELF[ints](n) <= %d.5 * bench.gen.Generated#sum%d[bench.gen.Generated#ints](n)")
    public static int[] sort%d(final int[] data) {
        int[] copy = data.clone();
        Arrays.sort(copy);
        return copy;
    }

`, i, i%7+1, i+1, i)
		} else {
			m = fmt.Sprintf(`    public static long sum%d(int[] values) {
        long sum = 0;
        for (int k = 0; k < values.length; k++) {
            sum += values[k] * %d;
        }
        return sum;
    }

`, i, i)
		}
		sb.WriteString(m)
		count += strings.Count(m, "\n")
	}
	sb.WriteString("}\n")
	return sb.String()
}

// benchClient is a minimal editor: publications arrive on a channel.
type benchClient struct {
	conn  jsonrpc2.Conn
	raw   net.Conn    // the client's end, for frames encoded in advance
	diags chan uint32 // versions of publications
	// counts holds the number of diagnostics of each version published.
	counts sync.Map
}

func startBench(b *testing.B, opts server.Options, root string) *benchClient {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	sconn := server.Serve(ctx, serverEnd, opts)
	bc := &benchClient{conn: jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd)), raw: clientEnd, diags: make(chan uint32, 1024)}
	bc.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			json.Unmarshal(req.Params(), &p)
			bc.counts.Store(p.Version, len(p.Diagnostics))
			bc.diags <- p.Version
		}
		// A reply failing because the test already closed the pipe must not
		// fail the connection: jsonrpc2 v0.10.0 then panics on the next read
		// error (atomic.Value stored with a different error type).
		reply(ctx, nil, nil)
		return nil
	})
	b.Cleanup(func() {
		bc.conn.Close()
		cancel()
		<-sconn.Done()
	})
	if _, err := bc.conn.Call(ctx, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(root)}, nil); err != nil {
		b.Fatal(err)
	}
	bc.conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{})
	return bc
}

// count is the number of diagnostics published for version v.
func (bc *benchClient) count(v uint32) int {
	n, _ := bc.counts.Load(v)
	c, _ := n.(int)
	return c
}

// await waits for the publication of version v.
func (bc *benchClient) await(b *testing.B, v uint32) {
	timeout := time.After(time.Minute)
	for {
		select {
		case got := <-bc.diags:
			if got == v {
				return
			}
		case <-timeout:
			b.Fatalf("no publication of version %d", v)
		}
	}
}

// benchWorkspace writes the generated file into a project and records a
// verdict with measurements for every annotated method, as a cache after
// a check would hold.
func benchWorkspace(b *testing.B, lines int) (dir, path, src string, store *cache.Store) {
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	dir = b.TempDir()
	os.WriteFile(filepath.Join(dir, "pom.xml"), []byte("<project/>"), 0o644)
	path = filepath.Join(dir, "src", "bench", "gen", "Generated.java")
	os.MkdirAll(filepath.Dir(path), 0o755)
	src = benchSource(lines)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	store, _, err := cache.OpenStore(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	var recs []verdict.MethodResult
	for i := 0; strings.Contains(src, fmt.Sprintf(" sort%d(", i)); i += 3 {
		recs = append(recs, verdict.MethodResult{File: path, Class: "bench.gen.Generated", Method: fmt.Sprintf("sort%d", i), Params: []string{"int[]"},
			CheckedAt: time.Now(), Instances: []verdict.InstanceResult{{Formula: "x", Instance: "n=10", Outcome: verdict.Satisfied}},
			Measurements: []verdict.Measurement{{Workload: "bench.gen.Generated#ints", Args: "10", MeanNs: 120, CILowNs: 118, CIHighNs: 122, Forks: 3, Samples: 30}}})
	}
	if err := store.ReplaceVerdicts(context.Background(), recs); err != nil {
		b.Fatal(err)
	}
	return dir, path, src, store
}

// BenchmarkDidChangeToDiagnostics: a one-character edit inside an @SPL
// string of a 5,000-line file with about 180 formulas, from the didChange
// notification leaving the editor to the publishDiagnostics of that
// version arriving, over an in-process pipe, with recorded verdicts. Each
// didChange carries the whole text (full sync).
func BenchmarkDidChangeToDiagnostics(b *testing.B) {
	benchEdits(b, fullEdit)
}

// BenchmarkDidChangeToDiagnosticsInGit: as BenchmarkDidChangeToDiagnostics,
// with the project a git repository and every formula's right side at a
// revision no ref names (@v1.O; the repository has v1.0): each publication
// checks the revisions against the session's ref list and reports every
// one (the timed edits start once the list has arrived).
func BenchmarkDidChangeToDiagnosticsInGit(b *testing.B) {
	dir, path, src, store := benchWorkspace(b, 5000)
	src = strings.ReplaceAll(src, "[bench.gen.Generated#ints](n)\")", "@v1.O[bench.gen.Generated#ints](n)\")")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "bench"}, {"tag", "v1.0"}} {
		fixture.Git(b, dir, args...)
	}
	benchEditsIn(b, server.Options{Verdicts: store}, dir, path, src, strings.Count(src, "@v1.O"), fullEdit)
}

// fullEdit gives the didChange of version v carrying the whole text: src
// with a space inserted at mid for even versions, src for odd ones.
func fullEdit(u protocol.DocumentURI, src string, mid int, v uint32) any {
	text := src
	if v%2 == 0 {
		text = src[:mid] + " " + src[mid:]
	}
	return lsptest.ChangeParams(u, int32(v), lsptest.Change{Text: text})
}

// BenchmarkIncrementalEditToDiagnostics: as BenchmarkDidChangeToDiagnostics,
// but each didChange carries only the edit (incremental sync).
func BenchmarkIncrementalEditToDiagnostics(b *testing.B) {
	benchEdits(b, incrementalEdit)
}

// incrementalEdit gives the didChange of version v: an even version
// inserts a space at src[mid:], an odd one removes it again.
func incrementalEdit(u protocol.DocumentURI, src string, mid int, v uint32) any {
	at := protocol.Position{Line: uint32(strings.Count(src[:mid], "\n")), Character: uint32(mid - strings.LastIndex(src[:mid], "\n") - 1)}
	if v%2 == 0 {
		return lsptest.ChangeParams(u, int32(v), lsptest.Change{Range: &protocol.Range{Start: at, End: at}, Text: " "})
	}
	next := at
	next.Character++
	return lsptest.ChangeParams(u, int32(v), lsptest.Change{Range: &protocol.Range{Start: at, End: next}, Text: ""})
}

// benchEdits opens the 5,000-line file, then alternately inserts a space
// after "SELF[" of its middle formula (src[mid:]) and removes it: 20
// untimed edits while the background index settles, then b.N timed ones.
// change gives the didChange parameters of version v.
func benchEdits(b *testing.B, change func(u protocol.DocumentURI, src string, mid int, v uint32) any) {
	dir, path, src, store := benchWorkspace(b, 5000)
	benchEditsIn(b, server.Options{Verdicts: store}, dir, path, src, 0, change)
}

// benchEditsIn is benchEdits on the file at path (text src) in project dir;
// the untimed edits go on (up to 500) until a publication holds at least
// minDiags diagnostics: the background work has settled.
func benchEditsIn(b *testing.B, opts server.Options, dir, path, src string, minDiags int, change func(u protocol.DocumentURI, src string, mid int, v uint32) any) {
	bc := startBench(b, opts, dir)
	u := uri.File(path)
	ctx := context.Background()
	bc.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: src}})
	bc.await(b, 1)
	mid := strings.Index(src[len(src)/2:], "SELF[") + len("SELF[") + len(src)/2
	version := uint32(1)
	for i := 0; i < 20 || bc.count(version) < minDiags; i++ {
		if i == 500 {
			b.Fatalf("fewer than %d diagnostics after %d edits", minDiags, i)
		}
		version++
		bc.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, change(u, src, mid, version))
		bc.await(b, version)
	}
	// The notifications are encoded before the clock starts: encoding is
	// the editor's work, in the editor's process; what is timed is the
	// server's, from the message's arrival (decoding it included) to its
	// diagnostics.
	frames := make([][]byte, b.N)
	for i := range frames {
		frames[i] = frame(b, protocol.MethodTextDocumentDidChange, change(u, src, mid, version+uint32(i)+1))
	}
	ds := make([]time.Duration, 0, len(frames))
	b.ResetTimer()
	for i, f := range frames {
		t0 := time.Now()
		if _, err := bc.raw.Write(f); err != nil {
			b.Fatal(err)
		}
		bc.await(b, version+uint32(i)+1)
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	benchtime.Latencies(b, ds)
}

// BenchmarkDidOpenToDiagnostics: opening the 5,000-line file (about 180
// formulas, recorded verdicts) in a running session, from the didOpen
// notification leaving the editor to its publishDiagnostics arriving: the
// editor's cold path (the file is parsed anew, split and lazily; see
// analysis/javasrc). Each open is closed again, untimed.
func BenchmarkDidOpenToDiagnostics(b *testing.B) {
	dir, path, src, store := benchWorkspace(b, 5000)
	bc := startBench(b, server.Options{Verdicts: store}, dir)
	u := uri.File(path)
	closing := frame(b, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	const warm = 5 // the background index settles
	frames := make([][]byte, b.N+warm)
	for i := range frames {
		frames[i] = frame(b, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: int32(i + 1), Text: src}})
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i, f := range frames {
		runtime.GC() // untimed: each open starts on a quiet process
		t0 := time.Now()
		if _, err := bc.raw.Write(f); err != nil {
			b.Fatal(err)
		}
		bc.await(b, uint32(i+1))
		if i >= warm {
			ds = append(ds, time.Since(t0))
		}
		if _, err := bc.raw.Write(closing); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	benchtime.Latencies(b, ds)
}

// frame encodes a notification as the client writes it to the pipe.
func frame(b *testing.B, method string, params any) []byte {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		b.Fatal(err)
	}
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

// BenchmarkHover: hover on an annotated method of the 5,000-line file with
// its recorded verdicts and measurements (warm: the records were read by
// an earlier publish), request to reply.
func BenchmarkHover(b *testing.B) {
	dir, path, src, store := benchWorkspace(b, 5000)
	bc := startBench(b, server.Options{Verdicts: store}, dir)
	u := uri.File(path)
	ctx := context.Background()
	bc.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: src}})
	bc.await(b, 1)
	at := strings.Index(src, "sort33(")
	line := strings.Count(src[:at], "\n")
	col := at - strings.LastIndex(src[:at], "\n") - 1
	params := &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: uint32(line), Character: uint32(col + 2)}}}
	var h protocol.Hover
	if _, err := bc.conn.Call(ctx, protocol.MethodTextDocumentHover, params, &h); err != nil || !strings.Contains(h.Contents.Value, "120 ns") {
		b.Fatalf("hover: %v %q", err, h.Contents.Value)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := bc.conn.Call(ctx, protocol.MethodTextDocumentHover, params, &h); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	benchtime.Latencies(b, ds)
}

// BenchmarkInitializeToFirstDiagnostics: a new session on the quickstart
// example, from initialize to the first publishDiagnostics of Search.java.
func BenchmarkInitializeToFirstDiagnostics(b *testing.B) {
	root, _ := filepath.Abs("../examples/quickstart")
	path := filepath.Join(root, "src", "main", "java", "quickstart", "Search.java")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	b.Setenv("PERFLS_CACHE_DIR", b.TempDir())
	ds := make([]time.Duration, 0, b.N)
	for range b.N {
		t0 := time.Now()
		bc := startBench(b, server.Options{}, root)
		bc.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: uri.File(path), LanguageID: "java", Version: 1, Text: string(src)}})
		bc.await(b, 1)
		ds = append(ds, time.Since(t0))
	}
	benchtime.Latencies(b, ds)
}

// BenchmarkWorkspaceMemory: the Go heap of a session over a generated
// workspace of 60 files × 5,000 lines (300,000 lines, about 10,800
// formulas) once the background index is built and one file is open,
// after a GC. Tree-sitter's C heap holds the open document's tree only
// and is not counted.
func BenchmarkWorkspaceMemory(b *testing.B) {
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	b.Setenv("PERFLS_CACHE_DIR", b.TempDir())
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "pom.xml"), []byte("<project/>"), 0o644)
	var first, firstSrc string
	lines := 0
	for i := range 60 {
		src := strings.ReplaceAll(benchSource(5000), "bench.gen", fmt.Sprintf("bench.gen%d", i))
		p := filepath.Join(dir, "src", fmt.Sprintf("gen%d", i), "Generated.java")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		lines += strings.Count(src, "\n")
		if first == "" {
			first, firstSrc = p, src
		}
	}
	for range b.N {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		bc := startBench(b, server.Options{}, dir)
		u := uri.File(first)
		// Reference a class of the last file: resolved once the index is built.
		src := strings.Replace(firstSrc, "SELF[ints](n) <=", "SELF[ints](n) <= bench.gen59.Generated#sum1[bench.gen59.Generated#ints](n) and SELF[ints](n) <=", 1)
		bc.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: src}})
		bc.await(b, 1)
		// The index is complete when a hover resolves into the last file.
		at := strings.Index(src, "bench.gen59.Generated#sum1")
		line := strings.Count(src[:at], "\n")
		col := at - strings.LastIndex(src[:at], "\n") - 1
		params := &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: uint32(line), Character: uint32(col + 3)}}}
		for {
			var h protocol.Hover
			if _, err := bc.conn.Call(context.Background(), protocol.MethodTextDocumentHover, params, &h); err != nil {
				b.Fatal(err)
			}
			if strings.Contains(h.Contents.Value, "gen59/Generated.java") {
				break
			}
			if time.Since(t0) > 5*time.Minute {
				b.Fatalf("index not built: %s", h.Contents.Value)
			}
			time.Sleep(20 * time.Millisecond)
		}
		ready := time.Since(t0)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(ready.Milliseconds()), "ms-to-index")
		b.Logf("%d lines in 60 files: index ready in %v, Go heap %d MiB live (%d MiB before the session)", lines, ready, after.HeapAlloc>>20, before.HeapAlloc>>20)
	}
}

// BenchmarkIncrementalEdit1200Formulas: issue 18's editing figure in
// process: an incremental one-character edit of the middle formula of
// fixture.LatencySource (5,000 lines, 1,200 formulas), didChange to
// diagnostics. bench/limits -latency times the same out of process.
func BenchmarkIncrementalEdit1200Formulas(b *testing.B) {
	benchEdits1200(b, incrementalEdit)
}

// BenchmarkFullEdit1200Formulas: as BenchmarkIncrementalEdit1200Formulas,
// each didChange carrying the whole 222 KB text.
func BenchmarkFullEdit1200Formulas(b *testing.B) {
	benchEdits1200(b, fullEdit)
}

func benchEdits1200(b *testing.B, change func(u protocol.DocumentURI, src string, mid int, v uint32) any) {
	dir, path, src := latencyProject(b) // editor_bench_test.go
	benchEditsIn(b, server.Options{}, dir, path, src, 0, change)
}
