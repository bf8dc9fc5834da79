//go:build unix

package service

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/cache"
)

// Items measured together take turns fork by fork, as measure.Measure does,
// instead of running one item's forks back to back; each result still holds
// every fork and is stored once.
func TestItemsInterleaveForks(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	ctx := context.Background()
	dir := t.TempDir()
	local := NewLocal(ctx, dir, openStore(t, dir), 1)
	defer local.Close()
	item := func(n int64) Item {
		return Item{
			Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
			Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
			Args:      []measured.Arg{measured.IntArg(n)},
		}
	}
	p := Params{Project: project(t), Options: quick(), Priority: Batch, Items: []Item{item(1000), item(3000)}}
	var mu sync.Mutex
	var started []string // "arg:fork" in the order forks finished
	planned := 0
	r, err := local.Measure(ctx, p, func(pr Progress) {
		mu.Lock()
		planned += pr.Planned
		mu.Unlock()
		if pr.NsPerOp == 0 {
			return
		}
		arg := "1000"
		if strings.Contains(pr.Message, "(3000)") {
			arg = "3000"
		}
		mu.Lock()
		started = append(started, arg+":"+string(rune('0'+pr.Fork)))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range r.Items {
		if it.Error != "" || len(it.Forks) != 2 || it.CacheID == 0 {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
	if planned != 4 {
		t.Errorf("planned forks %d, want 2 items × 2 forks", planned)
	}
	// Either item may go first (their requests race), but then they alternate.
	if got := strings.Join(started, " "); got != "1000:1 3000:1 1000:2 3000:2" && got != "3000:1 1000:1 3000:2 1000:2" {
		t.Errorf("forks finished in order %q, want the two items to take turns", got)
	}
}

// The quick phase answers from the service's warm worker JVM first: with
// PhaseBoth the preliminary figure is streamed before any fork finishes and
// the forks follow; with PhaseQuick it is all there is, and nothing is
// cached. The worker JVM stays up between requests.
func TestQuickPhaseFromTheWarmWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	ctx := context.Background()
	dir := t.TempDir()
	local := NewLocal(ctx, dir, openStore(t, dir), 1)
	defer local.Close()
	item := Item{
		Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
		Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args:      []measured.Arg{measured.IntArg(1000)},
	}
	p := Params{Project: project(t), Options: quick(), Priority: Interactive, Items: []Item{item}, Phase: PhaseBoth}
	var events []string
	r, err := local.Measure(ctx, p, func(pr Progress) {
		switch {
		case pr.Preliminary != nil:
			events = append(events, "preliminary")
		case pr.NsPerOp > 0:
			events = append(events, "fork")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	it := r.Items[0]
	if it.Error != "" || it.Preliminary == nil || len(it.Preliminary.Fork.NsPerOp) == 0 || len(it.Forks) != 2 || it.CacheID == 0 {
		t.Fatalf("both phases: %+v", it)
	}
	if got := strings.Join(events, " "); got != "preliminary fork fork" {
		t.Errorf("progress %q, want the preliminary figure before the forks", got)
	}
	pid := local.worker.PID()
	if pid == 0 {
		t.Fatal("no worker JVM kept after the quick phase")
	}

	p.Phase, p.Items[0].Args = PhaseQuick, []measured.Arg{measured.IntArg(2000)}
	r, err = local.Measure(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	it = r.Items[0]
	if it.Error != "" || it.Preliminary == nil || len(it.Forks) != 0 || it.CacheID != 0 {
		t.Fatalf("quick phase only: %+v", it)
	}
	if local.worker.PID() != pid {
		t.Errorf("the worker JVM was restarted between requests (pid %d, then %d)", pid, local.worker.PID())
	}
	p.Phase = PhaseFull
	if r, _ := local.Measure(ctx, p, nil); r == nil || r.Items[0].Cached {
		t.Errorf("the quick figure was cached as a full measurement: %+v", r)
	}
}

// openStore opens the store in dir for a service under test; it is closed
// when the test ends.
func openStore(tb testing.TB, dir string) *cache.Store {
	tb.Helper()
	store, _, err := cache.OpenStore(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	return store
}

// A second service on the same cache directory (the next command run
// without the daemon) takes the first one's resolutions from the cache
// directory: answering from the cache starts no JVM at all.
func TestResolutionsOutliveTheService(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	ctx := context.Background()
	dir := t.TempDir()
	store := openStore(t, dir)
	p := Params{Project: project(t), Options: quick(), Priority: Batch, Items: []Item{{
		Method: methodspec.Spec{Class: "w.Work", Name: "spin"}, Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args: []measured.Arg{measured.IntArg(1000)}}}}
	runs := resolverRuns.Load()
	for i := range 2 {
		local := NewLocal(ctx, dir, store, 1)
		r, err := local.Measure(ctx, p, func(Progress) {})
		local.Close()
		if err != nil || r.Items[0].Error != "" {
			t.Fatalf("service %d: %v %+v", i, err, r)
		}
		if got := resolverRuns.Load() - runs; got != 1 {
			t.Errorf("after service %d: %d resolver runs, want 1", i, got)
		}
	}
	// A corrupt file is an empty one: resolved again, and rewritten.
	if err := os.WriteFile(filepath.Join(dir, resolvedFileName), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	local := NewLocal(ctx, dir, store, 1)
	defer local.Close()
	if r, err := local.Measure(ctx, p, func(Progress) {}); err != nil || r.Items[0].Error != "" {
		t.Fatalf("after a corrupt file: %v %+v", err, r)
	}
	if got := resolverRuns.Load() - runs; got != 2 {
		t.Errorf("after a corrupt file: %d resolver runs, want 2", got)
	}
	if n := len(loadResolved(dir)); n != 2 {
		t.Errorf("resolutions file holds %d entries, want the method and its generator", n)
	}
}

func TestSaveResolvedKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	old := map[string]measured.Resolved{}
	for i := range resolvedMax {
		old["old"+strconv.Itoa(i)] = measured.Resolved{Class: "a.B", Name: "m"}
	}
	saveResolved(dir, old)
	for i := range 10 {
		time.Sleep(time.Millisecond) // a later write time than the old ones'
		saveResolved(dir, map[string]measured.Resolved{"new" + strconv.Itoa(i): {Class: "a.B", Name: "n"}})
	}
	all := loadResolved(dir)
	if len(all) != resolvedMax {
		t.Errorf("kept %d entries, want %d", len(all), resolvedMax)
	}
	for i := range 10 {
		if all["new"+strconv.Itoa(i)].Resolved.Name != "n" {
			t.Errorf("entry new%d was dropped", i)
		}
	}
}
