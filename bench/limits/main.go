// Command limits prints the figures of issue 16 items 5 and 6 for a
// perfls binary: the time `perfls lint` takes on a 1 MB binary file named
// X.java, and the resident memory of `perfls serve` after it has been
// sent a huge formula (a set of 1.5 M values, about 10.9 MB), edited it
// three times and sat idle. Nothing is asserted; run it from the
// repository root:
//
//	go run ./bench/limits [-perfls BIN] [-kind spl|java] [-values N] [-idle 30s] [-edits 3]
//	go run ./bench/limits -latency 200   (didChange → diagnostics on a 5,000-line file, issue 18)
//	go run ./bench/limits -flood noread|read [-duration 40s] [-hovers 20] [-max-rss 4096]
//	                                     (the server's memory under a flooding client, issue 34)
//
// Without -perfls it builds ./cmd/perfls into a temporary directory. The
// server runs with its own cache and runtime directories, so it starts
// (and this command stops) a daemon of its own.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("perfls", "", "perfls binary (default: build ./cmd/perfls)")
	kind := flag.String("kind", "spl", "file holding the formula: spl (a standalone .spl file) or java (an @SPL annotation)")
	values := flag.Int("values", 1500000, "values in the formula's set")
	idle := flag.Duration("idle", 30*time.Second, "idle time before the server's memory is read")
	edits := flag.Int("edits", 3, "edits of the formula after opening it")
	latency := flag.Int("latency", 0, "instead: time this many edits of a 5,000-line file with 1,200 formulas, full and incremental sync")
	flood := flag.String("flood", "", "instead: flood the server with hovers and whole-text changes from a client that never reads (noread) or reads everything (read), sampling its memory")
	duration := flag.Duration("duration", 40*time.Second, "with -flood: how long")
	hovers := flag.Int("hovers", 20, "with -flood: hovers per didChange")
	maxRSS := flag.Int("max-rss", 4096, "with -flood: kill the server when its RSS passes this many MB")
	flag.Parse()
	run := run
	switch {
	case *latency > 0:
		run = func(bin, _ string, _ int, _ time.Duration, _ int) error { return latencyRun(bin, *latency) }
	case *flood != "":
		run = func(bin, _ string, _ int, _ time.Duration, _ int) error {
			return floodRun(bin, *flood, *duration, *hovers, *maxRSS)
		}
	}
	if err := run(*bin, *kind, *values, *idle, *edits); err != nil {
		fmt.Fprintln(os.Stderr, "limits:", err)
		os.Exit(1)
	}
}

func run(bin, kind string, values int, idle time.Duration, edits int) error {
	tmp, bin, err := prepare(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := lintBinary(bin, tmp); err != nil {
		return err
	}
	if err := lintInterrupted(bin, tmp); err != nil {
		return err
	}
	return serverMemory(bin, tmp, kind, values, idle, edits)
}

// latencyRun prints editLatency's figures for n edits.
func latencyRun(bin string, n int) error {
	tmp, bin, err := prepare(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	return editLatency(bin, tmp, n, 1200)
}

// prepare makes a temporary directory and builds perfls into it unless bin
// names one.
func prepare(bin string) (tmp, perfls string, err error) {
	tmp, err = os.MkdirTemp("", "perfls-limits-")
	if err != nil {
		return "", "", err
	}
	if bin != "" {
		return tmp, bin, nil
	}
	bin = filepath.Join(tmp, "perfls")
	build := exec.Command("go", "build", "-o", bin, "./cmd/perfls")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(tmp)
		return "", "", fmt.Errorf("build perfls: %w", err)
	}
	return tmp, bin, nil
}

// lintInterrupted starts `perfls lint` on 40 large Java files (3.5 MB
// each, under the size limit), sends it SIGINT after a second, and
// prints how long it took to exit and its status.
func lintInterrupted(bin, tmp string) error {
	dir := filepath.Join(tmp, "large")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var sb strings.Builder
	sb.WriteString("package p;\nclass Big {\n")
	for i := 0; sb.Len() < 3500000; i++ {
		fmt.Fprintf(&sb, "    int m%d(int x) { return x * %d + (x >> 3); }\n", i, i)
	}
	sb.WriteString("}\n")
	for i := 0; i < 40; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("Big%d.java", i)), []byte(strings.Replace(sb.String(), "class Big", fmt.Sprintf("class Big%d", i), 1)), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command(bin, "lint", "--jdk-src", "none", dir)
	if err := cmd.Start(); err != nil {
		return err
	}
	time.Sleep(time.Second)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		return err
	}
	sent := time.Now()
	err := cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return fmt.Errorf("lint: %w", err)
	}
	fmt.Printf("perfls lint of 40 Java files of 3.5 MB, SIGINT after 1 s: exited %.3f s after the signal, exit %d\n", time.Since(sent).Seconds(), code)
	return nil
}

// lintBinary times `perfls lint DIR` on a directory holding one megabyte
// of random bytes named X.java.
func lintBinary(bin, tmp string) error {
	dir := filepath.Join(tmp, "binary")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b := make([]byte, 1<<20)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "X.java"), b, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(bin, "lint", dir)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return fmt.Errorf("lint: %w", err)
	}
	fmt.Printf("perfls lint DIR (1 MiB of random bytes as X.java): %.3f s, exit %d\n  %s\n", elapsed.Seconds(), code, strings.TrimSpace(string(out)))
	return nil
}

// formula returns a formula over a set of n values and its file text.
func formula(kind string, n, edit int) (name, text string) {
	var sb strings.Builder
	sb.WriteString("for n in {")
	for i := 1; i <= n; i++ {
		if i > 1 {
			sb.WriteByte(',')
		}
		v := i
		if i == 1 {
			v += edit // each edit changes the first value
		}
		sb.WriteString(strconv.Itoa(v))
	}
	sb.WriteString("} SELF(n) <= other(n)")
	if kind == "java" {
		return "F.java", "package p;\nclass F {\n    @SPL(\"" + strings.Replace(sb.String(), "SELF", "p.F#m", 1) + "\")\n    static int m(int n) { return n; }\n    static int other(int n) { return n; }\n}\n"
	}
	return "F.spl", "m := p.F#m\n" + strings.Replace(sb.String(), "SELF", "m", 1) + "\n"
}

// session is a running `perfls serve` with its own cache and runtime
// directories, initialized, with ws as its workspace.
type session struct {
	*client
	cmd   *exec.Cmd
	stdin io.WriteCloser // closing it ends the server
	ws    string
}

// startServer starts `perfls serve` in tmp/ws; stop ends it, its daemon and
// its context.
func startServer(bin, tmp string, limit time.Duration) (s *session, stop func(), err error) {
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(filepath.Join(tmp, "run"), 0o700); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, nil, err
	}
	env := append(os.Environ(), "PERFLS_CACHE_DIR="+filepath.Join(tmp, "cache"), "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"))
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	cmd := exec.CommandContext(ctx, bin, "serve", "--logfile", filepath.Join(tmp, "serve.log"))
	cmd.Env = env
	cmd.Dir = ws
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Kill() // a server that did not exit
			cmd.Wait()
			cancel()
			daemon := exec.Command(bin, "daemon", "stop")
			daemon.Env = env
			daemon.Run() // no daemon is fine
		})
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("serve: %w", err)
	}
	s = &session{client: &client{in: in, out: bufio.NewReader(outPipe)}, cmd: cmd, stdin: in, ws: ws}
	if err := s.call(1, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + ws, "capabilities": map[string]any{}}); err != nil {
		stop()
		return nil, nil, err
	}
	if err := s.notify("initialized", map[string]any{}); err != nil {
		stop()
		return nil, nil, err
	}
	return s, stop, nil
}

// serverMemory opens the formula in `perfls serve`, edits it, waits and
// reads the server's resident set size.
func serverMemory(bin, tmp, kind string, values int, idle time.Duration, edits int) error {
	s, stop, err := startServer(bin, tmp, idle+10*time.Minute)
	if err != nil {
		return err
	}
	defer stop()
	c, ws, cmd, in := s.client, s.ws, s.cmd, s.stdin

	name, text := formula(kind, values, 0)
	uri := "file://" + filepath.Join(ws, name)
	lang := map[string]string{"spl": "spl", "java": "java"}[kind]
	start := time.Now()
	if err := c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": lang, "version": 1, "text": text}}); err != nil {
		return err
	}
	diags, err := c.awaitDiagnostics(uri, 1)
	if err != nil {
		return err
	}
	fmt.Printf("perfls serve, %s file of %.1f MB (a set of %d values): diagnostics after %.1f s: %s\n", kind, float64(len(text))/1e6, values, time.Since(start).Seconds(), summary(diags))
	fmt.Printf("  after opening:     %s\n", memory(cmd.Process.Pid))
	for e := 1; e <= edits; e++ {
		_, text = formula(kind, values, e)
		if err := c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": 1 + e},
			"contentChanges": []map[string]any{{"text": text}},
		}); err != nil {
			return err
		}
		if _, err := c.awaitDiagnostics(uri, 1+e); err != nil {
			return err
		}
	}
	fmt.Printf("  after %d edits:     %s\n", edits, memory(cmd.Process.Pid))
	// Keep reading (the server may send notifications) while idle.
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.drain()
	}()
	time.Sleep(idle)
	fmt.Printf("  after %v idle:    %s\n", idle, memory(cmd.Process.Pid))
	in.Close() // the server exits when its input closes
	<-done
	return nil
}

func summary(diags []json.RawMessage) string {
	var msgs []string
	for _, d := range diags {
		var x struct{ Message string }
		json.Unmarshal(d, &x)
		msgs = append(msgs, strconv.Quote(x.Message))
	}
	if len(msgs) > 3 {
		msgs = append(msgs[:3], fmt.Sprintf("and %d more", len(msgs)-3))
	}
	return fmt.Sprintf("%d diagnostic(s) %s", len(diags), strings.Join(msgs, ", "))
}

// memory reads a process's resident set size and its peak from /proc.
func memory(pid int) string {
	rss, hwm, err := rssOf(pid)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("RSS %d MB (peak %d MB)", rss>>10, hwm>>10)
}

// client speaks just enough LSP over the server's stdin and stdout.
type client struct {
	mu  sync.Mutex // one message at a time: a reader answering the server's requests sends too
	in  io.Writer
	out *bufio.Reader
}

func (c *client) send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

func (c *client) notify(method string, params any) error {
	return c.send(map[string]any{"method": method, "params": params})
}

// call sends a request and waits for its response, answering nothing
// else.
func (c *client) call(id int, method string, params any) error {
	if err := c.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return err
	}
	for {
		m, err := c.read()
		if err != nil {
			return err
		}
		if m.ID != nil && string(*m.ID) == strconv.Itoa(id) && m.Method == "" {
			if m.Error != nil {
				return fmt.Errorf("%s: %s", method, *m.Error)
			}
			return nil
		}
		c.reply(m)
	}
}

type message struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Error  *json.RawMessage `json:"error"`
}

// reply answers a request from the server (progress, configuration) with
// null.
func (c *client) reply(m *message) {
	if m.ID != nil && m.Method != "" {
		c.send(map[string]any{"id": m.ID, "result": nil})
	}
}

func (c *client) read() (*message, error) {
	length := -1
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read from the server: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if length < 0 {
		return nil, errors.New("message without Content-Length")
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(c.out, b); err != nil {
		return nil, err
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

func (c *client) awaitDiagnostics(uri string, version int) ([]json.RawMessage, error) {
	for {
		m, err := c.read()
		if err != nil {
			return nil, err
		}
		if m.Method == "textDocument/publishDiagnostics" {
			var p struct {
				URI         string            `json:"uri"`
				Version     int               `json:"version"`
				Diagnostics []json.RawMessage `json:"diagnostics"`
			}
			if json.Unmarshal(m.Params, &p) == nil && p.URI == uri && p.Version == version {
				return p.Diagnostics, nil
			}
			continue
		}
		c.reply(m)
	}
}

func (c *client) drain() {
	for {
		m, err := c.read()
		if err != nil {
			return
		}
		c.reply(m)
	}
}
