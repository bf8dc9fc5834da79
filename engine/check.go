package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// CheckRequest asks to check a project: measure every method its formulas
// name and decide every formula instance.
type CheckRequest struct {
	Dir     string                        // the project directory (absolute)
	Keep    func(*workspace.Formula) bool // which formulas; nil = all
	Options measure.Options
	// Alpha is the significance level; 0 = the project's (perfls.json),
	// else verdict's default.
	Alpha float64
	// Interpretation overrides the project's choice for every formula
	// without its own interpretation= element; "" = none.
	Interpretation string
	// Semantics is what satisfied means, shown or classic
	// (verdict.Semantics); "" = perfls.json's, else shown.
	Semantics string
	// Family is how the check's comparisons share α: "holm" (also "") keeps
	// the chance of any false violation across all of them within α
	// (verdict.HolmLevel); "none" tests each at α alone, as one formula
	// checked by itself would be.
	Family   string
	Priority service.Priority
	// MaxForks bounds the forks per measurement when formula instances are
	// undecided for lack of evidence: check then measures their operands
	// again (as many forks as the first round each time) and decides again,
	// until decided or at this bound. α is spread evenly over the looks this
	// allows (Bonferroni), so adding forks does not raise the false-alarm
	// rate. 0 = 3 × Options.Forks; ≤ Options.Forks = no second look.
	MaxForks int
	Fresh    bool                   // measure even what the cache has fresh
	Progress func(service.Progress) // nil: none
	// Remote sends the measurements to the workers of the shared store's
	// job queue (perfls worker) instead of measuring here, and waits for
	// them; Label picks the workers labelled so ("" = unlabelled ones).
	Remote bool
	Label  string
	// CommitConfig builds a revision (@REV) with its own perfls.json where
	// it has one, not the working tree's (docs/revisions.md).
	CommitConfig bool
	// At, when set (a full commit hash), decides the working tree's
	// formulas as they read at that commit: every term without a revision
	// is measured in the commit's tree (bisect's formula mode). Its
	// verdicts are not recorded for the editor.
	At string
	// revs, when set, are the commits earlier checks of the same action
	// built (bisect's steps), else this check's own.
	revs *revisions
	// ClasspathFile is a file holding the project's whole classpath, which
	// replaces perfls.json's and the build tool's ("" = those): Maven's and
	// Gradle's plugins pass what they resolved (service.Params.ClasspathFile).
	ClasspathFile string
}

// Validate says what is wrong with a request a user made: α outside (0, 0.5],
// an unknown interpretation, measurement options ValidateOptions refuses.
func (r CheckRequest) Validate() error {
	if r.Alpha != 0 && !(r.Alpha > 0 && r.Alpha <= 0.5) {
		return fmt.Errorf("alpha %g is outside (0, 0.5]", r.Alpha)
	}
	if r.Family != "" && r.Family != FamilyHolm && r.Family != FamilyNone {
		return fmt.Errorf("family %q: want %s or %s", r.Family, FamilyHolm, FamilyNone)
	}
	if _, err := stats.ParseInterpretation(r.Interpretation); err != nil {
		return fmt.Errorf("interpretation: %w", err)
	}
	if _, err := verdict.ParseSemantics(r.Semantics); err != nil {
		return fmt.Errorf("semantics: %w", err)
	}
	return ValidateOptions(r.Options, 1)
}

// CheckResult is what a check found.
type CheckResult struct {
	Methods       []verdict.MethodResult     // verdicts grouped by annotated method
	Diagnostics   []workspace.Diagnostic     // formula problems (errors are not measured)
	CompileErrors []measured.CompilerMessage // the project does not compile; nothing was decided
	Notices       []string                   // e.g. the cache was set aside
	Alpha         float64                    // the significance level used, over all looks
	Semantics     verdict.Semantics          // what satisfied meant
	Looks         int                        // how many times the formulas may be decided (≥ 1); each at Alpha/Looks
	// Family is how the comparisons shared α (FamilyHolm or FamilyNone);
	// FamilyTests how many violation tests took part at the last look, and
	// FamilyLevel the level a violation needed among them (Holm's, ≤ the
	// look's α).
	Family      string
	FamilyTests int
	FamilyLevel float64
	ExtraForks  int // forks measured after the first look, all measurements together
	// ReplacedForks counts the forks measured in place of forks whose
	// warm-up hit its cap (--max-warmup), which the verdicts leave out.
	ReplacedForks int
	Oracle        []oracle.Judgement // bounds-oracle judgements of calibrated workloads measured
	Requests      int                // distinct measurements needed
	Cached        int                // of which the cache answered
	// Searched are the directories walked for .java files (the project's,
	// or perfls.json's sourceRoots; .spl files are looked for in the
	// project's), JavaFiles how many were found and Formulas how many
	// formulas they hold before the request's selection: what a check that
	// found nothing to check says.
	Searched  []string
	JavaFiles int
	Formulas  int

	// plan and results are what was measured (results by
	// workspace.Request.Key), for the reports that show samples.
	plan    *workspace.Plan
	results map[string]service.ItemResult
	options measure.Options
	index   *workspace.Index // the working tree's declarations
	revs    *revisions       // the revisions the formulas name
	used    []int64          // stored measurements the looks have used
	models  []*model.Model   // stored models (perfls model), for the callees in the report
}

// Check parses the project, plans the measurements of the formulas the
// request selects, measures them through the measurement service, decides
// every instance, classifies calibrated workloads against their oracle, and
// records the verdicts in the store, where every editor reads them.
func (e *Engine) Check(ctx context.Context, req CheckRequest) (*CheckResult, error) {
	svc, closeSvc, err := e.checkService(ctx, req)
	if err != nil {
		return nil, err
	}
	defer closeSvc()
	return e.check(ctx, svc, req)
}

func (e *Engine) check(ctx context.Context, svc service.Service, req CheckRequest) (*CheckResult, error) {
	src, err := readSources(ctx, req.Dir, req.Keep)
	if err != nil {
		return nil, err
	}
	if _, err := checkSemantics(req.Semantics, src.project); err != nil {
		return nil, err // before measuring: a typo in perfls.json costs no forks
	}
	ix := workspace.NewIndex(src.files)
	plan := workspace.PlanCheck(ix, src.formulas)
	if req.At != "" {
		atCommit(plan, req.At)
	}
	revs := req.revs
	if revs == nil {
		revs = newRevisions(req.Dir, src, ix, atRevisions(plan), req.CommitConfig)
	}
	out := &CheckResult{plan: plan, options: req.Options, Requests: len(plan.Requests),
		Diagnostics: append(src.diags, plan.Diagnostics...), index: ix, revs: revs,
		Searched: src.project.Searched, JavaFiles: len(src.project.Sources), Formulas: len(src.all)}
	if len(plan.Instances) == 0 {
		return out, nil
	}
	params := service.Params{Options: req.Options, Priority: req.Priority, Fresh: req.Fresh, ClasspathFile: req.ClasspathFile}
	got, err := e.measureRequests(ctx, svc, params, plan.Requests, out.revs, req.Progress)
	if err != nil {
		return nil, err
	}
	out.Notices = got.notices
	if len(got.compileErrors) > 0 {
		out.CompileErrors = got.compileErrors
		return out, nil
	}
	out.Diagnostics = append(out.Diagnostics, revisionDiagnostics(plan, got.revisionErrs)...)
	out.results = got.results
	var items []service.ItemResult
	for _, r := range plan.Requests {
		it := out.results[r.Key()]
		items = append(items, it)
		// Forks whose warm-up hit its cap are decideLooks's to replace.
		out.Notices = append(out.Notices, measure.DriftWarnings(r.Key(), it.Forks)...)
		if it.Cached {
			out.Cached++
		}
	}
	if err := e.decideLooks(ctx, svc, req, src.project, out); err != nil {
		return nil, err
	}
	if out.Oracle, err = e.judgeCalibrated(ctx, items, req.Options); err != nil {
		out.Notices = append(out.Notices, fmt.Sprintf("bounds oracle: %v", err))
	}
	// The stored models of the methods measured, for the report's callees.
	out.models, _ = e.storedModels(ctx, func(string) bool { return true })
	if req.At != "" {
		return out, nil // the formulas at another commit: not what the editor shows
	}
	if err := e.recordVerdicts(ctx, out.Methods); err != nil {
		out.Notices = append(out.Notices, fmt.Sprintf("could not record the verdicts for editors: %v", err))
	}
	if e.store != nil {
		out.Notices = append(out.Notices, e.store.Notices()...) // e.g. a damaged store set aside
	}
	return out, nil
}

// decideLooks decides every instance, and while some are undecided for lack
// of evidence measures their operands again and decides again, up to
// req.MaxForks, each look at α/Looks.
func (e *Engine) decideLooks(ctx context.Context, svc service.Service, req CheckRequest, project *measure.Project, out *CheckResult) error {
	opt := verdict.Options{Alpha: req.Alpha}
	if opt.Alpha == 0 {
		opt.Alpha = project.Alpha
	}
	if opt.Alpha == 0 {
		opt.Alpha = verdict.DefaultAlpha
	}
	out.Alpha = opt.Alpha
	sem, err := checkSemantics(req.Semantics, project)
	if err != nil {
		return err
	}
	opt.Semantics, out.Semantics = sem, sem
	forks := req.Options.Defaults().Forks
	maxForks := req.MaxForks
	if maxForks == 0 {
		maxForks = 3 * forks
	}
	out.Looks = verdict.Looks(forks, maxForks)
	if sem == verdict.Classic {
		// The seed's reading tests once at α; it leaves undecided only data
		// a test cannot be computed on, which more looks would not justify
		// spending α on.
		out.Looks = 1
	}
	opt.Alpha /= float64(out.Looks)
	opt.Looks = out.Looks
	// The most specific choice wins: the formula's annotation, then the
	// request (the command line, the editor), then perfls.json, then the
	// data.
	interpretation := func(f *workspace.Formula) (stats.Interpretation, error) {
		for _, name := range []string{f.Interpretation, req.Interpretation, project.Interpretation} {
			if name != "" {
				return stats.ParseInterpretation(name)
			}
		}
		return stats.Auto, nil
	}
	plan := out.plan
	// want is the settled forks each measurement should have: forks whose
	// warm-up hit its cap are left out and measured again within maxForks.
	want := map[string]int{}
	for _, r := range plan.Requests {
		want[r.Key()] = forks
	}
	if err := e.replaceCapped(ctx, svc, req, out, want, maxForks); err != nil {
		return err
	}
	for look := 1; ; look++ {
		var more map[string]bool
		var err error
		decideAll := func(opt verdict.Options) ([]verdict.MethodResult, map[string]bool, error) {
			return decide(plan, settledResults(out.results), opt, interpretation, withheld(out.results, want, maxForks, req.Options.Defaults().MaxWarmup))
		}
		if out.Methods, more, err = decideFamily(req.Family, opt, out, decideAll); err != nil {
			return err
		}
		if look == out.Looks || len(more) == 0 {
			break
		}
		add := map[string]int{}
		for key := range more {
			if n := min(forks, maxForks-len(out.results[key].Forks)); n > 0 {
				add[key] = n
			}
		}
		if len(add) == 0 {
			break
		}
		got, err := e.addForks(ctx, svc, req, out, add, true)
		if err != nil {
			return err
		}
		for key, n := range got {
			want[key] += n
			out.ExtraForks += n
		}
		if err := e.replaceCapped(ctx, svc, req, out, want, maxForks); err != nil {
			return err
		}
	}
	out.Notices = append(out.Notices, cappedNotices(out.results, want, maxForks, req.Options.Defaults().MaxWarmup)...)
	return nil
}

// The ways a check's comparisons share α (CheckRequest.Family).
const (
	FamilyHolm = "holm"
	FamilyNone = "none"
)

// decideFamily decides every instance with decideAll and, under Holm,
// again at the family's level when a violation rests on a p-value at or
// above it; it records the family in out.
func decideFamily(family string, opt verdict.Options, out *CheckResult, decideAll func(verdict.Options) ([]verdict.MethodResult, map[string]bool, error)) ([]verdict.MethodResult, map[string]bool, error) {
	methods, more, err := decideAll(opt)
	if err != nil {
		return nil, nil, err
	}
	out.Family = FamilyNone
	if family == FamilyNone {
		return methods, more, nil
	}
	out.Family = FamilyHolm
	level, m := verdict.HolmLevel(verdict.RejectPValues(methods), opt.Alpha)
	out.FamilyTests, out.FamilyLevel = m, level
	if !verdict.NeedsFamilyLevel(methods, level) {
		return methods, more, nil
	}
	// Only the violation tests' level changes, and every p-value stays
	// what it was, so the second decision's family is the first's.
	opt.RejectAlpha = level
	return decideAll(opt)
}

// replaceCapped measures new forks in place of those whose warm-up hit its
// cap, until every measurement has want[key] settled forks or maxForks
// forks in all. A capped fork's figures may be high (its code was still
// compiling, its heap growing), so pooling it with settled ones would bias
// the verdict; the replacements are no look (they are measured for the
// warm-up, whatever the verdict), so α is not spread further for them.
func (e *Engine) replaceCapped(ctx context.Context, svc service.Service, req CheckRequest, out *CheckResult, want map[string]int, maxForks int) error {
	stuck := map[string]bool{} // nothing came back for it: do not ask again
	for {
		add := map[string]int{}
		for _, r := range out.plan.Requests {
			key := r.Key()
			res, ok := out.results[key]
			if !ok || res.Error != "" || stuck[key] {
				continue
			}
			if n := min(want[key]-len(measure.Settled(res.Forks)), maxForks-len(res.Forks)); n > 0 {
				add[key] = n
			}
		}
		if len(add) == 0 {
			return nil
		}
		got, err := e.addForks(ctx, svc, req, out, add, false)
		if err != nil {
			return err
		}
		for key := range add {
			if got[key] == 0 {
				stuck[key] = true
			}
			out.ReplacedForks += got[key]
		}
	}
}

// settledResults are the results with only the forks whose warm-up did not
// hit its cap: the forks verdicts and figures rest on.
func settledResults(results map[string]service.ItemResult) map[string]service.ItemResult {
	out := make(map[string]service.ItemResult, len(results))
	for key, r := range results {
		r.Forks = measure.Settled(r.Forks)
		out[key] = r
	}
	return out
}

// withheld says, by request key, why a measurement cannot decide: forks
// whose warm-up hit its cap that maxForks left no room to replace, so it
// has fewer settled forks than it should.
func withheld(results map[string]service.ItemResult, want map[string]int, maxForks int, maxWarmup time.Duration) map[string]string {
	out := map[string]string{}
	for key, r := range results {
		capped, why, remedy := measure.Capped(r.Forks)
		if capped == 0 || r.Error != "" || len(measure.Settled(r.Forks)) >= want[key] {
			continue
		}
		if why != "" {
			why = " (" + strings.TrimPrefix(why, "; ") + ")"
		}
		out[key] = fmt.Sprintf("warm-up did not settle in %d of %d forks of %s within --max-warmup %s%s, and --max-forks %d leaves no room for new forks in their place: %s, or raise --max-forks",
			capped, len(r.Forks), key, maxWarmup, why, maxForks, remedy)
	}
	return out
}

// cappedNotices tell the user which measurements had forks whose warm-up
// hit its cap, and whether new forks replaced them.
func cappedNotices(results map[string]service.ItemResult, want map[string]int, maxForks int, maxWarmup time.Duration) []string {
	reasons := withheld(results, want, maxForks, maxWarmup)
	var out []string
	for key, r := range results {
		capped, why, _ := measure.Capped(r.Forks)
		switch {
		case capped == 0:
		case reasons[key] != "":
			out = append(out, fmt.Sprintf("%s: %s; the formulas that use it are undecided", key, reasons[key]))
		default:
			out = append(out, fmt.Sprintf("%s: %d of %d forks did not reach a steady state within %s (the warm-up cap%s): left out of the verdicts and replaced by new forks", key, capped, len(r.Forks), maxWarmup, why))
		}
	}
	slices.Sort(out)
	return out
}

// checkSemantics is the semantics a check decides with: the request's, else
// perfls.json's, else shown.
func checkSemantics(requested string, project *measure.Project) (verdict.Semantics, error) {
	sem, err := verdict.ParseSemantics(requested)
	if err != nil {
		return "", fmt.Errorf("semantics: %w", err)
	}
	if sem == "" && project != nil {
		if sem, err = verdict.ParseSemantics(project.Semantics); err != nil {
			return "", fmt.Errorf("%s: \"semantics\": %w", project.Config, err)
		}
	}
	if sem == "" {
		sem = verdict.Shown
	}
	return sem, nil
}

// Failed reports whether an error left some instance undecided: perfls
// check then exits 2.
func (r *CheckResult) Failed() bool { return verdict.Count(r.Methods).Failed > 0 }

// addForks measures add[key] more forks of each request named and appends
// them to its result in out; it returns how many forks came back per key.
// A new look (look true) decides on this check's forks alone: the run
// history (earlier measurements' fork means) would now include the first
// round. Forks measured in place of capped ones are no look and keep it.
func (e *Engine) addForks(ctx context.Context, svc service.Service, req CheckRequest, out *CheckResult, add map[string]int, look bool) (map[string]int, error) {
	// One service call per distinct number of forks (usually one).
	var counts []int
	for _, n := range add {
		if !slices.Contains(counts, n) {
			counts = append(counts, n)
		}
	}
	slices.Sort(counts)
	got := map[string]int{}
	for _, n := range counts {
		opts := req.Options
		opts.Forks = n
		params := service.Params{Options: opts, Priority: req.Priority, Fresh: true, ClasspathFile: req.ClasspathFile}
		var which []workspace.Request
		for _, r := range out.plan.Requests {
			if add[r.Key()] == n && !slices.ContainsFunc(which, func(w workspace.Request) bool { return w.Key() == r.Key() }) {
				which = append(which, r)
			}
		}
		if !req.Fresh {
			// Forks stored by another run (another machine of a shared store)
			// answer instead of measuring, when this check has not used them.
			for _, r := range out.plan.Requests {
				if id := out.results[r.Key()].CacheID; id != 0 && !slices.Contains(out.used, id) {
					out.used = append(out.used, id)
				}
			}
			params.Besides = append([]int64{}, out.used...)
		}
		resp, err := e.measureRequests(ctx, svc, params, which, out.revs, req.Progress)
		if err != nil {
			return got, err
		}
		if len(resp.compileErrors) > 0 {
			return got, fmt.Errorf("the project no longer compiles while forks were added")
		}
		for _, n := range resp.notices { // each round repeats the service's notices
			if !slices.Contains(out.Notices, n) {
				out.Notices = append(out.Notices, n)
			}
		}
		for _, r := range which {
			key := r.Key()
			more, had := resp.results[key], out.results[key]
			out.Notices = append(out.Notices, measure.DriftWarnings(key, more.Forks)...)
			if more.Error != "" {
				had.Error = more.Error
			}
			had.Forks = append(had.Forks, more.Forks...)
			if more.CacheID != 0 {
				out.used = append(out.used, more.CacheID)
			}
			if look {
				had.History = nil
			}
			had.Cached = false
			out.results[key] = had
			got[key] += len(more.Forks)
		}
	}
	return got, nil
}

// decide turns measurements into verdicts, grouped by annotated method, in
// plan order; interpretation says how each formula is decided. It also
// returns the keys of the requests that more forks may decide: the operands
// of instances undecided for lack of evidence.
func decide(plan *workspace.Plan, results map[string]service.ItemResult, opt verdict.Options, interpretation func(*workspace.Formula) (stats.Interpretation, error), withheld map[string]string) ([]verdict.MethodResult, map[string]bool, error) {
	var methods []verdict.MethodResult
	more := map[string]bool{}
	byMethod := map[string]int{}
	now := time.Now().UTC()
	// Comparisons share measurements (the same method at the same argument
	// in several formulas): summarize each measurement once.
	prepared := map[string]verdict.Side{}
	sideOf := func(o workspace.Operand) verdict.Side {
		if o.Err != nil {
			return verdict.Side{Err: o.Err}
		}
		key := fmt.Sprint(o.Request.Key(), "×", o.Scale, o.Metric)
		sd, ok := prepared[key]
		if !ok {
			sd = side(o, results).Prepare()
			sd.Withheld = withheld[o.Request.Key()]
			prepared[key] = sd
		}
		return sd
	}
	for _, in := range plan.Instances {
		f := in.Formula
		interp, err := interpretation(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", f.Path, f.Line(), err)
		}
		opt := opt
		opt.Interpretation = interp
		inputs := make([]verdict.Input, len(in.Comparisons))
		for i, c := range in.Comparisons {
			inputs[i] = verdict.Input{Node: c.Node, Text: c.Text, Left: sideOf(c.Left), Right: sideOf(c.Right)}
		}
		ir := verdict.DecideInstance(in.Inst.Body, inputs, opt)
		sameMeasurement(&ir, in, results, verdict.DefaultDelta)
		ir.Line, ir.Instance, ir.Formula = f.Line(), in.Label(), f.Text()
		if ir.Outcome == verdict.Undecided && !ir.Failed {
			for i, c := range ir.Comparisons {
				if c.Outcome == verdict.Undecided && c.Evidence.MoreForks > 0 {
					more[in.Comparisons[i].Left.Request.Key()] = true
					more[in.Comparisons[i].Right.Request.Key()] = true
				}
			}
		}
		key := formulaMethodKey(f)
		i, ok := byMethod[key]
		if !ok {
			i = len(methods)
			byMethod[key] = i
			methods = append(methods, methodRecord(f, now))
		}
		methods[i].Instances = append(methods[i].Instances, ir)
		for _, c := range in.Comparisons {
			for _, o := range []workspace.Operand{c.Left, c.Right} {
				if o.Err == nil && f.Method != nil && o.Request.Method.Decl == f.Method {
					methods[i].Measurements = addMeasurement(methods[i].Measurements, o.Request, results[o.Request.Key()])
				}
			}
		}
	}
	return methods, more, nil
}

// methodRecord is the empty verdict record of a formula's method.
func methodRecord(f *workspace.Formula, now time.Time) verdict.MethodResult {
	mr := verdict.MethodResult{File: f.Path, CheckedAt: now}
	if f.Method != nil {
		mr.Class, mr.Method = f.Method.Type.BinaryName, f.Method.Name
		mr.Source = f.Method.SourceHash(f.File)
		for _, p := range f.Method.Params {
			mr.Params = append(mr.Params, p.Erased)
		}
	}
	return mr
}

// formulaMethodKey is the key decide groups a formula's instances by.
func formulaMethodKey(f *workspace.Formula) string {
	mr := methodRecord(f, time.Time{})
	return fmt.Sprint(mr.File, mr.Class, mr.Method, mr.Params)
}

// side is the verdict side of an operand: its forks' samples, or why there
// are none.
func side(o workspace.Operand, results map[string]service.ItemResult) verdict.Side {
	if o.Err != nil {
		return verdict.Side{Err: o.Err}
	}
	res, ok := results[o.Request.Key()]
	if !ok {
		return verdict.Side{Err: errors.New("not measured")}
	}
	s := sideOf(res)
	s.Scale = o.Scale
	if o.Metric == "" || o.Metric == string(model.Wall) || s.Err != nil {
		return s
	}
	// Another demand: its series, without the run history (of wall times).
	s.Metric, s.History = o.Metric, nil
	if s.Runs = model.Runs(res.Forks, model.Metric(o.Metric)); s.Runs == nil {
		s.Err = fmt.Errorf("%s: this JVM or harness did not report %s for every fork", o.Request.Key(), o.Metric)
	}
	return s
}

// recordVerdicts stores the verdicts, where every editor reads them.
func (e *Engine) recordVerdicts(ctx context.Context, results []verdict.MethodResult) error {
	store, err := e.Store()
	if err != nil {
		return err
	}
	return store.ReplaceVerdicts(ctx, results)
}

// NoFormulas is the error of a check of a directory that holds no formula:
// the directories searched (relative to dir), what was found there, and
// where formulas are looked for. A directory without formulas is most
// often the wrong one, and a CI job pointed at it would pass.
func (r *CheckResult) NoFormulas(dir string) error {
	searched := make([]string, len(r.Searched))
	for i, d := range r.Searched {
		searched[i] = report.Rel(dir, d)
		if searched[i] == "." || searched[i] == "" {
			searched[i] = dir
		}
	}
	return fmt.Errorf("no @SPL formulas to check: searched %s (%d .java file(s), none with @SPL) and %s for .spl files; "+
		"give the project's directory, or list its source directories in perfls.json's \"sourceRoots\"",
		strings.Join(searched, ", "), r.JavaFiles, dir)
}

// ClasspathFile checks a --classpath-file before anything is measured and
// returns its absolute path ("" when not given). remote: the measurements
// go to the shared store's workers, which do not have this machine's files.
func ClasspathFile(file string, remote bool) (string, error) {
	if file == "" {
		return "", nil
	}
	if remote {
		return "", fmt.Errorf("--classpath-file names files on this machine, which the workers of --remote do not have; leave one of them out")
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", fmt.Errorf("--classpath-file %s: %w", file, err)
	}
	if _, err := measure.ReadClasspathFile(abs); err != nil {
		return "", fmt.Errorf("--classpath-file: %w", err)
	}
	return abs, nil
}
