package server_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfls/perfls/analysis/measured"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/server"
)

// The hover on a measured method gains "slower since <commit> (+N %)" when
// the latest change point of its stored time per op over the first-parent
// history is a slow-down; a result recorded later (a recovery on a new
// commit) is taken in on a later hover and the line goes.
func TestRegressionHover(t *testing.T) {
	ctx := context.Background()
	store, _, err := cache.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	commits := make([]map[string]string, 12)
	commits[0] = map[string]string{"Demo.java": lensSource}
	dir, hashes := fixture.GitProject(t, commits...)
	put := func(method, commit string, mean float64) {
		env, _ := json.Marshal(measured.Environment{Commit: commit})
		m := &cache.Measurement{Key: cache.Key{Method: method, Workload: "demo.Demo#gen(int)", Args: "10", Code: commit,
			Machine: measure.MachineIdentity()}, Environment: env}
		for _, d := range []float64{-1, 0, 1} {
			m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{mean + d}})
		}
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range hashes {
		put("demo.Demo#fast(int[])", h, map[bool]float64{false: 100, true: 125}[i >= 6])
		put("demo.Demo#slow(int[])", h, map[bool]float64{false: 100, true: 150}[i >= 9])
	}
	fc := lsptest.Start(t, server.Options{Verdicts: store, Actions: &fakeActions{}})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	path := filepath.Join(dir, "Demo.java")
	ss := &session{fc, dir, path, fc.Open(t, path, lensSource)}
	want := "slower since `" + hashes[6][:10] + "` commit 6 (+25 %"
	if h := ss.hoverAt(t, lensSource, "fast(int[] a)"); !strings.Contains(h, want) {
		t.Errorf("hover on fast, want %q:\n%s", want, h)
	}
	// slow has no annotations; it is measured for fast's formula.
	if h := ss.hoverAt(t, lensSource, "slow(int[] a)"); !strings.Contains(h, "slower since `"+hashes[9][:10]+"` commit 9 (+50 %") {
		t.Errorf("hover on slow:\n%s", h)
	}
	fixture.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "faster again")
	for range 6 {
		fixture.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "more")
		put("demo.Demo#fast(int[])", fixture.Git(t, dir, "rev-parse", "HEAD"), 100)
	}
	fc.AwaitFor(t, 10e9, "the recovery in the hover", func() bool {
		return !strings.Contains(ss.hoverAt(t, lensSource, "fast(int[] a)"), "slower since")
	})
}

// fakeRecords is a store without records but one slow-down, which the
// hover reads through the Records seam (no store, no git history walked).
type fakeRecords struct {
	server.Records // other reads are not made by these tests
	mu             sync.Mutex
	asked          []string
}

func (r *fakeRecords) VerdictsRevision(context.Context) (int64, error) { return 1, nil }
func (r *fakeRecords) Verdicts(context.Context) ([]verdict.MethodResult, error) {
	return nil, nil
}
func (r *fakeRecords) OracleModels(context.Context) ([]cache.OracleKey, error) { return nil, nil }
func (r *fakeRecords) SlowerSince(_ context.Context, dir, method string) (*report.RegressionChange, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, method)
	if method != "demo.Demo#fast(int[])" {
		return nil, nil
	}
	return &report.RegressionChange{SeriesID: report.SeriesID{Method: method, Metric: "ns_per_op"}, Commit: "0123456789abcdef", Subject: "commit 6",
		Before: 100, After: 125, Magnitude: 0.25, Slower: true}, nil
}

// Options.Records replaces the store: the hover's regression line comes
// from it, asked with the method's key.
func TestRegressionHoverThroughRecords(t *testing.T) {
	dir, _ := fixture.GitProject(t, map[string]string{"Demo.java": lensSource})
	records := &fakeRecords{}
	fc := lsptest.Start(t, server.Options{Records: records, VerdictPoll: -1})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	path := filepath.Join(dir, "Demo.java")
	ss := &session{fc, dir, path, fc.Open(t, path, lensSource)}
	if h := ss.hoverAt(t, lensSource, "fast(int[] a)"); !strings.Contains(h, "slower since `0123456789` commit 6 (+25 %") ||
		!strings.Contains(h, "why: `perfls explain --method demo.Demo#fast(int[])`") {
		t.Errorf("hover on fast, without the slow-down or the command that explains it:\n%s", h)
	}
	if h := ss.hoverAt(t, lensSource, "slow(int[] a)"); strings.Contains(h, "slower since") {
		t.Errorf("hover on slow:\n%s", h)
	}
	records.mu.Lock()
	defer records.mu.Unlock()
	if !slices.Contains(records.asked, "demo.Demo#slow(int[])") {
		t.Errorf("methods asked: %q", records.asked)
	}
}
