package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
)

// EnsembleFlags defines perfls ensemble's flags on fs and returns the
// request they fill (engine.Ensemble runs it).
func EnsembleFlags(fs *pflag.FlagSet) *engine.EnsembleRequest {
	r := &engine.EnsembleRequest{Config: ensemble.DefaultConfig()}
	fs.StringVar(&r.History, "history", "", "CSV form: directory of the prior passed runs")
	fs.StringVar(&r.New, "new", "", "CSV form: directory holding the new run")
	fs.Float64Var(&r.Phase1.Interval, "interval", 0, "CSV form: group rows into intervals of this many time units (0: a row is one)")
	fs.Float64Var(&r.Phase1.Duration, "duration", 0, "CSV form: keep only rows within this many time units of the first (the test's expected duration; 0: all)")
	fs.StringVar(&r.Method, "method", "", "store form: the method whose stored results to check, pkg.Class#m; CSV form: the vote, stacking, bagging or single (as --vote)")
	fs.StringVar(&r.Workload, "workload", "", "store form: only results of this workload generator, pkg.Class#gen")
	fs.StringVar(&r.Args, "args", "", "store form: only results with these arguments, as perfls history shows them")
	fs.Int64Var(&r.ID, "id", 0, "store form: check this result (perfls history --format json lists IDs) against those stored before it (default: the newest)")
	fs.StringVar(&r.Project, "project", "", "store form: the project whose perfls.json names the store (default: the working directory)")
	fs.Var(reviewFlag{&r.Review}, "review", "store form: first record the checked result's review: passed, regression (left out of later checks' histories) or none")
	fs.BoolVar(&r.PassedOnly, "passed-only", false, "store form: the history is only the earlier results reviewed as passed (default: all but those reviewed as regressions)")
	fs.Float64Var(&r.Config.DeltaThreshold, "delta", r.Config.DeltaThreshold, "a rule is violated when its confidence change exceeds this")
	fs.Var(voteFlag{&r.Config.Method}, "vote", "the verdict reported: stacking, bagging or single")
	return r
}

// voteFlag is --vote: one of the seed's three approaches.
type voteFlag struct{ m *ensemble.Method }

func (v voteFlag) String() string {
	if v.m == nil {
		return ""
	}
	return string(*v.m)
}

func (v voteFlag) Type() string { return "string" }

func (v voteFlag) Set(s string) error {
	if !ensemble.Method(s).Valid() {
		return fmt.Errorf("%q: want stacking, bagging or single", s)
	}
	*v.m = ensemble.Method(s)
	return nil
}

// reviewFlag is --review: passed, regression or none.
type reviewFlag struct{ r *string }

func (v reviewFlag) String() string {
	if v.r == nil {
		return ""
	}
	return *v.r
}

func (v reviewFlag) Type() string { return "string" }

func (v reviewFlag) Set(s string) error {
	if s != engine.ReviewNone && (s == "" || !cache.ValidReview(s)) {
		return fmt.Errorf("%q: want passed, regression or none", s)
	}
	*v.r = s
	return nil
}
