package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/workspace"
)

// ExplainRequest asks why a method became slower: between two revisions,
// or at the latest change point of its stored results.
type ExplainRequest struct {
	// HistoryRequest's Dir, Method (required), Options, Alpha, MaxForks,
	// Fresh, Fetch, CommitConfig, Priority and Progress apply; Base and
	// Profile are set by Explain.
	HistoryRequest
	// Good and Bad are git revisions, Good an ancestor of Bad; both "" =
	// the latest slow-down of the method's stored results (Regressions):
	// its last result before the change and its first after.
	Good, Bad string
}

// Validate says what is wrong with a request a user made.
func (r ExplainRequest) Validate() error {
	if r.Method == "" {
		return fmt.Errorf("explain needs --method pkg.Class#m (the method whose slow-down to explain)")
	}
	if (r.Good == "") != (r.Bad == "") {
		return fmt.Errorf("give both --good and --bad, or neither (then the latest slow-down of the method's stored results is explained)")
	}
	return ValidateOptions(r.Options, 2)
}

// Explain goes from an alert to its cause in one step: it takes the
// slow-down (a change point of the stored results, or two revisions),
// bisects the commits between them when there are several, compares the
// first bad commit with its parent, profiles the method on both sides, and
// names what grew in the profile. Each step is the command of its own
// (regressions, bisect, diff --profile), run in order with the same
// options, so its figures are theirs.
func (e *Engine) Explain(ctx context.Context, req ExplainRequest) (*report.Explain, error) {
	start := time.Now()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	out := &report.Explain{Method: req.Method}
	defer func() { out.Seconds = time.Since(start).Seconds() }()
	if req.Good == "" {
		change, err := e.latestSlowdown(ctx, req.Dir, req.Method)
		if err != nil {
			return nil, err
		}
		if change == nil {
			out.Reason = fmt.Sprintf("no slow-down of %s in the stored results (perfls regressions --method %s): name the revisions with --good and --bad", req.Method, req.Method)
			return out, nil
		}
		out.Change = change
		req.Good, req.Bad = change.Previous, change.Commit
	}
	repo, err := e.openRepo(ctx, req.Dir, req.Fetch)
	if err != nil {
		return nil, err
	}
	var line []string
	if out.Good, out.Bad, line, err = commitRange(ctx, repo, req.Good, req.Bad); err != nil {
		return nil, err
	}
	out.Commits = len(line)
	parent := out.Good
	if len(line) == 1 {
		out.FirstBad = out.Bad
	} else {
		b, err := e.Bisect(ctx, BisectRequest{HistoryRequest: req.HistoryRequest, Good: out.Good, Bad: out.Bad})
		if err != nil {
			return nil, fmt.Errorf("bisect %s..%s: %w", req.Good, req.Bad, err)
		}
		out.Bisect = b
		if b.FirstBad == "" || len(b.Candidates) > 1 {
			out.Reason = "the bisection found no single first bad commit"
			if b.Reason != "" {
				out.Reason += ": " + b.Reason
			}
			return out, nil
		}
		out.FirstBad = b.FirstBad
		if i := slices.Index(line, b.FirstBad); i > 0 {
			parent = line[i-1]
		}
	}
	out.Parent = parent
	out.Subject = repo.Subject(ctx, out.FirstBad)
	d, err := e.diffCommits(ctx, req.HistoryRequest, parent, out.FirstBad)
	if err != nil {
		return nil, fmt.Errorf("compare %.12s with its parent %.12s: %w", out.FirstBad, parent, err)
	}
	out.Diff = d
	return out, nil
}

// latestSlowdown is the method's most recent slow-down among the stored
// results' change points (any metric, machine class), nil when none.
func (e *Engine) latestSlowdown(ctx context.Context, dir, method string) (*report.RegressionChange, error) {
	r, err := e.Regressions(ctx, RegressionsRequest{Dir: dir, Method: method})
	if err != nil {
		return nil, fmt.Errorf("the stored results of %s: %w", method, err)
	}
	repo, err := e.openRepo(ctx, dir, false)
	if err != nil {
		return nil, err
	}
	line, err := repo.Line(ctx, r.Head)
	if err != nil {
		return nil, err
	}
	var latest *report.RegressionChange
	at := -1
	for i := range r.Changes {
		c := &r.Changes[i]
		if !c.Slower || c.Previous == "" {
			continue
		}
		// The latest commit wins; at one commit, time per call before the
		// other metrics.
		if p := slices.Index(line, c.Commit); p > at || (p == at && c.Metric == "time") {
			latest, at = c, p
		}
	}
	return latest, nil
}

// diffCommits compares head with base as diff --profile does with the
// working tree: both built with the working tree's set-up (overlay.go),
// every workload of req.Method measured in both, the slower ones profiled
// in both.
func (e *Engine) diffCommits(ctx context.Context, req HistoryRequest, base, head string) (*report.Diff, error) {
	work, err := e.workingSide(ctx, req.Dir, "worktree")
	if err != nil {
		return nil, err
	}
	rs := newRevisions(req.Dir, work.src, work.index, allWorkloads(work.src, work.index), req.CommitConfig)
	sides := make([]*treeSide, 2)
	for i, c := range []string{base, head} {
		if sides[i], err = e.commitSide(ctx, rs, c, req.Options, work); err != nil {
			return nil, fmt.Errorf("%.12s: %w", c, errorOf(err))
		}
	}
	keep := func(r workspace.Request) bool { return matches(r, req.Method) }
	d, err := e.compare(ctx, e.service(ctx), sides[0], sides[1], keep, req)
	if err != nil {
		return nil, err
	}
	d.BaseName, d.Head = "parent", head
	d.Notices = append(rs.notices, d.Notices...)
	if err := comparable(d, sides[1], base, req.Method); err != nil {
		return nil, err
	}
	req.Profile = true
	if err := e.profileSlower(ctx, sides[0], sides[1], d, req); err != nil {
		return nil, err
	}
	return d, nil
}
