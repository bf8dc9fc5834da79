//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfls/perfls/internal/fixture"
)

// Every command that reads a file it is given ends at SIGINT and SIGTERM
// whatever the file is — a FIFO with no writer, one whose writer never
// writes or stopped half-way, standard input that never comes, /dev/zero —
// with 130 and 143, and leaves no process behind (issue 34 item 4). The
// built binary runs as a child; Linux only: the test sees what the child
// has open through /proc. Nothing here asserts a time: a watchdog fails a
// child that does not end, and the latency is only logged (go run ./bench
// signals measures it).
func TestSignalsWhileReading(t *testing.T) {
	bin := perflsBinary(t)
	for _, c := range signalCommands(t) {
		for _, in := range signalInputs {
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
				t.Run(c.name+"/"+in.name+"/"+sigName[sig], func(t *testing.T) {
					p := startReading(t, bin, c, in)
					p.signal(t, sig)
					code, out := p.wait(t)
					switch {
					case code == 128+int(sig):
					case in.endsByItself && (code == exitUsage || code == exitViolated):
						// /dev/zero hits a size cap, or is no Java source, before the signal comes.
						t.Logf("ended by itself, exit %d: %s", code, out)
					default:
						t.Errorf("exit %d, want %d\n%s", code, 128+int(sig), out)
					}
				})
			}
		}
	}
}

// A computation that does not look at its context (the bootstrap of 2·10⁷
// resamples, seconds) is ended all the same, with the signal's status.
func TestSignalDuringAComputation(t *testing.T) {
	bin := perflsBinary(t)
	results := `[{"benchmark":"a.B.f","mode":"avgt","primaryMetric":{"scoreUnit":"ns/op","rawData":[[10,11,12],[11,12,13],[10,12,11]]}},` +
		`{"benchmark":"a.B.g","mode":"avgt","primaryMetric":{"scoreUnit":"ns/op","rawData":[[10,11,12],[11,12,13],[10,12,11]]}}]`
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sigName[sig], func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "results.json")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			c := signalCommand{args: []string{"evaluate", "--data", "INPUT", "--formula", "a.B#f[jmh] <= a.B#g[jmh]", "--interpretation", "nonparametric", "--resamples", "20000000"}}
			p := startReading(t, bin, c, signalInput{name: "fifo", path: func(*testing.T, *exec.Cmd) (string, func()) { return fifo, func() {} }})
			// The results, whole: the command goes on to compute.
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			w.WriteString(results)
			w.Close()
			p.signal(t, sig)
			if code, out := p.wait(t); code != 128+int(sig) {
				t.Errorf("exit %d, want %d\n%s", code, 128+int(sig), out)
			}
		})
	}
}

var sigName = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}

// signalCommand is a command line; INPUT stands for the input's path.
type signalCommand struct {
	name string
	args []string
}

func signalCommands(t *testing.T) []signalCommand {
	// ensemble reads directories: the history's one run is the input (a
	// symbolic link to it), the new run an ordinary file.
	ens := t.TempDir()
	os.MkdirAll(filepath.Join(ens, "history"), 0o755)
	os.MkdirAll(filepath.Join(ens, "new"), 0o755)
	os.WriteFile(filepath.Join(ens, "history", "r.env"), []byte("cores=2\n"), 0o644)
	os.WriteFile(filepath.Join(ens, "new", "n.csv"), []byte("time,cpu\n0,1\n1,2\n"), 0o644)
	os.WriteFile(filepath.Join(ens, "new", "n.env"), []byte("cores=2\n"), 0o644)
	return []signalCommand{
		{"predict", []string{"predict", "--model", "INPUT", "n=5"}},
		{"evaluate", []string{"evaluate", "--data", "INPUT", "--formula", "a.B#f[jmh] <= a.B#g[jmh]"}},
		{"lint", []string{"lint", "INPUT"}},
		{"ensemble", []string{"ensemble", "--history", filepath.Join(ens, "history"), "--new", filepath.Join(ens, "new"), "LINK", filepath.Join(ens, "history", "r.csv")}},
	}
}

// signalInput makes an input: path returns what the command reads (and
// may set the child's stdin) and what to undo after the child ended.
type signalInput struct {
	name string
	path func(t *testing.T, cmd *exec.Cmd) (string, func())
	// endsByItself: the read ends without the signal (at the size cap).
	endsByItself bool
}

var signalInputs = []signalInput{
	{name: "fifo-no-writer", path: func(t *testing.T, _ *exec.Cmd) (string, func()) {
		return mkfifo(t), func() {}
	}},
	{name: "fifo-silent-writer", path: func(t *testing.T, _ *exec.Cmd) (string, func()) {
		p := mkfifo(t)
		w := openFIFOWriter(t, p)
		return p, func() { w.Close() }
	}},
	{name: "fifo-writer-stopped-half-way", path: func(t *testing.T, _ *exec.Cmd) (string, func()) {
		p := mkfifo(t)
		w := openFIFOWriter(t, p)
		// Enough to be well inside the file (the pipe holds 64 KiB), in
		// the forms the commands read; then the writer says nothing more.
		w.WriteString("[{\"benchmark\": \"a.B.f\", \"mode\": \"avgt\", \"primaryMetric\": {\"scoreUnit\": \"ns/op\", \"rawData\": [[1" + strings.Repeat(", 1", 10000))
		return p, func() { w.Close() }
	}},
	{name: "stdin-never-written", path: func(t *testing.T, cmd *exec.Cmd) (string, func()) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = r
		return "/dev/stdin", func() { r.Close(); w.Close() }
	}},
	{name: "dev-zero", endsByItself: true, path: func(*testing.T, *exec.Cmd) (string, func()) {
		return "/dev/zero", func() {}
	}},
}

func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "input")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// openFIFOWriter opens a FIFO's write end without waiting for a reader:
// O_RDWR never blocks on Linux, and the test then is the writer.
func openFIFOWriter(t *testing.T, p string) *os.File {
	t.Helper()
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

type readingProcess struct {
	cmd      *exec.Cmd
	out      *bytes.Buffer
	done     chan struct{}
	input    string
	children []int
	sent     time.Time
}

// startReading starts the command on the input and returns once the
// child has the input open (so its signal handling is set up), or has
// ended.
func startReading(t *testing.T, bin string, c signalCommand, in signalInput) *readingProcess {
	t.Helper()
	cmd := exec.Command(bin)
	path, undo := in.path(t, cmd)
	t.Cleanup(undo)
	for i := 0; i < len(c.args); i++ {
		switch c.args[i] {
		case "INPUT":
			cmd.Args = append(cmd.Args, path)
		case "LINK": // the next argument becomes a symbolic link to the input
			i++
			link := c.args[i]
			if err := os.Symlink(path, link); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(link) })
		default:
			cmd.Args = append(cmd.Args, c.args[i])
		}
	}
	cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+t.TempDir(), "XDG_RUNTIME_DIR="+t.TempDir())
	p := &readingProcess{cmd: cmd, out: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	if cmd.Stdin != nil {
		p.input = stdinPipe(t, cmd)
	} else if p.input, _ = filepath.EvalSymlinks(path); p.input == "" {
		p.input = path
	}
	watchdog := time.After(60 * time.Second)
	for !p.hasOpen() {
		select {
		case <-p.done:
			return p // ended by itself: the caller's assertion decides
		case <-watchdog:
			t.Fatalf("%v never opened %s\n%s", cmd.Args, path, p.out)
		case <-time.After(5 * time.Millisecond):
		}
	}
	return p
}

// stdinPipe is the /proc name of the pipe the child's stdin is.
func stdinPipe(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	f, ok := cmd.Stdin.(*os.File)
	if !ok {
		t.Fatal("stdin is not a pipe")
	}
	link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return link
}

// hasOpen says whether the child holds the input open on a descriptor
// other than its standard input.
func (p *readingProcess) hasOpen() bool {
	dir := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
	fds, _ := os.ReadDir(dir)
	for _, fd := range fds {
		if fd.Name() == "0" {
			continue
		}
		if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && link == p.input {
			return true
		}
	}
	return false
}

// signal notes the child's descendants and sends sig.
func (p *readingProcess) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	p.children = fixture.Descendants(p.cmd.Process.Pid)
	p.sent = time.Now()
	p.cmd.Process.Signal(sig) // an error: it has ended already
}

// wait waits for the child (a watchdog fails one that does not end),
// checks that none of its descendants outlived it, and returns its exit
// status and output.
func (p *readingProcess) wait(t *testing.T) (int, string) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("%v did not end after the signal\n%s", p.cmd.Args, p.out)
	}
	t.Logf("ended %v after the signal", time.Since(p.sent).Round(time.Millisecond))
	for _, pid := range p.children {
		for i := 0; i < 100 && fixture.Alive(pid); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if fixture.Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d outlived perfls", pid)
		}
	}
	return p.cmd.ProcessState.ExitCode(), p.out.String()
}
