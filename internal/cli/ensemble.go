package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
)

// Ensemble holds perfls ensemble's flags as given; Request turns them into
// the engine's request.
type Ensemble struct {
	history, new           string
	phase1                 ensemble.Phase1
	method, workload, args string
	id                     int64
	project, review        string
	passedOnly             bool
	config                 ensemble.Config
}

// EnsembleFlags defines perfls ensemble's flags on fs and returns what
// they fill (Request makes engine.Ensemble's request of it).
func EnsembleFlags(fs *pflag.FlagSet) *Ensemble {
	r := &Ensemble{config: ensemble.DefaultConfig()}
	fs.StringVar(&r.history, "history", "", "CSV form: directory of the prior passed runs")
	fs.StringVar(&r.new, "new", "", "CSV form: directory holding the new run")
	fs.Float64Var(&r.phase1.Interval, "interval", 0, "CSV form: group rows into intervals of this many time units (0: a row is one)")
	fs.Float64Var(&r.phase1.Duration, "duration", 0, "CSV form: keep only rows within this many time units of the first (the test's expected duration; 0: all)")
	fs.StringVar(&r.method, "method", "", "the method whose stored results to check, pkg.Class#m (the store form); a vote name here is the old spelling of --vote, still read")
	fs.StringVar(&r.workload, "workload", "", "store form: only results of this workload generator, pkg.Class#gen")
	fs.StringVar(&r.args, "args", "", "store form: only results with these arguments, as perfls history shows them")
	fs.Int64Var(&r.id, "id", 0, "store form: check this result (perfls history --format json lists IDs) against those stored before it (default: the newest)")
	fs.StringVar(&r.project, "project", "", "store form: the project whose perfls.json names the store (default: the working directory)")
	fs.Var(reviewFlag{&r.review}, "review", "store form: first record the checked result's review: passed, regression (left out of later checks' histories) or none")
	fs.BoolVar(&r.passedOnly, "passed-only", false, "store form: the history is only the earlier results reviewed as passed (default: all but those reviewed as regressions)")
	fs.Float64Var(&r.config.DeltaThreshold, "delta", r.config.DeltaThreshold, "a rule is violated when its confidence change exceeds this")
	fs.Var(voteFlag{&r.config.Method}, "vote", "the verdict reported: stacking, bagging or single")
	return r
}

// Request decides the form the flags ask for (--history/--new: CSV runs;
// --method pkg.Class#m: stored results) and refuses flags of the other
// form. --method without "#" is the CSV form's vote (as --vote).
func (f *Ensemble) Request() (engine.EnsembleRequest, error) {
	req := engine.EnsembleRequest{Method: f.method, Workload: f.workload, Args: f.args, ID: f.id, Project: f.project, Review: f.review,
		PassedOnly: f.passedOnly, Config: f.config}
	csv := f.history != "" || f.new != ""
	if req.Method != "" && !strings.Contains(req.Method, "#") {
		if !ensemble.Method(req.Method).Valid() {
			return req, fmt.Errorf("--method %q: the store form wants pkg.Class#m, the CSV form stacking, bagging or single", req.Method)
		}
		req.Config.Method, req.Method = ensemble.Method(req.Method), ""
	}
	switch {
	case csv && (req.Method != "" || req.Workload != "" || req.Args != "" || req.ID != 0):
		return req, errors.New("--history/--new read CSV runs, --method pkg.Class#m (with --workload, --args, --id) the stored results: give one form")
	case !csv && req.Method == "":
		return req, errors.New("want a history directory and a new run's directory (--history DIR --new DIR), or a method whose stored results to check (--method pkg.Class#m)")
	case csv && (req.Review != "" || req.PassedOnly):
		return req, errors.New("--review and --passed-only are for stored results (--method pkg.Class#m); in the CSV form the history directory holds the passed runs")
	case csv:
		req.CSV = &engine.EnsembleCSV{History: f.history, New: f.new, Phase1: f.phase1}
	case f.phase1 != (ensemble.Phase1{}):
		return req, errors.New("--interval and --duration group CSV rows; a stored result's interval is one sample")
	}
	return req, nil
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
