// Package regression decides whether measured code became slower, from
// values the engine reads for it: the change points of stored results'
// series over a repository's first-parent history (perfls regressions and
// the editor's "slower since" line, with analysis/changepoint), the level
// shifts seen only between machine classes ("environment differs"), and one
// workload's verdict between two trees (perfls diff). It does no I/O.
package regression

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/perfls/perfls/analysis/changepoint"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
)

// config is the detector's: Otava's defaults.
var config = changepoint.DefaultConfig()

// Fork is what a series reads of one stored fork: its per-operation
// figures per sample (the fields of the store's fork of the same names).
type Fork struct {
	NsPerOp, CPUNsPerOp, AllocBytesPerOp []float64
}

// Result is a stored result as the series read it.
type Result struct {
	// What was measured and the machine class with the harness settings
	// (the cache key's): results taken another way are another series.
	Method, Workload, Args, Machine, JVM, Harness string
	// JVMLabel names the JVM for people (vendor, version, heap, flags).
	JVMLabel string
	// Commit is the commit whose code was measured ("" unknown), Dirty
	// that the tree had changes; SeenAt further commits found to hold the
	// same code.
	Commit string
	Dirty  bool
	SeenAt []string
	Forks  []Fork
	// ForkMeans, when any is set, are the means of each fork's samples
	// per metric (time, CPU time, allocation), as a store keeps them:
	// Forks is then not read, and the set keeps the slices.
	ForkMeans [3][]float64
	// Series, when not nil, is an identity of the result's series the
	// caller holds (the store's record of it; comparable): results with
	// the same Series have the same key, and the set finds their series
	// by it instead of by the key's strings.
	Series any
}

// metric is a per-operation figure of a fork that a series follows.
type metric struct {
	name, unit string
	of         func(Fork) []float64
}

var metrics = []metric{
	{"time", "ns/op", func(f Fork) []float64 { return f.NsPerOp }},
	{"cpu", "ns/op", func(f Fork) []float64 { return f.CPUNsPerOp }},
	{"alloc", "B/op", func(f Fork) []float64 { return f.AllocBytesPerOp }},
}

// Line is a first-parent line, oldest first, with each commit's place.
type Line struct {
	commits []string
	pos     map[string]int
}

// NewLine is the line of commits, oldest first.
func NewLine(commits []string) *Line {
	l := &Line{commits: commits, pos: make(map[string]int, len(commits))}
	for i, c := range commits {
		l.pos[c] = i
	}
	return l
}

// Len is the number of commits on the line.
func (l *Line) Len() int { return len(l.commits) }

// Extends says whether l begins with old's commits and old's last is
// head: HEAD moved forward from head along l.
func (l *Line) Extends(old *Line, head string) bool {
	n := len(old.commits)
	return n <= len(l.commits) && n > 0 && l.commits[n-1] == head
}

// seriesKey identifies a series: what, which metric, and the machine class
// with the harness settings.
type seriesKey struct {
	method, workload, args, metric string
	machine, jvm, harness          string
}

// Series is one series' points by place on the line: the fork means of
// every result of that commit. Its detector is fed in order; points after
// the last fed one are appended, a change before it rebuilds the detector.
type Series struct {
	id      report.SeriesID
	key     seriesKey
	samples [][]float64 // by place on the line; nil where there is no result
	points  int         // places with samples
	fed     int         // place of the last point fed to cs (-1: none)
	fresh   []int       // places added after fed
	rebuild bool        // a fed point changed
	cs      *changepoint.CommitSeries
	changes []changepoint.CommitChange
}

func newSeries(key seriesKey, id report.SeriesID) *Series {
	return &Series{key: key, id: id, fed: -1}
}

// add places a result's fork means xs at pos of a line of n commits,
// keeping xs.
func (s *Series) add(pos, n int, xs []float64) {
	if pos >= cap(s.samples) {
		// Results come oldest first, a commit at a time: growing straight
		// to the line's length once past a first 64 places saves the
		// copies of doubling (a million results: tenths of a second).
		grown := make([][]float64, len(s.samples), min(max(2*cap(s.samples), pos+1, 64), max(n, pos+1)))
		copy(grown, s.samples)
		s.samples = grown
	}
	if pos >= len(s.samples) {
		s.samples = s.samples[:pos+1]
	}
	had := s.samples[pos] != nil
	switch {
	case pos <= s.fed:
		s.rebuild = true
	case !had && s.cs != nil: // before the first detect, every place is new
		s.fresh = append(s.fresh, pos)
	}
	if had {
		s.samples[pos] = append(s.samples[pos], xs...)
		return
	}
	s.points++
	s.samples[pos] = xs[:len(xs):len(xs)] // a later result's append copies: xs may share its array
}

// detect feeds the detector what it has not seen: the new points when they
// all come after the fed ones (the incremental case), else the whole series.
// A commit's point is the median of its fork means: one fork disturbed by a
// busy machine does not move it (docs/regressions.md, validation).
func (s *Series) detect(l *Line) error {
	todo := s.fresh
	if s.cs == nil || s.rebuild {
		cs, err := changepoint.NewCommitSeries(config)
		if err != nil {
			return err
		}
		s.cs, s.fed, s.rebuild = cs, -1, false
		todo = s.places()
	}
	s.fresh = nil
	if len(todo) == 0 {
		return nil
	}
	slices.Sort(todo)
	pts := make([]changepoint.CommitSamples, len(todo))
	medians := make([]float64, len(todo)) // one array for the points' one value each
	for i, p := range todo {
		medians[i] = median(s.samples[p])
		pts[i] = changepoint.CommitSamples{Commit: l.commits[p], Samples: medians[i : i+1 : i+1]}
	}
	changes, err := s.cs.Append(pts...)
	if err != nil {
		s.cs = nil
		return fmt.Errorf("series %s %s on %s: %w", s.id.Method, s.id.Metric, s.id.Class(), err)
	}
	s.changes, s.fed = changes, todo[len(todo)-1]
	return nil
}

// median is stats.Median (the lower median) of a point's few fork means,
// by sorting a copy: cheaper for a handful of values, and a store of a
// million results has some million points.
func median(xs []float64) float64 {
	if len(xs) == 0 || len(xs) > 32 {
		return stats.Median(xs)
	}
	var buf [32]float64
	ys := buf[:len(xs)]
	copy(ys, xs)
	slices.Sort(ys)
	return ys[(len(ys)+1)/2-1]
}

// level is the per-commit means of the series' points at places [lo, hi).
func (s *Series) level(lo, hi int) []float64 {
	var out []float64
	for p := lo; p < min(hi, len(s.samples)); p++ {
		if s.samples[p] != nil {
			out = append(out, stats.Summarize(s.samples[p]).Mean)
		}
	}
	return out
}

// places are the places with samples, in order.
func (s *Series) places() []int {
	out := make([]int, 0, s.points)
	for p, xs := range s.samples {
		if xs != nil {
			out = append(out, p)
		}
	}
	return out
}

// Changes are the series' change points as the last Detect found them.
func (s *Series) Changes() []changepoint.CommitChange { return s.changes }

// Change is c, a change point of s, as perfls regressions reports it.
func (s *Series) Change(c changepoint.CommitChange, subject string, inSince bool) report.RegressionChange {
	return report.RegressionChange{SeriesID: s.id, Commit: c.Commit, Previous: c.Previous, Subject: subject, Points: s.points, Before: c.Before, After: c.After,
		Magnitude: c.Magnitude, Direction: c.Direction(), PValue: c.PValue, Slower: c.After > c.Before, InSince: inSince}
}

// Set sorts stored results into series on a line.
type Set struct {
	line   *Line
	series map[seriesKey]*Series
	// byResult are the series of a result's key (metric ""), by metric;
	// byIdentity the same by Result.Series.
	byResult   map[seriesKey]*[3]*Series
	byIdentity map[any]*[3]*Series
	left       report.LeftOut
	results    int
	// pending holds results of commits not on the line, by commit, when the
	// line may grow to include them (the editor's watch); nil drops them.
	pending map[string][]Result
}

// NewSet is an empty set on l. keepOffLine keeps the results of commits
// off the line for Extend (the editor's watch, whose line grows).
func NewSet(l *Line, keepOffLine bool) *Set {
	set := &Set{line: l, series: map[seriesKey]*Series{}, byResult: map[seriesKey]*[3]*Series{}, byIdentity: map[any]*[3]*Series{}}
	if keepOffLine {
		set.pending = map[string][]Result{}
	}
	return set
}

// Line is the line the set's results are placed on.
func (set *Set) Line() *Line { return set.line }

// Results is how many results were placed on the line; LeftOut counts
// the others by why.
func (set *Set) Results() int { return set.results }

// LeftOut counts the results not placed, by why.
func (set *Set) LeftOut() report.LeftOut { return set.left }

// Add places a result's fork means on its series, or counts why it is left
// out (no commit, a tree with changes, a commit off the line). A result is
// placed at the first commit of the line known to hold its code: its own,
// or an earlier one where its key was answered from the cache (a bisect or
// diff that found the code unchanged there), so that a change is dated at
// the commit that made it, not at the later one measured first.
func (set *Set) Add(r Result) {
	pos, ok := set.line.pos[r.Commit]
	if !r.Dirty {
		for _, c := range r.SeenAt {
			if p, on := set.line.pos[c]; on && (!ok || p < pos) {
				pos, ok = p, true
			}
		}
	}
	switch {
	case r.Commit == "" && !ok:
		set.left.NoCommit++
		return
	case r.Dirty:
		set.left.Dirty++
		return
	case !ok:
		set.left.OffLine++
		if set.pending != nil {
			set.pending[r.Commit] = append(set.pending[r.Commit], r)
		}
		return
	}
	set.results++
	// One look-up of the result's series for every metric: a million
	// results make three million.
	base := seriesKey{r.Method, r.Workload, r.Args, "", r.Machine, r.JVM, r.Harness}
	var of *[3]*Series
	if r.Series != nil {
		of = set.byIdentity[r.Series]
	}
	if of == nil {
		if of = set.byResult[base]; of == nil {
			of = new([3]*Series)
			set.byResult[base] = of
		}
		if r.Series != nil {
			set.byIdentity[r.Series] = of
		}
	}
	stored := r.ForkMeans[0] != nil || r.ForkMeans[1] != nil || r.ForkMeans[2] != nil
	for i, mt := range metrics {
		means := r.ForkMeans[i]
		if !stored {
			for _, f := range r.Forks {
				if xs := mt.of(f); len(xs) > 0 {
					means = append(means, stats.Summarize(xs).Mean)
				}
			}
		}
		if len(means) == 0 {
			continue
		}
		s := of[i]
		if s == nil {
			key := base
			key.metric = mt.name
			s = newSeries(key, report.SeriesID{Method: r.Method, Workload: r.Workload, Args: r.Args, Metric: mt.name, Unit: mt.unit,
				Machine: r.Machine, JVM: r.JVMLabel})
			set.series[key], of[i] = s, s
		}
		s.add(pos, len(set.line.commits), means)
	}
}

// Extend moves the set to a longer line that begins with the old one (HEAD
// moved forward: l.Extends) and places the pending results of its new
// commits.
func (set *Set) Extend(l *Line) {
	old := len(set.line.commits)
	set.line = l
	for _, c := range l.commits[old:] {
		rs := set.pending[c]
		delete(set.pending, c)
		set.left.OffLine -= len(rs)
		for _, r := range rs {
			set.Add(r)
		}
	}
}

// Ordered lists the series in a stable order: by what was measured, the
// metric (time, cpu, alloc), the machine class and the harness.
func (set *Set) Ordered() []*Series {
	out := slices.Collect(maps.Values(set.series))
	slices.SortFunc(out, func(a, b *Series) int {
		ka, kb := a.key, b.key
		return cmp.Or(cmp.Compare(ka.method, kb.method), cmp.Compare(ka.workload, kb.workload), cmp.Compare(ka.args, kb.args),
			cmp.Compare(metricRank(ka.metric), metricRank(kb.metric)), cmp.Compare(ka.machine, kb.machine), cmp.Compare(ka.jvm, kb.jvm),
			cmp.Compare(ka.harness, kb.harness))
	})
	return out
}

func metricRank(name string) int {
	return slices.IndexFunc(metrics, func(m metric) bool { return m.name == name })
}

// Detect feeds every series' detector the points added since the last
// Detect, the series spread over the processors when there are many (a
// team's history: tens of thousands); the first error in Ordered's order
// is returned.
func (set *Set) Detect() error {
	all := set.Ordered()
	errs := make([]error, len(all))
	workers := runtime.GOMAXPROCS(0)
	if len(all) < 256 {
		workers = 1 // the editor's few series: not worth a goroutine
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(all); i = int(next.Add(1)) - 1 {
				errs[i] = all[i].detect(set.line)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// LatestSlowDown is the newest of the time series' latest change points
// that are slow-downs, on machine when it has a time series, else on any
// (the editor's "slower since <commit>"); the one of the largest magnitude
// at the same commit. ok is false when there is none. Call it after Detect.
func (set *Set) LatestSlowDown(machine string) (s *Series, c changepoint.CommitChange, ok bool) {
	var mine, all []*Series
	for _, x := range set.Ordered() {
		if x.key.metric == "time" {
			all = append(all, x)
			if x.key.machine == machine {
				mine = append(mine, x)
			}
		}
	}
	if len(mine) > 0 {
		all = mine
	}
	bestPos := -1
	for _, x := range all {
		if len(x.changes) == 0 {
			continue
		}
		last := x.changes[len(x.changes)-1]
		p := set.line.pos[last.Commit]
		if last.After <= last.Before || p < bestPos || (p == bestPos && last.Magnitude <= c.Magnitude) {
			continue
		}
		s, c, ok, bestPos = x, last, true, p
	}
	return s, c, ok
}
