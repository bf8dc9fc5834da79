package engine

// perfls ensemble: seed 001's detector (analysis/ensemble) over CSV runs
// (analysis/ensemble/csvrun) or over a method's stored results, each result
// one run: its forks' per-sample series are the counters, its environment
// the similarity's components (docs/regressions.md, "The store form").

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/analysis/ensemble/csvrun"
	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/cache"
)

// EnsembleRequest is perfls ensemble's: the CSV form when CSV is set,
// else the store form on Method's stored results. The command line builds
// it from its flags (internal/cli.EnsembleFlags), which decide the form.
type EnsembleRequest struct {
	// CSV, when set, asks for the CSV form; the store form's fields are
	// then unused.
	CSV *EnsembleCSV
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

// EnsembleCSV is the CSV form's input: directories of NAME.csv with
// NAME.env beside each, the prior passed runs' and the new run's, and how
// rows group into intervals.
type EnsembleCSV struct {
	History, New string
	Phase1       ensemble.Phase1
}

// ReviewNone is the Review that clears a result's review.
const ReviewNone = "none"

// MinEnsembleResults is how many stored results the store form needs: the
// new one and at least one earlier (one model; the seed's ensemble wants
// several, ideally from several environments).
const MinEnsembleResults = 2

// Ensemble runs perfls ensemble. The store form opens the store as every
// command does, in cfg.CacheDir (given by the caller; the CSV form needs
// none), PERFLS_STORE or the project's perfls.json "store" first; cfg.Logf
// hears what opening it noticed.
func Ensemble(ctx context.Context, req EnsembleRequest, cfg Config) (*ensemble.Report, error) {
	if req.CSV != nil {
		return csvrun.Detect(ctx, req.CSV.History, req.CSV.New, req.CSV.Phase1, req.Config)
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
	if tick, sample, coarse := ensemble.CoarseClock(storedForks(ms[cur].Forks), measured.ProcessClockTick); coarse {
		notes = append(notes, fmt.Sprintf("process_cpu_ns_per_op left out: the process CPU clock ticks in %.0f ms and a sample lasts about %.2g ms, so a sample's figure is 0 or a whole tick", tick/1e6, sample/1e6))
	}
	rep, err := ensemble.Detect(hist, run, req.Config)
	if err != nil {
		return nil, fmt.Errorf("ensemble over the stored results of %s: %w", req.Method, err)
	}
	// One verdict for the user, as perfls regressions and diff give it: a
	// change only other environments' results see is not a regression.
	rep.MarkEnvironmentDiffers()
	// The counters no rule can judge (a time per call spread over several
	// bins, a doubled time above every premise): decided by their
	// historical range against the same environment's results, confirmed
	// by a test on fork means — a deviation from the seed
	// (docs/regressions.md, "Undecided counters, decided").
	rep.DecideByRange(hist, run, ensemble.RangeAlpha)
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
	workload := func(string) bool { return true }
	if req.Workload != "" {
		workload = func(w string) bool { return w == req.Workload } // not pkg.C#gen: as given
		if spec, err := methodspec.Parse(req.Workload); err == nil {
			workload = spec.Matches
		}
	}
	var ms []*cache.Measurement
	keys := map[string]bool{}
	for _, m := range all {
		if workload(m.Key.Workload) && (req.Args == "" || m.Key.Args == req.Args) {
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

// StoredRun turns a stored result into a run named result-ID
// (ensemble.StoredRun) in StoredEnvironment's environment.
func StoredRun(m *cache.Measurement) (ensemble.Run, error) {
	r, err := ensemble.StoredRun(fmt.Sprintf("result-%d", m.ID), StoredEnvironment(m), storedForks(m.Forks), measured.ProcessClockTick)
	if err != nil {
		return r, fmt.Errorf("stored result %d of %s has %w", m.ID, m.Key.Method, err)
	}
	return r, nil
}

// storedForks are a result's forks as the ensemble reads them.
func storedForks(forks []cache.Fork) []ensemble.StoredFork {
	out := make([]ensemble.StoredFork, len(forks))
	for i, f := range forks {
		out[i] = ensemble.StoredFork{NsPerOp: f.NsPerOp, CPUNsPerOp: f.CPUNsPerOp, ProcCPUNsPerOp: f.ProcCPUNsPerOp, AllocBytesPerOp: f.AllocBytesPerOp,
			GCs: f.GCs, GCMs: f.GCMs, HeapUsed: f.HeapUsed, JITMs: f.JITMs, Classes: f.Classes, OpsPerSample: f.Ops}
	}
	return out
}

// StoredEnvironment is a result's environment as the seed's similarity
// components: the machine (cpu, cores, memory, os), the JVM (vendor and
// version), its collector, its heap limit and the flags perfls gave it
// (--jvm-arg, perfls.json's jvmArgs: the cache key's JVM identity after the
// heap). A component the result does not know (an older result has no
// environment) is left out, so it matches nothing.
func StoredEnvironment(m *cache.Measurement) ensemble.Environment {
	v := environmentOf(m) // an older result's is empty
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
