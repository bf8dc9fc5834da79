package engine

import (
	"context"
	"encoding/json"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/cache"
)

// ensEnv is one environment of the synthetic results: what a JDK 17 run
// with G1 and the default heap, or with the parallel collector and 256 MB,
// records for a method of about 10 µs that allocates 1 KB a call.
type ensEnv struct {
	env              measured.Environment
	jvm              string // the cache key's JVM identity
	wallNs, jitMs    float64
	classes, gcEvery float64
}

var (
	ensG1 = ensEnv{env: measured.Environment{JavaVendor: "Eclipse Adoptium", JavaVersion: "17.0.12", VMVersion: "17.0.12+7", OS: "Linux", Arch: "amd64",
		CPUModel: "AMD EPYC", Cores: 2, MemoryMB: 8192, GC: "G1 Young Generation, G1 Old Generation", MaxHeapMB: 2048},
		jvm: "/usr/bin/java (100 bytes, 2026-01-01T00:00:00Z) default heap", wallNs: 10400, jitMs: 150, classes: 1500, gcEvery: 20}
	ensParallel = ensEnv{env: measured.Environment{JavaVendor: "Eclipse Adoptium", JavaVersion: "17.0.12", VMVersion: "17.0.12+7", OS: "Linux", Arch: "amd64",
		CPUModel: "AMD EPYC", Cores: 2, MemoryMB: 8192, GC: "PS Scavenge, PS MarkSweep", MaxHeapMB: 256},
		jvm: "/usr/bin/java (100 bytes, 2026-01-01T00:00:00Z) -Xmx256m -XX:+UseParallelGC", wallNs: 11100, jitMs: 170, classes: 1480, gcEvery: 8}
)

// ensResult is a stored result of 3 forks × 10 samples in env: wall time
// with 2 % noise, thread CPU just below it, process CPU above, 1,040
// allocated bytes a call, a young collection every gcEvery samples or so,
// the heap filling up between them, JIT time growing, classes constant.
func ensResult(rng *rand.Rand, e ensEnv, args string, at int) *cache.Measurement {
	env, _ := json.Marshal(e.env)
	m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: args, Code: "c1", JVM: e.jvm, Harness: "h1",
		Machine: "AMD EPYC, 2 cores, linux/amd64"}, Environment: env, CreatedAt: time.Unix(int64(at), 0)}
	for range 3 {
		var f cache.Fork
		heap, jit := 4e6+rng.Float64()*4e6, e.jitMs*(0.95+0.1*rng.Float64())
		for range 10 {
			w := e.wallNs * (1 + 0.02*rng.NormFloat64())
			f.NsPerOp = append(f.NsPerOp, w)
			f.CPUNsPerOp = append(f.CPUNsPerOp, w*(0.995+0.002*rng.NormFloat64()))
			f.ProcCPUNsPerOp = append(f.ProcCPUNsPerOp, w*(1.02+0.005*rng.NormFloat64()))
			f.AllocBytesPerOp = append(f.AllocBytesPerOp, 1040+0.3*rng.Float64())
			var gcs int64
			gcMs := 0.0
			heap += 1e5 * 1040 / 1024
			if rng.Float64() < 1/e.gcEvery {
				gcs, gcMs, heap = 1, 1.2+0.4*rng.Float64(), 3e6+rng.Float64()*1e6
			}
			f.GCs, f.GCMs, f.HeapUsed = append(f.GCs, gcs), append(f.GCMs, gcMs), append(f.HeapUsed, heap)
			jit += 0.5 * rng.Float64()
			f.JITMs, f.Classes = append(f.JITMs, jit), append(f.Classes, e.classes)
		}
		f.Ops = 100
		m.Forks = append(m.Forks, f)
	}
	return m
}

// clone copies a stored result for storing again.
func clone(m *cache.Measurement, at int) *cache.Measurement {
	c := *m
	c.ID, c.CreatedAt, c.Forks = 0, time.Unix(int64(at), 0), nil
	for _, f := range m.Forks {
		g := f
		g.NsPerOp, g.CPUNsPerOp, g.ProcCPUNsPerOp = append([]float64(nil), f.NsPerOp...), append([]float64(nil), f.CPUNsPerOp...), append([]float64(nil), f.ProcCPUNsPerOp...)
		g.AllocBytesPerOp = append([]float64(nil), f.AllocBytesPerOp...)
		c.Forks = append(c.Forks, g)
	}
	return &c
}

func flagged(rep *ensemble.Report, m ensemble.Method) map[string]bool {
	out := map[string]bool{}
	for _, f := range rep.FlaggedBy(m) {
		out[f.Counter] = true
	}
	return out
}

// History in two environments (three results with G1 and the default
// heap, two with the parallel collector and 256 MB) and a copy of a G1
// result with its allocation tripled: stacking flags the allocated bytes
// and not the wall time, which is the copy's. The identical copy checked
// with ID (against the results before it) flags nothing. Results of other
// arguments are another series: without --args the request is ambiguous.
func TestStoredEnsemble(t *testing.T) {
	e := openEngine(t, small)
	store, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewSource(3))
	put := func(m *cache.Measurement) *cache.Measurement {
		t.Helper()
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	var g1 []*cache.Measurement
	at := 0
	for i, env := range []ensEnv{ensG1, ensParallel, ensG1, ensParallel, ensG1} {
		at = i + 1
		m := put(ensResult(rng, env, "10", at))
		if env.jvm == ensG1.jvm {
			g1 = append(g1, m)
		}
	}
	put(ensResult(rng, ensG1, "1000", 6)) // another series of the method
	same := put(clone(g1[1], 7))
	tripled := clone(g1[1], 8)
	for i := range tripled.Forks {
		for j := range tripled.Forks[i].AllocBytesPerOp {
			tripled.Forks[i].AllocBytesPerOp[j] *= 3
		}
	}
	put(tripled)

	req := EnsembleRequest{Method: "p.A#m", Args: "10", Config: ensemble.DefaultConfig()}
	rep, err := e.StoredEnsemble(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 6 || rep.Run != "result-8" || rep.Intervals != 27 || len(rep.Counters) != 9 {
		t.Fatalf("run %s, %d models, %d intervals, counters %v: want result-8 against the 6 earlier results of args 10, 27 intervals (each fork's first sample is the base), 9 counters",
			rep.Run, len(rep.Models), rep.Intervals, rep.Counters)
	}
	got := flagged(rep, ensemble.Stacking)
	if !got["alloc_bytes_per_op"] || got["wall_ns_per_op"] {
		t.Errorf("stacking flags %v: want alloc_bytes_per_op (tripled) and not wall_ns_per_op (the copy's)", got)
	}
	if r := rep.Regressions(); len(r) == 0 || r[0].Counter != "alloc_bytes_per_op" || rep.ExitStatus() != 1 {
		t.Errorf("regressions %+v: want alloc_bytes_per_op, flagged by the G1 results' models too", r)
	}
	if m := rep.Models[0]; len(m.Matching) != 8 && len(m.Matching) != 5 {
		t.Errorf("model %s shares %v with the new run: want 8 components (G1) or 5 (parallel: collector, heap, flags differ)", m.Run, m.Matching)
	}

	req.ID = same.ID
	if rep, err = e.StoredEnsemble(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 5 || len(rep.Flagged) != 0 {
		t.Errorf("identical copy: %d models, flags %v; want 5 models and nothing flagged", len(rep.Models), flagged(rep, ensemble.Stacking))
	}

	req.ID, req.Args = 0, ""
	if _, err := e.StoredEnsemble(ctx, req); err == nil || !strings.Contains(err.Error(), "--args") || !strings.Contains(err.Error(), "1000") {
		t.Errorf("without --args: %v, want the two series named and --args asked for", err)
	}
	req.Args, req.Workload = "10", "p.A#other"
	if _, err := e.StoredEnsemble(ctx, req); err == nil || !strings.Contains(err.Error(), "at least 2 stored results") || !strings.Contains(err.Error(), "perfls measure --method p.A#m --workload p.A#other --args 10") {
		t.Errorf("no result of the workload: %v, want how many are needed and the measure command", err)
	}

	// The tripled allocation measured with a collector no earlier result
	// had: flagged, but only against other environments.
	serial := ensG1
	serial.env.GC, serial.jvm = "Copy, MarkSweepCompact", ensG1.jvm+" -XX:+UseSerialGC"
	elsewhere := ensResult(rng, serial, "10", 9)
	for i := range elsewhere.Forks {
		for j := range elsewhere.Forks[i].AllocBytesPerOp {
			elsewhere.Forks[i].AllocBytesPerOp[j] *= 3
		}
	}
	put(elsewhere)
	if err := store.SetReview(ctx, tripled.ID, cache.ReviewRegression); err != nil {
		t.Fatal(err)
	}
	req.Workload = ""
	if rep, err = e.StoredEnsemble(ctx, req); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !flagged(rep, ensemble.Stacking)["alloc_bytes_per_op"] || len(rep.Regressions()) != 0 || rep.ExitStatus() != 0 ||
		!strings.Contains(notes, "no earlier result was measured in the environment of result-9") || !strings.Contains(notes, "flags=-XX:+UseSerialGC") {
		t.Errorf("another collector: flags %v, regressions %+v, notes %q; want alloc flagged as an environment difference", flagged(rep, ensemble.Stacking), rep.Regressions(), rep.Notes)
	}
}

// Reviews choose the history: a result reviewed as a regression is left
// out of later checks' histories, and --passed-only keeps only results
// reviewed as passed (none: an error that says how to review one).
func TestStoredEnsembleReview(t *testing.T) {
	e := openEngine(t, small)
	store, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewSource(5))
	var g1 []*cache.Measurement
	for at := 1; at <= 3; at++ {
		m := ensResult(rng, ensG1, "10", at)
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
		g1 = append(g1, m)
	}
	tripled := clone(g1[1], 4)
	for i := range tripled.Forks {
		for j := range tripled.Forks[i].AllocBytesPerOp {
			tripled.Forks[i].AllocBytesPerOp[j] *= 3
		}
	}
	newest := clone(g1[2], 5)
	for _, m := range []*cache.Measurement{tripled, newest} {
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	req := EnsembleRequest{Method: "p.A#m", ID: tripled.ID, Review: cache.ReviewRegression, Config: ensemble.DefaultConfig()}
	rep, err := e.StoredEnsemble(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !flagged(rep, ensemble.Stacking)["alloc_bytes_per_op"] || !strings.Contains(strings.Join(rep.Notes, "\n"), "reviewed as regression") {
		t.Errorf("the tripled result: flags %v, notes %q", flagged(rep, ensemble.Stacking), rep.Notes)
	}
	if m, err := store.Get(ctx, tripled.ID); err != nil || m.Review != cache.ReviewRegression {
		t.Fatalf("review not recorded: %v %v", m, err)
	}

	req = EnsembleRequest{Method: "p.A#m", Config: ensemble.DefaultConfig()}
	if rep, err = e.StoredEnsemble(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 3 || !strings.Contains(strings.Join(rep.Notes, "\n"), "the 4 results stored before it, less 1 reviewed as regressions") {
		t.Errorf("newest: %d models, notes %q; want the 3 results not reviewed as regressions", len(rep.Models), rep.Notes)
	}

	req.PassedOnly = true
	if _, err := e.StoredEnsemble(ctx, req); err == nil || !strings.Contains(err.Error(), "4 earlier ones being not reviewed as passed") ||
		!strings.Contains(err.Error(), "perfls ensemble --method p.A#m --id N --review passed") {
		t.Errorf("--passed-only without a passed result: %v", err)
	}
	if _, err := e.StoredEnsemble(ctx, EnsembleRequest{Method: "p.A#m", ID: g1[1].ID, Review: cache.ReviewPassed, Config: ensemble.DefaultConfig()}); err != nil {
		t.Fatal(err)
	}
	if rep, err = e.StoredEnsemble(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 1 || rep.Models[0].Run != "result-2" || !strings.Contains(strings.Join(rep.Notes, "\n"), "the 1 of the 4 results stored before it reviewed as passed") {
		t.Errorf("--passed-only: %d models (%v), notes %q; want result-2's alone", len(rep.Models), rep.Models, rep.Notes)
	}

	_, err = e.StoredEnsemble(ctx, EnsembleRequest{Method: "p.A#m", Review: "ok", Config: ensemble.DefaultConfig()})
	if err == nil || !strings.Contains(err.Error(), "want passed, regression or none") {
		t.Errorf("review ok: %v", err)
	}
}

// A result's environment components and the flags taken from its JVM
// identity, the heap left out (it is its own component); its run: the
// forks' samples after the first, in order, JIT time and classes as the
// increase during the sample.
func TestStoredEnvironment(t *testing.T) {
	m := ensResult(rand.New(rand.NewSource(1)), ensParallel, "10", 1)
	env := StoredEnvironment(m)
	want := ensemble.Environment{"cpu": "AMD EPYC", "cores": "2", "memory_mb": "8192", "os": "Linux/amd64", "jvm": "Eclipse Adoptium 17.0.12+7",
		"gc": "PS Scavenge, PS MarkSweep", "max_heap_mb": "256", "flags": "-XX:+UseParallelGC"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if len(env) != len(want) {
		t.Errorf("components %v, want %v", env, want)
	}
	m.Environment = json.RawMessage("{}") // an older result
	if env := StoredEnvironment(m); len(env) != 0 {
		t.Errorf("no environment: components %v, want none", env)
	}
	r, err := StoredRun(m)
	f1, f2 := m.Forks[1], m.Forks[2]
	if err != nil || len(r.Intervals) != 27 || r.Intervals[9][0] != ensemble.RoundStored(f1.NsPerOp[1]) || r.Intervals[26][3] != ensemble.RoundStored(f2.AllocBytesPerOp[9]) ||
		r.Intervals[9][7] != ensemble.RoundStored(f1.JITMs[1]-f1.JITMs[0]) || r.Intervals[9][8] != 0 {
		t.Errorf("run: %v, %d intervals, interval 9 %v; want 27, fork 1's second sample at 9 (JIT time and classes as increases), fork 2's last at 26",
			err, len(r.Intervals), r.Intervals[9])
	}
}

// A process CPU clock that ticks in 10 ms, longer than a sample: its
// per-sample figures (0 or a whole tick) are left out of the run, and the
// check says why; a fine clock's stay.
func TestStoredRunCoarseClock(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	m := ensResult(rng, ensG1, "10", 1)
	run, err := StoredRun(m)
	if err != nil || !slices.Contains(run.Counters, "process_cpu_ns_per_op") {
		t.Fatalf("fine clock: counters %v, %v", run.Counters, err)
	}
	coarse := func(m *cache.Measurement) {
		for i := range m.Forks {
			for j := range m.Forks[i].ProcCPUNsPerOp {
				m.Forks[i].ProcCPUNsPerOp[j] = 0
				if j%10 == 3 { // a tick every 10 samples of about 1 ms
					m.Forks[i].ProcCPUNsPerOp[j] = 10e6 / float64(m.Forks[i].Ops)
				}
			}
		}
	}
	coarse(m)
	if run, err = StoredRun(m); err != nil || slices.Contains(run.Counters, "process_cpu_ns_per_op") || len(run.Counters) != 8 {
		t.Errorf("coarse clock: counters %v, %v; want the 8 others", run.Counters, err)
	}

	e := openEngine(t, small)
	store, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	for at := 1; at <= 3; at++ {
		m := ensResult(rng, ensG1, "10", at)
		coarse(m)
		if err := store.Put(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := e.StoredEnsemble(context.Background(), EnsembleRequest{Method: "p.A#m", Config: ensemble.DefaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(rep.Counters, "process_cpu_ns_per_op") || !strings.Contains(strings.Join(rep.Notes, "\n"), "process_cpu_ns_per_op left out: the process CPU clock ticks in 10 ms and a sample lasts about 1") {
		t.Errorf("counters %v, notes %q", rep.Counters, rep.Notes)
	}
}

// A doubled time per call that no rule judges (each result's samples
// spread over several bins): out of the votes' reach, decided by the
// historical range of the earlier results of its environment and the test
// on fork means — flagged, and it counts (exit status 1); the text says
// how it was decided.
func TestStoredEnsembleDoubledTimeByRange(t *testing.T) {
	e := openEngine(t, small)
	store, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewSource(11))
	slow := ensG1
	slow.wallNs *= 2
	for at, env := range []ensEnv{ensG1, ensG1, ensG1, slow} {
		if err := store.Put(ctx, ensResult(rng, env, "10", at+1)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := e.StoredEnsemble(ctx, EnsembleRequest{Method: "p.A#m", Config: ensemble.DefaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rep.Decided, func(d ensemble.Decided) bool { return d.Counter == "wall_ns_per_op" })
	if i < 0 || rep.Decided[i].Verdict != ensemble.RangeRegression || rep.Decided[i].Same.Results != 3 || rep.Decided[i].Same.Outside != "above" {
		t.Fatalf("flagged %v, undecided %+v, decided %+v: want the wall time decided by the range", flagged(rep, ensemble.Stacking), rep.Undecided, rep.Decided)
	}
	if !flagged(rep, ensemble.Stacking)["wall_ns_per_op"] || rep.ExitStatus() != 1 || slices.ContainsFunc(rep.Undecided, func(u ensemble.Undecided) bool { return u.Counter == "wall_ns_per_op" }) {
		t.Errorf("flagged %v, exit %d, undecided %+v", flagged(rep, ensemble.Stacking), rep.ExitStatus(), rep.Undecided)
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "wall_ns_per_op") || !strings.Contains(b.String(), "by the historical range: fork medians") || !strings.Contains(b.String(), "(same environment), mean +") {
		t.Errorf("text:\n%s", b.String())
	}
	t.Logf("\n%s", b.String())
}
