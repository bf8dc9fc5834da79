package measure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/trust"
)

// The line protocol, version 4. A fork writes these lines to its original
// standard output; fields are separated by one space and free text is escaped
// (\\ \s \n \r \t \xHH; \e is the empty string):
//
//	perfls-hello <version> <pid>
//	perfls-env <key> <escaped value>        java.version, java.vendor, java.vm.name, java.vm.version,
//	                                        os.name, os.arch, cores, jvm.arg (repeated)
//	perfls-thread <tid>                     the measuring thread's operating-system id (Linux;
//	                                        version 4), which perfls pins when asked (Options.CPUs)
//	perfls-tuples <k>                       calls per pass (generator harnesses)
//	perfls-warmup <ops> <ns> <settled> <compilems> [<open>]
//	                                        operations and wall time spent warming up; settled is
//	                                        1 (JIT settled), 0 (cap reached), -1 (unknown);
//	                                        JIT compilation ms during warm-up or -1; open lists the
//	                                        conditions that held warm-up open at the cap
//	                                        (calls,jit,trend,heap), "-" for none
//	perfls-sample <ns> <cpuns> <ops> <allocbytes> <gcs> [<gcms> <heapused> <jitms> <classes> [<proccpuns> [<cpu>]]]
//	                                        one sample; cpuns/allocbytes are -1 when unavailable.
//	                                        Version 2 adds, read at the end of the sample: GC time
//	                                        during it (ms), heap used (bytes), total JIT compilation
//	                                        time (ms) and loaded classes, each -1 when unavailable;
//	                                        a line without them (version 1) is still read.
//	                                        Version 3 adds the process's CPU time during the
//	                                        sample (all threads: JIT, GC), ns, or -1.
//	                                        Version 4 adds the processor the thread ran on, -2 when
//	                                        it moved during the sample, -1 when unknown
//	perfls-output <total bytes> <escaped tail>
//	                                        what user code printed (System.out/err), if anything
//	perfls-error <phase> <escaped stack trace>
//	perfls-exit <escaped stack>             from a shutdown hook: user code called System.exit
//	perfls-end                              finished normally
//
// Lines not starting with "perfls-" (a thread dump, stray native output) are
// kept apart, bounded. Unknown perfls- lines are ignored.

const protocolVersion = 4

// unescape reverses the protocol's field escaping.
func unescape(s string) string {
	if s == `\e` {
		return ""
	}
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 's':
			b.WriteByte(' ')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'e':
		case 'x':
			if i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteString(`\x`)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// sample is one parsed perfls-sample line.
type sample struct {
	ns, cpuNs, ops, alloc, gcs int64
	// Version 2 fields, -1 when absent or unavailable.
	gcMs, heapUsed, jitMs, classes int64
	// Version 3: process CPU time during the sample, -1 when absent.
	procCPUNs int64
	// Version 4: the processor the thread ran on, -2 moved, -1 unknown.
	processor int
}

// protoState is what a fork reported.
type protoState struct {
	version   int
	pid       int
	thread    int   // the measuring thread's id (perfls-thread), 0 when not reported
	pinned    bool  // the thread was pinned to the requested processors
	pinErr    error // pinning it failed
	env       map[string]string
	jvmArgs   []string
	tuples    int64
	retaken   int // samples taken again because the thread was preempted
	warmupOps int64
	warmupNs  int64
	// warmupSettled and warmupCompileMs: see Fork.WarmupSettled and
	// Fork.WarmupCompileMs.
	warmupSettled   int
	warmupCompileMs int64
	warmupOpen      []string
	samples         []sample
	outputTotal     int64
	output          string
	errPhase        string
	errTrace        string
	exitStack       string
	exited          bool
	ended           bool
	bad             []string // malformed protocol lines (first few)
	// profile assembles the perfls-prof-* lines of a profiled fork.
	profile *SummaryReader
	// counts are a counting fork's perfls-count lines (count.go).
	counts *forkCounts
}

// protoWriter receives a fork's standard output, parsing protocol lines as
// they arrive and keeping other output apart (bounded).
type protoWriter struct {
	mu         sync.Mutex
	st         protoState
	maxSamples int
	pin        []int // processors to pin the measuring thread to; nil: none
	child      int   // the JVM's process id, once started (setChild)
	lines      lineSplitter
	other      *tailBuffer
	dumpSeen   chan struct{} // closed when a thread dump has been printed
	dumpClosed bool
}

const maxProtocolLine = 1 << 20

func newProtoWriter(maxSamples int) *protoWriter {
	return &protoWriter{
		st:         protoState{env: map[string]string{}, profile: NewSummaryReader()},
		maxSamples: maxSamples,
		other:      &tailBuffer{max: 256 << 10},
		dumpSeen:   make(chan struct{}),
	}
}

func (w *protoWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines.write(p, w.line)
	return len(p), nil
}

// setChild records the JVM's process id once it has started; a measuring
// thread it already reported is pinned now.
func (w *protoWriter) setChild(pid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.child = pid
	w.pinThread()
}

// pinThread pins the reported measuring thread to w.pin, once, as soon as
// both it and the JVM's process id are known: the thread reports itself
// before its warm-up, so every sample runs where it was pinned. Only a
// thread of the JVM itself is pinned, whatever its output claims.
func (w *protoWriter) pinThread() {
	st := &w.st
	if w.pin == nil || st.thread == 0 || w.child == 0 || st.pinned || st.pinErr != nil {
		return
	}
	if st.pinErr = pinThread(w.child, st.thread, w.pin); st.pinErr == nil {
		st.pinned = true
	}
}

// acceptLine takes one whole line (without its newline) from a lineRouter.
func (w *protoWriter) acceptLine(l string, truncated bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.line(l, truncated)
}

// lineSplitter cuts a byte stream into lines, each at most maxProtocolLine
// bytes (the rest of a longer line is dropped and the line marked truncated).
type lineSplitter struct {
	partial  []byte
	overlong bool
}

// write passes every line p completes to emit, without its newline, and
// keeps the unfinished rest for the next call.
func (s *lineSplitter) write(p []byte, emit func(line string, truncated bool)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.appendPartial(p)
			return
		}
		s.appendPartial(p[:i])
		emit(string(s.partial), s.overlong)
		s.partial, s.overlong = s.partial[:0], false
		p = p[i+1:]
	}
}

func (s *lineSplitter) appendPartial(p []byte) {
	if room := maxProtocolLine - len(s.partial); len(p) > room {
		p = p[:max(room, 0)]
		s.overlong = true
	}
	s.partial = append(s.partial, p...)
}

func (w *protoWriter) line(l string, truncated bool) {
	l = strings.TrimSuffix(l, "\r")
	if !strings.HasPrefix(l, "perfls-") || truncated {
		w.other.Write([]byte(l + "\n"))
		if strings.HasPrefix(l, "JNI global refs") && !w.dumpClosed {
			w.dumpClosed = true
			close(w.dumpSeen)
		}
		return
	}
	st := &w.st
	if strings.HasPrefix(l, "perfls-prof-") {
		st.profile.Line(l)
		return
	}
	kind, rest, _ := strings.Cut(l, " ")
	if !w.record(kind, strings.Fields(rest)) && len(st.bad) < 5 {
		st.bad = append(st.bad, l)
	}
}

// record keeps what a protocol line of kind with the fields f reports;
// false when the line is malformed.
func (w *protoWriter) record(kind string, f []string) bool {
	st := &w.st
	switch kind {
	case "perfls-hello":
		v, ok := leadingInts(f, 2)
		if !ok {
			return false
		}
		st.version, st.pid = int(v[0]), int(v[1])
	case "perfls-thread":
		v, ok := leadingInts(f, 1)
		if !ok || v[0] <= 0 {
			return false
		}
		if st.thread == 0 {
			st.thread = int(v[0])
			w.pinThread()
		}
	case "perfls-env":
		if len(f) != 2 {
			return false
		}
		if f[0] == "jvm.arg" {
			st.jvmArgs = append(st.jvmArgs, unescape(f[1]))
		} else {
			st.env[f[0]] = unescape(f[1])
		}
	case "perfls-tuples":
		v, ok := leadingInts(f, 1)
		if !ok {
			return false
		}
		st.tuples = v[0]
	case "perfls-warmup":
		return st.warmup(f)
	case "perfls-sample":
		s, ok := parseSample(f)
		if !ok {
			return false
		}
		if len(st.samples) < w.maxSamples {
			st.samples = append(st.samples, s)
		}
	case "perfls-retaken":
		st.retaken++
	case "perfls-output":
		if len(f) != 2 {
			return false
		}
		st.outputTotal, _ = strconv.ParseInt(f[0], 10, 64)
		st.output = unescape(f[1])
	case "perfls-error":
		if len(f) != 2 {
			return false
		}
		st.errPhase, st.errTrace = f[0], unescape(f[1])
	case "perfls-exit":
		st.exited = true
		if len(f) > 0 {
			st.exitStack = unescape(f[0])
		}
	case "perfls-count-ops":
		v, ok := leadingInts(f, 2)
		if !ok {
			return false
		}
		st.counts = &forkCounts{opsPerSample: v[0], samples: v[1], byID: map[int][3]int64{}}
	case "perfls-count":
		v, ok := leadingInts(f, 4)
		if !ok || st.counts == nil || v[0] < 0 {
			return false
		}
		st.counts.byID[int(v[0])] = [3]int64{v[1], v[2], v[3]}
	case "perfls-end":
		st.ended = true
	}
	return true
}

// warmup keeps the fields of a perfls-warmup line: operations and time,
// then, where reported, the settling iteration, the compile time and the
// methods still open; false when the line is malformed.
func (st *protoState) warmup(f []string) bool {
	v, ok := leadingInts(f, 2)
	if !ok {
		return false
	}
	st.warmupOps, st.warmupNs = v[0], v[1]
	st.warmupSettled, st.warmupCompileMs = -1, -1
	if v, ok := leadingInts(f, 4); ok {
		st.warmupSettled, st.warmupCompileMs = int(v[2]), v[3]
	}
	if len(f) > 4 && f[4] != "-" {
		st.warmupOpen = strings.Split(f[4], ",")
	}
	return true
}

// leadingInts parses the first n fields of f as integers; false when there
// are fewer or one is not an integer.
func leadingInts(f []string, n int) ([]int64, bool) {
	if len(f) < n {
		return nil, false
	}
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// parseSample reads the fields of a perfls-sample line: five figures, then
// the fields of later protocol versions (see sample), -1 where absent.
func parseSample(f []string) (sample, bool) {
	v, ok := leadingInts(f, 5)
	if !ok {
		return sample{}, false
	}
	s := sample{ns: v[0], cpuNs: v[1], ops: v[2], alloc: v[3], gcs: v[4], gcMs: -1, heapUsed: -1, jitMs: -1, classes: -1, procCPUNs: -1, processor: -1}
	if len(f) >= 9 {
		x, ok := leadingInts(f, 9)
		if !ok {
			return sample{}, false
		}
		s.gcMs, s.heapUsed, s.jitMs, s.classes = x[5], x[6], x[7], x[8]
	}
	if len(f) >= 10 {
		x, ok := leadingInts(f, 10)
		if !ok {
			return sample{}, false
		}
		s.procCPUNs = x[9]
	}
	if len(f) >= 11 {
		x, ok := leadingInts(f, 11)
		if !ok || x[10] < -2 || x[10] >= 1<<20 {
			return sample{}, false
		}
		s.processor = int(x[10])
	}
	return s, true
}

// env returns one reported environment value.
func (w *protoWriter) env(key string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.st.env[key]
}

// state returns what was reported; call it after the fork has exited.
func (w *protoWriter) state() protoState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.st
}

// forkRun is the raw outcome of one forked JVM.
type forkRun struct {
	proto    protoState
	other    string // non-protocol standard output (thread dumps)
	stderr   string
	exitCode int    // -1 when killed by a signal
	signal   string // the signal that ended it, if any
	timedOut bool
	wall     time.Duration
	pid      int
}

// dumpAndKill ends a fork that ran out of time: it asks the JVM for a
// thread dump first (for up to two seconds, to show where it was stuck),
// then kills its process group and returns what Wait returned.
func dumpAndKill(ctx context.Context, pid int, pw *protoWriter, done <-chan error) error {
	// HotSpot prints the dump on standard output; OpenJ9 would write a
	// javacore file into the working directory instead, so it is not asked.
	if vm := pw.env("java.vm.name"); !strings.Contains(vm, "J9") && requestThreadDump(pid) {
		grace := time.NewTimer(2 * time.Second)
		defer grace.Stop()
		select {
		case <-pw.dumpSeen:
		case <-grace.C:
		case werr := <-done:
			_ = killProcessGroup(pid)
			return werr
		case <-ctx.Done():
		}
	}
	_ = killProcessGroup(pid)
	return <-done
}

// runJVM runs one fork to completion, timeout or cancellation. The JVM leads
// its own process group, which is killed as a whole on timeout and
// cancellation and, to remove strays, after the JVM exits. The child is always
// reaped before runJVM returns. On timeout the JVM is first asked for a thread
// dump (SIGQUIT), for up to two seconds, to show where it was stuck.
func runJVM(ctx context.Context, java string, args []string, timeout time.Duration, maxSamples int, pin []int) (*forkRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The fork's standard input is a pipe whose write end only this process
	// holds: if perfls dies (kill -9 included) the JVM reads end-of-file and
	// halts, so no fork outlives its requester. The deadline covers a perfls
	// that hangs instead; it comes after the timeout and its thread dump.
	watchR, watchW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: watch pipe: %w", java, err)
	}
	defer watchW.Close()
	args = append(args[:len(args):len(args)], "parentpipe=1", "deadline="+strconv.FormatInt(int64(timeout+10*time.Second), 10))
	cmd, err := trust.LongCommand(ctx, java, args...)
	if err != nil {
		watchR.Close()
		return nil, err
	}
	pw := newProtoWriter(maxSamples)
	pw.pin = pin
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stdin = watchR
	cmd.Stdout = pw
	cmd.Stderr = stderr
	inOwnProcessGroup(cmd)
	// Bounds how long Wait waits for output pipes kept open by a stray child.
	cmd.WaitDelay = time.Second
	start := time.Now()
	err = cmd.Start()
	watchR.Close() // the child has its copy
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", java, err)
	}
	run := &forkRun{pid: cmd.Process.Pid}
	pw.setChild(run.pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // owned here: always received below

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		_ = killProcessGroup(run.pid)
		<-done
		return nil, ctx.Err()
	case <-timer.C:
		run.timedOut = true
		werr = dumpAndKill(ctx, run.pid, pw, done)
	}
	run.wall = time.Since(start)
	_ = killProcessGroup(run.pid) // anything the JVM left behind
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	run.proto = pw.state()
	run.other = pw.other.String()
	run.stderr = stderr.String()
	run.exitCode = 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			if !errors.Is(werr, exec.ErrWaitDelay) {
				return nil, fmt.Errorf("wait for %s: %w", java, werr)
			}
		}
	}
	if ps := cmd.ProcessState; ps != nil {
		run.exitCode = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			run.signal = ws.Signal().String()
		}
	}
	return run, nil
}

// interpret turns a fork's raw outcome into samples or a *WorkloadError.
func interpret(run *forkRun, opt Options, roots []string) (measured.Fork, error) {
	st := run.proto
	werr := &measured.WorkloadError{
		ExitCode: run.exitCode,
		Output:   st.output,
		Stderr:   run.stderr,
		PID:      run.pid,
	}
	if st.pid != 0 {
		werr.PID = st.pid
	}
	fail := func() (measured.Fork, error) {
		if werr.Frame != nil {
			locate(werr.Frame, roots)
		}
		return measured.Fork{}, werr
	}
	switch {
	case st.errTrace != "":
		info := parseStackTrace(st.errTrace)
		werr.Kind, werr.Phase = measured.KindException, st.errPhase
		werr.Exception, werr.Message = info.exception, info.message
		if info.rootException != "" && info.rootException != info.exception {
			werr.Message = strings.TrimSpace(werr.Message + " (caused by " + info.rootException + ": " + info.rootMessage + ")")
		}
		werr.Frame, werr.Stack = info.frame, st.errTrace
		if info.exception == "java.lang.OutOfMemoryError" || info.rootException == "java.lang.OutOfMemoryError" {
			werr.Kind, werr.HeapMB = measured.KindOOM, opt.HeapMB
		}
		return fail()
	case st.ended:
		return buildFork(run), nil
	case run.timedOut:
		werr.Kind, werr.Timeout, werr.ExitCode = measured.KindTimeout, opt.ForkTimeout, -1
		if stack := mainThreadStack(run.other); stack != "" {
			werr.Stack = stack
			werr.Frame = firstUserFrame(stack)
		}
		return fail()
	case st.exited:
		werr.Kind, werr.Stack = measured.KindExit, st.exitStack
		werr.Frame = firstUserFrame(st.exitStack)
		return fail()
	case strings.Contains(run.stderr, "OutOfMemoryError") || strings.Contains(run.other, "OutOfMemoryError"):
		werr.Kind, werr.HeapMB = measured.KindOOM, opt.HeapMB
		werr.Exception = "java.lang.OutOfMemoryError"
		return fail()
	case st.version == 0 && run.exitCode != 0:
		werr.Kind = measured.KindCrash
		werr.Message = fmt.Sprintf("failed to start (exit status %d)", run.exitCode)
		return fail()
	case len(st.bad) > 0:
		werr.Kind = measured.KindProtocol
		werr.Message = fmt.Sprintf("malformed fork output %q", st.bad[0])
		return fail()
	default:
		werr.Kind = measured.KindCrash
		if run.signal != "" {
			werr.ExitCode = -1
			werr.Message = "was killed by signal " + run.signal + " before finishing"
		} else {
			werr.Message = fmt.Sprintf("exited with status %d before finishing (Runtime.halt or a crash)", run.exitCode)
		}
		return fail()
	}
}

// buildFork converts a successful fork's samples.
func buildFork(run *forkRun) measured.Fork {
	st := run.proto
	f := measured.Fork{
		WarmupOps:       st.warmupOps,
		Warmup:          time.Duration(st.warmupNs),
		WarmupSettled:   st.warmupSettled,
		WarmupCompileMs: st.warmupCompileMs,
		WarmupOpen:      st.warmupOpen,
		Calls:           st.tuples,
		Retaken:         st.retaken,
		Wall:            run.wall,
		Output:          st.output,
		PID:             run.pid,
	}
	if st.pid != 0 {
		f.PID = st.pid
	}
	hasCPU, hasAlloc, hasProc, hasProcessor := true, true, true, true
	hasGCMs, hasHeap, hasJIT, hasClasses := true, true, true, true
	for _, s := range st.samples {
		hasCPU = hasCPU && s.cpuNs >= 0
		hasAlloc = hasAlloc && s.alloc >= 0
		hasProc = hasProc && s.procCPUNs >= 0
		hasProcessor = hasProcessor && s.processor != -1
		hasGCMs = hasGCMs && s.gcMs >= 0
		hasHeap = hasHeap && s.heapUsed >= 0
		hasJIT = hasJIT && s.jitMs >= 0
		hasClasses = hasClasses && s.classes >= 0
	}
	for _, s := range st.samples {
		ops := float64(max(s.ops, 1))
		f.Ops = s.ops
		f.NsPerOp = append(f.NsPerOp, float64(s.ns)/ops)
		if hasCPU {
			f.CPUNsPerOp = append(f.CPUNsPerOp, float64(s.cpuNs)/ops)
		}
		if hasAlloc {
			f.AllocBytesPerOp = append(f.AllocBytesPerOp, float64(s.alloc)/ops)
		}
		if hasProc {
			f.ProcCPUNsPerOp = append(f.ProcCPUNsPerOp, float64(s.procCPUNs)/ops)
		}
		if hasProcessor {
			f.Processors = append(f.Processors, int64(s.processor))
		}
		f.GCs = append(f.GCs, s.gcs)
		if hasGCMs {
			f.GCMs = append(f.GCMs, float64(s.gcMs))
		}
		if hasHeap {
			f.HeapUsed = append(f.HeapUsed, float64(s.heapUsed))
		}
		if hasJIT {
			f.JITMs = append(f.JITMs, float64(s.jitMs))
		}
		if hasClasses {
			f.Classes = append(f.Classes, float64(s.classes))
		}
	}
	return f
}
