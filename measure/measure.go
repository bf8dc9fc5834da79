// Package measure builds a Java project, resolves the methods SPL formulas
// name, and measures them in forked JVMs.
//
// A measurement (Measure) generates one small Java harness class per
// distinct method and generator (argument values are passed to the JVM at run
// time, so a new value needs no new class), compiles those not in the cache (each
// class is cached on its own) with one javac call, and runs Options.Forks
// forks of each, round-robin across requests and never two at once. A fork is
// a fresh JVM with a fixed heap and the serial collector (no concurrent GC
// threads adding noise). In the fork the generator runs once, outside the
// timed region, and its argument tuples are unpacked into typed arrays; the
// timed loop then makes direct calls (no reflection) whose results go to a
// blackhole. The fork warms up for at least Options.Warmup and then until JIT
// compilation has settled (the JVM's total compilation time unchanged over
// Options.WarmupQuiet and 5 iterations), at most Options.MaxWarmup; it
// calibrates how many passes over the tuples make one sample last
// Options.MinSampleTime, and reports Options.SamplesPerFork samples of wall
// and thread CPU time, allocation and GC count on a line protocol (see
// fork.go). Failures (exceptions, System.exit, timeouts, out of memory,
// crashes) become *WorkloadError values that point at the user's source line.
//
// Build inputs (Compile): a perfls.json in the project root may name the
// classpath and source roots (see ConfigFile); Maven's and Gradle's class
// directories are used as they are when fresh, else perfls compiles with javac
// into its cache, incrementally.
//
// The quick phase (Worker) runs a request in an already-running JVM, in a
// fresh class loader, for a preliminary figure; Summarize condenses forks
// into per-operation figures with a confidence interval over fork means.
package measure

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/diskfull"
)

// DefaultForks is the number of JVMs per request unless told otherwise.
// Fork means of one method differ by about 1.6 % (JIT decisions differ per
// JVM), so the fork count bounds how well two measurements agree: with 5,
// their medians differ by about 0.8 % (bench stability). The verdicts test
// fork means, so forks, not samples, decide how small a difference shows.
const DefaultForks = 5

// DefaultMaxWarmup caps a fork's warm-up. Most code settles within a
// second; code that allocates fast on a heap the collector keeps growing
// (G1 at its default sizes) took 6–7 s on a VM whose first touch of a page
// is expensive (String#toCharArray on 500 chars, docs/measurement.md).
const DefaultMaxWarmup = 10 * time.Second

// Options control a measurement. Zero values mean the defaults.
type Options struct {
	Forks          int           // JVMs per request; default DefaultForks
	SamplesPerFork int           // default 30
	Warmup         time.Duration // minimum warm-up wall time per fork; default 300ms
	// MaxWarmup caps warm-up; default DefaultMaxWarmup. Between Warmup and MaxWarmup,
	// warm-up ends once JIT compilation has settled: the JVM's total
	// compilation time unchanged over the last WarmupQuiet and the last 5
	// warm-up iterations (see JitWatch.java).
	MaxWarmup     time.Duration
	WarmupQuiet   time.Duration // default 100ms
	MinSampleTime time.Duration // passes are batched so a sample lasts at least this; default 1ms
	ForkTimeout   time.Duration // per fork, JVM start to exit; default 60s
	// HeapMB fixes the heap (-Xms and -Xmx) when > 0; 0 leaves the JVM's
	// default heap, as users run it.
	HeapMB  int
	JVMArgs []string // extra JVM options, after perfls's own (a collector chosen here replaces the JVM's default)
	Java    string   // java executable; "" = the JDK that compiles
	// CPUs pins each fork's measuring thread to these processors (a list
	// as ParseCPUs reads it, e.g. "0" or "2-3"; Linux only); "" leaves it
	// to the scheduler. Processors can differ in speed (pin.go), so it is
	// part of the JVM's identity: a pinned result answers only pinned runs.
	CPUs string `json:",omitempty"`
	// Profile makes every fork a profiled fork: JVMArgs must hold
	// ProfileJVMArgs; the harness marks each sample as an iteration of the
	// recording, retakes none, and reduces the recording after the last
	// one (Fork.Profile). Its figures never feed a verdict.
	Profile bool `json:",omitempty"`
	// Count makes every fork a counting fork: the classes are an
	// instrumented copy (CountCalls), the harness reads the invocation
	// counters around each sample and retakes none. Its timings are never
	// used.
	Count bool `json:",omitempty"`
	// Release and JavacArgs compile the project for an older Java release
	// and with extra javac flags (--release, --javac-arg), after
	// perfls.json's "release" and "javacArgs" (Project.ApplyOptions).
	Release   int      `json:",omitempty"`
	JavacArgs []string `json:",omitempty"`
	// RampRounds, with Profile, runs that many rounds of the ramp test's
	// paired control after the recorded samples (RampControl.java,
	// profile.Summary.Ramp); 0 or less runs none.
	RampRounds int `json:",omitempty"`
}

// Fill returns o with its zero SamplesPerFork, MinSampleTime, Warmup,
// MaxWarmup (no shorter than Warmup), ForkTimeout and RampRounds taken from def: the
// defaults of a special fork (profiled, counting) rather than a timing
// fork's.
func (o Options) Fill(def Options) Options {
	if o.SamplesPerFork <= 0 {
		o.SamplesPerFork = def.SamplesPerFork
	}
	if o.MinSampleTime <= 0 {
		o.MinSampleTime = def.MinSampleTime
	}
	if o.Warmup <= 0 {
		o.Warmup = def.Warmup
	}
	if o.MaxWarmup <= 0 {
		o.MaxWarmup = max(def.MaxWarmup, o.Warmup)
	}
	if o.ForkTimeout <= 0 {
		o.ForkTimeout = def.ForkTimeout
	}
	if o.RampRounds == 0 {
		o.RampRounds = def.RampRounds
	}
	return o
}

// Defaults returns o with zero fields set to their defaults.
func (o Options) Defaults() Options {
	if o.Forks <= 0 {
		o.Forks = DefaultForks
	}
	if o.SamplesPerFork <= 0 {
		o.SamplesPerFork = 30
	}
	if o.Warmup <= 0 {
		o.Warmup = 300 * time.Millisecond
	}
	if o.MaxWarmup <= 0 {
		o.MaxWarmup = DefaultMaxWarmup
	}
	if o.MaxWarmup < o.Warmup {
		o.MaxWarmup = o.Warmup
	}
	if o.WarmupQuiet <= 0 {
		o.WarmupQuiet = 100 * time.Millisecond
	}
	if o.MinSampleTime <= 0 {
		o.MinSampleTime = time.Millisecond
	}
	if o.ForkTimeout <= 0 {
		o.ForkTimeout = 60 * time.Second
	}
	if o.HeapMB < 0 {
		o.HeapMB = 0
	}
	return o
}

// Event reports progress: a fork about to start (Done false) or finished.
// Fork is 1-based; Fork 0 with Done reports a request that failed before any
// fork ran.
type Event struct {
	Request measured.Request
	Fork    int
	Of      int
	Done    bool
	Err     error
	// Result is the finished fork's data when Done and the fork succeeded:
	// the partial result a waiter can show before the others finish.
	Result *measured.Fork
}

// Measure measures the requests: opt.Forks forks each, round-robin across
// requests (fork 1 of every request, then fork 2, ...), one JVM at a time.
// Duplicate requests (same Key) are measured once and share the result.
// Results are in the order of reqs. The error is non-nil only when the
// measurement as a whole failed or ctx ended (then it is ctx.Err(), and the
// results hold what was measured so far).
func Measure(ctx context.Context, b *Build, reqs []measured.Request, opt Options, progress func(Event)) ([]measured.Result, error) {
	opt = opt.Defaults()
	if progress == nil {
		progress = func(Event) {}
	}
	if b == nil {
		return nil, errors.New("measure: no build")
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	j, err := findJDK(ctx)
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	java := opt.Java
	if java == "" {
		java = j.java
	}

	dist, of := distinct(reqs)
	res := make([]measured.Result, len(dist))
	for i, r := range dist {
		res[i].Request = r
	}
	assemble := func() []measured.Result {
		out := make([]measured.Result, len(reqs))
		for i, d := range of {
			out[i] = res[d]
			out[i].Request = reqs[i]
		}
		return out
	}

	classpath, err := runtimeClasspath(ctx, j, b)
	if err != nil {
		if ctx.Err() != nil {
			return assemble(), ctx.Err()
		}
		return nil, fmt.Errorf("measure: %w", err)
	}
	hs, err := prepareHarnesses(ctx, j, j.releaseFor(java), b, classpath, dist)
	if err != nil {
		if ctx.Err() != nil {
			return assemble(), ctx.Err()
		}
		return nil, fmt.Errorf("measure: %w", err)
	}
	defer hs.cleanup()
	for i, e := range hs.errs {
		if e != nil {
			res[i].Err = e
			progress(Event{Request: dist[i], Of: opt.Forks, Done: true, Err: e})
		}
	}

	for f := 1; f <= opt.Forks; f++ {
		for i := range dist {
			if res[i].Err != nil {
				continue
			}
			if ctx.Err() != nil {
				return assemble(), ctx.Err()
			}
			progress(Event{Request: dist[i], Fork: f, Of: opt.Forks})
			cp := strings.Join(append(append([]string{hs.classes[i]}, b.runFirst...), classpath...), string(os.PathListSeparator))
			args := append(jvmArgs(opt, cp, hs.mains[i], hs.crashDir), hs.args[i]...)
			fork, env, err := measureFork(ctx, java, args, opt, b.SourceRoots, b.onCounts)
			if ctx.Err() != nil {
				return assemble(), ctx.Err()
			}
			progress(addFork(&res[i], f, opt.Forks, fork, env, err))
		}
	}
	return assemble(), nil
}

// addFork records fork f of n (or its error) in r and returns the event
// that reports it.
func addFork(r *measured.Result, f, n int, fork measured.Fork, env measured.Environment, err error) Event {
	if err != nil {
		r.Err = fmt.Errorf("measure %s (fork %d of %d): %w", r.Request.Key(), f, n, err)
	} else {
		r.Forks = append(r.Forks, fork)
		if f == 1 || r.Env.JavaVersion == "" {
			r.Env = env
		}
	}
	ev := Event{Request: r.Request, Fork: f, Of: n, Done: true, Err: r.Err}
	if err == nil {
		ev.Result = &r.Forks[len(r.Forks)-1]
	}
	return ev
}

// distinct returns the distinct requests of reqs (by Key, in first-use
// order) and, for each request, the index of its distinct one.
func distinct(reqs []measured.Request) (dist []measured.Request, of []int) {
	index := map[string]int{}
	for _, r := range reqs {
		k := r.Key()
		i, ok := index[k]
		if !ok {
			i = len(dist)
			index[k] = i
			dist = append(dist, r)
		}
		of = append(of, i)
	}
	return dist, of
}

// jvmArgs builds a fork's command line (after the java executable). Crash
// logs (hs_err) go to crashDir rather than the working directory.
func jvmArgs(opt Options, cp, main, crashDir string) []string {
	// The JVM as users run it: its default collector (G1 on a server-class
	// machine) and heap, unless the options ask for others. Forcing a
	// collector or a heap made figures disagree with JMH at its defaults.
	var args []string
	if opt.HeapMB > 0 {
		args = append(args, fmt.Sprintf("-Xms%dm", opt.HeapMB), fmt.Sprintf("-Xmx%dm", opt.HeapMB))
	}
	if crashDir != "" {
		args = append(args, "-XX:ErrorFile="+filepath.Join(crashDir, "hs_err_pid%p.log"))
	}
	args = append(args, opt.JVMArgs...)
	args = append(args, "-cp", cp, main)
	return append(args, harnessOptions(opt)...)
}

// harnessOptions are the harness's program arguments (see Options.java).
func harnessOptions(opt Options) []string {
	args := []string{
		"warmup=" + strconv.FormatInt(int64(opt.Warmup), 10),
		"maxwarmup=" + strconv.FormatInt(int64(opt.MaxWarmup), 10),
		"quiet=" + strconv.FormatInt(int64(opt.WarmupQuiet), 10),
		"samples=" + strconv.Itoa(opt.SamplesPerFork),
		"minsample=" + strconv.FormatInt(int64(opt.MinSampleTime), 10),
	}
	if opt.Profile {
		args = append(args, "profile=1")
		if opt.RampRounds > 0 {
			args = append(args, "ramp="+strconv.Itoa(opt.RampRounds))
		}
	}
	if opt.Count {
		args = append(args, "count=1")
	}
	return args
}

// measureFork runs one fork; a counting fork's counters go to onCounts.
func measureFork(ctx context.Context, java string, args []string, opt Options, roots []string, onCounts func(*forkCounts)) (measured.Fork, measured.Environment, error) {
	var pin []int
	var err error
	if opt.CPUs != "" {
		if pin, err = CheckCPUs(opt.CPUs); err != nil {
			return measured.Fork{}, measured.Environment{}, err
		}
	}
	run, err := runJVM(ctx, java, args, opt.ForkTimeout, opt.SamplesPerFork, pin)
	if err != nil {
		return measured.Fork{}, measured.Environment{}, err
	}
	if pin != nil && !run.proto.pinned {
		why := run.proto.pinErr
		if why == nil {
			why = fmt.Errorf("the fork (pid %d) did not name its measuring thread (it needs /proc/thread-self, Linux 3.17 or later)", run.pid)
		}
		return measured.Fork{}, measured.Environment{}, fmt.Errorf("processors %s: %w", FormatCPUs(pin), why)
	}
	fork, err := interpret(run, opt, roots)
	if err != nil {
		return measured.Fork{}, measured.Environment{}, err
	}
	if len(fork.NsPerOp) != opt.SamplesPerFork {
		return measured.Fork{}, measured.Environment{}, &measured.WorkloadError{Kind: measured.KindProtocol, PID: run.pid, Stderr: run.stderr,
			Message: fmt.Sprintf("the fork reported %d samples, expected %d", len(fork.NsPerOp), opt.SamplesPerFork)}
	}
	if opt.Count {
		if run.proto.counts == nil {
			return measured.Fork{}, measured.Environment{}, fmt.Errorf("counting fork (pid %d): no counts in its output", run.pid)
		}
		if onCounts != nil {
			onCounts(run.proto.counts)
		}
	}
	if opt.Profile {
		if fork.Profile, err = run.proto.profile.Summary(); err != nil {
			return measured.Fork{}, measured.Environment{}, fmt.Errorf("profiled fork (pid %d): %w", run.pid, err)
		}
	}
	return fork, environmentOf(run.proto), nil
}

// harnessSet is the compiled harnesses of one Measure call.
type harnessSet struct {
	classes  []string   // per request: its harness's class directory ("" when errs[i] != nil)
	mains    []string   // per request: main class ("" when errs[i] != nil)
	args     [][]string // per request: the program arguments carrying its Args
	errs     []error    // per request
	tmp      string     // removed by cleanup
	crashDir string     // for JVM crash logs
}

func (h *harnessSet) cleanup() {
	if h.tmp != "" {
		os.RemoveAll(h.tmp)
	}
}

// cacheRoot is where perfls keeps generated files for b: b.CacheDir, which
// Compile sets (the cache directory is passed in, never looked up here).
func cacheRoot(b *Build) (string, error) {
	if b.CacheDir == "" {
		return "", errors.New("measure: the build has no cache directory (Build.CacheDir)")
	}
	return filepath.Abs(b.CacheDir)
}

// runtimeClasspath is the classpath of resolver and harness JVMs: perfls's
// library first (so that no other copy of its internal classes on the
// project's classpath can shadow it), then the build's classpath.
func runtimeClasspath(ctx context.Context, j *jdk, b *Build) ([]string, error) {
	root, err := cacheRoot(b)
	if err != nil {
		return nil, err
	}
	lib, err := compileLibrary(ctx, j, root)
	if err != nil {
		return nil, err
	}
	cp := []string{lib}
	for _, c := range b.Classpath {
		if c != lib {
			cp = append(cp, c)
		}
	}
	return cp, nil
}

// harnessJavacRuns counts the javac runs of prepareHarnesses, and
// harnessJavacUnits the harness classes they were given, so that tests can
// tell a cache hit from a compilation, and what was compiled.
var harnessJavacRuns, harnessJavacUnits atomic.Int64

// harnessUnit is one generated harness class, shared by the requests that
// differ only in their arguments.
type harnessUnit struct {
	reqs      []int  // the requests this class measures
	key       string // hex hash of everything its bytes depend on; names its cache directory
	name      string // simple class name
	main, rel string // binary class name; source path relative to the source root
	src       string
	classes   string // class directory once compiled
}

// prepareHarnesses generates the harnesses of reqs, one class per distinct
// harness source, and compiles those not in the cache with one javac call.
// Each class is cached on its own, under <cache>/harness/<key>/classes, so a
// later Measure of any subset (or superset) of these requests compiles only
// what it has not seen; as the sources hold no argument values, a new value
// finds its class already compiled. A harness that does not compile fails
// only its requests: the others are compiled again without it. release is
// the Java release to compile for (jdk.releaseFor), 0 for javac's own.
func prepareHarnesses(ctx context.Context, j *jdk, release int, b *Build, classpath []string, reqs []measured.Request) (_ *harnessSet, err error) {
	root, err := cacheRoot(b)
	if err != nil {
		return nil, err
	}
	defer func() { err = diskfull.Explain(root, err) }()
	hs := &harnessSet{classes: make([]string, len(reqs)), mains: make([]string, len(reqs)),
		args: make([][]string, len(reqs)), errs: make([]error, len(reqs))}
	if err := os.MkdirAll(filepath.Join(root, "crash"), 0o755); err == nil {
		hs.crashDir = filepath.Join(root, "crash")
	}
	hdir := filepath.Join(root, "harness")
	var units []*harnessUnit
	byKey := map[string]*harnessUnit{}
	for i, r := range reqs {
		pkg := harnessPackage(b, r)
		shape, argv, err := harnessSource(pkg, "PerflsHarness", r)
		if err != nil {
			hs.errs[i] = fmt.Errorf("measure %s: %w", r.Key(), err)
			continue
		}
		hs.args[i] = argv
		// The class's bytes depend on javac, the classpath it compiles
		// against, its package and its source; the source is its shape
		// with the class name, which is derived from this key.
		h := sha256.New()
		fmt.Fprintf(h, "perfls-harness-v2\njavac %s\nrelease %d\ncp %s\npkg %s\n%d\n%s", j.version, release, strings.Join(classpath, "\x00"), pkg, len(shape), shape)
		key := hex.EncodeToString(h.Sum(nil))[:16]
		u := byKey[key]
		if u == nil {
			name := "PerflsHarness_" + key
			src, _, err := harnessSource(pkg, name, r)
			if err != nil { // cannot happen: the same request generated above
				hs.errs[i] = fmt.Errorf("measure %s: %w", r.Key(), err)
				continue
			}
			main, rel := name, name+".java"
			if pkg != "" {
				main = pkg + "." + name
				rel = strings.ReplaceAll(pkg, ".", "/") + "/" + rel
			}
			u = &harnessUnit{key: key, name: name, main: main, rel: rel, src: src}
			if done := filepath.Join(hdir, key, ".complete"); fileExists(done) {
				u.classes = filepath.Join(hdir, key, "classes")
				touch(done) // PruneFiles keeps what is used
			}
			units = append(units, u)
			byKey[key] = u
		}
		u.reqs = append(u.reqs, i)
	}
	var missing []*harnessUnit
	for _, u := range units {
		if u.classes == "" {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		if err := compileHarnesses(ctx, j, release, hdir, classpath, missing, hs, reqs); err != nil {
			return nil, err
		}
	}
	for _, u := range units {
		if u.classes == "" {
			continue // failed: its requests have their errors
		}
		for _, i := range u.reqs {
			hs.classes[i], hs.mains[i] = u.classes, u.main
		}
	}
	return hs, nil
}

// compileHarnesses compiles units with one javac call (two when some do not
// compile), stores each compiled unit in its cache directory and sets its
// classes; a unit that does not compile gets errors for its requests
// instead, in hs.errs.
func compileHarnesses(ctx context.Context, j *jdk, release int, hdir string, classpath []string, units []*harnessUnit, hs *harnessSet, reqs []measured.Request) error {
	if err := os.MkdirAll(hdir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(hdir, "tmp-")
	if err != nil {
		return err
	}
	hs.tmp = tmp
	files, srcs, err := writeHarnessSources(tmp, units)
	if err != nil {
		return err
	}
	fail := func(u *harnessUnit, err func(key string) error) {
		for _, i := range u.reqs {
			hs.errs[i] = err(reqs[i].Key())
		}
	}
	for attempt := 0; ; attempt++ {
		out := filepath.Join(tmp, "classes"+strconv.Itoa(attempt))
		harnessJavacRuns.Add(1)
		harnessJavacUnits.Add(int64(len(srcs)))
		err := javac(ctx, j, out, classpath, srcs, release)
		if err == nil {
			for _, p := range srcs {
				u := files[p]
				dir, err := storeHarness(tmp, hdir, out, p, u)
				if err != nil {
					return fmt.Errorf("store the compiled harness %s: %w", u.main, err)
				}
				u.classes = dir
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ce *CompileError
		if !errors.As(err, &ce) {
			return err
		}
		// Attribute the errors to harnesses and drop those.
		byUnit := map[*harnessUnit][]string{}
		for _, m := range ce.Messages {
			if u, ok := files[m.File]; ok && m.Severity == "error" {
				byUnit[u] = append(byUnit[u], m.Message)
			}
		}
		if len(byUnit) == 0 || attempt > 0 {
			for _, p := range srcs {
				fail(files[p], func(key string) error {
					return fmt.Errorf("measure %s: compile the generated harness: %w", key, ce)
				})
			}
			return nil
		}
		var keep []string
		for _, p := range srcs {
			if msgs, bad := byUnit[files[p]]; bad {
				fail(files[p], func(key string) error {
					return fmt.Errorf("measure %s: the generated harness does not compile: %s", key, strings.Join(msgs, "; "))
				})
				continue
			}
			keep = append(keep, p)
		}
		if len(keep) == 0 {
			return nil
		}
		srcs = keep
	}
}

// writeHarnessSources writes the units' sources below tmp/src and returns
// them by path, and the paths in order.
func writeHarnessSources(tmp string, units []*harnessUnit) (map[string]*harnessUnit, []string, error) {
	files := map[string]*harnessUnit{} // source path → unit
	var srcs []string
	for _, u := range units {
		p := filepath.Join(tmp, "src", filepath.FromSlash(u.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(p, []byte(u.src), 0o644); err != nil {
			return nil, nil, err
		}
		files[p] = u
		srcs = append(srcs, p)
	}
	return files, srcs, nil
}

// storeHarness moves u's class files (Name.class and Name$*.class: nested and
// synthetic classes) from javac's output out, and its source src, into a
// directory of its own under tmp, marks it complete and renames it to
// <hdir>/<key>, atomically, so that another process sees either nothing or the
// whole class. It returns the class directory to run with: the cached one, or,
// when the rename fails and no complete copy is there, the one under tmp
// (removed with it).
func storeHarness(tmp, hdir, out, src string, u *harnessUnit) (string, error) {
	pkgDir := filepath.Dir(filepath.FromSlash(u.rel))
	unit := filepath.Join(tmp, "unit-"+u.key)
	classes := filepath.Join(unit, "classes", pkgDir)
	if err := os.MkdirAll(classes, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(filepath.Join(out, pkgDir))
	if err != nil {
		return "", err
	}
	found := false
	for _, e := range entries {
		n := e.Name()
		if n != u.name+".class" && !(strings.HasPrefix(n, u.name+"$") && strings.HasSuffix(n, ".class")) {
			continue
		}
		if err := os.Rename(filepath.Join(out, pkgDir, n), filepath.Join(classes, n)); err != nil {
			return "", err
		}
		found = found || n == u.name+".class"
	}
	if !found {
		return "", fmt.Errorf("javac wrote no %s.class", u.name)
	}
	// The source is kept next to the classes for a reader of the cache.
	if err := os.MkdirAll(filepath.Join(unit, "src", pkgDir), 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(src, filepath.Join(unit, "src", filepath.FromSlash(u.rel))); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(unit, ".complete"), nil, 0o644); err != nil {
		return "", err
	}
	dir := filepath.Join(hdir, u.key)
	if os.Rename(unit, dir) == nil {
		return filepath.Join(dir, "classes"), nil
	}
	// Another process stored it first (the rename fails on a non-empty
	// directory): use that copy, identical to ours.
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return filepath.Join(dir, "classes"), nil
	}
	return filepath.Join(unit, "classes"), nil
}
