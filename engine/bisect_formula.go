package engine

// perfls bisect without --method: the first commit at which a formula
// instance that holds at Good is violated, each commit decided by check on
// its materialised tree.

import (
	"context"
	"errors"
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
// holding at Good is violated. It reports false, and touches nothing,
// when Good's project has no formulas: then the workloads are compared.
func (e *Engine) bisectFormulas(ctx context.Context, line []string, req BisectRequest, out *report.Bisect) (bool, error) {
	svc := e.service(ctx)
	good, measured, err := e.checkCommit(ctx, svc, req, out.Good, nil)
	if err != nil {
		return false, fmt.Errorf("good %s: %w", req.Good, errorOf(err))
	}
	if len(good) == 0 {
		return false, nil
	}
	out.Mode = "formula"
	if measured {
		out.Measured++
	}
	held := map[instanceKey]bool{}
	for k, in := range good {
		if in.Outcome == verdict.Satisfied && !in.Failed {
			held[k] = true
			continue
		}
		if in.Outcome != verdict.Violated || in.Failed {
			out.Unfollowed = append(out.Unfollowed, fmt.Sprintf("%s: %s at %s (%s)", k, unheld(in), req.Good, reasons(in)))
		}
	}
	sort.Strings(out.Unfollowed)
	if len(held) == 0 {
		out.Reason = fmt.Sprintf("no formula instance holds at %s", req.Good)
		return true, nil
	}
	follow := held
	var violated []instanceKey // at the last commit judged
	judge := func(i int) (string, error) {
		res, measured, err := e.checkCommit(ctx, svc, req, line[i], follow)
		step := report.BisectStep{Commit: line[i], Verdict: stepGood}
		violated = nil
		var ce *CompileError
		switch {
		case errors.As(err, &ce):
			step.Verdict, step.Reason = stepSkip, errorOf(err).Error()
		case err != nil:
			return "", err
		default:
			if measured {
				out.Measured++
			}
			missing := 0
			for k := range follow {
				in, ok := res[k]
				switch {
				case !ok || in.Failed:
					missing++
				case in.Outcome == verdict.Violated:
					violated = append(violated, k)
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
				step.Verdict, step.Reason = stepSkip, "the formulas are missing here or could not be decided"
			case missing > 0:
				step.Reason = fmt.Sprintf("%d of %d formula instance(s) missing here or not decided", missing, len(follow))
			}
		}
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

// checkCommit decides, on commit's materialised tree, the formulas that
// hold one of keys (all when keys is nil); measured tells whether forks
// ran. A tree that does not compile is a *CompileError.
func (e *Engine) checkCommit(ctx context.Context, svc service.Service, req BisectRequest, commit string, keys map[instanceKey]bool) (map[instanceKey]verdict.InstanceResult, bool, error) {
	t := e.materialise(ctx, req.Dir, commit, false)
	if t.Err != nil {
		return nil, false, t.Err
	}
	rel := func(path string) string {
		r, err := filepath.Rel(t.Dir, path)
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
	res, err := e.check(ctx, svc, CheckRequest{Dir: t.Dir, Repo: req.Dir, Keep: keep, Options: req.Options, Alpha: req.Alpha,
		MaxForks: req.MaxForks, Priority: req.Priority, Progress: req.Progress})
	if err != nil {
		return nil, false, err
	}
	if len(res.CompileErrors) > 0 {
		return nil, false, incomplete(ctx, req.Dir, commit, &CompileError{Messages: res.CompileErrors})
	}
	out := map[instanceKey]verdict.InstanceResult{}
	for _, m := range res.Methods {
		for _, in := range m.Instances {
			out[instanceKey{rel(m.File), in.Formula, in.Instance}] = in
		}
	}
	return out, res.Requests > res.Cached, nil
}

// unheld says why an instance is not followed: failed or undecided.
func unheld(in verdict.InstanceResult) string {
	if in.Failed {
		return "could not be decided"
	}
	return "not shown to hold"
}

// reasons are the reasons an instance's comparisons give, once each.
func reasons(in verdict.InstanceResult) string {
	var out []string
	for _, c := range in.Comparisons {
		if c.Reason != "" && !slices.Contains(out, c.Reason) {
			out = append(out, c.Reason)
		}
	}
	if len(out) == 0 {
		return in.Outcome.String()
	}
	return strings.Join(out, "; ")
}
