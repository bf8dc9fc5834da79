package engine

// perfls diff: every method with a workload, measured in a base commit and
// in the working tree, and whether it became slower.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/regression"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/revision"
	"github.com/perfls/perfls/measure/service"
)

// HistoryRequest asks to compare the working tree in Dir with a base
// commit (Diff), or is the common part of a bisection (BisectRequest).
type HistoryRequest struct {
	Dir string // the project directory (absolute), in a git work tree
	// Base names the base commit of Diff (any git revision); "" is the
	// merge base of HEAD with the default branch (origin/HEAD, main,
	// master, origin/main, origin/master), else, in a repository without
	// a remote, HEAD. A base that is HEAD's commit while the working tree
	// has no changes is an error: there would be nothing to compare.
	Base string
	// Fetch lets Diff and Bisect fetch from the remote what a shallow or
	// single-branch clone lacks (the default branch, a named branch, tag
	// or commit, history below the boundary: revision.Repo.Fetch), each
	// fetch told to the engine's log; without it they stop with a
	// *revision.HistoryError naming the git command that fetches it.
	Fetch bool
	// Method selects the workloads of one method, pkg.C#m or
	// pkg.C#m(int[]); "" = every method with a workload.
	Method  string
	Options measure.Options
	// Alpha is the significance level; 0 = the project's, else verdict's
	// default.
	Alpha float64
	// MaxForks bounds the forks per measurement when a comparison is
	// undecided for lack of evidence, as CheckRequest.MaxForks does
	// (α is spread over the looks). 0 = 3 × Options.Forks.
	MaxForks int
	Fresh    bool
	// Profile (Diff only) profiles every slower workload in both trees
	// and says what changed in its profile (diff --profile).
	Profile bool
	// CommitConfig builds each commit with its own perfls.json where it
	// has one, instead of the working tree's (--commit-config).
	CommitConfig bool
	Priority     service.Priority
	Progress     func(service.Progress)
}

// Diff measures every method that has a workload (@Workload, or measured
// on a generator by a formula) in the working tree and in the base commit,
// skipping those whose code did not change, and decides for each whether
// it became slower, faster, stayed the same or is undecided. A working
// tree that does not compile is a *CompileError.
func (e *Engine) Diff(ctx context.Context, req HistoryRequest) (*report.Diff, error) {
	repo, err := e.openRepo(ctx, req.Dir, req.Fetch)
	if err != nil {
		return nil, err
	}
	base, name, err := diffBase(ctx, repo, req.Base)
	if err != nil {
		return nil, err
	}
	head, err := e.treeSide(ctx, req.Dir, "worktree", req.Options)
	if err != nil {
		return nil, err
	}
	rs := newRevisions(req.Dir, head.src, head.index, head.reqs, req.CommitConfig)
	rs.names[base] = name
	old, err := e.commitSide(ctx, rs, base, req.Options, head)
	if err != nil {
		return nil, fmt.Errorf("base %s: %w", name, errorOf(err))
	}
	keep := func(r workspace.Request) bool { return matches(r, req.Method) }
	d, err := e.compare(ctx, e.service(ctx), old, head, keep, req)
	if err != nil {
		return nil, err
	}
	d.BaseName = name
	d.Notices = append(rs.notices, d.Notices...)
	if err := comparable(d, head, name, req.Method); err != nil {
		return nil, err
	}
	if clean, _ := repo.Clean(ctx); clean {
		d.Head, _ = repo.Resolve(ctx, "HEAD")
	}
	if req.Profile {
		if err := e.profileSlower(ctx, old, head, d, req); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// comparable refuses a diff that compared nothing: no workload in the
// working tree (of the method asked for), or none whose method the base
// has. Green on nothing would pass any slow-down.
func comparable(d *report.Diff, head *treeSide, base, method string) error {
	if len(d.Changes)+len(d.Unchanged) > 0 {
		return nil
	}
	if !hasWorkload(head.reqs, method) {
		return fmt.Errorf("nothing to compare: %s", noWorkloadOf(head.src, method))
	}
	return fmt.Errorf("nothing to compare with base %s: its tree has none of the working tree's %d workload(s) of %s: %s",
		base, len(d.Added), orAll(method), examples(d.Added, 3))
}

// examples lists up to n of xs, and how many more there are.
func examples(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}

// diffBase resolves Diff's base (named, or the default one) and refuses
// one that is HEAD's commit while the working tree has no changes: the
// diff would compare a commit with itself and find everything unchanged.
// With changes, comparing them with HEAD is what is asked (or, by
// default, the merge base is HEAD: on the default branch itself).
func diffBase(ctx context.Context, repo *revision.Repo, named string) (base, name string, err error) {
	name = named
	var ref string
	if named != "" {
		base, err = repo.Need(ctx, named)
	} else {
		var b revision.Base
		b, err = repo.DefaultBase(ctx)
		base, ref, name = b.Commit, b.Ref, "merge base"
	}
	var he *revision.HistoryError
	if named == "" && errors.As(err, &he) {
		he.Fix = append(he.Fix, "perfls diff --base REV   (the commit to compare with)")
	}
	if err != nil {
		return "", "", fmt.Errorf("base: %w", err)
	}
	head, err := repo.Resolve(ctx, "HEAD")
	if err != nil || head != base {
		return base, name, nil
	}
	if clean, err := repo.Clean(ctx); err != nil || !clean {
		return base, name, nil
	}
	why := fmt.Sprintf("--base %s is HEAD's own commit (%.12s)", named, head)
	switch {
	case named != "":
	case ref == "":
		why = fmt.Sprintf("this repository has no default branch (main or master) and no remote, so the base is HEAD itself (commit %.12s)", head)
	default:
		why = fmt.Sprintf("HEAD (commit %.12s) is in the history of %s, so their merge base, the default base, is HEAD itself", head, strings.TrimPrefix(strings.TrimPrefix(ref, "refs/remotes/"), "refs/heads/"))
	}
	return "", "", &revision.HistoryError{Msg: why + ", and the working tree has no changes: nothing to compare",
		Fix: []string{"perfls diff --base REV   (the commit to compare with, e.g. HEAD~1 or origin/main)"}}
}

// profileSlower profiles each slower workload once in each tree (a
// profiled fork apiece, cached like any profile) and records what changed
// between the two profiles (profile.Compare: callees whose share grew, a
// grown call subtree; callees the base lacks are listed, not judged).
func (e *Engine) profileSlower(ctx context.Context, base, head *treeSide, d *report.Diff, req HistoryRequest) error {
	find := func(c report.DiffChange) (key string, ok bool) {
		for i, r := range head.reqs {
			if r.Method.String() == c.Method && r.Generator.String() == c.Workload && argsText(r.Args) == c.Args {
				return head.keys[i], true
			}
		}
		return "", false
	}
	opts := measure.Options{Java: req.Options.Java, JVMArgs: req.Options.JVMArgs} // else ProfileDefaults'
	for i := range d.Changes {
		c := &d.Changes[i]
		key, ok := find(*c)
		if c.Verdict != report.Slower || !ok {
			continue
		}
		var got [2]*Profiled
		for j, s := range []*treeSide{base, head} {
			r, _ := s.request(key)
			it := item(r)
			wl := Workload{Method: it.Method, Args: it.Args}
			if it.Generator.Class != "" {
				wl.Generator = &it.Generator
			}
			p, err := e.Profile(ctx, ProfileRequest{Dir: s.dir, Workload: wl, Options: opts, Priority: req.Priority, Progress: req.Progress})
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				c.Profile = &report.DiffProfile{Reason: fmt.Sprintf("not profiled in the %s: %v", map[int]string{0: "base", 1: "head"}[j], errorOf(err)), Findings: []profile.Finding{}}
				break
			}
			got[j] = p
		}
		if got[0] == nil || got[1] == nil {
			continue
		}
		cmp := profile.Compare(got[1].Profile, []*profile.Profile{got[0].Profile}, profile.Thresholds{})
		c.Profile = &report.DiffProfile{Comparable: cmp.Comparable, Reason: cmp.Reason, Findings: cmp.Findings, NotComparable: cmp.NotComparable}
		if c.Profile.Findings == nil {
			c.Profile.Findings = []profile.Finding{}
		}
	}
	return nil
}

// errorOf spells out a compile error's first message, and its hint.
func errorOf(err error) error {
	var ce *CompileError
	if errors.As(err, &ce) && len(ce.Messages) > 0 {
		if ce.Hint != "" {
			return fmt.Errorf("%w; %s", compileError(ce.Messages), ce.Hint)
		}
		return compileError(ce.Messages)
	}
	return err
}

// compileReason says why a tree does not compile: its first message (and
// how many more) and the hint, or the error as it is.
func compileReason(err error) string {
	var ce *CompileError
	if !errors.As(err, &ce) || len(ce.Messages) == 0 {
		return err.Error()
	}
	s := firstMessage(ce.Messages)
	if ce.Hint != "" {
		s += "; " + ce.Hint
	}
	return s
}

// treeSide is one tree of a comparison: its project, its workloads and
// its compiled classes.
type treeSide struct {
	name string // a commit hash or "worktree"
	dir  string
	// commit and tree name a materialised commit and its tree hash, for
	// the results' records; "" for the working tree.
	commit, tree string
	// reqs are the tree's workloads: the working tree's, as declared in
	// this tree (commitSide); keys[i] is the Key of the working tree's
	// request reqs[i] stands for, which pairs them across trees.
	reqs  []workspace.Request
	keys  []string
	build *measure.Build
	src   *sources         // the tree's sources
	index *workspace.Index // and declarations
	// removed are the tree's own workloads (its @Workload annotations and
	// formulas) whose method the working tree no longer has.
	removed []workspace.Request
}

// request is the tree's request that stands for the working tree's of key.
func (s *treeSide) request(key string) (workspace.Request, bool) {
	for i, k := range s.keys {
		if k == key {
			return s.reqs[i], true
		}
	}
	return workspace.Request{}, false
}

// workingSide is the working tree in dir as the comparisons see it — its
// sources, declarations and workloads — without compiling it.
func (e *Engine) workingSide(ctx context.Context, dir, name string) (*treeSide, error) {
	src, err := readSources(ctx, dir, nil)
	if err != nil {
		return nil, err
	}
	s := &treeSide{name: name, dir: dir, src: src, index: workspace.NewIndex(src.files), reqs: projectWorkloads(src)}
	for _, r := range s.reqs {
		s.keys = append(s.keys, r.Key())
	}
	return s, nil
}

// treeSide reads and compiles the project in dir and lists its workloads.
// A project that does not compile is a *CompileError.
func (e *Engine) treeSide(ctx context.Context, dir, name string, opts measure.Options) (*treeSide, error) {
	s, err := e.workingSide(ctx, dir, name)
	if err != nil {
		return nil, err
	}
	if err := s.src.project.ApplyOptions(ctx, opts); err != nil {
		return nil, err
	}
	s.build, err = measure.Compile(ctx, s.src.project, e.cfg.CacheDir)
	var ce *measure.CompileError
	if errors.As(err, &ce) {
		return nil, &CompileError{Messages: ce.Messages, Hint: ce.Hint}
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// projectWorkloads are the workloads of the project's own methods: those
// formulas measure them on (in the working tree, not at a revision), and
// their @Workload generators; in source order, each once.
func projectWorkloads(src *sources) []workspace.Request {
	out, _ := workloadsAndUnbound(src)
	return out
}

// unbound is a method's @Workload binding that is no workload perfls can
// measure, and why.
type unbound struct {
	method workspace.Target
	why    string
}

// workloadsAndUnbound are projectWorkloads and, second, the bindings that
// are not workloads, with why: what a refusal to compare tells.
func workloadsAndUnbound(src *sources) ([]workspace.Request, []unbound) {
	ix := workspace.NewIndex(src.files)
	var bad []unbound
	var out []workspace.Request
	seen := map[string]bool{}
	add := func(r workspace.Request) {
		if !seen[r.Key()] {
			seen[r.Key()] = true
			out = append(out, r)
		}
	}
	var formulas []*workspace.Formula
	for _, f := range src.formulas {
		if !f.Broken {
			formulas = append(formulas, f)
		}
	}
	for _, r := range workspace.PlanCheck(ix, formulas).Requests {
		if r.Method.Decl != nil && r.Revision() == "" && r.Generator.Class != "" {
			add(r)
		}
	}
	for _, f := range src.files {
		for _, m := range f.Methods {
			if m.Type == nil || len(m.Workloads) == 0 {
				continue
			}
			at := &workspace.Formula{Path: f.Path, File: f, Method: m}
			self := workspace.Target{Class: m.Type.BinaryName, Method: m.Name, Decl: m}
			for _, p := range m.Params {
				self.Params = append(self.Params, p.Erased)
			}
			for _, wl := range m.Workloads {
				if r, err := annotatedWorkload(ix, at, self, wl.Text); err == nil {
					add(r)
				} else {
					bad = append(bad, unbound{self, fmt.Sprintf("@Workload(%q): %v", wl.Text, err)})
				}
			}
		}
	}
	return out, bad
}

// noWorkloadOf is why the working tree in src has no workload of method
// (its bindings that are not workloads, with why), and what to do.
func noWorkloadOf(src *sources, method string) string {
	_, bad := workloadsAndUnbound(src)
	var why []string
	for _, u := range bad {
		if matches(workspace.Request{Method: u.method}, method) && !slices.Contains(why, u.why) {
			why = append(why, u.why)
		}
	}
	detail := ""
	if len(why) > 0 {
		detail = " (" + strings.Join(why, "; ") + ")"
	}
	return fmt.Sprintf("the working tree has no workload of %s%s: diff and bisect measure the workloads a method's source binds; "+
		"add @Workload(\"pkg.Class#generator\") or a formula measuring SELF[gen](n)", orAll(method), detail)
}

// fingerprint is the code a workload measures in a tree: the classes of
// the method and the generator and every project class they reach.
func (s *treeSide) fingerprint(r workspace.Request) (string, error) {
	roots := []string{r.Method.Class}
	if r.Generator.Class != "" {
		roots = append(roots, r.Generator.Class)
	}
	fp, _, err := cache.Fingerprint(append([]string{s.build.ClassesDir}, s.build.ClassDirs...), roots)
	return fp, err
}

// pair is one workload in both trees.
type pair struct {
	head, base workspace.Request
	change     report.DiffChange
}

// compare measures the workloads of head that base has too and whose code
// differs (keep, when set, selects them by method, pkg.C#m), and decides
// each; more forks are added, up to req.MaxForks, while some are undecided
// for lack of evidence.
func (e *Engine) compare(ctx context.Context, svc service.Service, base, head *treeSide, keep func(workspace.Request) bool, req HistoryRequest) (*report.Diff, error) {
	d := &report.Diff{Base: base.name, Head: head.name, Margin: verdict.DefaultDelta,
		Changes: []report.DiffChange{}, Unchanged: []string{}, Added: []string{}, Removed: []string{}}
	pairs := pairUp(base, head, keep, d)
	alpha := req.Alpha
	if alpha == 0 {
		if p, err := measure.FindProject(head.dir); err == nil {
			alpha = p.Alpha
		}
	}
	if alpha == 0 {
		alpha = verdict.DefaultAlpha
	}
	d.Alpha = alpha
	if len(pairs) == 0 {
		return d, nil
	}
	forks := req.Options.Defaults().Forks
	maxForks := maxForks(req)
	looks := verdict.Looks(forks, maxForks)
	opt := verdict.Options{Alpha: alpha / float64(looks), Looks: looks}
	results := map[*pair][2]service.ItemResult{}
	todo := pairs
	params := service.Params{Options: req.Options, Priority: req.Priority, Fresh: req.Fresh}
	for look := 1; ; look++ {
		got, err := e.measurePairs(ctx, svc, base, head, todo, params, req.Progress, d)
		if err != nil {
			return nil, err
		}
		var more []*pair
		for _, p := range todo {
			had, add := results[p], got[p]
			for i := range had {
				if look > 1 {
					add[i].Forks = append(had[i].Forks, add[i].Forks...)
					add[i].History = nil
				}
			}
			results[p] = add
			if decideChange(&p.change, add[1], add[0], opt) && look < looks {
				more = append(more, p)
			}
		}
		if len(more) == 0 {
			break
		}
		todo = more
		params.Fresh = true
		params.Options.Forks = min(forks, maxForks-forks*look)
	}
	for _, p := range pairs {
		r := results[p]
		regression.EnvironmentVerdict(&p.change, environmentDiffs(r[0].Env, r[1].Env))
		d.Changes = append(d.Changes, p.change)
	}
	return d, nil
}

// pairUp pairs the workloads of head that base has too (keep selects
// them) and whose code differs; it lists the others in d as added,
// removed or unchanged.
func pairUp(base, head *treeSide, keep func(workspace.Request) bool, d *report.Diff) []*pair {
	var pairs []*pair
	for i, r := range head.reqs {
		if !keep(r) {
			continue
		}
		b, ok := base.request(head.keys[i])
		if !ok {
			d.Added = append(d.Added, head.keys[i])
			continue
		}
		hf, herr := head.fingerprint(r)
		bf, berr := base.fingerprint(b)
		if herr == nil && berr == nil && hf == bf {
			d.Unchanged = append(d.Unchanged, head.keys[i])
			continue
		}
		pairs = append(pairs, &pair{head: r, base: b, change: report.DiffChange{Method: r.Method.String(), Workload: r.Generator.String(), Args: argsText(r.Args)}})
	}
	for _, r := range base.removed {
		if keep(r) {
			d.Removed = append(d.Removed, r.Key())
		}
	}
	return pairs
}

// measurePairs measures the pairs' workloads in both trees; got[p] holds
// the base's result, then the head's.
func (e *Engine) measurePairs(ctx context.Context, svc service.Service, base, head *treeSide, pairs []*pair, p service.Params, progress func(service.Progress), d *report.Diff) (map[*pair][2]service.ItemResult, error) {
	got := map[*pair][2]service.ItemResult{}
	for i, s := range []*treeSide{base, head} {
		q := p
		q.Project, q.Items, q.Commit, q.Tree = s.dir, nil, s.commit, s.tree
		for _, pr := range pairs {
			r := pr.head
			if i == 0 {
				r = pr.base
			}
			q.Items = append(q.Items, item(r))
		}
		resp, err := svc.Measure(ctx, q, progress)
		if err != nil {
			return nil, err
		}
		d.Notices = append(d.Notices, resp.Notices...)
		if len(resp.CompileErrors) > 0 {
			return nil, fmt.Errorf("%s: %w", s.name, errorOf(&CompileError{Messages: resp.CompileErrors, Hint: resp.CompileHint}))
		}
		for j, pr := range pairs {
			r := got[pr]
			r[i] = resp.Items[j]
			got[pr] = r
			if resp.Items[j].Cached {
				d.Cached++
			} else if resp.Items[j].Error == "" {
				d.Measured++
				d.MeasuredHead += i
			}
		}
	}
	return got, nil
}

// decideChange decides one workload from its head and base measurements
// (regression.DecideChange) and reports whether more forks could decide it.
func decideChange(c *report.DiffChange, head, base service.ItemResult, opt verdict.Options) bool {
	hs, bs := sideOf(head), sideOf(base)
	c.Base, c.Head = regression.Figures(bs, base.Cached), regression.Figures(hs, head.Cached)
	return regression.DecideChange(c, hs, bs, opt)
}

// sideOf is a measurement as a verdict side: its forks' samples and the
// fork means of earlier runs of the same code, or why there are none.
func sideOf(res service.ItemResult) verdict.Side {
	if res.Error != "" {
		return verdict.Side{Err: errors.New(res.Error)}
	}
	var s verdict.Side
	for _, f := range res.Forks {
		s.Runs = append(s.Runs, f.NsPerOp)
	}
	// Only their means matter to the parametric interpretation, so each
	// arrives as a one-value run.
	for _, m := range res.History {
		s.History = append(s.History, []float64{m})
	}
	return s
}

func argsText(args []spl.Value) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = a.String()
	}
	return strings.Join(s, ",")
}

// DiffMethod compares one method's workloads in the working tree with the
// base commit (the editor's "Compare with base" lens): perfls diff
// --method, with the editor's settings.
func (e *Engine) DiffMethod(ctx context.Context, req MethodRequest, say func(string)) (*report.Diff, error) {
	opts, err := req.options(e.editorBase(MeasureDefaults()))
	if err != nil {
		return nil, err
	}
	d, err := e.Diff(ctx, HistoryRequest{Dir: req.dir(), Method: req.Class + "#" + req.Method, Options: opts, Alpha: req.Alpha,
		Priority: service.Interactive, Progress: messages(say)})
	if d != nil {
		req.warn(d.Notices)
	}
	return d, err
}
