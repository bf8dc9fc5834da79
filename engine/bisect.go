package engine

// perfls bisect: the first commit at which a method became slower, by
// binary search over the first-parent history, measuring in materialised
// trees (never the checkout).

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/revision"
	"github.com/perfls/perfls/measure/service"
)

// BisectRequest asks for the first commit after Good, up to Bad, at which
// a workload (of HistoryRequest.Method, or any) is slower than at Good.
type BisectRequest struct {
	HistoryRequest
	Good, Bad string // git revisions; Good must be an ancestor of Bad
}

// Step verdicts.
const (
	stepBad  = "bad"
	stepGood = "good"
	stepSkip = "skip"
)

// Bisect judges Bad against Good, then searches the first-parent line
// between them. Without a method, when Good's project has formulas, a
// commit is bad when a formula instance that holds at Good (and is
// violated at Bad) is violated there (bisect_formula.go). Otherwise a
// commit is bad when one of the selected workloads is slower there than at
// Good, good when none is (its code is Good's, or it is the same or
// faster, or undecided even after more forks), and skipped when it does
// not build or cannot be measured.
func (e *Engine) Bisect(ctx context.Context, req BisectRequest) (*report.Bisect, error) {
	repo, err := e.openRepo(ctx, req.Dir, req.Fetch)
	if err != nil {
		return nil, err
	}
	out := &report.Bisect{Steps: []report.BisectStep{}}
	var line []string
	if out.Good, out.Bad, line, err = commitRange(ctx, repo, req.Good, req.Bad); err != nil {
		return nil, err
	}
	out.Commits = len(line)
	// Every commit is built and measured with the working tree's set-up:
	// its perfls.json, workloads and formulas (overlay.go).
	work, err := e.workingSide(ctx, req.Dir, "worktree")
	if err != nil {
		return nil, err
	}
	rs := newRevisions(req.Dir, work.src, work.index, allWorkloads(work.src, work.index), req.CommitConfig)
	rs.names[out.Good], rs.names[out.Bad] = req.Good, req.Bad
	defer func() { out.Notices = appendNew(out.Notices, rs.notices...) }()
	done := false
	if req.Method == "" {
		if done, err = e.bisectFormulas(ctx, line, req, out, work, rs); err != nil {
			return nil, err
		}
	}
	if !done {
		if err := e.bisectSlower(ctx, line, req, out, work, rs); err != nil {
			return nil, err
		}
	}
	if out.FirstBad != "" {
		out.Subject = repo.Subject(ctx, out.FirstBad)
	}
	return out, nil
}

// commitRange resolves good and bad to commits and lists the first-parent
// line after good up to bad (oldest first); an empty line is an error.
func commitRange(ctx context.Context, repo *revision.Repo, good, bad string) (g, b string, line []string, err error) {
	if g, err = repo.Need(ctx, good); err != nil {
		return "", "", nil, fmt.Errorf("good: %w", err)
	}
	if b, err = repo.Need(ctx, bad); err != nil {
		return "", "", nil, fmt.Errorf("bad: %w", err)
	}
	if line, err = repo.FirstParents(ctx, g, b); err != nil {
		return "", "", nil, err
	}
	if len(line) == 0 {
		return "", "", nil, fmt.Errorf("no commits between %s and %s", good, bad)
	}
	return g, b, line, nil
}

// bisectSlower searches line for the first commit at which a workload of
// the working tree (of req.Method, else any) is slower than at Good.
func (e *Engine) bisectSlower(ctx context.Context, line []string, req BisectRequest, out *report.Bisect, work *treeSide, rs *revisions) error {
	out.Mode = "slower"
	good, err := e.commitSide(ctx, rs, out.Good, req.Options, work)
	if err != nil {
		return fmt.Errorf("good %s: %w", req.Good, errorOf(err))
	}
	if !hasWorkload(good.reqs, req.Method) {
		if !hasWorkload(work.reqs, req.Method) {
			return fmt.Errorf("nothing to measure: %s", noWorkloadOf(work.src, req.Method))
		}
		return fmt.Errorf("nothing to measure at %s: it has none of the methods of the working tree's workloads of %s", req.Good, orAll(req.Method))
	}
	measuredGood := false
	svc := e.service(ctx)
	judge := func(i int) (string, error) {
		step, head, base, err := e.bisectStep(ctx, svc, rs, good, work, line[i], req)
		if err != nil {
			return "", err
		}
		if head {
			out.Measured++
		}
		measuredGood = measuredGood || base
		out.Steps = append(out.Steps, step)
		return step.Verdict, nil
	}
	// Bad first: without a regression there is nothing to search.
	v, err := judge(len(line) - 1)
	if err != nil {
		return err
	}
	if v != stepBad {
		// "Not shown slower" (SPL's reading: holds unless the data reject
		// it), with the step's reason: too noisy to tell is not "the same".
		out.Reason = fmt.Sprintf("%s is %s", req.Bad, map[string]string{stepGood: "not shown slower than " + req.Good, stepSkip: "undecided or does not build"}[v])
		if last := out.Steps[len(out.Steps)-1]; last.Reason != "" {
			out.Reason += ": " + last.Reason
		}
	} else {
		first, candidates, err := bisectSearch(len(line), judge)
		if err != nil {
			return err
		}
		out.FirstBad = line[first]
		for _, c := range candidates {
			out.Candidates = append(out.Candidates, line[c])
		}
	}
	if measuredGood {
		out.Measured++ // Good's own figures
	}
	return nil
}

// bisectSearch finds the first bad index of a line of n commits whose
// last (n-1) is bad and whose predecessor (-1) is good, by binary search;
// judge says "bad", "good" or "skip". A skipped commit is passed over for
// its nearest untried neighbour; when skipped commits are all that is left
// between a good and a bad one, candidates are the bad one and those
// skipped before it.
func bisectSearch(n int, judge func(int) (string, error)) (first int, candidates []int, err error) {
	lo, hi := -1, n-1
	skipped := map[int]bool{}
	for hi-lo > 1 {
		i := untried(lo, hi, skipped)
		if i < 0 {
			for j := lo + 1; j <= hi; j++ {
				candidates = append(candidates, j)
			}
			return hi, candidates, nil
		}
		v, err := judge(i)
		if err != nil {
			return 0, nil, err
		}
		switch v {
		case stepBad:
			hi = i
		case stepGood:
			lo = i
		default:
			skipped[i] = true
		}
	}
	return hi, nil, nil
}

// untried is the index strictly between lo and hi nearest their middle
// that is not skipped; -1 when there is none.
func untried(lo, hi int, skipped map[int]bool) int {
	mid := lo + (hi-lo)/2
	for d := 0; d < hi-lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi && !skipped[i] {
				return i
			}
		}
	}
	return -1
}

// bisectStep judges one commit against good; head and base tell whether
// forks ran at the commit and at good (a commit whose code is good's is
// judged without measuring, and the cache answers what was measured).
func (e *Engine) bisectStep(ctx context.Context, svc service.Service, rs *revisions, good, work *treeSide, commit string, req BisectRequest) (step report.BisectStep, head, base bool, err error) {
	step = report.BisectStep{Commit: commit}
	s, err := e.commitSide(ctx, rs, commit, req.Options, work)
	var ce *CompileError
	switch {
	case errors.As(err, &ce):
		step.Verdict, step.Reason = stepSkip, errorOf(err).Error()
		return step, false, false, nil
	case err != nil:
		return step, false, false, err
	}
	keep := func(r workspace.Request) bool { return matches(r, req.Method) }
	d, err := e.compare(ctx, svc, good, s, keep, req.HistoryRequest)
	if err != nil {
		if ctx.Err() != nil {
			return step, false, false, err
		}
		step.Verdict, step.Reason = stepSkip, err.Error()
		return step, false, false, nil
	}
	step.Verdict = stepGood
	undecided := 0
	for _, c := range d.Changes {
		switch c.Verdict {
		case report.Slower:
			step.Slower = append(step.Slower, fmt.Sprintf("%s[%s](%s) ×%.3g", c.Method, c.Workload, c.Args, float64(c.Ratio)))
		case report.Undecided:
			undecided++
		}
	}
	switch {
	case len(step.Slower) > 0:
		step.Verdict = stepBad
	case len(d.Changes)+len(d.Unchanged) == 0:
		// Nothing to judge by (the methods are not here): no evidence
		// either way.
		step.Verdict, step.Reason = stepSkip, fmt.Sprintf("none of the workloads is here: %s", examples(d.Added, 3))
	case undecided > 0:
		// Measured up to MaxForks and still not shown slower: as SPL reads
		// a relation, it holds unless the data reject it.
		step.Reason = fmt.Sprintf("%d workload(s) not shown slower nor the same after more forks", undecided)
	case len(d.Changes) == 0:
		step.Reason = "code unchanged since good"
	}
	return step, d.MeasuredHead > 0, d.Measured > d.MeasuredHead, nil
}

// commitSide materialises commit with the working tree's set-up (rs),
// reads and compiles its project, and finds there the working tree's
// workloads (work's: those whose method the commit lacks are left out). A
// project that does not compile is a *CompileError, or a
// *revision.HistoryError when the tree lacks submodules (incomplete).
func (e *Engine) commitSide(ctx context.Context, rs *revisions, commit string, opts measure.Options, work *treeSide) (*treeSide, error) {
	t := rs.tree(ctx, e, commit)
	if t.Err != nil {
		return nil, t.Err
	}
	s, err := e.treeSide(ctx, t.Dir, commit, opts)
	if err != nil {
		return nil, incomplete(ctx, rs.dir, commit, t.relative(err))
	}
	if t.index == nil && t.same == nil {
		t.index = s.index
	}
	if err := t.indexed(ctx); err != nil {
		return nil, err
	}
	s.commit, s.tree = t.Commit, t.TreeHash
	own := s.reqs
	s.reqs, s.keys = nil, nil
	for i, r := range work.reqs {
		if ra, err := t.at(r, work.index); err == nil {
			s.reqs = append(s.reqs, ra)
			s.keys = append(s.keys, work.keys[i])
		}
	}
	for _, r := range own {
		if _, err := work.index.Member(r.Method.Class, r.Method.Method, r.Method.Params); err != nil {
			s.removed = append(s.removed, r)
		}
	}
	return s, nil
}

// matches tells whether r measures method (pkg.C#m; "" matches all).
// matches says whether r measures the method a user named ("" is any):
// the one rule of methodspec.Spec (parameter types optional, simple
// type names, nested classes with $ or .).
func matches(r workspace.Request, method string) bool {
	if method == "" {
		return true
	}
	spec, err := methodspec.Parse(method)
	t := r.Method
	t.Revision = ""
	return err == nil && spec.Matches(t.String())
}

func hasWorkload(reqs []workspace.Request, method string) bool {
	for _, r := range reqs {
		if matches(r, method) {
			return true
		}
	}
	return false
}

// appendNew appends the xs that to does not hold yet.
func appendNew(to []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(to, x) {
			to = append(to, x)
		}
	}
	return to
}

func orAll(method string) string {
	if method == "" {
		return "any method"
	}
	return method
}
