package engine

// perfls ensemble: seed 001's detector (analysis/ensemble) over CSV runs
// (analysis/ensemble/csvrun) or over a method's stored results, each result
// one run: its forks' per-sample series are the counters, its environment
// the similarity's components (docs/regressions.md, "The store form").

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/analysis/ensemble/csvrun"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

// EnsembleRequest is perfls ensemble's: the CSV form when History or New is
// set, else the store form on Method's stored results.
type EnsembleRequest struct {
	// The CSV form: directories of NAME.csv with NAME.env beside each.
	History, New string
	Phase1       ensemble.Phase1
	// The store form: the results of Method (pkg.C#m, every overload, or
	// pkg.C#m(int[])), of Workload and Args when set ("" = any, but they
	// must then name one (method, workload, args)). ID picks the new run
	// (0 = the newest); the results stored before it are the history.
	Method, Workload, Args string
	ID                     int64
	// Project is where perfls.json's "store" is looked for ("" = the
	// working directory), as every command does.
	Project string
	// Review, when set, is recorded on the checked result first
	// (cache.ReviewPassed, cache.ReviewRegression, or ReviewNone to clear
	// it). PassedOnly takes as the history only earlier results reviewed
	// as passed (the seed's reading), not every one not reviewed as a
	// regression.
	Review     string
	PassedOnly bool
	// Config is the detector's; its Method is the reported vote.
	Config ensemble.Config
}

// ReviewNone is the Review that clears a result's review.
const ReviewNone = "none"

// MinEnsembleResults is how many stored results the store form needs: the
// new one and at least one earlier (one model; the seed's ensemble wants
// several, ideally from several environments).
const MinEnsembleResults = 2

// Ensemble runs perfls ensemble. The store form opens the store as every
// command does (Config.CacheDir, else the user's cache directory;
// PERFLS_STORE or the project's perfls.json "store" first); logf hears what
// opening it noticed.
func Ensemble(ctx context.Context, req EnsembleRequest, cfg Config) (*ensemble.Report, error) {
	csv := req.History != "" || req.New != ""
	if req.Method != "" && !strings.Contains(req.Method, "#") {
		if !ensemble.Method(req.Method).Valid() {
			return nil, fmt.Errorf("--method %q: the store form wants pkg.Class#m, the CSV form stacking, bagging or single", req.Method)
		}
		req.Config.Method, req.Method = ensemble.Method(req.Method), "" // the CSV form's --method stacking
	}
	switch {
	case csv && (req.Method != "" || req.Workload != "" || req.Args != "" || req.ID != 0):
		return nil, errors.New("--history/--new read CSV runs, --method pkg.Class#m (with --workload, --args, --id) the stored results: give one form")
	case !csv && req.Method == "":
		return nil, errors.New("want a history directory and a new run's directory (--history DIR --new DIR), or a method whose stored results to check (--method pkg.Class#m)")
	case csv && (req.Review != "" || req.PassedOnly):
		return nil, errors.New("--review and --passed-only are for stored results (--method pkg.Class#m); in the CSV form the history directory holds the passed runs")
	case csv:
		return csvrun.Detect(ctx, req.History, req.New, req.Phase1, req.Config)
	case req.Phase1 != (ensemble.Phase1{}):
		return nil, errors.New("--interval and --duration group CSV rows; a stored result's interval is one sample")
	}
	if cfg.CacheDir == "" {
		dir, err := cache.Dir()
		if err != nil {
			return nil, err
		}
		cfg.CacheDir = dir
	}
	cfg.ProjectDir, cfg.Service = req.Project, InProcess
	e, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if e.Notice() != "" && cfg.Logf != nil {
		cfg.Logf("%s", e.Notice())
	}
	return e.StoredEnsemble(ctx, req)
}

// StoredEnsemble checks a stored result of req.Method against the results
// stored before it (the store form of perfls ensemble).
//
// History: every earlier complete result of the same (method, workload,
// args), in any environment — environments are what stacking's weights are
// for — except those reviewed as regressions (req.PassedOnly: only those
// reviewed as passed). Results nobody reviewed count as passed: perfls
// reviews nothing on its own, and screening the earlier results with the
// detector itself would reject the first result of every new environment,
// which no same-environment model can vouch for.
func (e *Engine) StoredEnsemble(ctx context.Context, req EnsembleRequest) (*ensemble.Report, error) {
	if !strings.Contains(req.Method, "#") || strings.HasPrefix(req.Method, "#") {
		return nil, ErrMethodName
	}
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	ms, cur, err := storedResults(ctx, store, req)
	if err != nil {
		return nil, err
	}
	if cur < 0 {
		return nil, tooFew(req, 0, 0)
	}
	if req.Review != "" {
		review := req.Review
		if review == ReviewNone {
			review = ""
		}
		if err := store.SetReview(ctx, ms[cur].ID, review); err != nil {
			return nil, err
		}
		ms[cur].Review = review
	}
	var prior []*cache.Measurement
	for _, m := range ms[:cur] {
		if m.Review == cache.ReviewPassed || (m.Review == "" && !req.PassedOnly) {
			prior = append(prior, m)
		}
	}
	if len(prior)+1 < MinEnsembleResults {
		err := tooFew(req, len(prior)+1, cur-len(prior))
		if req.Review != "" {
			err = fmt.Errorf("%w; the review of result %d is recorded", err, ms[cur].ID)
		}
		return nil, err
	}
	hist := make([]ensemble.Run, 0, len(prior))
	for _, m := range prior {
		r, err := StoredRun(m)
		if err != nil {
			return nil, err
		}
		hist = append(hist, r)
	}
	run, err := StoredRun(ms[cur])
	if err != nil {
		return nil, err
	}
	var notes []string
	if tick, sample, coarse := coarseClock(ms[cur].Forks); coarse {
		notes = append(notes, fmt.Sprintf("process_cpu_ns_per_op left out: the process CPU clock ticks in %.0f ms and a sample lasts about %.2g ms, so a sample's figure is 0 or a whole tick", tick/1e6, sample/1e6))
	}
	rep, err := ensemble.Detect(hist, run, req.Config)
	if err != nil {
		return nil, fmt.Errorf("ensemble over the stored results of %s: %w", req.Method, err)
	}
	// One verdict for the user, as perfls regressions and diff give it: a
	// change only other environments' results see is not a regression.
	rep.MarkEnvironmentDiffers()
	rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s; history: %s", run.Name, resultLabel(ms[cur].Key), historyText(req.PassedOnly, len(prior), cur)))
	rep.Notes = append(rep.Notes, notes...)
	addVerdictNotes(rep, req, run, ms[cur])
	return rep, nil
}

// storedResults are the complete stored results of req's method, workload
// and arguments, oldest first, and the index of the one to check (-1 when
// there is none); an error when they are of several workloads or
// arguments, or req.ID names none of them.
func storedResults(ctx context.Context, store *cache.Store, req EnsembleRequest) ([]*cache.Measurement, int, error) {
	all, err := store.MeasurementsOf(ctx, req.Method)
	if err != nil {
		return nil, 0, err
	}
	var ms []*cache.Measurement
	keys := map[string]bool{}
	for _, m := range all {
		if (req.Workload == "" || sameMethod(m.Key.Workload, req.Workload)) && (req.Args == "" || m.Key.Args == req.Args) {
			ms = append(ms, m)
			keys[resultLabel(m.Key)] = true
		}
	}
	if len(keys) > 1 {
		return nil, 0, fmt.Errorf("the store holds results of %d workloads or arguments of %s: choose one with --workload and --args (%s)",
			len(keys), req.Method, strings.Join(slices.Sorted(maps.Keys(keys)), "; "))
	}
	cur := len(ms) - 1
	if req.ID != 0 {
		cur = slices.IndexFunc(ms, func(m *cache.Measurement) bool { return m.ID == req.ID })
		if cur < 0 {
			return nil, 0, fmt.Errorf("--id %d: no complete stored result of %s with that ID (perfls history --method %s --format json lists them)", req.ID, req.Method, req.Method)
		}
	}
	return ms, cur, nil
}

// addVerdictNotes adds to rep what its verdict on run, the checked result
// m, leaves open: an undecided time per call, no earlier result in run's
// environment, and m's review.
func addVerdictNotes(rep *ensemble.Report, req EnsembleRequest, run ensemble.Run, m *cache.Measurement) {
	if slices.ContainsFunc(rep.Undecided, func(u ensemble.Undecided) bool { return u.Counter == "wall_ns_per_op" || u.Counter == "cpu_ns_per_op" }) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the time per call is undecided: a result's samples spread over several of the rules' bins, so few rules judge it; perfls regressions --method %s tests it over commits, perfls diff between two revisions", req.Method))
	}
	if !rep.HasSameEnvironment() {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no earlier result was measured in the environment of %s (%s): its flags say the environment differs, not that the code regressed; to compare like with like, measure the earlier code in this environment (perfls measure --method %s --fresh)",
			run.Name, envText(run.Env), req.Method))
	}
	if m.Review != "" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s is reviewed as %s", run.Name, m.Review))
	}
}

// historyText says which of the earlier results the history holds.
func historyText(passedOnly bool, used, earlier int) string {
	switch {
	case passedOnly:
		return fmt.Sprintf("the %d of the %d results stored before it reviewed as passed (--passed-only)", used, earlier)
	case used < earlier:
		return fmt.Sprintf("the %d results stored before it, less %d reviewed as regressions", earlier, earlier-used)
	}
	return fmt.Sprintf("the %d results stored before it", earlier)
}

// tooFew says how many results the store form needs and how to make them.
func tooFew(req EnsembleRequest, have, leftOut int) error {
	sel := "--method " + req.Method
	if req.Workload != "" {
		sel += " --workload " + req.Workload
	}
	if req.Args != "" {
		sel += " --args " + req.Args
	}
	at := "stored"
	if req.ID != 0 {
		at = fmt.Sprintf("stored up to result %d", req.ID)
	}
	review := ""
	if leftOut > 0 {
		why := "reviewed as regressions"
		if req.PassedOnly {
			why = "not reviewed as passed (--passed-only)"
		}
		at += fmt.Sprintf(" that count, %d earlier ones being %s", leftOut, why)
		review = fmt.Sprintf(", or review an earlier result as passed (perfls ensemble %s --id N --review passed)", sel)
	}
	return fmt.Errorf("the ensemble needs at least %d stored results of %s (the new one and an earlier one; more, from several environments, give stacking its weights); %d %s: measure it with perfls measure %s --fresh (another JVM, --heap or --jvm-arg makes another environment)%s",
		MinEnsembleResults, req.Method, have, at, sel, review)
}

// envText lists an environment's components, sorted.
func envText(env ensemble.Environment) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		kv = append(kv, k+"="+env[k])
	}
	return strings.Join(kv, ", ")
}

// sameMethod: a workload named with or without its parameters.
func sameMethod(stored, asked string) bool {
	return stored == asked || strings.HasPrefix(stored, asked+"(")
}

// resultLabel names what a result measured: method [workload] args.
func resultLabel(k cache.Key) string {
	s := k.Method
	if k.Workload != "" {
		s += " [" + k.Workload + "]"
	}
	if k.Args != "" {
		s += " " + k.Args
	}
	return s
}

// storedCounter is a per-sample series of a fork that becomes a counter.
type storedCounter struct {
	name string
	of   func(cache.Fork) []float64
	// delta: the series is a running total (at the sample's end); the
	// counter is its increase during the sample.
	delta bool
	// clock: read from the process CPU clock, which may tick more coarsely
	// than a sample lasts (coarseClock).
	clock bool
}

// storedCounters are the per-sample series the store has: per-op wall and
// thread CPU time, process CPU time, allocated bytes, the GC count and GC
// time during the sample, the heap used at its end, and the JIT time and
// classes loaded during the sample. The store keeps the last two as totals
// at the sample's end, which carry how long the fork warmed up: as totals
// they differed from fork to fork and run to run (JIT 44–342 ms in one run)
// and were flagged on replicas (docs/regressions.md, the real-data
// evaluation). Operations per second would be 1e9/wall: the same counter.
var storedCounters = []storedCounter{
	{"wall_ns_per_op", func(f cache.Fork) []float64 { return f.NsPerOp }, false, false},
	{"cpu_ns_per_op", func(f cache.Fork) []float64 { return f.CPUNsPerOp }, false, false},
	{"process_cpu_ns_per_op", func(f cache.Fork) []float64 { return f.ProcCPUNsPerOp }, false, true},
	{"alloc_bytes_per_op", func(f cache.Fork) []float64 { return f.AllocBytesPerOp }, false, false},
	{"gc_count", func(f cache.Fork) []float64 {
		xs := make([]float64, len(f.GCs))
		for i, n := range f.GCs {
			xs[i] = float64(n)
		}
		return xs
	}, false, false},
	{"gc_ms", func(f cache.Fork) []float64 { return f.GCMs }, false, false},
	{"heap_used_bytes", func(f cache.Fork) []float64 { return f.HeapUsed }, false, false},
	{"jit_ms", func(f cache.Fork) []float64 { return f.JITMs }, true, false},
	{"classes_loaded", func(f cache.Fork) []float64 { return f.Classes }, true, false},
}

// coarseClock says whether a result's process CPU clock ticks more coarsely
// than its samples last (Linux's JVMs read it in 10-ms ticks; perfls's
// samples last about a millisecond): a sample's figure is then 0 or a
// whole tick, and the interval's median says nothing about the process (0
// in most samples of every run: undecided in every case of the real-data
// evaluation, docs/regressions.md). tick and sample are in ns, sample the
// median sample's length.
func coarseClock(forks []cache.Fork) (tick, sample float64, coarse bool) {
	var lengths []float64
	for _, f := range forks {
		t, fine := measure.ProcessClockTick(f.ProcCPUNsPerOp, f.OpsPerSample)
		if fine {
			return 0, 0, false
		}
		tick = max(tick, t)
		for _, ns := range f.NsPerOp {
			lengths = append(lengths, ns*float64(max(f.OpsPerSample, 1)))
		}
	}
	if tick == 0 || len(lengths) == 0 {
		return 0, 0, false
	}
	sample = stats.Median(lengths)
	return tick, sample, tick > sample
}

// significantDigits is the resolution of a stored counter in the
// ensemble: 3 significant digits (0.1–1 %). perfls's counters are ratios
// of large counts (bytes allocated over operations, ns over operations):
// an allocation of exactly 1,040 bytes a call shows as 1040.0…1040.3 from
// the harness's own share, with as many unique values as samples, so the
// seed's equal-width bins (k from the unique values) are narrower than that
// jitter and no rule concludes on the counter — a tripled allocation went
// unflagged (TestStoredEnsemble). The seed's counters (performance monitor
// readings) have a resolution of their own.
const significantDigits = 3

func roundSig(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', significantDigits, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// StoredRun turns a stored result into a run: one interval per sample but
// each fork's first (the base of the JIT and class increases), the forks'
// samples concatenated in fork order, each value rounded to
// significantDigits; a counter is one of
// storedCounters that every fork recorded for every sample (older results
// lack the JVM state and process CPU: those counters are left out of the
// run, and the detector out of the check), process CPU only when its clock
// resolves a sample (coarseClock). The environment is StoredEnvironment's.
func StoredRun(m *cache.Measurement) (ensemble.Run, error) {
	r := ensemble.Run{Name: fmt.Sprintf("result-%d", m.ID), Env: StoredEnvironment(m)}
	var forks []cache.Fork
	for _, f := range m.Forks {
		if len(f.NsPerOp) > 0 {
			forks = append(forks, f)
		}
	}
	_, _, coarse := coarseClock(forks)
	var cols [][]float64
	for _, c := range storedCounters {
		if c.clock && coarse {
			continue
		}
		var col []float64
		for _, f := range forks {
			xs := c.of(f)
			if len(xs) != len(f.NsPerOp) {
				col = nil
				break
			}
			for i := 1; i < len(xs); i++ {
				x := xs[i]
				if c.delta {
					x -= xs[i-1]
				}
				col = append(col, roundSig(x))
			}
		}
		if col != nil {
			r.Counters, cols = append(r.Counters, c.name), append(cols, col)
		}
	}
	if len(cols) == 0 || len(cols[0]) == 0 {
		return r, fmt.Errorf("stored result %d of %s has no fork of two samples or more", m.ID, m.Key.Method)
	}
	r.Intervals = make([][]float64, len(cols[0]))
	for t := range r.Intervals {
		r.Intervals[t] = make([]float64, len(cols))
		for c, col := range cols {
			r.Intervals[t][c] = col[t]
		}
	}
	return r, nil
}

// StoredEnvironment is a result's environment as the seed's similarity
// components: the machine (cpu, cores, memory, os), the JVM (vendor and
// version), its collector, its heap limit and the flags perfls gave it
// (--jvm-arg, perfls.json's jvmArgs: the cache key's JVM identity after the
// heap). A component the result does not know (an older result has no
// environment) is left out, so it matches nothing.
func StoredEnvironment(m *cache.Measurement) ensemble.Environment {
	var v measure.Environment
	json.Unmarshal(m.Environment, &v) // an older result's may be empty
	env := ensemble.Environment{}
	set := func(k, val string) {
		if strings.TrimSpace(val) != "" && val != "0" {
			env[k] = val
		}
	}
	set("cpu", v.CPUModel)
	set("cores", fmt.Sprint(v.Cores))
	set("memory_mb", fmt.Sprint(v.MemoryMB))
	if v.OS != "" {
		set("os", v.OS+"/"+v.Arch)
	}
	set("jvm", strings.TrimSpace(v.JavaVendor+" "+v.VMVersion))
	set("gc", v.GC)
	set("max_heap_mb", fmt.Sprint(v.MaxHeapMB))
	if v.JavaVersion != "" { // the flags are known once the environment is
		env["flags"] = jvmFlags(m.Key.JVM)
	}
	return env
}

// jvmFlags is the end of a JVM identity (measure.JVMIdentity: "java (size,
// date) heap flags…") without the heap: the extra flags, "" for none.
func jvmFlags(identity string) string {
	rest := jvmSettings(identity)
	if strings.HasPrefix(rest, "-Xmx") {
		rest, _ = strings.CutPrefix(rest, strings.Fields(rest)[0])
	}
	return strings.TrimSpace(rest)
}
