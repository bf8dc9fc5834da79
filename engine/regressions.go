package engine

// perfls regressions and the editor's "slower since" line: the change points
// of the stored results over a repository's first-parent history
// (analysis/changepoint), one series per (method, workload, args, metric)
// and machine class (the cache key's machine and JVM).

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/perfls/perfls/analysis/changepoint"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/revision"
)

// RegressionsRequest asks for the change points of the stored results over
// the first-parent history of the repository holding Dir.
type RegressionsRequest struct {
	Dir string
	// Since names a commit on HEAD's first-parent line: only slow-downs at
	// later commits make the result's exit status 1 (all of them without).
	Since string
	// Method selects one method, pkg.C#m (every overload) or pkg.C#m(int[]);
	// "" = every stored method.
	Method string
}

// regressionConfig is the detector's: Otava's defaults.
var regressionConfig = changepoint.DefaultConfig()

// seriesMetric is a per-operation figure of a fork that a series follows.
type seriesMetric struct {
	name, unit string
	of         func(cache.Fork) []float64
}

var seriesMetrics = []seriesMetric{
	{"time", "ns/op", func(f cache.Fork) []float64 { return f.NsPerOp }},
	{"cpu", "ns/op", func(f cache.Fork) []float64 { return f.CPUNsPerOp }},
	{"alloc", "B/op", func(f cache.Fork) []float64 { return f.AllocBytesPerOp }},
}

// commitLine is a first-parent line, oldest first, with each commit's place.
type commitLine struct {
	commits []string
	pos     map[string]int
}

func newCommitLine(commits []string) *commitLine {
	l := &commitLine{commits: commits, pos: make(map[string]int, len(commits))}
	for i, c := range commits {
		l.pos[c] = i
	}
	return l
}

// seriesKey identifies a series: what, which metric, and the machine class
// with the harness settings (results taken another way are another series).
type seriesKey struct {
	method, workload, args, metric string
	machine, jvm, harness          string
}

// series is one series' points by place on the line: the fork means of
// every result of that commit. Its detector is fed in order; points after
// the last fed one are appended, a change before it rebuilds the detector.
type series struct {
	id      report.SeriesID
	key     seriesKey
	samples map[int][]float64
	fed     int   // place of the last point fed to cs (-1: none)
	fresh   []int // places added after fed
	rebuild bool  // a fed point changed
	cs      *changepoint.CommitSeries
	changes []changepoint.CommitChange
}

func (s *series) add(pos int, xs []float64) {
	_, had := s.samples[pos]
	switch {
	case pos <= s.fed:
		s.rebuild = true
	case !had:
		s.fresh = append(s.fresh, pos)
	}
	s.samples[pos] = append(s.samples[pos], xs...)
}

// detect feeds the detector what it has not seen: the new points when they
// all come after the fed ones (the incremental case), else the whole series.
// A commit's point is the median of its fork means: one fork disturbed by a
// busy machine does not move it (docs/regressions.md, validation).
func (s *series) detect(l *commitLine) error {
	todo := s.fresh
	if s.cs == nil || s.rebuild {
		cs, err := changepoint.NewCommitSeries(regressionConfig)
		if err != nil {
			return err
		}
		s.cs, s.fed, s.rebuild = cs, -1, false
		todo = slices.Collect(maps.Keys(s.samples))
	}
	s.fresh = nil
	if len(todo) == 0 {
		return nil
	}
	slices.Sort(todo)
	pts := make([]changepoint.CommitSamples, len(todo))
	for i, p := range todo {
		pts[i] = changepoint.CommitSamples{Commit: l.commits[p], Samples: []float64{stats.Median(s.samples[p])}}
	}
	changes, err := s.cs.Append(pts...)
	if err != nil {
		s.cs = nil
		return fmt.Errorf("series %s %s on %s: %w", s.id.Method, s.id.Metric, s.id.Class(), err)
	}
	s.changes, s.fed = changes, todo[len(todo)-1]
	return nil
}

// level is the per-commit means of the series' points at places [lo, hi).
func (s *series) level(lo, hi int) []float64 {
	var out []float64
	for _, p := range slices.Sorted(maps.Keys(s.samples)) {
		if p >= lo && p < hi {
			out = append(out, stats.Summarize(s.samples[p]).Mean)
		}
	}
	return out
}

// seriesSet sorts stored results into series on a line.
type seriesSet struct {
	line    *commitLine
	series  map[seriesKey]*series
	left    report.LeftOut
	results int
	// pending holds results of commits not on the line, by commit, when the
	// line may grow to include them (the editor's watch); nil drops them.
	pending map[string][]*cache.Measurement
}

func newSeriesSet(l *commitLine) *seriesSet {
	return &seriesSet{line: l, series: map[seriesKey]*series{}}
}

// add places a result's fork means on its series, or counts why it is left
// out (no commit, a tree with changes, a commit off the line). A result is
// placed at the first commit of the line known to hold its code: its own,
// or an earlier one where its key was answered from the cache (a bisect or
// diff that found the code unchanged there), so that a change is dated at
// the commit that made it, not at the later one measured first.
func (set *seriesSet) add(m *cache.Measurement) {
	env := environmentOf(m)
	pos, ok := set.line.pos[env.Commit]
	if !env.Dirty {
		for _, c := range m.SeenAt {
			if p, on := set.line.pos[c]; on && (!ok || p < pos) {
				pos, ok = p, true
			}
		}
	}
	switch {
	case env.Commit == "" && !ok:
		set.left.NoCommit++
		return
	case env.Dirty:
		set.left.Dirty++
		return
	case !ok:
		set.left.OffLine++
		if set.pending != nil {
			set.pending[env.Commit] = append(set.pending[env.Commit], m)
		}
		return
	}
	set.results++
	k := m.Key
	for _, mt := range seriesMetrics {
		var means []float64
		for _, f := range m.Forks {
			if xs := mt.of(f); len(xs) > 0 {
				means = append(means, stats.Summarize(xs).Mean)
			}
		}
		if len(means) == 0 {
			continue
		}
		key := seriesKey{k.Method, k.Workload, k.Args, mt.name, k.Machine, k.JVM, k.Harness}
		s := set.series[key]
		if s == nil {
			s = &series{key: key, samples: map[int][]float64{}, fed: -1, id: report.SeriesID{Method: k.Method, Workload: k.Workload,
				Args: k.Args, Metric: mt.name, Unit: mt.unit, Machine: k.Machine, JVM: jvmLabel(env, k.JVM)}}
			set.series[key] = s
		}
		s.add(pos, means)
	}
}

// jvmLabel names a JVM for people: vendor and version, then the heap and
// flags perfls gave it (the end of the cache key's JVM identity, after the
// binary's size and date), so that two classes of one JDK tell apart.
func jvmLabel(env measure.Environment, identity string) string {
	label := strings.TrimSpace(env.JavaVendor + " " + env.JavaVersion)
	if flags := jvmSettings(identity); flags != "" {
		label += " " + flags
	}
	return label
}

// jvmSettings is the end of a JVM identity (measure.JVMIdentity: "java
// (size, date) heap flags…"): the heap perfls gave it (-Xmx…, nothing for
// the default) and the extra flags.
func jvmSettings(identity string) string {
	i := strings.LastIndex(identity, ") ")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(identity[i+2:], "default heap"))
}

// extend moves the set to a longer line that begins with the old one (HEAD
// moved forward) and places the pending results of its new commits.
func (set *seriesSet) extend(l *commitLine) {
	old := len(set.line.commits)
	set.line = l
	for _, c := range l.commits[old:] {
		ms := set.pending[c]
		delete(set.pending, c)
		set.left.OffLine -= len(ms)
		for _, m := range ms {
			set.add(m)
		}
	}
}

// ordered lists the series in a stable order.
func (set *seriesSet) ordered() []*series {
	out := slices.Collect(maps.Values(set.series))
	slices.SortFunc(out, func(a, b *series) int {
		ka, kb := a.key, b.key
		return cmp.Or(cmp.Compare(ka.method, kb.method), cmp.Compare(ka.workload, kb.workload), cmp.Compare(ka.args, kb.args),
			cmp.Compare(metricRank(ka.metric), metricRank(kb.metric)), cmp.Compare(ka.machine, kb.machine), cmp.Compare(ka.jvm, kb.jvm),
			cmp.Compare(ka.harness, kb.harness))
	})
	return out
}

func metricRank(name string) int {
	return slices.IndexFunc(seriesMetrics, func(m seriesMetric) bool { return m.name == name })
}

// Regressions lists the change points of every stored series on the
// first-parent line of HEAD in req.Dir's repository, and the level shifts
// seen only between machine classes ("environment differs").
func (e *Engine) Regressions(ctx context.Context, req RegressionsRequest) (*report.Regressions, error) {
	if req.Method != "" && (!strings.Contains(req.Method, "#") || strings.HasPrefix(req.Method, "#")) {
		return nil, ErrMethodName
	}
	repo, err := revision.Open(ctx, req.Dir)
	if err != nil {
		return nil, err
	}
	head, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	commits, err := repo.Line(ctx, head)
	if err != nil {
		return nil, fmt.Errorf("first-parent history of %s: %w", repo.Top, err)
	}
	res := &report.Regressions{Head: head, Commits: len(commits), Changes: []report.RegressionChange{}, Environment: []report.EnvironmentShift{}}
	var after map[string]bool
	if req.Since != "" {
		if res.Since, after, err = commitsAfter(ctx, repo, req.Since, head); err != nil {
			return nil, fmt.Errorf("--since: %w", err)
		}
	}
	set := newSeriesSet(newCommitLine(commits))
	if err := e.loadSeries(ctx, set, req.Method); err != nil {
		return nil, err
	}
	subjects := map[string]string{}
	subject := func(c string) string {
		if _, ok := subjects[c]; !ok {
			subjects[c] = repo.Subject(ctx, c)
		}
		return subjects[c]
	}
	all := set.ordered()
	for _, s := range all {
		if err := s.detect(set.line); err != nil {
			return nil, err
		}
		for _, c := range s.changes {
			res.Changes = append(res.Changes, changeOf(s, c, subject(c.Commit), after == nil || after[c.Commit]))
		}
	}
	for _, sh := range environmentShifts(set, all) {
		if after == nil || after[sh.Commit] {
			sh.Subject = subject(sh.Commit)
			res.Environment = append(res.Environment, sh)
		}
	}
	res.Results, res.Series, res.LeftOut = set.results, len(all), set.left
	if len(all) == 0 {
		res.Notes = append(res.Notes, "no stored result is of a commit on this line: measure commits in a clean tree (perfls check, perfls measure) to build the history")
	}
	return res, nil
}

// commitsAfter resolves since and lists the commits after it on head's
// first-parent line.
func commitsAfter(ctx context.Context, repo *revision.Repo, since, head string) (string, map[string]bool, error) {
	commit, err := repo.Resolve(ctx, since)
	if err != nil {
		return "", nil, err
	}
	later, err := repo.FirstParents(ctx, commit, head)
	if err != nil {
		return "", nil, err
	}
	after := map[string]bool{}
	for _, c := range later {
		after[c] = true
	}
	return commit, after, nil
}

// loadSeries places every stored result of method (of every method, "")
// on the set's series.
func (e *Engine) loadSeries(ctx context.Context, set *seriesSet, method string) error {
	store, err := e.Store()
	if err != nil {
		return err
	}
	methods, err := storedMethods(ctx, store, method)
	if err != nil {
		return err
	}
	for _, m := range methods {
		ms, err := store.MeasurementsOf(ctx, m)
		if err != nil {
			return err
		}
		for _, r := range ms {
			if method != "" || r.Key.Method == m { // "p.C#m" also matches "p.C#m(int)": each once
				set.add(r)
			}
		}
	}
	return nil
}

func changeOf(s *series, c changepoint.CommitChange, subject string, inSince bool) report.RegressionChange {
	return report.RegressionChange{SeriesID: s.id, Commit: c.Commit, Previous: c.Previous, Subject: subject, Points: len(s.samples), Before: c.Before, After: c.After,
		Magnitude: c.Magnitude, Direction: c.Direction(), PValue: c.PValue, Slower: c.After > c.Before, InSince: inSince}
}

// storedMethods are the methods whose results a request reads: the one
// named, else every method in the store.
func storedMethods(ctx context.Context, store *cache.Store, method string) ([]string, error) {
	if method != "" {
		return []string{method}, nil
	}
	entries, err := store.List(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, en := range entries {
		seen[en.Key.Method] = true
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// environmentShifts finds the series that begin after another machine
// class's series of the same thing and whose first level is significantly
// higher than that class's level just before: the only earlier results are
// another environment's, so the step between them is no regression. The
// other class is the one with the latest result before the series begins.
func environmentShifts(set *seriesSet, all []*series) []report.EnvironmentShift {
	type what struct{ method, workload, args, metric, harness string }
	groups := map[what][]*series{}
	for _, s := range all {
		k := s.key
		w := what{k.method, k.workload, k.args, k.metric, k.harness}
		groups[w] = append(groups[w], s)
	}
	var out []report.EnvironmentShift
	for _, s := range all {
		k := s.key
		first := slices.Min(slices.Collect(maps.Keys(s.samples)))
		var other *series
		otherLast := -1
		for _, o := range groups[what{k.method, k.workload, k.args, k.metric, k.harness}] {
			for p := range o.samples {
				if o != s && p < first && p > otherLast {
					other, otherLast = o, p
				}
			}
		}
		if other == nil {
			continue
		}
		from := 0 // the other class's level: after its last change point before first
		for _, c := range other.changes {
			if p := set.line.pos[c.Commit]; p < first {
				from = p
			}
		}
		until := len(set.line.commits) // this class's first level
		if len(s.changes) > 0 {
			until = set.line.pos[s.changes[0].Commit]
		}
		cp, ok, err := changepoint.Shift(other.level(from, first), s.level(first, until), regressionConfig)
		if err != nil || !ok || cp.Magnitude <= 0 {
			continue
		}
		out = append(out, report.EnvironmentShift{SeriesID: s.id, Commit: set.line.commits[first], OtherMachine: other.id.Machine,
			OtherJVM: other.id.JVM, Before: cp.Before, After: cp.After, Magnitude: cp.Magnitude, PValue: cp.PValue})
	}
	return out
}

// environmentVerdict turns a diff's slow-down into "environment differs"
// when the base's result was measured in another environment than the
// head's. The cache key holds the machine class and the JVM, so both sides
// always share those; a shared store can still answer the base with
// another machine of the class (other memory, heap or collector).
func environmentVerdict(c *report.DiffChange, base, head measure.Environment) {
	if c.Verdict != report.Slower {
		return
	}
	if diffs := environmentDiffs(base, head); len(diffs) > 0 {
		c.Verdict, c.Reason = report.EnvironmentDiffers, "the base was measured in another environment: "+strings.Join(diffs, ", ")
	}
}

// environmentDiffs lists the components in which two results' environments
// differ, as "memory 16384 MiB → 8192 MiB"; none when either is unknown
// (an older result's is empty). The JVM's arguments are left out: the
// cache key already holds its flags, and the rest name local paths.
func environmentDiffs(base, head measure.Environment) []string {
	if base.JavaVersion == "" || head.JavaVersion == "" {
		return nil
	}
	var out []string
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"processor", base.CPUModel, head.CPUModel}, {"cores", base.Cores, head.Cores}, {"memory MiB", base.MemoryMB, head.MemoryMB},
		{"OS", base.OS + "/" + base.Arch, head.OS + "/" + head.Arch}, {"JVM", base.JavaVendor + " " + base.VMVersion, head.JavaVendor + " " + head.VMVersion},
		{"collector", base.GC, head.GC}, {"max heap MiB", base.MaxHeapMB, head.MaxHeapMB},
	} {
		if c.a != c.b {
			out = append(out, fmt.Sprintf("%s %v → %v", c.name, c.a, c.b))
		}
	}
	return out
}
