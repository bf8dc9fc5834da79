//go:build unix

package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/measure"
)

// A result answers again only while everything that shaped it is the same
// (issue #15, item 3): the content of the classpath's dependencies (a
// dependency of another version measures again, even at the same path) and
// the warm-up settings.
func TestTheKeyHoldsDependenciesAndSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	ctx := context.Background()
	cacheDir := t.TempDir()
	local := NewLocal(ctx, cacheDir, openStore(t, cacheDir), 1)
	defer local.Close()
	dir := project(t)
	version := filepath.Join(dir, "lib", "dep", "version.txt")
	os.MkdirAll(filepath.Dir(version), 0o755)
	os.WriteFile(version, []byte("2.0.0"), 0o644)
	os.WriteFile(filepath.Join(dir, "perfls.json"), []byte(`{"classpath": ["lib"]}`), 0o644)
	item := Item{Method: methodspec.Spec{Class: "w.Work", Name: "spin"}, Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args: []measured.Arg{measured.IntArg(100)}}
	cached := func(opt measure.Options) bool {
		t.Helper()
		r, err := local.Measure(ctx, Params{Project: dir, Options: opt, Items: []Item{item}}, nil)
		if err != nil || r.Items[0].Error != "" {
			t.Fatalf("measure: %v %+v", err, r)
		}
		return r.Items[0].Cached
	}
	if cached(quick()) {
		t.Fatal("first measurement answered from the cache")
	}
	if !cached(quick()) {
		t.Fatal("unchanged project measured again")
	}
	later := time.Now().Add(time.Minute)
	os.WriteFile(version, []byte("HEAD!"), 0o644) // same size, another version
	os.Chtimes(version, later, later)
	if cached(quick()) {
		t.Error("a changed dependency was answered from the cache")
	}
	longer := quick()
	longer.Warmup = 200 * time.Millisecond
	if cached(longer) {
		t.Error("another warm-up setting was answered from the cache")
	}
}
