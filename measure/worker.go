package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/trust"
)

// Worker is the quick phase: a JVM that stays up between requests and runs
// each measurement in a fresh class loader, so that a preliminary figure comes
// back without the cost of starting a JVM. The JVM (dev.perfls.internal.Worker)
// is started on first use, reused by later requests, and stopped by Close or
// when the context given to NewWorker ends; it also exits by itself when
// perfls goes away (its standard input closes or its parent changes).
//
// A request is as safe as a fork: it has a time limit (Options.ForkTimeout),
// after which the worker's process group is killed; cancellation kills it
// too. The worker is restarted after any failed request and after a request
// that left threads running, so that no workload can break later ones.
//
// Results are marked Preliminary: one JVM, short warm-up and few samples.
// A Worker runs one request at a time; it is safe for concurrent use.
type Worker struct {
	mu     sync.Mutex // serialises requests; guards nextID
	nextID int
	pmu    sync.Mutex // guards proc and closed; never held while waiting for the JVM to answer
	proc   *workerProc
	closed bool
	stop   chan struct{} // closed by Close; ends the context watcher
	once   sync.Once
}

// NewWorker returns a Worker that stops its JVM when ctx ends (or on Close).
func NewWorker(ctx context.Context) *Worker {
	w := &Worker{stop: make(chan struct{})}
	go func() { // owned by w: ends on Close or when ctx ends
		select {
		case <-ctx.Done():
			w.Close()
		case <-w.stop:
		}
	}()
	return w
}

// Close stops the worker JVM, also in the middle of a request (which then
// fails), and waits for it to exit. The Worker cannot be used afterwards.
func (w *Worker) Close() {
	w.once.Do(func() { close(w.stop) })
	w.pmu.Lock()
	w.closed = true
	p := w.proc
	w.proc = nil
	w.pmu.Unlock()
	if p != nil {
		p.kill()
	}
}

// PID returns the process id of the worker JVM, 0 when none runs.
func (w *Worker) PID() int {
	w.pmu.Lock()
	defer w.pmu.Unlock()
	if w.proc == nil {
		return 0
	}
	return w.proc.pid
}

// process returns the running worker JVM for the JVM command line key,
// starting one when needed.
func (w *Worker) process(ctx context.Context, java string, args []string, key string) (*workerProc, error) {
	w.pmu.Lock()
	if w.closed {
		w.pmu.Unlock()
		return nil, errClosed
	}
	p := w.proc
	if p != nil && (p.key != key || p.dead()) {
		w.proc = nil
		w.pmu.Unlock()
		p.kill()
		p = nil
	} else {
		w.pmu.Unlock()
	}
	if p != nil {
		return p, nil
	}
	p, err := startWorker(ctx, java, args, key)
	if err != nil {
		return nil, err
	}
	w.pmu.Lock()
	defer w.pmu.Unlock()
	if w.closed { // Close ran while the JVM started
		p.kill()
		return nil, errClosed
	}
	w.proc = p
	return p, nil
}

// retire stops p and forgets it, so that the next request starts a new JVM.
func (w *Worker) retire(p *workerProc) {
	w.pmu.Lock()
	if w.proc == p {
		w.proc = nil
	}
	w.pmu.Unlock()
	p.kill()
}

var errClosed = errors.New("measure (quick): the worker is closed")

// QuickOptions returns the options of a quick-phase measurement derived from
// opt: one run, a short warm-up and few, short samples, so that the figure
// arrives within about a second for short methods.
func QuickOptions(opt Options) Options {
	opt = opt.Defaults()
	opt.Forks = 1
	opt.SamplesPerFork = 20
	opt.Warmup = 100 * time.Millisecond
	opt.MaxWarmup = 500 * time.Millisecond
	opt.WarmupQuiet = 50 * time.Millisecond
	opt.MinSampleTime = 2 * time.Millisecond
	return opt
}

// Measure runs req once in the worker with QuickOptions(opt) and returns a
// Result marked Preliminary with one Fork. As with Measure, a failure of the
// workload is in Result.Err; the error return is for failures of perfls
// itself and for ctx ending.
func (w *Worker) Measure(ctx context.Context, b *Build, req measured.Request, opt Options) (measured.Result, error) {
	return w.run(ctx, b, req, QuickOptions(opt), "")
}

// QuickProfileOptions returns the options of a quick profile derived from
// opt: QuickOptions with 10 recorded iterations of at least 50 ms (about
// 500 execution samples of a thread that computes) after 300 ms to 1 s of
// warm-up.
func QuickProfileOptions(opt Options) Options {
	opt = QuickOptions(opt)
	opt.SamplesPerFork = 10
	opt.MinSampleTime = 50 * time.Millisecond
	opt.Warmup = 300 * time.Millisecond
	opt.MaxWarmup = time.Second
	opt.WarmupQuiet = 100 * time.Millisecond
	opt.Profile = true
	return opt
}

// Profile profiles req in the worker JVM with QuickProfileOptions(opt): the
// worker starts a flight recording with perfls's settings (written into
// dir, as ProfileJVMArgs does) before the harness runs, the harness marks
// its iterations and reduces the recording in the JVM, and the Result's one
// Fork carries the summary (Fork.Profile). The Result is marked
// Preliminary: the JVM has run other requests, the warm-up is short, and
// the figures never feed a verdict. Errors as with Measure.
func (w *Worker) Profile(ctx context.Context, b *Build, req measured.Request, opt Options, dir string) (measured.Result, error) {
	opt = QuickProfileOptions(opt)
	java := opt.Java
	if java == "" {
		j, err := findJDK(ctx)
		if err != nil {
			return measured.Result{Request: req, Preliminary: true}, fmt.Errorf("profile (quick): %w", err)
		}
		java = j.java
	}
	settings, err := WriteProfileSettings(dir, javaFeature(java))
	if err != nil {
		return measured.Result{Request: req, Preliminary: true}, fmt.Errorf("profile (quick): %w", err)
	}
	return w.run(ctx, b, req, opt, settings)
}

// run runs req once in the worker with opt; with a settings file (a quick
// profile) under a flight recording with those settings.
func (w *Worker) run(ctx context.Context, b *Build, req measured.Request, opt Options, settings string) (measured.Result, error) {
	what := "measure"
	if settings != "" {
		what = "profile"
	}
	res := measured.Result{Request: req, Preliminary: true}
	fail := func(err error) (measured.Result, error) {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if errors.Is(err, errClosed) {
			return res, err
		}
		return res, fmt.Errorf("%s (quick): %w", what, err)
	}
	if b == nil {
		return res, fmt.Errorf("%s (quick): no build", what)
	}
	j, err := findJDK(ctx)
	if err != nil {
		return fail(err)
	}
	java := opt.Java
	if java == "" {
		java = j.java
	}
	classpath, err := runtimeClasspath(ctx, j, b)
	if err != nil {
		return fail(err)
	}
	hs, err := prepareHarnesses(ctx, j, j.releaseFor(java), b, classpath, []measured.Request{req})
	if err != nil {
		return fail(err)
	}
	defer hs.cleanup()
	if hs.errs[0] != nil {
		res.Err = hs.errs[0]
		return res, nil
	}
	cp := strings.Join(append([]string{hs.classes[0]}, classpath...), string(os.PathListSeparator))

	w.mu.Lock()
	defer w.mu.Unlock()
	args := workerJVMArgs(opt, classpath[0], hs.crashDir)
	key := java + "\x00" + strings.Join(args, "\x00")
	p, err := w.process(ctx, java, args, key)
	if err != nil {
		return fail(err)
	}
	if settings != "" && p.protocol() < 2 {
		w.retire(p)
		return fail(fmt.Errorf("the worker JVM speaks worker protocol %d, a quick profile needs 2 (perfls's Java library is older than this perfls)", p.protocol()))
	}
	w.nextID++
	run, clean, err := p.request(ctx, w.nextID, settings, hs.mains[0], cp, append(harnessOptions(opt), hs.args[0]...), opt)
	if err != nil || !clean || run.exitCode != 0 || run.timedOut || !run.proto.ended {
		w.retire(p) // a new JVM on next use
	}
	if err != nil {
		return res, err
	}
	w.pmu.Lock()
	closed := w.closed
	w.pmu.Unlock()
	if closed && !run.proto.ended {
		return res, errClosed
	}
	fork, ferr := interpretQuick(run, opt, b.SourceRoots, settings != "")
	if ferr != nil {
		res.Err = fmt.Errorf("%s %s (quick phase): %w", what, req.Key(), ferr)
		return res, nil
	}
	res.Forks = []measured.Fork{fork}
	res.Env = environmentOf(run.proto)
	return res, nil
}

// interpretQuick reads the fork of a worker's run, which must hold every
// sample opt asks for and, when profiled, the profile's summary.
func interpretQuick(run *forkRun, opt Options, roots []string, profiled bool) (measured.Fork, error) {
	fork, ferr := interpret(run, opt, roots)
	if ferr == nil && len(fork.NsPerOp) != opt.SamplesPerFork {
		ferr = &measured.WorkloadError{Kind: measured.KindProtocol, PID: run.pid,
			Message: fmt.Sprintf("the worker reported %d samples, expected %d", len(fork.NsPerOp), opt.SamplesPerFork)}
	}
	if ferr == nil && profiled {
		if fork.Profile, ferr = run.proto.profile.Summary(); ferr != nil {
			ferr = fmt.Errorf("quick profile in the worker (pid %d): %w", run.pid, ferr)
		}
	}
	return fork, ferr
}

// workerProfileFlags are the JVM flags a quick profile needs that can only
// be given at start (ProfileJVMArgs gives them to a profiled fork): the
// recording's stack depth, and debug information at non-safepoints so that
// samples of JIT-compiled code land on the right line. The worker always
// runs with them, so that quick measurements and quick profiles share one
// warm JVM; neither costs time while nothing records.
var workerProfileFlags = []string{"-XX:FlightRecorderOptions=stackdepth=" + strconv.Itoa(ProfileStackDepth),
	"-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints"}

// workerJVMArgs is a fork's command line without the harness options, which
// the worker takes per request, with workerProfileFlags before the
// options' own flags. Profile does not change it.
func workerJVMArgs(opt Options, lib, crashDir string) []string {
	opt.Profile = false
	opt.JVMArgs = append(slices.Clone(workerProfileFlags), opt.JVMArgs...)
	args := jvmArgs(opt, lib, "dev.perfls.internal.Worker", crashDir)
	return args[:len(args)-len(harnessOptions(opt))]
}

// workerProc is one worker JVM.
type workerProc struct {
	key    string
	cmd    *exec.Cmd
	pid    int
	stdin  io.WriteCloser
	router *lineRouter
	stderr *tailBuffer
	exited chan struct{} // closed when cmd.Wait has returned
	killed sync.Once
}

func startWorker(ctx context.Context, java string, args []string, key string) (*workerProc, error) {
	cmd, err := trust.LongCommand(ctx, java, args...)
	if err != nil {
		return nil, err
	}
	r := &lineRouter{ready: make(chan struct{}), done: make(chan workerDone, 1)}
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stdout = r
	cmd.Stderr = stderr
	inOwnProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start worker %s: %w", java, err)
	}
	p := &workerProc{key: key, cmd: cmd, pid: cmd.Process.Pid, stdin: stdin, router: r, stderr: stderr,
		exited: make(chan struct{})}
	go func() { // owned by p: ends when the JVM exits (kill guarantees it)
		_ = cmd.Wait()
		close(p.exited)
	}()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case <-r.ready:
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("the worker JVM exited at start (status %d): %s", cmd.ProcessState.ExitCode(),
			lastLines(strings.TrimSpace(stderr.String()), 8))
	case <-ctx.Done():
		p.kill()
		return nil, ctx.Err()
	case <-timer.C:
		p.kill()
		return nil, errors.New("the worker JVM did not start within 30s")
	}
}

func (p *workerProc) dead() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// kill ends the worker's process group and waits until the JVM is reaped.
func (p *workerProc) kill() {
	p.killed.Do(func() {
		_ = p.stdin.Close()
		_ = killProcessGroup(p.pid)
		<-p.exited
		_ = killProcessGroup(p.pid) // strays
	})
}

// protocol is the worker protocol the JVM announced: 1 for a worker that
// names none (no quick profiles), 2 with "prof" requests.
func (p *workerProc) protocol() int {
	p.router.mu.Lock()
	defer p.router.mu.Unlock()
	return p.router.protocol
}

// request runs one measurement of the harness class main with the harness
// program arguments hargs (options and the request's arguments; none holds a
// space or a control character) and returns its raw outcome in the shape of
// a fork's, and whether the worker is still clean; with a settings file
// ("" for none) under a flight recording (a "prof" request). The error is
// ctx's or a failure to talk to the worker.
func (p *workerProc) request(ctx context.Context, id int, settings, main, cp string, hargs []string, opt Options) (*forkRun, bool, error) {
	pw := newProtoWriter(opt.SamplesPerFork)
	p.router.setTarget(pw)
	defer p.router.setTarget(nil)
	line := fmt.Sprintf("run %d %s %s %s\n", id, escapeField(main), escapeField(cp), strings.Join(hargs, " "))
	if settings != "" {
		line = fmt.Sprintf("prof %d %s %s %s %s\n", id, escapeField(settings), escapeField(main), escapeField(cp), strings.Join(hargs, " "))
	}
	start := time.Now()
	run := &forkRun{pid: p.pid}
	if _, err := io.WriteString(p.stdin, line); err != nil {
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
		}
		if !p.dead() {
			return nil, false, fmt.Errorf("send a request to the worker: %w", err)
		}
	}
	timer := time.NewTimer(opt.ForkTimeout)
	defer timer.Stop()
	clean := false
	select {
	case d := <-p.router.done:
		if d.id != strconv.Itoa(id) {
			return nil, false, fmt.Errorf("the worker answered request %s, expected %d", d.id, id)
		}
		clean = d.clean
	case <-p.exited:
		run.exitCode = p.cmd.ProcessState.ExitCode()
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			run.signal = ws.Signal().String()
		}
	case <-ctx.Done():
		p.kill()
		return nil, false, ctx.Err()
	case <-timer.C:
		run.timedOut = true
		if requestThreadDump(p.pid) {
			grace := time.NewTimer(2 * time.Second)
			select {
			case <-pw.dumpSeen:
			case <-grace.C:
			case <-p.exited:
			case <-ctx.Done():
			}
			grace.Stop()
		}
		p.kill()
		run.exitCode = -1
	}
	run.wall = time.Since(start)
	if run.exitCode != 0 || run.timedOut {
		p.kill() // make sure every byte of output has been routed
	}
	run.proto = pw.state()
	run.other = pw.other.String()
	run.stderr = p.stderr.String()
	return run, clean, nil
}

// escapeField escapes text for one field of a worker request (the inverse of
// Worker.unescape).
func escapeField(s string) string {
	if s == "" {
		return `\e`
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == ' ':
			b.WriteString(`\s`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

type workerDone struct {
	id    string
	clean bool
}

// lineRouter receives the worker's standard output: it recognises the
// worker's own lines (perfls-ready, perfls-done) and forwards every other
// line to the current request's protoWriter.
type lineRouter struct {
	mu        sync.Mutex
	target    *protoWriter
	lines     lineSplitter
	ready     chan struct{}
	readySeen bool
	protocol  int             // the worker protocol of the ready line
	done      chan workerDone // buffered: one request at a time
}

func (r *lineRouter) setTarget(pw *protoWriter) {
	r.mu.Lock()
	r.target = pw
	r.mu.Unlock()
}

func (r *lineRouter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines.write(p, r.line)
	return len(p), nil
}

func (r *lineRouter) line(l string, truncated bool) {
	s := strings.TrimSuffix(l, "\r")
	switch {
	case strings.HasPrefix(s, "perfls-ready "):
		if !r.readySeen {
			// perfls-ready <pid> [<worker protocol>]; none is protocol 1.
			r.protocol = 1
			if f := strings.Fields(s); len(f) > 2 {
				if v, err := strconv.Atoi(f[2]); err == nil {
					r.protocol = v
				}
			}
			r.readySeen = true
			close(r.ready)
		}
		return
	case strings.HasPrefix(s, "perfls-done "):
		f := strings.Fields(s)
		if len(f) == 3 {
			select {
			case r.done <- workerDone{id: f[1], clean: f[2] == "1"}:
			default:
			}
			return
		}
	}
	if r.target != nil {
		r.target.acceptLine(l, truncated)
	}
}
