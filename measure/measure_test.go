//go:build unix

package measure

import (
	"gonum.org/v1/gonum/stat"

	"github.com/perfls/perfls/analysis/measured"

	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func allNs(r measured.Result) []float64 {
	var out []float64
	for _, f := range r.Forks {
		out = append(out, f.NsPerOp...)
	}
	return out
}

// processGone reports whether no process pid exists (or it is a zombie
// someone else must reap, which cannot be ours: we reap every fork).
func processGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func TestMeasureRatio(t *testing.T) {
	_, b := fixtureBuild(t)
	rs := resolveAll(t, b, "fixture.Work#fast", "fixture.Work#slow", "fixture.gen.Data#arrays")
	fast := measured.Request{Method: rs[0], Generator: rs[2], Args: []measured.Arg{measured.IntArg(2000)}}
	slow := measured.Request{Method: rs[1], Generator: rs[2], Args: []measured.Arg{measured.IntArg(2000)}}
	var events []Event
	opt := Options{Forks: 2, SamplesPerFork: 5, Warmup: 150 * time.Millisecond}
	res, err := Measure(context.Background(), b, []measured.Request{fast, slow, fast}, opt, func(e Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	for i, r := range res[:2] {
		if r.Err != nil {
			t.Fatalf("result %d: %v", i, r.Err)
		}
		if len(r.Forks) != 2 {
			t.Fatalf("result %d: %d forks, want 2", i, len(r.Forks))
		}
		for _, f := range r.Forks {
			if len(f.NsPerOp) != 5 || len(f.CPUNsPerOp) != 5 || f.Ops <= 0 || f.Calls != 16 || f.WarmupOps <= 0 {
				t.Errorf("result %d: fork %+v", i, f)
			}
			for _, v := range f.NsPerOp {
				if !(v > 0) {
					t.Errorf("result %d: ns/op %v", i, v)
				}
			}
			// Protocol 2: the JVM state per sample, for the bounds oracle.
			if len(f.GCMs) != 5 || len(f.HeapUsed) != 5 || len(f.JITMs) != 5 || len(f.Classes) != 5 ||
				f.HeapUsed[0] < 0 || f.JITMs[0] <= 0 || f.Classes[0] < 100 || len(f.Series()) != 8 {
				t.Errorf("result %d: oracle fields gc %v heap %v jit %v classes %v", i, f.GCMs, f.HeapUsed, f.JITMs, f.Classes)
			}
		}
		if r.Env.JavaVersion == "" || r.Env.VMName == "" || r.Env.Cores <= 0 || len(r.Env.JVMArgs) == 0 {
			t.Errorf("result %d: environment %+v", i, r.Env)
		}
	}
	if res[2].Request.Key() != fast.Key() || len(res[2].Forks) != 2 {
		t.Errorf("duplicate request not shared: %+v", res[2])
	}
	mf, ms := median(allNs(res[0])), median(allNs(res[1]))
	t.Logf("fast %.1f ns/op, slow %.1f ns/op, ratio %.1f; fork wall %v", mf, ms, ms/mf, res[0].Forks[0].Wall)
	if ms/mf <= 3 {
		t.Errorf("slow/fast = %.2f, want > 3", ms/mf)
	}
	// Round-robin: fork 1 of both requests, then fork 2 of both.
	var order []string
	for _, e := range events {
		if !e.Done {
			order = append(order, e.Request.Method.Name+"/"+string(rune('0'+e.Fork)))
		}
	}
	if got := strings.Join(order, " "); got != "fast/1 slow/1 fast/2 slow/2" {
		t.Errorf("fork order %q", got)
	}
	if want := "fixture.Work#fast(int[])[fixture.gen.Data#arrays(int)](2000)"; fast.Key() != want {
		t.Errorf("Key() = %q, want %q", fast.Key(), want)
	}
}

// failures runs one Measure over every failure case (and a few unusual
// successes), shared by the subtests of TestMeasureCases.
func TestMeasureCases(t *testing.T) {
	dir, b := fixtureBuild(t)
	work := filepath.Join(dir, "src/main/java/fixture/Work.java")
	data := filepath.Join(dir, "src/test/java/fixture/gen/Data.java")
	rs := resolveAll(t, b,
		"fixture.gen.Data#ints", "fixture.gen.Data#broken", "fixture.Work#explode", "fixture.Work#quit",
		"fixture.Work#spin", "fixture.Work#hog", "fixture.Work#noisy", "fixture.gen.Data#wrongType",
		"fixture.Work#sumLoop", "fixture.Work#implicitLoop", "fixture.Work#hidden", "fixture.Work#add",
		"fixture.gen.Data#receivers", "fixture.Work$Inner#twice", "fixture.gen.Data#labelled",
		"java.lang.Math#abs(int)", "fixture.Work#nothing", "fixture.gen.Data#arrays")
	ints, broken, explode, quit, spin, hog, noisy, wrong := rs[0], rs[1], rs[2], rs[3], rs[4], rs[5], rs[6], rs[7]
	sumLoop, implicit, hidden, add, receivers, twice, labelled, abs, nothing, arrays := rs[8], rs[9], rs[10], rs[11], rs[12], rs[13], rs[14], rs[15], rs[16], rs[17]
	n := []measured.Arg{measured.IntArg(4)}
	reqs := map[string]measured.Request{
		"generator throws":         {Method: explode, Generator: broken, Args: n},
		"method throws":            {Method: explode, Generator: ints, Args: n},
		"System.exit":              {Method: quit, Generator: ints, Args: n},
		"out of memory":            {Method: hog, Generator: ints, Args: n},
		"output flood":             {Method: noisy, Generator: ints, Args: n},
		"wrong argument type":      {Method: hidden, Generator: wrong, Args: n},
		"workload loop":            {Method: sumLoop, Args: []measured.Arg{measured.IntArg(256)}},
		"implicit loop":            {Method: implicit, Args: []measured.Arg{measured.IntArg(64)}},
		"package-private":          {Method: hidden, Generator: ints, Args: n},
		"instance method":          {Method: add, Generator: receivers, Args: n},
		"nested class":             {Method: twice, Generator: ints, Args: n},
		"string argument":          {Method: hidden, Generator: labelled, Args: []measured.Arg{measured.StringArg("a \"quoted\" \\ label\n"), measured.IntArg(1 << 40)}},
		"JDK method, no generator": {Method: abs, Args: []measured.Arg{measured.IntArg(-5)}},
		"void method":              {Method: nothing, Generator: arrays, Args: []measured.Arg{measured.IntArg(10)}},
		"bad generator args":       {Method: hidden, Generator: ints, Args: []measured.Arg{measured.StringArg("x")}},
		"harness does not compile": {Method: measured.Resolved{Class: "fixture.Work", Name: "vanished", Static: true, ParamTypes: []string{"int"}, ReturnType: "int"}, Generator: ints, Args: n},
	}
	var names []string
	var list []measured.Request
	for name, r := range reqs {
		names = append(names, name)
		list = append(list, r)
	}
	// A generous timeout for these (a loaded CI machine starts JVMs slowly);
	// the timeout case runs on its own below.
	opt := Options{Forks: 1, SamplesPerFork: 3, Warmup: 50 * time.Millisecond, ForkTimeout: 30 * time.Second, HeapMB: 32}
	var mu sync.Mutex
	started := map[string]bool{}
	goroutines := runtime.NumGoroutine()
	start := time.Now()
	results, err := Measure(context.Background(), b, list, opt, func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if !e.Done {
			started[e.Request.Key()] = true
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests in %v", len(list), time.Since(start))
	for i, r := range results {
		t.Logf("%s: err=%v forks=%d", names[i], r.Err, len(r.Forks))
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		t.Errorf("%d goroutines before Measure, %d after", goroutines, g)
	}
	got := map[string]measured.Result{}
	for i, name := range names {
		got[name] = results[i]
	}
	opt.ForkTimeout = 3 * time.Second
	timeoutStart := time.Now()
	results, err = Measure(context.Background(), b, []measured.Request{{Method: spin, Generator: ints, Args: n}}, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	got["timeout"] = results[0]
	t.Logf("timeout case: %v in %v", results[0].Err, time.Since(timeoutStart))

	werr := func(t *testing.T, name, kind string) *measured.WorkloadError {
		t.Helper()
		r := got[name]
		var we *measured.WorkloadError
		if !errors.As(r.Err, &we) {
			t.Fatalf("Err = %v, want a *WorkloadError", r.Err)
		}
		if we.Kind != kind {
			t.Errorf("Kind = %q, want %q (%v)", we.Kind, kind, r.Err)
		}
		if we.PID <= 0 || !processGone(we.PID) {
			t.Errorf("fork process %d still exists", we.PID)
		}
		return we
	}
	frameAt := func(t *testing.T, we *measured.WorkloadError, file, marker string) {
		t.Helper()
		line := lineOf(t, file, marker)
		if we.Frame == nil || we.Frame.File != filepath.Base(file) || we.Frame.Line != line || we.Frame.Path != file {
			t.Errorf("Frame = %+v, want %s:%d", we.Frame, file, line)
		}
		if want := filepath.Base(file) + ":" + strconv.Itoa(line); !strings.Contains(we.Error(), want) {
			t.Errorf("error %q does not mention %s", we.Error(), want)
		}
	}
	ok := func(t *testing.T, name string) measured.Result {
		t.Helper()
		r := got[name]
		if r.Err != nil {
			t.Fatalf("Err = %v", r.Err)
		}
		if len(r.Forks) != 1 || len(r.Forks[0].NsPerOp) != 3 {
			t.Fatalf("forks = %+v", r.Forks)
		}
		for _, v := range r.Forks[0].NsPerOp {
			if !(v > 0) {
				t.Errorf("ns/op = %v", v)
			}
		}
		return r
	}

	t.Run("generator throws", func(t *testing.T) {
		we := werr(t, "generator throws", measured.KindException)
		if we.Phase != "generator" || we.Exception != "java.lang.IllegalStateException" || !strings.Contains(we.Message, "generator broke for n=4") {
			t.Errorf("%+v", we)
		}
		if !strings.Contains(we.Error(), "the generator threw java.lang.IllegalStateException: generator broke for n=4") {
			t.Errorf("Error() = %q", we.Error())
		}
		frameAt(t, we, data, "// BROKEN")
	})
	t.Run("method throws", func(t *testing.T) {
		we := werr(t, "method throws", measured.KindException)
		if we.Phase != "method" || we.Exception != "java.lang.ArithmeticException" {
			t.Errorf("%+v", we)
		}
		frameAt(t, we, work, "// EXPLODE")
	})
	t.Run("System.exit", func(t *testing.T) {
		we := werr(t, "System.exit", measured.KindExit)
		if we.ExitCode != 3 || !errors.Is(we, measured.ErrSystemExit) || !strings.Contains(we.Error(), "workload called System.exit(3)") {
			t.Errorf("%v (%+v)", we, we)
		}
		frameAt(t, we, work, "// EXIT")
	})
	t.Run("timeout", func(t *testing.T) {
		we := werr(t, "timeout", measured.KindTimeout)
		if !errors.Is(we, measured.ErrTimeout) || !strings.Contains(we.Error(), "timed out after 3s") {
			t.Errorf("%v", we)
		}
		if we.Frame == nil || we.Frame.Class != "fixture.Work" || we.Frame.Method != "spin" {
			t.Logf("no stuck frame from the thread dump: %+v (%v)", we.Frame, we)
		}
	})
	t.Run("out of memory", func(t *testing.T) {
		we := werr(t, "out of memory", measured.KindOOM)
		if !errors.Is(we, measured.ErrOutOfMemory) || !strings.Contains(we.Error(), "OutOfMemoryError") || !strings.Contains(we.Error(), "32 MB") {
			t.Errorf("%v", we)
		}
		frameAt(t, we, work, "// HOG")
	})
	t.Run("output flood", func(t *testing.T) {
		r := ok(t, "output flood")
		out := r.Forks[0].Output
		if !strings.Contains(out, "earlier bytes dropped") || !strings.Contains(out, "and the error stream too") || len(out) > 16<<10 {
			t.Errorf("output tail (%d bytes) %q...", len(out), out[:min(len(out), 200)])
		}
	})
	t.Run("wrong argument type", func(t *testing.T) {
		we := werr(t, "wrong argument type", measured.KindException)
		if we.Phase != "arguments" || !strings.Contains(we.Message, "expected int, got java.lang.String") {
			t.Errorf("%v", we)
		}
	})
	t.Run("workload loop", func(t *testing.T) {
		r := ok(t, "workload loop")
		if r.Forks[0].Ops < 1 || r.Forks[0].Calls != 0 {
			t.Errorf("fork %+v", r.Forks[0])
		}
		// Allocation is counted inside start()..end() only: the array
		// cloned before each span (over 1 KB) is not the measured code's.
		alloc := r.Forks[0].AllocBytesPerOp
		if len(alloc) == 0 {
			t.Errorf("no allocation figures for a workload loop")
		} else if m := stat.Mean(alloc, nil); m > 100 {
			t.Errorf("allocation per span %.0f B: the untimed clone was counted", m)
		}
	})
	t.Run("implicit loop", func(t *testing.T) { ok(t, "implicit loop") })
	t.Run("package-private", func(t *testing.T) { ok(t, "package-private") })
	t.Run("instance method", func(t *testing.T) { ok(t, "instance method") })
	t.Run("nested class", func(t *testing.T) { ok(t, "nested class") })
	t.Run("string argument", func(t *testing.T) { ok(t, "string argument") })
	t.Run("JDK method, no generator", func(t *testing.T) { ok(t, "JDK method, no generator") })
	t.Run("void method", func(t *testing.T) { ok(t, "void method") })
	t.Run("harness does not compile", func(t *testing.T) {
		r := got["harness does not compile"]
		if r.Err == nil || !strings.Contains(r.Err.Error(), "the generated harness does not compile: cannot find symbol") {
			t.Errorf("Err = %v", r.Err)
		}
	})
	t.Run("bad generator args", func(t *testing.T) {
		r := got["bad generator args"]
		if r.Err == nil || !strings.Contains(r.Err.Error(), `string argument "x" cannot be passed as int`) {
			t.Errorf("Err = %v", r.Err)
		}
		if started[r.Request.Key()] {
			t.Error("a fork was started for a request whose harness cannot be generated")
		}
	})
}

// javaProcessesWith lists the pids of processes whose command line contains
// marker (Linux /proc only; nil elsewhere).
func javaProcessesWith(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(cmd), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestMeasureCancel(t *testing.T) {
	_, b := fixtureBuild(t)
	rs := resolveAll(t, b, "fixture.Work#spin", "fixture.gen.Data#ints")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	var canceledAt time.Time
	marker := "-Dperfls.test.cancel=" + strconv.FormatInt(time.Now().UnixNano(), 10)
	opt := Options{Forks: 2, SamplesPerFork: 3, Warmup: 50 * time.Millisecond, ForkTimeout: time.Minute, JVMArgs: []string{marker}}
	done := make(chan struct{})
	var res []measured.Result
	var err error
	go func() {
		defer close(done)
		res, err = Measure(ctx, b, []measured.Request{{Method: rs[0], Generator: rs[1], Args: []measured.Arg{measured.IntArg(2)}}}, opt, func(e Event) {
			if !e.Done {
				once.Do(func() {
					time.AfterFunc(time.Second, func() {
						if len(javaProcessesWith(marker)) == 0 && runtime.GOOS == "linux" {
							t.Error("no running fork found before cancelling")
						}
						canceledAt = time.Now()
						cancel()
					})
				})
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Measure did not return after cancellation")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(canceledAt); d > 5*time.Second {
		t.Errorf("returned %v after cancellation", d)
	}
	if len(res) != 1 || len(res[0].Forks) != 0 {
		t.Errorf("results %+v", res)
	}
	if pids := javaProcessesWith(marker); len(pids) > 0 {
		t.Errorf("forks %v outlived the cancelled measurement", pids)
	}
}

// TestForkWallTime reports how long one fork of a trivial measurement takes,
// JVM start to exit, with the default options and with a minimal warm-up.
// Opt-in (PERFLS_TIMING=1): it only logs.
func TestForkWallTime(t *testing.T) {
	if os.Getenv("PERFLS_TIMING") == "" {
		t.Skip("set PERFLS_TIMING=1 to report fork wall times")
	}
	_, b := fixtureBuild(t)
	rs := resolveAll(t, b, "java.lang.Math#abs(int)")
	req := measured.Request{Method: rs[0], Args: []measured.Arg{measured.IntArg(-5)}}
	for _, opt := range []Options{{Forks: 5}, {Forks: 5, Warmup: time.Nanosecond, SamplesPerFork: 1}} {
		res, err := Measure(context.Background(), b, []measured.Request{req}, opt, nil)
		if err != nil || res[0].Err != nil {
			t.Fatal(err, res[0].Err)
		}
		var walls []string
		for _, f := range res[0].Forks {
			walls = append(walls, f.Wall.Round(time.Millisecond).String())
		}
		o := opt.Defaults()
		t.Logf("warm-up %v, %d samples: fork wall times %s; %.2f ns/op", o.Warmup, o.SamplesPerFork, strings.Join(walls, " "), median(allNs(res[0])))
	}
}
