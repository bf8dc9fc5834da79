package regression

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/perfls/perfls/analysis/report"
)

// commits are n commit names c0…c(n-1), oldest first.
func commits(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d", i)
	}
	return out
}

// result is a result of p.A#m at commit on machine: three forks around
// mean (±1 %), 24 allocated bytes per op, no CPU time.
func result(commit, machine string, mean float64) Result {
	r := Result{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Machine: machine, JVM: "java17", Harness: "h1",
		JVMLabel: "Debian 17", Commit: commit}
	for _, d := range []float64{-0.01, 0, 0.01} {
		x := mean * (1 + d)
		r.Forks = append(r.Forks, Fork{NsPerOp: []float64{x, x}, AllocBytesPerOp: []float64{24, 24}})
	}
	return r
}

// A +30 % step at commit 10 of 20 is one change point of the time series
// at that commit, none of the allocation series; results of a dirty tree,
// of a commit off the line and without a commit are counted, not placed.
func TestSetFindsAStep(t *testing.T) {
	l := NewLine(commits(20))
	set := NewSet(l, false)
	for i := range 20 {
		set.Add(result(fmt.Sprintf("c%d", i), "x", map[bool]float64{false: 100, true: 130}[i >= 10]+float64(i%2)))
	}
	dirty := result("c3", "x", 500)
	dirty.Dirty = true
	set.Add(dirty)
	set.Add(result("elsewhere", "x", 500))
	set.Add(result("", "x", 500))
	if err := set.Detect(); err != nil {
		t.Fatal(err)
	}
	all := set.Ordered()
	if len(all) != 2 || set.Results() != 20 || set.LeftOut() != (report.LeftOut{Dirty: 1, OffLine: 1, NoCommit: 1}) {
		t.Fatalf("%d series, %d results, left out %+v; want 2 (time, alloc), 20, one of each", len(all), set.Results(), set.LeftOut())
	}
	time, alloc := all[0], all[1]
	if len(alloc.Changes()) != 0 || len(time.Changes()) != 1 {
		t.Fatalf("changes: time %+v, alloc %+v; want one of time", time.Changes(), alloc.Changes())
	}
	c := time.Change(time.Changes()[0], "subject", true)
	if c.Commit != "c10" || !c.Slower || c.Direction != "increase" || math.Abs(c.Magnitude-0.3) > 0.01 || c.Points != 20 ||
		c.SeriesID != (report.SeriesID{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Metric: "time", Unit: "ns/op", Machine: "x", JVM: "Debian 17"}) {
		t.Errorf("change %+v", c)
	}
	if s, cc, ok := set.LatestSlowDown("y"); !ok || s != time || cc.Commit != "c10" {
		t.Errorf("latest slow-down on any machine: %v %+v %v", s, cc, ok)
	}
}

// A result whose code was seen at an earlier commit (the cache answered
// there) is placed at the earliest of them, unless its tree was dirty.
func TestSetPlacesAtFirstSeen(t *testing.T) {
	set := NewSet(NewLine(commits(5)), false)
	r := result("c4", "x", 100)
	r.SeenAt = []string{"c3", "c1", "elsewhere"}
	set.Add(r)
	s := set.Ordered()[0]
	if places := s.places(); !slices.Equal(places, []int{1}) {
		t.Errorf("placed at %v, want c1 only", places)
	}
	r.Dirty = true
	set.Add(r)
	if set.LeftOut().Dirty != 1 || set.Results() != 1 {
		t.Errorf("a dirty tree's result was placed: %+v", set.LeftOut())
	}
}

// The editor's watch: results of commits after the line's tip wait until
// the line is extended to them, then are appended to the same detector;
// a point before the last fed one rebuilds it.
func TestExtendAppends(t *testing.T) {
	all := commits(25)
	set := NewSet(NewLine(all[:15]), true)
	for i := range 25 {
		set.Add(result(all[i], "x", map[bool]float64{false: 100, true: 118}[i >= 8 && i < 15]+map[bool]float64{false: 0, true: -28}[i >= 15]))
	}
	if err := set.Detect(); err != nil {
		t.Fatal(err)
	}
	s := set.Ordered()[0]
	cs := s.cs
	if set.LeftOut().OffLine != 10 || len(s.Changes()) != 1 || s.Changes()[0].Commit != "c8" {
		t.Fatalf("before extending: left out %+v, changes %+v", set.LeftOut(), s.Changes())
	}
	if _, _, ok := set.LatestSlowDown("x"); !ok {
		t.Error("no slow-down before the recovery")
	}
	longer := NewLine(all)
	if !longer.Extends(set.Line(), "c14") || longer.Extends(set.Line(), "c13") || NewLine(all[:3]).Extends(set.Line(), "c14") {
		t.Error("Extends")
	}
	set.Extend(longer)
	if err := set.Detect(); err != nil {
		t.Fatal(err)
	}
	if s.cs != cs || s.cs.Len() != 25 || len(s.changes) != 2 || s.changes[1].Commit != "c15" || set.LeftOut().OffLine != 0 || set.Results() != 25 {
		t.Errorf("detector rebuilt or wrong: same %v, %d points, changes %+v, left out %+v", s.cs == cs, s.cs.Len(), s.changes, set.LeftOut())
	}
	if _, _, ok := set.LatestSlowDown("x"); ok {
		t.Error("a recovery's latest change point is a speed-up: want no slow-down")
	}
	set.Add(result("c2", "x", 100))
	if err := set.Detect(); err != nil || s.cs == cs || s.cs.Len() != 25 {
		t.Errorf("a point before the fed ones: rebuilt %v, %d points, %v", s.cs != cs, s.cs.Len(), err)
	}
}

// A commit's point is the median of its fork means: one disturbed fork in
// each of the last two commits is no step.
func TestDisturbedForkIsNoStep(t *testing.T) {
	set := NewSet(NewLine(commits(12)), false)
	for i := range 10 {
		set.Add(result(fmt.Sprintf("c%d", i), "x", 100+float64(i%2)))
	}
	for _, c := range []string{"c10", "c11"} {
		r := Result{Method: "p.A#m(int)", Machine: "x", Commit: c}
		for _, x := range []float64{100, 101, 500} {
			r.Forks = append(r.Forks, Fork{NsPerOp: []float64{x}})
		}
		set.Add(r)
	}
	if err := set.Detect(); err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Ordered() {
		if len(s.Changes()) != 0 {
			t.Errorf("%s: changes %+v", s.id.Metric, s.Changes())
		}
	}
}

// Machine y's series begins at commit 15 at twice machine x's level: an
// environment shift against x's level before it, not a change point.
func TestEnvironmentShifts(t *testing.T) {
	set := NewSet(NewLine(commits(20)), false)
	for i := range 20 {
		c := fmt.Sprintf("c%d", i)
		set.Add(result(c, "x", 100+float64(i%2)))
		if i >= 15 {
			set.Add(result(c, "y", 200+float64(i%2)))
		}
	}
	if err := set.Detect(); err != nil {
		t.Fatal(err)
	}
	shifts := set.EnvironmentShifts()
	if len(shifts) != 1 {
		t.Fatalf("shifts %+v, want y's time", shifts)
	}
	sh := shifts[0]
	if sh.Commit != "c15" || sh.Machine != "y" || sh.OtherMachine != "x" || sh.Metric != "time" || math.Abs(sh.Magnitude-1) > 0.05 {
		t.Errorf("shift %+v", sh)
	}
}

// BenchmarkSeriesAppend1000 is the editor watch's cost per recorded result
// without the store: one commit's three fork means added to a series of
// 1,000 commits with two steps, and the detector fed.
func BenchmarkSeriesAppend1000(b *testing.B) {
	n := 1000 + b.N
	l := NewLine(commits(n))
	s := newSeries(seriesKey{}, report.SeriesID{})
	point := func(i int) []float64 {
		x := 100 * (1 + 0.2*float64(i/400%2) + 0.01*math.Sin(float64(i)))
		return []float64{x * 0.99, x, x * 1.01}
	}
	for i := range 1000 {
		s.add(i, n, point(i))
	}
	if err := s.detect(l); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 1000; i < n; i++ {
		s.add(i, n, point(i))
		if err := s.detect(l); err != nil {
			b.Fatal(err)
		}
	}
}

// Many series (a team's history) are detected on every processor: each
// finds its own step, as one detected alone does.
func TestDetectManySeries(t *testing.T) {
	set := NewSet(NewLine(commits(20)), false)
	for s := range 300 {
		for i := range 20 {
			r := result(fmt.Sprintf("c%d", i), "x", map[bool]float64{false: 100, true: 130}[i >= 5+s%10])
			r.Args = fmt.Sprint(s)
			set.Add(r)
		}
	}
	if err := set.Detect(); err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Ordered() {
		if s.key.metric != "time" {
			continue
		}
		var at int
		fmt.Sscan(s.key.args, &at)
		if cs := s.Changes(); len(cs) != 1 || cs[0].Commit != fmt.Sprintf("c%d", 5+at%10) {
			t.Errorf("series %s: changes %+v; want one at c%d", s.key.args, cs, 5+at%10)
		}
	}
}

// Results given as the store's fork means (with the store's identity of
// their series) place the same points and find the same changes as the
// forks' samples, two results at a commit included; the set's copy of a
// point does not write into the caller's means.
func TestSetForkMeansAsForks(t *testing.T) {
	l := NewLine(commits(20))
	bySamples, byMeans := NewSet(l, false), NewSet(l, false)
	var shared []float64
	identity := new(int)
	for i := range 22 {
		r := result(fmt.Sprintf("c%d", i%20), "x", map[bool]float64{false: 100, true: 130}[i%20 >= 12]+float64(i%3))
		bySamples.Add(r)
		means := make([]float64, 0, 8) // room to grow: the set must not append into it
		for _, f := range r.Forks {
			means = append(means, (f.NsPerOp[0]+f.NsPerOp[1])/2)
		}
		if i == 0 {
			shared = means
		}
		r.Forks, r.ForkMeans, r.Series = nil, [3][]float64{means, nil, {24, 24, 24}}, identity
		byMeans.Add(r)
	}
	for _, set := range []*Set{bySamples, byMeans} {
		if err := set.Detect(); err != nil {
			t.Fatal(err)
		}
	}
	a, b := bySamples.Ordered(), byMeans.Ordered()
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("%d and %d series, want 2 (time, alloc)", len(a), len(b))
	}
	for i := range a {
		if !slices.EqualFunc(a[i].samples, b[i].samples, slices.Equal) || !slices.Equal(a[i].Changes(), b[i].Changes()) {
			t.Errorf("series %d: points %v and %v, changes %+v and %+v", i, a[i].samples, b[i].samples, a[i].Changes(), b[i].Changes())
		}
	}
	if spare := shared[:cap(shared)][3:]; slices.ContainsFunc(spare, func(x float64) bool { return x != 0 }) || len(b[0].samples[0]) != 6 {
		t.Errorf("the caller's spare room %v (written into), the set's point at c0 %v; want 6 values", spare, b[0].samples[0])
	}
}
