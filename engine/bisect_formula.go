package engine

// perfls bisect without --method: the first commit at which a formula
// instance that holds at Good is violated, each commit decided by check on
// its materialised tree.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/measure/service"
)

// instanceKey names a formula instance across commits: its file (relative
// to the project), its text and its instance ("n=100"). Lines may move.
type instanceKey struct{ file, formula, instance string }

func (k instanceKey) String() string {
	s := k.file + ": " + k.formula
	if k.instance != "" {
		s += " [" + k.instance + "]"
	}
	return s
}

// bisectFormulas searches line for the first commit at which an instance
// holding at Good is violated. The formulas are the working tree's, read
// at each commit (CheckRequest.At): a term without a revision is measured
// in that commit's tree, one naming a revision (m@v1.0) where it names,
// so "SELF[g](n) <= 1.2 * SELF@v1.0[g](n)" asks at each commit whether it
// is within 20 % of v1.0. It reports false, having touched nothing, when
// the working tree has no formulas, and when none holds at Good even
// after more forks for those undecided (naming each instance with its
// evidence in out.AtGood and saying so in out.Fallback): then the
// workloads are compared.
func (e *Engine) bisectFormulas(ctx context.Context, line []string, req BisectRequest, out *report.Bisect, work *treeSide, rs *revisions) (bool, error) {
	if !hasFormulas(work.src) {
		return false, nil
	}
	svc := e.service(ctx)
	held, err := e.heldAtGood(ctx, svc, req, rs, out)
	if err != nil || len(held) == 0 {
		return false, err
	}
	out.Mode = "formula"
	follow := held
	var violated []instanceKey // at the last commit judged
	judge := func(i int) (string, error) {
		step, v, err := e.formulaStep(ctx, svc, req, rs, line[i], follow, out)
		if err != nil {
			return "", err
		}
		violated = v
		out.Steps = append(out.Steps, step)
		return step.Verdict, nil
	}
	v, err := judge(len(line) - 1)
	if err != nil {
		return false, err
	}
	if v != stepBad {
		out.Reason = fmt.Sprintf("no formula instance that holds at %s is violated at %s", req.Good, req.Bad)
		if v == stepSkip {
			out.Reason = fmt.Sprintf("%s does not build or its formulas could not be decided", req.Bad)
		}
		return true, nil
	}
	// Follow only what Bad violates: fewer measurements at every step.
	follow = map[instanceKey]bool{}
	for _, k := range violated {
		follow[k] = true
		out.Formulas = append(out.Formulas, k.String())
	}
	first, candidates, err := bisectSearch(len(line), judge)
	if err != nil {
		return false, err
	}
	out.FirstBad = line[first]
	for _, c := range candidates {
		out.Candidates = append(out.Candidates, line[c])
	}
	return true, nil
}

// heldAtGood are the working tree's formula instances that hold at Good,
// those undecided for lack of evidence measured again with more forks.
// When none holds, out.AtGood names each with its evidence and
// out.Fallback says the workloads are compared instead; when there are
// none, it returns none and says nothing.
func (e *Engine) heldAtGood(ctx context.Context, svc service.Service, req BisectRequest, rs *revisions, out *report.Bisect) (map[instanceKey]bool, error) {
	good, measured, err := e.checkCommit(ctx, svc, req, rs, out.Good, nil, out)
	if err != nil {
		return nil, fmt.Errorf("good %s: %w", req.Good, errorOf(err))
	}
	if len(good) == 0 {
		return nil, nil
	}
	if measured {
		out.Measured++
	}
	held := holding(good)
	if undecided := undecidedKeys(good); len(held) == 0 && len(undecided) > 0 {
		more := req
		more.MaxForks = 3 * maxForks(req.HistoryRequest)
		again, measured, err := e.checkCommit(ctx, svc, more, rs, out.Good, undecided, out)
		if err != nil {
			return nil, fmt.Errorf("good %s: %w", req.Good, errorOf(err))
		}
		if measured {
			out.Measured++
		}
		for k, in := range again {
			good[k] = in
		}
		held = holding(good)
	}
	if len(held) == 0 {
		keys := sortedKeys(good)
		for _, k := range keys {
			out.AtGood = append(out.AtGood, k.String()+": "+instanceEvidence(good[k]))
		}
		out.Fallback = fmt.Sprintf("no formula instance holds at %s (%d instance(s), each above with its evidence there): searching instead for the first commit at which a workload is slower than at %s",
			req.Good, len(keys), req.Good)
		return held, nil
	}
	// The others cannot be followed: a regression in them goes unseen.
	for _, k := range sortedKeys(good) {
		if !held[k] {
			out.Unfollowed = append(out.Unfollowed, fmt.Sprintf("%s: not shown to hold at %s (%s)", k.String(), req.Good, instanceEvidence(good[k])))
		}
	}
	return held, nil
}

// formulaStep judges commit by the instances followed: bad when one is
// violated there (violated lists them), skipped when none could be
// decided (it does not build, say), else good.
func (e *Engine) formulaStep(ctx context.Context, svc service.Service, req BisectRequest, rs *revisions, commit string, follow map[instanceKey]bool, out *report.Bisect) (step report.BisectStep, violated []instanceKey, err error) {
	res, measured, err := e.checkCommit(ctx, svc, req, rs, commit, follow, out)
	if err != nil {
		return step, nil, err
	}
	step = report.BisectStep{Commit: commit, Verdict: stepGood}
	if measured {
		out.Measured++
	}
	missing, why := 0, ""
	for k := range follow {
		in, ok := res[k]
		switch {
		case !ok || in.Failed:
			missing++
			if why == "" && ok {
				why = failure(in)
			}
		case in.Outcome == verdict.Violated:
			violated = append(violated, k)
		case in.Outcome == verdict.Undecided:
			// Not evidence that it holds: a commit is good only on
			// instances that hold there.
			missing++
			if why == "" {
				why = k.String() + ": " + instanceEvidence(in)
			}
		}
	}
	sort.Slice(violated, func(a, b int) bool { return violated[a].String() < violated[b].String() })
	for _, k := range violated {
		step.Violated = append(step.Violated, k.String())
	}
	switch {
	case len(violated) > 0:
		step.Verdict = stepBad
	case missing == len(follow):
		step.Verdict, step.Reason = stepSkip, "the formulas could not be decided here"
		if why != "" {
			step.Reason += ": " + why
		}
	case missing > 0:
		step.Reason = fmt.Sprintf("%d of %d formula instance(s) missing here or not decided", missing, len(follow))
	}
	return step, violated, nil
}

// holding are the instances that hold (satisfied, not failed).
func holding(res map[instanceKey]verdict.InstanceResult) map[instanceKey]bool {
	return outcome(res, verdict.Satisfied)
}

// undecidedKeys are the instances undecided for lack of evidence.
func undecidedKeys(res map[instanceKey]verdict.InstanceResult) map[instanceKey]bool {
	return outcome(res, verdict.Undecided)
}

// outcome are the instances with outcome o that did not fail.
func outcome(res map[instanceKey]verdict.InstanceResult, o verdict.Outcome) map[instanceKey]bool {
	out := map[instanceKey]bool{}
	for k, in := range res {
		if in.Outcome == o && !in.Failed {
			out[k] = true
		}
	}
	return out
}

// maxForks is the bound on forks per measurement a request sets: its
// MaxForks, else 3 × its forks (as check and diff take it).
func maxForks(req HistoryRequest) int {
	if req.MaxForks > 0 {
		return req.MaxForks
	}
	return 3 * req.Options.Defaults().Forks
}

// hasFormulas reports whether the project has a formula that parses.
func hasFormulas(src *sources) bool {
	return slices.ContainsFunc(src.all, func(f *workspace.Formula) bool { return !f.Broken })
}

func sortedKeys(m map[instanceKey]verdict.InstanceResult) []instanceKey {
	keys := make([]instanceKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
	return keys
}

// instanceEvidence is an instance's outcome and, per comparison, its
// evidence: the ratio with its interval, p and the forks, or what failed.
func instanceEvidence(in verdict.InstanceResult) string {
	if in.Failed {
		return "failed: " + failure(in)
	}
	var parts []string
	for _, c := range in.Comparisons {
		ev := c.Evidence
		part := fmt.Sprintf("%s: %s, ratio %.3g [%.3g, %.3g], p=%.2g, %d+%d forks", c.Text, c.Outcome, ev.Ratio, ev.RatioLow, ev.RatioHigh, ev.P, ev.Left.Forks, ev.Right.Forks)
		if c.Reason != "" {
			part += " (" + c.Reason + ")"
		}
		parts = append(parts, part)
	}
	return in.Outcome.String() + ": " + strings.Join(parts, "; ")
}

// failure is why a failed instance could not be decided: its first failed
// comparison's reason.
func failure(in verdict.InstanceResult) string {
	for _, c := range in.Comparisons {
		if c.Failed && c.Reason != "" {
			return c.Reason
		}
	}
	return "an error left it undecided"
}

// checkCommit decides the working tree's formulas that hold one of keys
// (all when keys is nil) as they read at commit (CheckRequest.At: terms
// without a revision measured in the commit's tree, built in rs with the
// working tree's set-up); measured tells whether forks ran. A commit that does
// not compile leaves its instances failed, saying so. Notices go to out.
func (e *Engine) checkCommit(ctx context.Context, svc service.Service, req BisectRequest, rs *revisions, commit string, keys map[instanceKey]bool, out *report.Bisect) (map[instanceKey]verdict.InstanceResult, bool, error) {
	rel := func(path string) string {
		r, err := filepath.Rel(req.Dir, path)
		if err != nil {
			return path
		}
		return filepath.ToSlash(r)
	}
	keep := func(f *workspace.Formula) bool {
		if keys == nil {
			return true
		}
		for k := range keys {
			if k.file == rel(f.Path) && k.formula == f.Text() {
				return true
			}
		}
		return false
	}
	res, err := e.check(ctx, svc, CheckRequest{Dir: req.Dir, Keep: keep, At: commit, CommitConfig: req.CommitConfig, Options: req.Options,
		Alpha: req.Alpha, MaxForks: req.MaxForks, Priority: req.Priority, Progress: req.Progress, revs: rs})
	if err != nil {
		return nil, false, err
	}
	out.Notices = appendNew(out.Notices, res.Notices...)
	found := map[instanceKey]verdict.InstanceResult{}
	for _, m := range res.Methods {
		for _, in := range m.Instances {
			found[instanceKey{rel(m.File), in.Formula, in.Instance}] = in
		}
	}
	return found, res.Requests > res.Cached, nil
}

// atCommit makes every request of plan without a revision one at commit:
// the formulas as they read there.
func atCommit(plan *workspace.Plan, commit string) {
	at := func(r workspace.Request) workspace.Request {
		if r.Revision() != "" || r.Method.Class == "" {
			return r
		}
		r.Method.Revision, r.Method.Decl = commit, nil
		if r.Generator.Class != "" {
			r.Generator.Revision, r.Generator.Decl = commit, nil
		}
		return r
	}
	var reqs []workspace.Request
	seen := map[string]bool{}
	for _, r := range plan.Requests {
		if r = at(r); !seen[r.Key()] {
			seen[r.Key()] = true
			reqs = append(reqs, r)
		}
	}
	plan.Requests = reqs
	for _, in := range plan.Instances {
		for _, c := range in.Comparisons {
			for _, o := range []*workspace.Operand{&c.Left, &c.Right} {
				if o.Err == nil {
					o.Request = at(o.Request)
				}
			}
		}
	}
}
