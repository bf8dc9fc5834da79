package main

// The trust boundary (docs/security.md), tested the way a hostile folder
// meets perfls: every program perfls could start — the project's Maven
// and Gradle wrappers, mvn, gradle, git, java and javac on PATH and in
// JAVA_HOME — is a fake that records that it ran, and the shared store
// perfls.json names is a listener that asks for a cleartext password, as
// a rogue PostgreSQL server would. Without trust nothing may run and
// nothing may connect; the trusted runs beside them show the fakes and the
// listener would have caught it.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/lsptest"
)

// hostile is a folder set up to catch perfls running or connecting.
type hostile struct {
	root    string // the project
	marker  string // appended to by every fake program that runs
	env     []string
	store   *passwordCatcher
	javaSrc string // a source file with formulas
}

const catchPassword = "s3cret-from-PGPASSWORD"

func newHostile(t *testing.T, buildFile string) *hostile {
	t.Helper()
	tmp := t.TempDir()
	h := &hostile{root: filepath.Join(tmp, "project"), marker: filepath.Join(tmp, "ran.log"), store: catchPasswords(t)}
	bin := filepath.Join(tmp, "bin")
	jdk := filepath.Join(tmp, "jdk")
	src := filepath.Join(h.root, "src", "main", "java", "p")
	for _, d := range []string{bin, filepath.Join(jdk, "bin"), src, filepath.Join(h.root, ".mvn")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fake := "#!/bin/sh\necho \"$0 $*\" >> " + h.marker + "\n"
	for _, p := range []string{
		filepath.Join(h.root, "mvnw"), filepath.Join(h.root, "gradlew"),
		filepath.Join(bin, "mvn"), filepath.Join(bin, "gradle"), filepath.Join(bin, "git"),
		filepath.Join(bin, "java"), filepath.Join(bin, "javac"), filepath.Join(bin, "sysctl"),
		filepath.Join(jdk, "bin", "java"), filepath.Join(jdk, "bin", "javac"),
	} {
		writeFile(t, p, fake, 0o755)
	}
	switch buildFile {
	case "pom.xml":
		writeFile(t, filepath.Join(h.root, "pom.xml"), `<project><modelVersion>4.0.0</modelVersion>
  <groupId>p</groupId><artifactId>p</artifactId><version>1</version>
  <dependencies><dependency><groupId>org.example</groupId><artifactId>dep</artifactId><version>1.0</version></dependency></dependencies>
</project>`, 0o644)
		writeFile(t, filepath.Join(h.root, ".mvn", "extensions.xml"), `<extensions/>`, 0o644)
	case "build.gradle":
		writeFile(t, filepath.Join(h.root, "build.gradle"), "dependencies { implementation 'org.example:dep:1.0' }\n", 0o644)
	}
	writeFile(t, filepath.Join(h.root, "perfls.json"), fmt.Sprintf(`{"store": "postgres://perfls@%s/perfls?sslmode=disable&connect_timeout=5"}`, h.store.addr), 0o644)
	h.javaSrc = filepath.Join(src, "Hot.java")
	writeFile(t, h.javaSrc, `package p;

import dev.perfls.SPL;
import dev.perfls.Workload;

public class Hot {
    @SPL("SELF[p.Hot#ints](100) <= p.Hot#compute@HEAD~1[p.Hot#ints](100)")
    @Workload("p.Hot#ints")
    public static int compute(int[] a) { return a.length; }

    public static Iterable<Object[]> ints(int n) { return java.util.List.of(new Object[][]{{new int[n]}}); }
}
`, 0o644)
	// A git repository whose own configuration names a program for git to
	// run (core.fsmonitor runs on git status): the real git would run it.
	if gitPath, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(gitPath, "init", "-q", h.root).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		if out, err := exec.Command(gitPath, "-C", h.root, "config", "core.fsmonitor", filepath.Join(bin, "git")).CombinedOutput(); err != nil {
			t.Fatalf("git config: %v\n%s", err, out)
		}
	}
	h.env = append(cleanEnv(), "PATH="+bin+":/usr/bin:/bin", "JAVA_HOME="+jdk, "PGPASSWORD="+catchPassword,
		"PERFLS_CACHE_DIR="+filepath.Join(tmp, "cache"), "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"), "HOME="+tmp)
	return h
}

// cleanEnv is the environment without what would point perfls elsewhere.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "PATH", "JAVA_HOME", "PGPASSWORD", "PERFLS_STORE", "PERFLS_CACHE_DIR", "XDG_RUNTIME_DIR", "HOME":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// ran is what the fakes recorded: one line per program run.
func (h *hostile) ran() string {
	b, _ := os.ReadFile(h.marker)
	return string(b)
}

// assertUntouched fails unless nothing ran and nothing connected.
func (h *hostile) assertUntouched(t *testing.T, what string) {
	t.Helper()
	if r := h.ran(); r != "" {
		t.Errorf("%s started programs:\n%s", what, r)
	}
	if n, pw := h.store.seen(); n > 0 {
		t.Errorf("%s connected to the store perfls.json names %d times (password sent: %q)", what, n, pw)
	}
}

// passwordCatcher is a TCP listener that speaks just enough of
// PostgreSQL's protocol to ask a client for its password in clear text.
type passwordCatcher struct {
	addr      string
	mu        sync.Mutex
	conns     int
	passwords []string
}

func catchPasswords(t *testing.T) *passwordCatcher {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &passwordCatcher{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.mu.Lock()
			c.conns++
			c.mu.Unlock()
			wg.Go(func() { c.serve(conn) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return c
}

// serve answers one client: SSL refused, then AuthenticationCleartextPassword,
// then whatever password it sends is kept.
func (c *passwordCatcher) serve(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	for {
		var n uint32
		if binary.Read(r, binary.BigEndian, &n) != nil || n < 8 || n > 1<<16 {
			return
		}
		body := make([]byte, n-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		if binary.BigEndian.Uint32(body) == 80877103 { // SSLRequest
			conn.Write([]byte{'N'})
			continue
		}
		break // the startup message
	}
	conn.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3}) // cleartext password, please
	typ, err := r.ReadByte()
	if err != nil || typ != 'p' {
		return
	}
	var n uint32
	if binary.Read(r, binary.BigEndian, &n) != nil || n < 5 || n > 1<<16 {
		return
	}
	pw := make([]byte, n-4)
	if _, err := io.ReadFull(r, pw); err != nil {
		return
	}
	c.mu.Lock()
	c.passwords = append(c.passwords, strings.TrimRight(string(pw), "\x00"))
	c.mu.Unlock()
}

func (c *passwordCatcher) seen() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conns, strings.Join(c.passwords, ",")
}

// runPerfls runs the built binary in dir with env.
func runPerfls(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(perflsBinary(t), args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("perfls %s: %v", strings.Join(args, " "), err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestLintRunsNothing: perfls lint of a file, of its project and of the
// current directory, on Maven and Gradle projects, starts no program and
// opens no connection, and says what it left unchecked.
func TestLintRunsNothing(t *testing.T) {
	for _, build := range []string{"pom.xml", "build.gradle"} {
		t.Run(build, func(t *testing.T) {
			h := newHostile(t, build)
			for _, args := range [][]string{{"lint", h.javaSrc}, {"lint", h.root}, {"lint"}, {"lint", "--format", "json", h.root}} {
				out, code := runPerfls(t, h.root, h.env, args...)
				if code != 0 && code != 1 {
					t.Errorf("perfls %s: exit %d\n%s", strings.Join(args, " "), code, out)
				}
				tool := map[string]string{"pom.xml": "./mvnw", "build.gradle": "./gradlew"}[build]
				for _, want := range []string{"did not run " + tool + ": perfls lint reads files only", "revisions @HEAD~1 not checked"} {
					if args[len(args)-1] != "lint" && !strings.Contains(out, want) {
						t.Errorf("perfls %s: no notice %q:\n%s", strings.Join(args, " "), want, out)
					}
				}
				h.assertUntouched(t, "perfls "+strings.Join(args, " "))
			}
		})
	}
}

// TestCompletionRunsNothing: the shell's completion of --method in a
// folder runs nothing (it runs whenever the user presses Tab there).
func TestCompletionRunsNothing(t *testing.T) {
	h := newHostile(t, "pom.xml")
	out, _ := runPerfls(t, h.root, h.env, "__complete", "measure", "--method", "p.")
	if !strings.Contains(out, "p.Hot#compute") {
		t.Errorf("completion did not offer p.Hot#compute:\n%s", out)
	}
	h.assertUntouched(t, "completion")
}

// serveHostile starts perfls serve in h's project, as VS Code does (the
// folder as working directory), and initializes it with initOpts.
func serveHostile(t *testing.T, h *hostile, initOpts any) (*lsptest.Client, string) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "serve.log")
	cmd := exec.Command(perflsBinary(t), "serve", "--logfile", logFile)
	cmd.Dir, cmd.Env = h.root, h.env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Error("perfls serve did not exit at the end of its input")
		}
	})
	c := lsptest.Connect(t, pipeRWC{stdout, stdin})
	var res protocol.InitializeResult
	c.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(uri.File(h.root)), Name: "project"}},
		InitializationOptions: initOpts,
		Capabilities:          protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true}},
	}, &res)
	c.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})
	return c, logFile
}

type pipeRWC struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipeRWC) Close() error {
	p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

func readLog(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// exercise does what an editor does with an open file: open, hover the
// method and the revision, lenses, completion, save, a changed build
// file, and a click on Measure (refused when untrusted). It waits for the
// classpath's resolution to be logged.
func exercise(t *testing.T, c *lsptest.Client, h *hostile, logFile string) {
	t.Helper()
	text, _ := os.ReadFile(h.javaSrc)
	u := c.Open(t, h.javaSrc, string(text))
	c.Hover(t, u, protocol.Position{Line: 8, Character: 24}) // compute
	c.Hover(t, u, protocol.Position{Line: 6, Character: 47}) // @HEAD~1
	c.Lenses(t, u)
	c.Completion(t, u, protocol.Position{Line: 6, Character: 24})
	c.Notify(t, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	c.Notify(t, protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []*protocol.FileEvent{
		{URI: uri.File(filepath.Join(h.root, "pom.xml")), Type: protocol.FileChangeTypeChanged}}})
	_ = c.CallErr(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "perfls.measure",
		Arguments: []any{map[string]any{"uri": string(u), "class": "p.Hot", "method": "compute", "params": []string{"int[]"}}}}, nil)
	c.AwaitFor(t, lsptest.Timeout, "the classpath's resolution in the log", func() bool {
		return strings.Contains(readLog(logFile), "classpath of ")
	})
}

// TestServeUntrustedRunsNothing: perfls serve told allowMeasuring false (VS
// Code's Restricted Mode) reads the project and answers, and starts
// nothing and connects nowhere; the log says what it left out.
func TestServeUntrustedRunsNothing(t *testing.T) {
	h := newHostile(t, "pom.xml")
	c, logFile := serveHostile(t, h, map[string]any{"allowMeasuring": false})
	exercise(t, c, h, logFile)
	h.assertUntouched(t, "perfls serve with allowMeasuring false")
	log := readLog(logFile)
	for _, want := range []string{"did not run ./mvnw: the workspace is not trusted", "did not connect to the store postgres://perfls@" + h.store.addr} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, catchPassword) {
		t.Errorf("the log holds the password:\n%s", log)
	}
	// Trust granted during the session: the build tool now resolves the
	// classpath at once (the store waits for the next start).
	c.Notify(t, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: map[string]any{"allowMeasuring": true}})
	c.AwaitFor(t, lsptest.Timeout, "the project's mvnw to run once trusted", func() bool { return strings.Contains(h.ran(), "mvnw") })
	if n, _ := h.store.seen(); n != 0 {
		t.Errorf("the store was connected to during the session (%d times): it is chosen at initialize", n)
	}
}

// TestServeTrustedRuns is the control: with trust, the same session runs
// the project's Maven wrapper and connects to its store — so the
// untrusted test above would have seen it.
func TestServeTrustedRuns(t *testing.T) {
	h := newHostile(t, "pom.xml")
	c, logFile := serveHostile(t, h, map[string]any{"allowMeasuring": true})
	text, _ := os.ReadFile(h.javaSrc)
	c.Open(t, h.javaSrc, string(text))
	c.AwaitFor(t, lsptest.Timeout, "the project's mvnw to run", func() bool { return strings.Contains(h.ran(), "mvnw") })
	if n, pw := h.store.seen(); n == 0 || !strings.Contains(pw, catchPassword) {
		t.Errorf("a trusted session should have connected to the store and sent PGPASSWORD: %d connections, passwords %q\n%s", n, pw, readLog(logFile))
	}
}
