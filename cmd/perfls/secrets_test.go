//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/pgtest"
)

// secret is in every store password below; no output may hold it.
const secret = "Zq7s3cr3t"

// Every command that opens the store, given the store's address with a
// password as a URL and as key=value settings, on a server that answers
// (the success paths) and where nothing listens (the error paths), prints
// no password: not on stdout, stderr, in JSON nor in the daemon's log.
// Issue 34, item 3.
func TestSecretsNeverPrinted(t *testing.T) {
	srv, err := pgtest.Start(context.Background())
	if errors.Is(err, pgtest.ErrNoServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	bin := perflsBinary(t)
	database := func() (dir, name string) {
		u, err := srv.NewDatabase(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return p.Query().Get("host"), strings.TrimPrefix(p.Path, "/")
	}
	pgURL := func(dir, db, password string) string {
		return (&url.URL{Scheme: "postgres", User: url.UserPassword("perfls", password), Path: "/" + db,
			RawQuery: url.Values{"host": {dir}, "sslmode": {"disable"}}.Encode()}).String()
	}
	pgKeyValue := func(dir, db, password string) string {
		return fmt.Sprintf("host = %s user=perfls dbname=%s sslmode=disable password='%s'", dir, db,
			strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(password))
	}
	// The server trusts its socket: any password connects. Each password
	// holds characters that need encoding or quoting.
	dir, db1 := database()
	_, db2 := database()
	_, db3 := database()
	nowhere := t.TempDir() // a socket directory where nothing listens
	forms := []struct {
		name, spec string
		live       bool   // a server answers: the commands succeed
		other      string // live: another store, for a client of a daemon keeping its results in spec
		shows      string // what the address shows instead of the password
	}{
		{"url", pgURL(dir, db1, secret+" p@ss/w'rd"), true, pgURL(dir, db3, secret+"-other"), ":xxxxx@"},
		{"key=value", pgKeyValue(dir, db2, secret+` it's a \ pass`), true, pgKeyValue(dir, db3, secret+"-other"), "password=xxxxx"},
		{"url down", pgURL(nowhere, "perfls", secret+"?#"), false, "", ":xxxxx@"},
		{"key=value down", pgKeyValue(nowhere, "perfls", secret), false, "", "password=xxxxx"},
	}
	project := fixture.Project(t, map[string]string{"p/A.java": `package p;
public class A {
    public static int a(int n) { return n; }
}
`})
	jar := filepath.Join(t.TempDir(), "perfls-annotations.jar")
	commands := [][]string{
		{"cache", "ls"},
		{"cache", "show", "1"},
		{"cache", "gc"},
		{"cache", "verify"},
		{"history", "--method", "p.A#a"},
		{"history", "--method", "p.A#a", "--format", "json"},
		{"regressions", project},
		{"regressions", "--format", "json", project},
		{"ensemble", "--method", "p.A#a", "--project", project},
		{"ensemble", "--method", "p.A#a", "--project", project, "--format", "json"},
		{"check", project},
		{"check", "--format", "json", project},
		{"check", "--remote", project},
		{"check", "--remote", "--format", "json", project},
		{"diff", project},
		{"measure", "--method", "p.Missing#m", "--project", project},
		{"profile", "--method", "p.Missing#m", "--project", project},
		{"model", "--method", "p.Missing#m", "--project", project},
		{"calibrate", "--method", "p.Missing#m", "--project", project},
		{"verify", "--method", "p.Missing#m", "--project", project},
		{"annotations", "--jar", jar},
		{"serve"},
		{"cache", "clear"},
	}
	// One cache directory: the project is compiled once (measure and the
	// like compile it before finding no such class). One runtime directory
	// per form, short as a socket's path must be: a daemon each.
	cacheDir := t.TempDir()
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			run, err := os.MkdirTemp("", "pls")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(run) })
			cwd := "" // the commands' working directory; "" this process's
			env := append(os.Environ(), "PERFLS_STORE="+f.spec, "PERFLS_CACHE_DIR="+cacheDir,
				"XDG_CACHE_HOME="+filepath.Join(cacheDir, "xdg"), "XDG_RUNTIME_DIR="+run)
			perfls := func(env []string, args ...string) (code int, out string) {
				t.Helper()
				cmd := exec.Command(bin, args...)
				cmd.Env, cmd.Dir = env, cwd
				if args[0] == "serve" {
					// The server opens the store once initialize says
					// whether the workspace is trusted.
					cmd.Stdin = strings.NewReader(lspSession)
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					t.Fatalf("perfls %v: %v", args, err)
				}
				noSecret(t, fmt.Sprint("perfls ", args, " stdout"), stdout.String())
				noSecret(t, fmt.Sprint("perfls ", args, " stderr"), stderr.String())
				return cmd.ProcessState.ExitCode(), stdout.String() + stderr.String()
			}
			for _, args := range commands {
				code, out := perfls(env, args...)
				if args[0] == "cache" && args[1] == "ls" {
					// The address is shown, without its password.
					if !strings.Contains(out, f.shows) || f.live != (code == 0) {
						t.Errorf("cache ls: exit %d, want the address shown with %q:\n%s", code, f.shows, out)
					}
				}
			}
			// The store named by perfls.json rather than PERFLS_STORE.
			config, _ := json.Marshal(map[string]string{"store": f.spec})
			cwd = fixture.Project(t, map[string]string{"perfls.json": string(config)})
			for _, args := range [][]string{{"cache", "ls"}, {"ensemble", "--method", "p.A#a", "--project", cwd}} {
				_, out := perfls(append(env, "PERFLS_STORE="), args...)
				// The address, or (ensemble, a store that answers) what the store holds.
				if !strings.Contains(out, f.shows) && !(f.live && strings.Contains(out, "0 stored")) {
					t.Errorf("%v with perfls.json's store, want %q:\n%s", args, f.shows, out)
				}
			}
			cwd = ""
			worker(t, bin, env, f.live)

			code, out := perfls(env, "daemon", "start")
			t.Cleanup(func() { perfls(env, "daemon", "stop") })
			if code != 0 {
				t.Fatalf("daemon start: exit %d\n%s", code, out)
			}
			code, out = perfls(env, "daemon", "status")
			if f.live && (code != 0 || !strings.Contains(out, f.shows)) {
				t.Errorf("daemon status: exit %d, want the store shown with %q:\n%s", code, f.shows, out)
			}
			if f.live {
				// A client with another store is told the daemon's, and its own
				// (the project has no formulas: check exits 2 saying so).
				code, out = perfls(append(env, "PERFLS_STORE="+f.other), "check", project)
				if code != 2 || !strings.Contains(out, "the running daemon keeps its results in") || !strings.Contains(out, "no @SPL formulas to check") {
					t.Errorf("check through a daemon on another store: exit %d:\n%s", code, out)
				}
			}
			if code, out := perfls(env, "daemon", "stop"); code != 0 {
				t.Errorf("daemon stop: exit %d\n%s", code, out)
			}
			logs, _ := filepath.Glob(filepath.Join(run, "perfls", "*.log"))
			if len(logs) == 0 {
				t.Fatal("no daemon log")
			}
			for _, l := range logs {
				b, err := os.ReadFile(l)
				if err != nil {
					t.Fatal(err)
				}
				noSecret(t, "the daemon log", string(b))
				if !f.live && !strings.Contains(string(b), f.shows) {
					t.Errorf("the daemon log does not say which store it could not open:\n%s", b)
				}
			}
		})
	}
}

// worker runs perfls worker until it says it takes jobs (a store that
// answers) or ends (one that does not), then interrupts it, and checks its
// output.
func worker(t *testing.T, bin string, env []string, live bool) {
	t.Helper()
	cmd := exec.Command(bin, "worker")
	cmd.Env = env
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A worker that neither starts nor fails is killed: the test then fails
	// rather than hang.
	guard := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer guard.Stop()
	var stderr strings.Builder
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		stderr.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "taking jobs from queue") {
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	io.Copy(&stderr, pipe)
	err = cmd.Wait()
	noSecret(t, "perfls worker stdout", stdout.String())
	noSecret(t, "perfls worker stderr", stderr.String())
	if took := strings.Contains(stderr.String(), "taking jobs from queue"); took != live {
		t.Errorf("worker (%v), store answering %v:\n%s", err, live, stderr.String())
	}
}

// noSecret fails the test when out holds the password, in any case.
func noSecret(t *testing.T, what, out string) {
	t.Helper()
	if strings.Contains(strings.ToLower(out), strings.ToLower(secret)) {
		t.Errorf("%s shows the password:\n%s", what, out)
	}
}

// lspSession is what an editor sends to open and close a session: the
// server connects to its store at initialize.
var lspSession = func() string {
	var b strings.Builder
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	} {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}()
