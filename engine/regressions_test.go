package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/regression"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/measure"
)

// regrStore puts results of p.A#m on the store: one per call, at commit,
// on machine, with three forks around mean (a fixed pattern of ±1 %) and
// 24 allocated bytes per op.
type regrStore struct {
	t     *testing.T
	store *cache.Store
	n     int
}

func (r *regrStore) put(commit string, dirty bool, machine string, mean float64) {
	r.t.Helper()
	r.n++
	env, _ := json.Marshal(measured.Environment{Commit: commit, Dirty: dirty, JavaVendor: "Debian", JavaVersion: "17"})
	m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Code: commit, JVM: "java17", Harness: "h1",
		Machine: machine}, Environment: env, CreatedAt: time.Unix(int64(r.n), 0)}
	for i, d := range []float64{-0.01, 0, 0.01} {
		x := mean * (1 + d + 0.002*float64(r.n%3))
		m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{x, x}, AllocBytesPerOp: []float64{24, 24}, WarmupSettled: i % 2})
	}
	if err := r.store.Put(context.Background(), m); err != nil {
		r.t.Fatal(err)
	}
}

func regrSetup(t *testing.T, commits int) (*Engine, *regrStore, string, []string) {
	t.Helper()
	e := openEngine(t, small)
	store, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	dir, hashes := fixture.GitProject(t, make([]map[string]string, commits)...)
	return e, &regrStore{t: t, store: store}, dir, hashes
}

// A +30 % step at commit 10 of 20 on machine x is one slow-down at that
// commit; results of a dirty tree, of a commit off the first-parent line
// and without a commit are left out and counted; machine y, whose results
// begin at commit 15 at twice x's level, is "environment differs", not a
// regression; --since after the step leaves nothing that fails.
func TestRegressions(t *testing.T) {
	ctx := context.Background()
	e, r, dir, hashes := regrSetup(t, 20)
	for i, h := range hashes {
		r.put(h, false, "x", map[bool]float64{false: 100, true: 130}[i >= 10])
		if i >= 15 {
			r.put(h, false, "y", 260)
		}
	}
	fixture.Git(t, dir, "checkout", "-q", "-b", "side")
	fixture.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "side")
	side := fixture.Git(t, dir, "rev-parse", "HEAD")
	fixture.Git(t, dir, "checkout", "-q", "main")
	r.put(side, false, "x", 500)
	r.put(hashes[19], true, "x", 500)
	r.put("", false, "x", 500)

	res, err := e.Regressions(ctx, RegressionsRequest{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commits != 20 || res.Results != 25 || res.LeftOut.Dirty != 1 || res.LeftOut.OffLine != 1 || res.LeftOut.NoCommit != 1 {
		t.Errorf("commits %d, results %d, left out %+v", res.Commits, res.Results, res.LeftOut)
	}
	if res.Series != 4 { // time and alloc on x and on y
		t.Errorf("%d series, want 4", res.Series)
	}
	if len(res.Changes) != 1 {
		t.Fatalf("changes %+v, want one", res.Changes)
	}
	c := res.Changes[0]
	if c.Commit != hashes[10] || c.Subject != "commit 10" || !c.Slower || !c.InSince || c.Metric != "time" || c.Machine != "x" ||
		math.Abs(c.Magnitude-0.3) > 0.01 || c.PValue > 0.001 || c.Points != 20 || c.JVM != "Debian 17" {
		t.Errorf("change %+v", c)
	}
	if res.ExitStatus() != 1 {
		t.Errorf("exit status %d with a slow-down, want 1", res.ExitStatus())
	}
	if len(res.Environment) != 1 {
		t.Fatalf("environment shifts %+v, want one (y against x)", res.Environment)
	}
	if s := res.Environment[0]; s.Machine != "y" || s.OtherMachine != "x" || s.Commit != hashes[15] || math.Abs(s.Magnitude-1) > 0.02 {
		t.Errorf("environment shift %+v", s)
	}

	res, err = e.Regressions(ctx, RegressionsRequest{Dir: dir, Since: hashes[12]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].InSince || res.ExitStatus() != 0 || len(res.Environment) != 1 {
		t.Errorf("since commit 12: changes %+v, environment %+v, exit %d; want the step listed before --since, exit 0", res.Changes, res.Environment, res.ExitStatus())
	}
	if _, err := e.Regressions(ctx, RegressionsRequest{Dir: dir, Since: side}); err == nil {
		t.Error("--since a commit off the line: no error")
	}
	if _, err := e.Regressions(ctx, RegressionsRequest{Dir: dir, Method: "m"}); err != ErrMethodName {
		t.Errorf("--method m: %v, want ErrMethodName", err)
	}
	res, err = e.Regressions(ctx, RegressionsRequest{Dir: dir, Method: "p.B#m"})
	if err != nil || res.Series != 0 || len(res.Notes) != 1 {
		t.Errorf("another method: %+v, %v; want no series and a note", res, err)
	}
}

// A result measured once at a later commit and found unchanged (its key
// answered from the cache) at an earlier one dates a change at the earlier
// commit, the one that made it: here the slow code is measured at commit
// 18 only, and seen at 10.
func TestRegressionsPlaceAResultAtItsFirstCommit(t *testing.T) {
	ctx := context.Background()
	e, r, dir, hashes := regrSetup(t, 20)
	for i, h := range hashes {
		if i < 10 {
			r.put(h, false, "x", 100)
		}
	}
	r.put(hashes[18], false, "x", 130)
	slow := int64(r.n)
	for _, i := range []int{10, 14} {
		if err := r.store.SeenAt(ctx, slow, hashes[i]); err != nil {
			t.Fatal(err)
		}
	}
	r.put(hashes[19], false, "x", 131)
	res, err := e.Regressions(ctx, RegressionsRequest{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Commit != hashes[10] {
		t.Errorf("changes %+v, want one at commit 10 %.12s", res.Changes, hashes[10])
	}
}

// watchSetup stores 15 commits of p.A#m on this machine with a +18 %
// step at commit 8 and returns a watch that looks again on every call.
func watchSetup(t *testing.T) (r *regrStore, dir string, hashes []string, here string, w *RegressionWatch) {
	t.Helper()
	_, r, dir, hashes = regrSetup(t, 15)
	here = measure.MachineIdentity()
	for i, h := range hashes {
		r.put(h, false, here, map[bool]float64{false: 100, true: 118}[i >= 8])
	}
	w = NewRegressionWatch(r.store)
	w.Every = 0
	return r, dir, hashes, here, w
}

// The editor's watch: built on the first look, it names the step; results
// of later commits (HEAD moved forward) are appended to the same detector,
// and a recovery makes the latest change point a speed-up: no line.
func TestRegressionWatchAppends(t *testing.T) {
	ctx := context.Background()
	r, dir, hashes, here, w := watchSetup(t)
	c, err := w.SlowerSince(ctx, dir, "p.A#m(int)")
	if err != nil || c == nil {
		t.Fatalf("slower since: %+v, %v", c, err)
	}
	if c.Commit != hashes[8] || math.Abs(c.Magnitude-0.18) > 0.01 {
		t.Errorf("slower since %+v, want commit 8, +18 %%", c)
	}
	wm := w.methods[dir+"\x00p.A#m(int)"]
	all := wm.set.Ordered()
	i := slices.IndexFunc(all, func(s *regression.Series) bool {
		ch := s.Changes()
		return len(ch) > 0 && s.Change(ch[0], "", true).SeriesID == report.SeriesID{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10",
			Metric: "time", Unit: "ns/op", Machine: here, JVM: "Debian 17"}
	})
	if i < 0 {
		t.Fatal("no time series")
	}
	s := all[i]
	var more []string
	for i := range 10 {
		fixture.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "more")
		more = append(more, fixture.Git(t, dir, "rev-parse", "HEAD"))
		r.put(more[i], false, here, 90)
	}
	c, err = w.SlowerSince(ctx, dir, "p.A#m(int)")
	if err != nil || c != nil {
		t.Errorf("after a recovery: %+v, %v; want no slow-down", c, err)
	}
	// That the results were appended to the same detector, not rebuilt, is
	// analysis/regression's TestExtendAppends.
	if ch := s.Changes(); len(ch) != 2 || ch[1].Commit != more[0] || s.Change(ch[1], "", true).Points != 25 {
		t.Errorf("changes %+v; want 2 on 25 points, the second at the first new commit", ch)
	}
	// A repository without commits: nothing to order, no line, no error.
	empty, _ := fixture.GitProject(t)
	if c, err := w.SlowerSince(ctx, empty, "p.A#m(int)"); c != nil || err != nil {
		t.Errorf("no commits: %+v, %v", c, err)
	}
	// The editor outside a repository: no line, no error.
	if c, err := w.SlowerSince(ctx, t.TempDir(), "p.A#m(int)"); c != nil || err != nil {
		t.Errorf("outside git: %+v, %v", c, err)
	}
}

// A look reads HEAD from the git directory and only the results above the
// highest ID placed: with git out of reach, new results of known commits
// are still placed. A store emptied (IDs start again) rebuilds the series.
func TestRegressionWatchReadsOnlyNew(t *testing.T) {
	ctx := context.Background()
	r, dir, hashes, here, w := watchSetup(t)
	if c, err := w.SlowerSince(ctx, dir, "p.A#m(int)"); err != nil || c == nil || c.Commit != hashes[8] {
		t.Fatalf("slower since: %+v, %v", c, err)
	}
	wm := w.methods[dir+"\x00p.A#m(int)"]
	t.Setenv("PATH", t.TempDir()) // no git from here on
	r.put(hashes[14], false, here, 118)
	r.put(hashes[13], false, here, 118)
	c, err := w.SlowerSince(ctx, dir, "p.A#m(int)")
	if err != nil || c == nil || c.Commit != hashes[8] || wm.set.Results() != 17 {
		t.Errorf("without git: %+v, %v, %d results placed; want commit 8 and 17 results", c, err, wm.set.Results())
	}
	entries, err := r.store.List(ctx)
	if err != nil || wm.last != entries[0].ID || len(wm.seen) == 0 {
		t.Errorf("last placed %d, store's newest %v (%v), %d remembered", wm.last, entries, err, len(wm.seen))
	}

	if err := r.store.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	for i, h := range hashes[:5] {
		r.put(h, false, here, map[bool]float64{false: 100, true: 125}[i >= 2])
	}
	c, err = w.SlowerSince(ctx, dir, "p.A#m(int)")
	if err != nil || wm.set.Results() != 5 {
		t.Errorf("after the store was emptied: %+v, %v, %d results; want the 5 new ones", c, err, wm.set.Results())
	}
}

// perfls diff's one verdict: a slow-down against a base from another
// machine of the class (a shared store's) is "environment differs"; the
// same environment, a result without one, or another verdict stay.
func TestDiffEnvironmentVerdict(t *testing.T) {
	here := measured.Environment{JavaVendor: "Debian", JavaVersion: "17", VMVersion: "17.0.15", CPUModel: "AMD EPYC", Cores: 2, MemoryMB: 24105,
		OS: "Linux", Arch: "amd64", GC: "G1", MaxHeapMB: 6028}
	other := here
	other.MemoryMB, other.MaxHeapMB = 8192, 2048
	c := report.DiffChange{Verdict: report.Slower}
	regression.EnvironmentVerdict(&c, environmentDiffs(other, here))
	if c.Verdict != report.EnvironmentDiffers || c.Reason != "the base was measured in another environment: memory MiB 8192 → 24105, max heap MiB 2048 → 6028" {
		t.Errorf("another machine's base: %+v", c)
	}
	d := &report.Diff{Changes: []report.DiffChange{c}}
	if d.ExitStatus() != 0 {
		t.Errorf("exit status %d for environment differs, want 0", d.ExitStatus())
	}
	for _, tc := range []struct {
		base    measured.Environment
		verdict string
	}{{here, report.Slower}, {measured.Environment{}, report.Slower}, {other, report.Faster}} {
		c := report.DiffChange{Verdict: tc.verdict}
		if regression.EnvironmentVerdict(&c, environmentDiffs(tc.base, here)); c.Verdict != tc.verdict || c.Reason != "" {
			t.Errorf("base %+v, verdict %s: became %+v", tc.base, tc.verdict, c)
		}
	}
}

// A machine class's JVM is shown with the heap and flags perfls gave it.
func TestJVMLabel(t *testing.T) {
	env := measured.Environment{JavaVendor: "Debian", JavaVersion: "17"}
	for identity, want := range map[string]string{
		"/usr/bin/java (123 bytes, 2026-01-01T00:00:00Z) default heap":                         "Debian 17",
		"/usr/bin/java (123 bytes, 2026-01-01T00:00:00Z) default heap -XX:TieredStopAtLevel=1": "Debian 17 -XX:TieredStopAtLevel=1",
		"/usr/bin/java (123 bytes, 2026-01-01T00:00:00Z) -Xmx512m -XX:+UseSerialGC":            "Debian 17 -Xmx512m -XX:+UseSerialGC",
		"java17": "Debian 17",
	} {
		if got := jvmLabel(env, identity); got != want {
			t.Errorf("%q: %q, want %q", identity, got, want)
		}
	}
}

// A commit's point is the median of its fork means: one fork of a busy
// machine (five times slower) in each of the last two commits is no step.
func TestRegressionsDisturbedFork(t *testing.T) {
	ctx := context.Background()
	e, r, dir, hashes := regrSetup(t, 12)
	for i, h := range hashes[:10] {
		r.put(h, false, "x", 100+float64(i%2))
	}
	for _, h := range hashes[10:] {
		env, _ := json.Marshal(measured.Environment{Commit: h})
		m := &cache.Measurement{Key: cache.Key{Method: "p.A#m(int)", Workload: "p.A#gen(int)", Args: "10", Code: h, JVM: "java17", Harness: "h1",
			Machine: "x"}, Environment: env}
		for _, x := range []float64{100, 101, 500} {
			m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{x}})
		}
		if err := r.store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.Regressions(ctx, RegressionsRequest{Dir: dir, Method: "p.A#m"})
	if err != nil || res.Series != 2 || len(res.Changes) != 0 || res.ExitStatus() != 0 {
		t.Errorf("changes %+v, %v; want none", res.Changes, err)
	}
}

// SQLite and PostgreSQL give the same regressions and the same "slower
// since": a history of twelve noisy series over 30 commits, two of them
// stepping up, with two results at one commit, a dirty one, and one found
// unchanged at an earlier commit, written alike to both.
func TestRegressionsSameOnBothStores(t *testing.T) {
	ctx := context.Background()
	dir, hashes := fixture.GitProject(t, make([]map[string]string, 30)...)
	var outs [2][]byte
	for i, spec := range []string{"", pgtest.NewTestDatabase(t)} {
		e, err := Open(ctx, Config{CacheDir: t.TempDir(), Service: InProcess, Logf: t.Logf, Base: small, Store: spec})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		store, err := e.Store()
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 9))
		var ms []*cache.Measurement
		for c, h := range hashes {
			for s := range 12 {
				level := 100 * float64(1+s%4)
				if (s == 2 && c >= 18) || (s == 7 && c >= 9) {
					level *= 1.25
				}
				env, _ := json.Marshal(measured.Environment{Commit: h, Dirty: c == 29 && s == 0, JavaVendor: "Debian", JavaVersion: "17"})
				m := &cache.Measurement{Key: cache.Key{Method: fmt.Sprintf("p.A#m%d(int)", s/3), Workload: fmt.Sprintf("p.A#gen%d(int)", s%3), Args: "10",
					Code: h, JVM: "java17", Harness: "h1", Machine: "x"}, Environment: env, CreatedAt: time.Unix(int64(len(ms)+1), 0), Commit: h}
				for range 3 {
					x := level * (1 + 0.02*rng.NormFloat64())
					m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{x, x * 1.01}, CPUNsPerOp: []float64{0.9 * x}, AllocBytesPerOp: []float64{24, 24}})
				}
				ms = append(ms, m)
				if c == 20 && s == 5 { // a second result at this commit
					again := *m
					again.Forks = m.Forks[:2]
					ms = append(ms, &again)
				}
			}
		}
		if err := store.PutAll(ctx, ms); err != nil {
			t.Fatal(err)
		}
		if err := store.SeenAt(ctx, ms[len(ms)-1].ID, hashes[25]); err != nil {
			t.Fatal(err)
		}
		for _, method := range []string{"", "p.A#m0", "p.A#m2(int)"} {
			res, err := e.Regressions(ctx, RegressionsRequest{Dir: dir, Method: method})
			if err != nil {
				t.Fatal(err)
			}
			if method == "" && (len(res.Changes) < 2 || res.LeftOut.Dirty != 1) {
				t.Errorf("store %d: %d changes, left out %+v; want the two steps, one dirty result", i, len(res.Changes), res.LeftOut)
			}
			b, _ := json.MarshalIndent(res, "", " ")
			outs[i] = append(outs[i], b...)
			c, err := NewRegressionWatch(store).SlowerSince(ctx, dir, "p.A#m2(int)")
			if err != nil {
				t.Fatal(err)
			}
			b, _ = json.MarshalIndent(c, "", " ")
			outs[i] = append(outs[i], b...)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("SQLite and PostgreSQL differ:\n%s\n----\n%s", outs[0], outs[1])
	}
}
