package engine

// Revisions in formulas (m@v1.0, pkg.C#m@HEAD~2, @6a49ef6:pkg.C#m): each
// revision's commit is materialised in the cache directory, compiled like
// the working tree and measured with the same harness.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/measure/revision"
	"github.com/perfls/perfls/measure/service"
)

// tree is a commit's materialised project, with the working tree's set-up
// overlaid (overlay.go).
type tree struct {
	Name     string // as the user named it
	Commit   string // full hash
	Dir      string // the project directory inside the materialised tree
	TreeHash string // git's tree hash of the project's directory at Commit ("" unknown)
	index    *workspace.Index
	same     *tree // the tree of the same commit under another name, which owns the index
	Err      error // the revision could not be materialised
}

// label names the tree in messages: "v1.0 (commit 1a2b3c4d5e6f)", or
// "commit 1a2b3c4d5e6f" when it was named by its hash.
func (t *tree) label() string {
	switch {
	case t.Commit == "":
		return t.Name
	case strings.HasPrefix(t.Commit, t.Name):
		return fmt.Sprintf("commit %.12s", t.Commit)
	}
	return fmt.Sprintf("%s (commit %.12s)", t.Name, t.Commit)
}

// at is r as declared in the tree: its method and generator found among
// the tree's sources (parameter types as they are there). A class in
// neither tree (the JDK's, a jar's) is passed on as named; a generator's
// overload is the harness's to pick. The tree holds the working tree's
// workloads (overlay.go).
func (t *tree) at(r workspace.Request, now *workspace.Index) (workspace.Request, error) {
	out := workspace.Request{Args: r.Args}
	for i, tg := range []workspace.Target{r.Method, r.Generator} {
		if tg.Class == "" {
			continue
		}
		found := tg
		if t.index.Type(tg.Class) != nil || now.Type(tg.Class) != nil {
			params := tg.Params
			if i == 1 {
				params = nil
			}
			var err error
			if found, err = t.index.Member(tg.Class, tg.Method, params); err != nil {
				return out, fmt.Errorf("%s#%s at %s: %w", tg.Class, tg.Method, t.label(), err)
			}
		}
		if i == 1 {
			found.Params = nil
		}
		found.Revision, found.Decl = tg.Revision, nil
		if i == 0 {
			out.Method = found
		} else {
			out.Generator = found
		}
	}
	return out, nil
}

// atRevisions are the requests of plan measured at a revision.
func atRevisions(plan *workspace.Plan) []workspace.Request {
	var out []workspace.Request
	for _, r := range plan.Requests {
		if r.Revision() != "" {
			out = append(out, r)
		}
	}
	return out
}

// measuredRequests is what measureRequests found.
type measuredRequests struct {
	results map[string]service.ItemResult // by workspace.Request.Key
	// revisionErrs are the requests (by key) a revision left unmeasured: not
	// a repository, unknown revision, method missing or not compiling there.
	revisionErrs  map[string]string
	compileErrors []measured.CompilerMessage // of the working tree
	notices       []string
}

// measureRequests measures reqs through svc with p's settings (p.Items,
// p.Project, p.Commit and p.Tree are set here): those of the working tree
// in rs.dir, each revision's in its materialised tree (rs.tree). A
// revision that cannot be measured is no error: its requests get their
// reason in revisionErrs and as their item's error.
func (e *Engine) measureRequests(ctx context.Context, svc service.Service, p service.Params, reqs []workspace.Request, rs *revisions, progress func(service.Progress)) (*measuredRequests, error) {
	out := &measuredRequests{results: map[string]service.ItemResult{}, revisionErrs: map[string]string{}}
	groups := map[string][]workspace.Request{}
	var revs []string
	for _, r := range reqs {
		rev := r.Revision()
		if _, ok := groups[rev]; !ok {
			revs = append(revs, rev)
		}
		groups[rev] = append(groups[rev], r)
	}
	sort.Strings(revs) // the working tree ("") first
	fail := func(r workspace.Request, msg string) {
		out.revisionErrs[r.Key()] = msg
		out.results[r.Key()] = service.ItemResult{Error: msg}
	}
	noticed := len(rs.notices)
	for _, rev := range revs {
		q := p
		q.Project, q.Items, q.Commit, q.Tree = rs.dir, nil, "", ""
		group := groups[rev]
		var t *tree
		if rev != "" {
			t = rs.tree(ctx, e, rev)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			q.Project, q.Commit, q.Tree = t.Dir, t.Commit, t.TreeHash
			group, q.Items = rs.itemsAt(ctx, t, group, fail)
		} else {
			for _, r := range group {
				q.Items = append(q.Items, item(r))
			}
		}
		if len(q.Items) == 0 {
			continue
		}
		resp, err := svc.Measure(ctx, q, progress)
		if err != nil {
			return nil, err
		}
		out.notices = append(out.notices, resp.Notices...)
		if len(resp.CompileErrors) > 0 {
			if t == nil {
				out.compileErrors = resp.CompileErrors
				return out, nil
			}
			msg := fmt.Sprintf("revision @%s does not compile: %s", t.label(),
				compileReason(incomplete(ctx, rs.dir, t.Commit, t.relative(&CompileError{Messages: resp.CompileErrors, Hint: resp.CompileHint}))))
			for _, r := range group {
				fail(r, msg)
			}
			continue
		}
		for i, r := range group {
			out.results[r.Key()] = resp.Items[i]
		}
	}
	out.notices = append(out.notices, rs.notices[noticed:]...)
	return out, nil
}

// itemsAt are the items of group as declared in t, and the requests they
// stand for; those t cannot measure (it could not be materialised, a
// method is not there) are given to fail with the reason.
func (rs *revisions) itemsAt(ctx context.Context, t *tree, group []workspace.Request, fail func(workspace.Request, string)) (mapped []workspace.Request, items []service.Item) {
	if t.Err == nil {
		t.Err = t.indexed(ctx)
	}
	for _, r := range group {
		if t.Err != nil {
			fail(r, fmt.Sprintf("revision @%s: %v", r.Revision(), t.Err))
			continue
		}
		ra, err := t.at(r, rs.now)
		if err != nil {
			fail(r, err.Error())
			continue
		}
		mapped = append(mapped, r)
		items = append(items, item(ra))
	}
	return mapped, items
}

// revisionDiagnostics point at the "@rev" text of every operand a revision
// left unmeasured, once per place.
func revisionDiagnostics(plan *workspace.Plan, errs map[string]string) []workspace.Diagnostic {
	if len(errs) == 0 {
		return nil
	}
	var out []workspace.Diagnostic
	seen := map[string]bool{}
	for _, in := range plan.Instances {
		for _, c := range in.Comparisons {
			for _, o := range []workspace.Operand{c.Left, c.Right} {
				msg, ok := errs[o.Request.Key()]
				if o.Err != nil || !ok {
					continue
				}
				d := in.Formula.Diagnostic(o.RevisionSpan, workspace.Error, "revision", msg)
				key := fmt.Sprint(d.Path, d.Span, msg)
				if !seen[key] {
					seen[key] = true
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// openRepo opens the git repository holding dir for diff or bisect; with
// fetch it may fetch what a shallow or single-branch clone lacks, each
// command told to the engine's log first.
func (e *Engine) openRepo(ctx context.Context, dir string, fetch bool) (*revision.Repo, error) {
	repo, err := revision.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if fetch {
		repo.Fetch = func(cmd string) { e.cfg.Logf("fetching what this clone lacks: %s", cmd) }
	}
	return repo, nil
}

// incomplete is err, the compile error of commit's materialised tree,
// made the reason when the tree lacks submodules this clone does not
// have: their sources are missing, which javac's messages do not say. Any
// other error is returned as it is.
func incomplete(ctx context.Context, dir, commit string, err error) error {
	var ce *CompileError
	if !errors.As(err, &ce) {
		return err
	}
	var he *revision.HistoryError
	repo, oerr := revision.Open(ctx, dir)
	if oerr != nil || !errors.As(repo.Lacking(ctx, commit), &he) {
		return err
	}
	he.Msg = fmt.Sprintf("%v; %s", errorOf(err), he.Msg)
	return he
}

// RevisionInfo describes the commit a revision name names, for the
// editor's hover on "@rev".
type RevisionInfo struct {
	Name    string    // as written
	Commit  string    // full hash
	Subject string    // first line of its message
	Date    time.Time // committer date
}

// Revision resolves name in the git repository holding dir. Without
// trust git does not run: the refs are read as files, which give the
// commit (for a branch or tag) but not its subject and date, and a name
// the files cannot settle is an error wrapping trust.ErrUntrusted.
func (e *Engine) Revision(ctx context.Context, dir, name string) (RevisionInfo, error) {
	info := RevisionInfo{Name: name}
	if !trust.Trusted(ctx) {
		if err := revisionFromFiles(ctx, dir, name); err != nil {
			return info, err
		}
		info.Commit, _ = revision.ResolveFromFiles(revision.GitDir(dir), name)
		return info, nil
	}
	repo, err := revision.Open(ctx, dir)
	if err != nil {
		return info, err
	}
	if info.Commit, err = repo.Resolve(ctx, name); err != nil {
		return info, err
	}
	info.Subject, info.Date = repo.Subject(ctx, info.Commit), repo.Date(ctx, info.Commit)
	return info, nil
}

// RevisionName reports whether err is about a revision name or repository
// (an unknown revision, not a git repository), as opposed to a failure.
func RevisionName(err error) bool {
	return revision.IsUnknown(err) || revision.IsNotRepo(err)
}

// revisionNames checks, without materialising anything, that the
// revisions the formulas name exist in the git repository holding each
// formula's file: perfls lint's diagnostics on "@rev". Without trust git
// does not run: the refs are read as files (revision.ResolveFromFiles),
// and the names files cannot settle are left unchecked, listed in
// unchecked.
func revisionNames(ctx context.Context, ix *workspace.Index, formulas []*workspace.Formula) (diags []workspace.Diagnostic, unchecked []string) {
	plan := workspace.PlanCheck(ix, formulas)
	errs := map[string]string{}
	known := map[[2]string]error{} // (directory, revision) → its error
	trusted := trust.Trusted(ctx)
	seen := map[string]bool{}
	for _, in := range plan.Instances {
		for _, c := range in.Comparisons {
			for _, o := range []workspace.Operand{c.Left, c.Right} {
				rev := o.Request.Revision()
				if o.Err != nil || rev == "" {
					continue
				}
				k := [2]string{filepath.Dir(in.Formula.Path), rev}
				err, ok := known[k]
				if !ok {
					if trusted {
						var repo *revision.Repo
						if repo, err = revision.Open(ctx, k[0]); err == nil {
							_, err = repo.Resolve(ctx, rev)
						}
					} else {
						err = revisionFromFiles(ctx, k[0], rev)
					}
					known[k] = err
				}
				switch {
				case errors.Is(err, trust.ErrUntrusted):
					if !seen[rev] {
						seen[rev] = true
						unchecked = append(unchecked, rev)
					}
				case err != nil && ctx.Err() == nil:
					errs[o.Request.Key()] = fmt.Sprintf("revision @%s: %v", rev, err)
				}
			}
		}
	}
	return revisionDiagnostics(plan, errs), unchecked
}

// revisionFromFiles is revisionNames's answer without git: nil when the
// refs name rev, an *revision.UnknownError when they tell it does not
// exist, and an error wrapping trust.ErrUntrusted when files cannot tell.
func revisionFromFiles(ctx context.Context, dir, rev string) error {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	gitDir := revision.GitDir(dir)
	if gitDir == "" {
		return &revision.NotRepoError{Dir: dir, Msg: "no .git directory above it"}
	}
	commit, checked := revision.ResolveFromFiles(gitDir, rev)
	switch {
	case !checked:
		if err := trust.Check(ctx, "run git for @"+rev+" (the refs, read as files, cannot tell)"); err != nil {
			return err
		}
		return fmt.Errorf("revision @%s: needs git: %w", rev, trust.ErrUntrusted)
	case commit == "":
		return &revision.UnknownError{Name: rev, Msg: "no such tag or branch in " + filepath.Dir(gitDir)}
	}
	return nil
}

// sameMeasurement decides again, exactly, the comparisons of ir whose two
// sides are one measurement — the same code, workload, JVM and machine,
// as m@v1.0 is and m at a commit with v1.0's code: "a·L REL b·R" with
// L = R holds or not by the factors a and b alone, whatever the noise
// (at bisect's GOOD, "SELF <= 1.2 * SELF@GOOD" holds by identity). The
// instance's outcome is combined again from its comparisons.
func sameMeasurement(ir *verdict.InstanceResult, in *workspace.Instance, results map[string]service.ItemResult, delta float64) {
	changed := false
	for i, c := range in.Comparisons {
		if i >= len(ir.Comparisons) || c.Left.Err != nil || c.Right.Err != nil || c.Left.Metric != c.Right.Metric {
			continue
		}
		l, r := results[c.Left.Request.Key()], results[c.Right.Request.Key()]
		if !sameData(l, r) {
			continue
		}
		a, b := scale(c.Left.Scale), scale(c.Right.Scale)
		d := delta
		if c.Node.Interval != nil {
			d = *c.Node.Interval
		}
		var holds bool
		switch c.Node.Op {
		case spl.LE:
			holds = a <= b
		case spl.LT:
			holds = a < b
		case spl.GE:
			holds = a >= b
		case spl.GT:
			holds = a > b
		case spl.EQ:
			holds = a == b
		case spl.EQI:
			holds = a*(1-d) <= b*(1+d) && a*(1+d) >= b*(1-d)
		default:
			continue
		}
		cr := &ir.Comparisons[i]
		cr.Outcome, cr.Failed, cr.Reason = verdict.Violated, false, ""
		if holds {
			cr.Outcome = verdict.Satisfied
		}
		ev := &cr.Evidence
		ev.Ratio, ev.RatioLow, ev.RatioHigh, ev.RatioLevel = a/b, a/b, a/b, 1
		ev.Test, ev.P, ev.PHolds, ev.MoreForks = "one measurement on both sides (the same code, workload, JVM and machine): decided by the factors", 0, 0, 0
		changed = true
	}
	if !changed {
		return
	}
	outcomes := map[*spl.Comparison]verdict.Outcome{}
	failed := false
	for i, c := range in.Comparisons {
		if i < len(ir.Comparisons) {
			outcomes[c.Node] = ir.Comparisons[i].Outcome
			failed = failed || ir.Comparisons[i].Failed
		}
	}
	ir.Outcome = verdict.Combine(in.Inst.Body, func(c *spl.Comparison) verdict.Outcome { return outcomes[c] })
	ir.Failed = ir.Outcome == verdict.Undecided && failed
}

func scale(s float64) float64 {
	if s == 0 {
		return 1
	}
	return s
}

// sameData reports whether two results are one measurement: the same
// forks, sample for sample (the cache answered both, or one run was
// shared).
func sameData(a, b service.ItemResult) bool {
	if a.Error != "" || b.Error != "" || len(a.Forks) == 0 || len(a.Forks) != len(b.Forks) {
		return false
	}
	for i := range a.Forks {
		if !slices.Equal(a.Forks[i].NsPerOp, b.Forks[i].NsPerOp) || len(a.Forks[i].NsPerOp) == 0 {
			return false
		}
	}
	return true
}
