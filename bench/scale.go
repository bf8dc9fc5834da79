package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure"
)

// scaleBench prints issue 39's figures for a team's history at scale: it
// fills a store (SQLite, or PostgreSQL with -pg) with -results results over
// -series series (methods × 10 workloads) along the first-parent line of a
// generated git repository of -commits commits, each result -forks forks of
// -samples samples of every per-sample figure the harness records, 2 % of
// the series with a +20 % step; then times perfls regressions over every
// series (engine.Regressions, as the command runs it) and the editor's
// "slower since" hover (the watch's first look at one method, a later look,
// a look that finds one new result), with the store's size on disk and the
// process's peak resident memory of each phase. -work DIR keeps the store
// and the repository there and reuses them when filled already.
func scaleBench(args []string) error {
	fl := flag.NewFlagSet("scale", flag.ExitOnError)
	results := fl.Int("results", 1_000_000, "results to store")
	series := fl.Int("series", 10_000, "series (methods × 10 workloads)")
	commits := fl.Int("commits", 100, "commits on the generated repository's line")
	forks := fl.Int("forks", 3, "forks per result")
	samples := fl.Int("samples", 10, "samples per fork")
	batch := fl.Int("batch", 2000, "results per transaction while filling")
	work := fl.String("work", "", "keep the store and the repository in this directory, and reuse them when they are there (default: a temporary directory, removed)")
	profile := fl.String("cpuprofile", "", "write a CPU profile of the fill and regressions phases to FILE.fill and FILE.regressions")
	before := fl.Bool("before", true, "also time the store reads regressions and the hover made before schema 11 (List, MeasurementsOf, MeasurementsOfAfter), for comparison")
	pg := fl.Bool("pg", false, "a PostgreSQL store ($PERFLS_STORE when set, else a throwaway server started here) instead of SQLite")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *series%10 != 0 || *series <= 0 || *results < *series || *commits < 2 {
		return fmt.Errorf("scale: -series must be a positive multiple of 10 (methods × 10 workloads), -results at least -series, -commits at least 2")
	}
	ctx := context.Background()
	dir := *work
	if dir == "" {
		tmp, err := os.MkdirTemp("", "perfls-scale-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	repo, cacheDir := filepath.Join(dir, "repo"), filepath.Join(dir, "cache")
	hashes, err := scaleRepo(ctx, repo, *commits)
	if err != nil {
		return err
	}
	spec := ""
	if *pg {
		url, stop, err := sharedStore(ctx)
		if err != nil {
			return err
		}
		defer stop()
		spec = url
	}
	resetPeak()
	start := time.Now()
	store, _, err := cache.Open(ctx, spec, cacheDir)
	if err != nil {
		return err
	}
	fmt.Printf("== scale: %d results over %d series (%d methods × 10 workloads), %d commits, %d forks × %d samples a result; store %s\n",
		*results, *series, *series/10, *commits, *forks, *samples, store.Path())
	fmt.Printf("open (and migrate): %.2f s\n", time.Since(start).Seconds())
	g := scaleGen{series: *series, commits: hashes, forks: *forks, samples: *samples, machine: measure.MachineIdentity(), envs: map[int]json.RawMessage{}}
	last, err := store.Summaries(ctx, "", math.MaxInt64, func(*cache.Summary) error { return nil })
	if err != nil {
		return err
	}
	have := int(last)
	if err := scaleFill(ctx, store, g, have, *results, *batch, *profile, cacheDir); err != nil {
		return err
	}
	size, err := storeSize(ctx, store, cacheDir, *pg)
	if err != nil {
		return err
	}
	fmt.Printf("store size on disk: %.0f MB (%.0f bytes a result)\n", float64(size)/1e6, float64(size)/float64(max(have, *results)))
	store.Close()

	// Every perfls command opens the store: the file changed since this
	// process checked it, so this open checks it as a new process would.
	start = time.Now()
	eng, err := engine.Open(ctx, engine.Config{CacheDir: cacheDir, Service: engine.InProcess, Store: spec})
	if err != nil {
		return err
	}
	defer eng.Close()
	if _, err := eng.Store(); err != nil {
		return err
	}
	fmt.Printf("open as a command does: %.2f s\n", time.Since(start).Seconds())
	if err := scaleRegressions(ctx, eng, repo, g, *series, *profile); err != nil {
		return err
	}
	store, err = eng.Store()
	if err != nil {
		return err
	}
	return scaleHover(ctx, store, repo, g, hashes, *results, *before)
}

// scaleFill stores results of g in transactions of batch, unless the store
// holds have results already, and prints the rate and peak memory.
func scaleFill(ctx context.Context, store *cache.Store, g scaleGen, have, results, batch int, profile, cacheDir string) error {
	if have == 0 {
		stop := cpuProfile(profile, "fill")
		defer stop()
		start := time.Now()
		for i := 0; i < results; i += batch {
			ms := make([]*cache.Measurement, 0, batch)
			for j := i; j < min(i+batch, results); j++ {
				ms = append(ms, g.result(j, results))
			}
			if err := store.PutAll(ctx, ms); err != nil {
				return err
			}
			if i > 0 && i%(100*(batch)) == 0 {
				fmt.Printf("  %d results, %.0f s\n", i, time.Since(start).Seconds())
			}
		}
		took := time.Since(start)
		stop()
		fmt.Printf("fill: %d results in %.1f s (%.0f results/s), peak RSS %s\n", results, took.Seconds(), float64(results)/took.Seconds(), peakRSS())
	} else {
		fmt.Printf("fill: reusing the %d results in %s\n", have, cacheDir)
	}
	return nil
}

// scaleRegressions times perfls regressions over every series.
func scaleRegressions(ctx context.Context, eng *engine.Engine, repo string, g scaleGen, series int, profile string) error {
	resetPeak()
	stop := cpuProfile(profile, "regressions")
	defer stop()
	cpu := cpuTime()
	start := time.Now()
	res, err := eng.Regressions(ctx, engine.RegressionsRequest{Dir: repo})
	if err != nil {
		return err
	}
	stop()
	slower := 0
	for _, c := range res.Changes {
		if c.Slower {
			slower++
		}
	}
	fmt.Printf("regressions (every series): %.2f s (target ≤ 10 s; CPU time %.2f s, load average %s), peak RSS %s; %d results placed, %d series, %d change points (%d slower); %d of %d series with a step\n",
		time.Since(start).Seconds(), (cpuTime() - cpu).Seconds(), strings.Fields(loadAverage())[0], peakRSS(), res.Results, res.Series, len(res.Changes), slower, len(g.stepped()), series)

	return nil
}

// scaleHover times the editor's "slower since" hover on one method: the
// watch's first look, later looks, and looks that find one new result.
func scaleHover(ctx context.Context, store *cache.Store, repo string, g scaleGen, hashes []string, results int, before bool) error {
	hovered := g.method(0)
	// The first look builds the method's detectors: the median of five
	// watches' (git runs in each: the machine's load shows).
	var w *engine.RegressionWatch
	var c *report.RegressionChange
	var firsts []time.Duration
	resetPeak()
	for range 5 {
		w = engine.NewRegressionWatch(store)
		w.Every = 0
		start := time.Now()
		var err error
		if c, err = w.SlowerSince(ctx, repo, hovered); err != nil {
			return err
		}
		firsts = append(firsts, time.Since(start))
	}
	first := medianDuration(firsts)
	if c == nil || c.Commit != hashes[g.stepAt(0)] {
		return fmt.Errorf("hover: slower since %+v; want the step at commit %d", c, g.stepAt(0))
	}
	var later, oneNew []time.Duration
	for range 20 {
		start := time.Now()
		if _, err := w.SlowerSince(ctx, repo, hovered); err != nil {
			return err
		}
		later = append(later, time.Since(start))
	}
	for range 5 {
		m := g.result((len(hashes)-1)*g.series, results) // the hovered method's first workload at the last commit, again
		if err := store.Put(ctx, m); err != nil {
			return err
		}
		start := time.Now()
		if _, err := w.SlowerSince(ctx, repo, hovered); err != nil {
			return err
		}
		oneNew = append(oneNew, time.Since(start))
	}
	if before {
		if err := scaleBefore(ctx, store, g, hovered); err != nil {
			return err
		}
	}
	fmt.Printf("hover %s (%d results): first look median %.1f ms, later look median %.2f ms, a look finding one new result median %.2f ms (target ≤ 50 ms); slower since commit %d (%+.0f %%), peak RSS %s\n",
		hovered, results/(g.series)*10, millis(first), millis(medianDuration(later)), millis(medianDuration(oneNew)), g.stepAt(0), 100*c.Magnitude, peakRSS())
	return nil
}

func millis(d time.Duration) float64 { return float64(d) / 1e6 }

func medianDuration(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// scaleGen generates the results: result i is of series i % series at
// commit (i / series) % commits, so that a history grows commit by commit
// with every series measured at each.
type scaleGen struct {
	series         int
	commits        []string
	forks, samples int
	machine        string
	envs           map[int]json.RawMessage
}

func (g *scaleGen) method(m int) string {
	return fmt.Sprintf("com.acme.p%d.Service%d#op%d(int[],int)", m%17, m, m%7)
}

// stepAt is where series s steps up by 20 %, 0 for none: method 0's
// workloads (the hovered method) and one series in 50.
func (g *scaleGen) stepAt(s int) int {
	n := len(g.commits)
	switch {
	case s < 10:
		return n * 3 / 5
	case s%50 == 7:
		return n/5 + (s*7919)%(n*3/5)
	}
	return 0
}

func (g *scaleGen) stepped() []int {
	var out []int
	for s := range g.series {
		if g.stepAt(s) > 0 {
			out = append(out, s)
		}
	}
	return out
}

func (g *scaleGen) env(c int) json.RawMessage {
	if g.envs == nil {
		g.envs = map[int]json.RawMessage{}
	}
	if e, ok := g.envs[c]; ok {
		return e
	}
	e, _ := json.Marshal(measured.Environment{JavaVersion: "17.0.13", JavaVendor: "Eclipse Adoptium", VMName: "OpenJDK 64-Bit Server VM", VMVersion: "17.0.13+11",
		JVMArgs: []string{"-Xms512m", "-Xmx512m", "-XX:+UseG1GC", "-Dperfls.harness=4", "-XX:-BackgroundCompilation"}, OS: "Linux", Arch: "amd64",
		CPUModel: "Intel(R) Xeon(R) Processor @ 2.40GHz", Cores: 2, GC: "G1 Young Generation, G1 Old Generation", MaxHeapMB: 512, MemoryMB: 23000,
		Perfls: "0.39.0", Commit: g.commits[c]})
	g.envs[c] = e
	return e
}

func (g *scaleGen) result(i, total int) *cache.Measurement {
	s, c := i%g.series, (i/g.series)%len(g.commits)
	rng := rand.New(rand.NewPCG(uint64(i), uint64(total)))
	level := 100 * math.Pow(1.05, float64(s%97))
	if at := g.stepAt(s); at > 0 && c >= at {
		level *= 1.2
	}
	alloc := float64(24 * (1 + s%40))
	m := &cache.Measurement{Key: cache.Key{Method: g.method(s / 10), Workload: fmt.Sprintf("com.acme.p%d.Gen#w%d(int)", (s/10)%17, s%10), Args: strconv.Itoa(1000 * (1 + s%10)),
		Code: fmt.Sprintf("%016x", uint64(s)*1_000_003+uint64(c)), JVM: "/usr/lib/jvm/java-17 (52428800, 2024-10-16) -Xmx512m", Harness: "harness 4", Machine: g.machine},
		Environment: g.env(c), CreatedAt: time.Unix(1_700_000_000+int64(i), 0), Commit: g.commits[c]}
	for f := range g.forks {
		fork := cache.Fork{Warmup: 2 * time.Second, WarmupSettled: 1, Ops: 100_000}
		shift := 1 + 0.01*rng.NormFloat64() // forks differ a little
		for range g.samples {
			x := level * shift * (1 + 0.02*rng.NormFloat64())
			fork.NsPerOp = append(fork.NsPerOp, x)
			fork.CPUNsPerOp = append(fork.CPUNsPerOp, 0.98*x)
			fork.ProcCPUNsPerOp = append(fork.ProcCPUNsPerOp, 1.05*x)
			fork.AllocBytesPerOp = append(fork.AllocBytesPerOp, alloc)
			fork.GCs = append(fork.GCs, int64(rng.IntN(3)))
			fork.GCMs = append(fork.GCMs, 2*rng.Float64())
			fork.HeapUsed = append(fork.HeapUsed, 1e8+1e7*rng.Float64())
			fork.JITMs = append(fork.JITMs, 800+float64(f))
			fork.Classes = append(fork.Classes, 2100)
			fork.Processors = append(fork.Processors, int64(rng.IntN(2)))
		}
		m.Forks = append(m.Forks, fork)
	}
	return m
}

// scaleRepo makes (or finds) a repository of n empty commits in dir and
// returns their hashes, oldest first.
func scaleRepo(ctx context.Context, dir string, n int) ([]string, error) {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench",
			"GIT_COMMITTER_EMAIL=bench@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, ee.Stderr)
			}
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if _, err := git("init", "-q", "-b", "main"); err != nil {
			return nil, err
		}
		for i := range n {
			if _, err := git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("commit %d", i)); err != nil {
				return nil, err
			}
		}
	}
	out, err := git("rev-list", "--first-parent", "--reverse", "HEAD")
	if err != nil {
		return nil, err
	}
	hashes := strings.Fields(out)
	if len(hashes) != n {
		return nil, fmt.Errorf("%s has %d commits, not %d: use another -work directory", dir, len(hashes), n)
	}
	return hashes, nil
}

// storeSize is the store's size on disk: the SQLite files' allocated
// blocks, or the PostgreSQL database's size.
func storeSize(ctx context.Context, store *cache.Store, dir string, pg bool) (int64, error) {
	if pg {
		return store.Size(ctx)
	}
	var total int64
	files, _ := filepath.Glob(filepath.Join(dir, "perfls.db*"))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return 0, err
		}
		total += fi.Size()
	}
	return total, nil
}

// resetPeak resets the process's peak resident set size (Linux: write 5
// to clear_refs), so that peakRSS reports the phase that follows.
func resetPeak() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident set size (VmHWM), "?" where
// unknown.
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return fmt.Sprintf("%.0f MB", float64(kb)/1024)
		}
	}
	return "?"
}

// cpuProfile starts a CPU profile written to file.phase ("" none) and
// returns what stops it, safe to call twice.
func cpuProfile(file, phase string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file + "." + phase)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench scale:", err)
		return func() {}
	}
	pprof.StartCPUProfile(f)
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}
}

// scaleBefore times the store reads that perfls regressions and the hover
// made before the fork means were stored (schema 11): every result loaded
// with its samples, one query each, after a listing of the whole store to
// find the methods; and the hover's query by method, which no index served.
func scaleBefore(ctx context.Context, store *cache.Store, g scaleGen, hovered string) error {
	start := time.Now()
	entries, err := store.List(ctx)
	if err != nil {
		return err
	}
	list := time.Since(start)
	const methods = 10
	start = time.Now()
	n := 0
	for m := range methods {
		ms, err := store.MeasurementsOf(ctx, g.method(m))
		if err != nil {
			return err
		}
		n += len(ms)
	}
	per := time.Since(start) / time.Duration(n)
	start = time.Now()
	ms, last, err := store.MeasurementsOfAfter(ctx, hovered, 0, nil)
	if err != nil {
		return err
	}
	first := time.Since(start)
	start = time.Now()
	if _, _, err := store.MeasurementsOfAfter(ctx, hovered, last, nil); err != nil {
		return err
	}
	later := time.Since(start)
	fmt.Printf("before schema 11, the reads alone: regressions' List of the store %.1f s + MeasurementsOf %.2f ms a result (%d results of %d methods) = %.0f s for the %d results; "+
		"the hover's MeasurementsOfAfter: first look (%d results) %.0f ms, later look %.0f ms\n",
		list.Seconds(), millis(per), n, methods, list.Seconds()+per.Seconds()*float64(len(entries)), len(entries), len(ms), millis(first), millis(later))
	return nil
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
