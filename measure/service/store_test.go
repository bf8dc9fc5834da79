//go:build unix

package service

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/cache"
)

// TestCorruptCacheIsReplacedAndFailedSavesReported: random bytes over page
// 2 of perfls.db used to make every run measure again in silence (the save
// error was dropped). Now the damaged file is set aside with a notice, the
// result is saved in a new cache and answered from it next time; and a save
// that fails is reported in the response, not dropped.
func TestCorruptCacheIsReplacedAndFailedSavesReported(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	ctx := context.Background()
	cacheDir := t.TempDir()
	store, _, err := cache.OpenStore(ctx, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		m := &cache.Measurement{Key: cache.Key{Method: "p.A#m()", Args: strings.Repeat("1", i+1)}}
		for f := 0; f < 3; f++ {
			m.Forks = append(m.Forks, cache.Fork{NsPerOp: make([]float64, 100), CPUNsPerOp: make([]float64, 100)})
		}
		if err := store.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	db := filepath.Join(cacheDir, "perfls.db")
	junk := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(junk, 4096)
	f.Close()

	store, notice, err := cache.OpenStore(ctx, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if !strings.Contains(notice, "moved to "+db+".unusable-") {
		t.Errorf("no notice that the corrupt cache was set aside: %q", notice)
	}
	local := NewLocal(ctx, cacheDir, store, 1)
	defer local.Close()
	p := Params{Project: project(t), Options: quick(), Priority: Batch, Items: []Item{{
		Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
		Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args:      []measured.Arg{measured.IntArg(1000)},
	}}}
	r, err := local.Measure(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if it := r.Items[0]; it.Error != "" || it.CacheID == 0 {
		t.Fatalf("not measured and saved: %+v", it)
	}
	if r, err := local.Measure(ctx, p, nil); err != nil || !r.Items[0].Cached {
		t.Fatalf("measured again instead of answering from the new cache: %+v %v", r, err)
	}

	// The cache file is replaced by something SQLite cannot open: the next
	// save fails, and the response says so.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	if err := os.MkdirAll(filepath.Join(db, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	p.Fresh = true
	r, err = local.Measure(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if it := r.Items[0]; it.Error != "" || len(it.Forks) != 2 || it.CacheID != 0 {
		t.Errorf("the measurement itself should stand: %+v", it)
	}
	if !strings.Contains(strings.Join(r.Notices, "\n"), "could not save the measurement of w.Work#spin") {
		t.Errorf("the failed save was not reported: %q", r.Notices)
	}
}
