package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure"
)

// BenchmarkSlowerSinceHover is the cost of one editor hover's "slower
// since" look once the method's detector is built: a store of 10,000
// results (200 of the hovered method over 50 commits, the rest of 49 other
// methods), HEAD unchanged, nothing new. It also reports the cost of a
// look that finds one new result of the method.
func BenchmarkSlowerSinceHover(b *testing.B) {
	ctx := context.Background()
	const commits, results = 50, 10_000
	dir, hashes := fixture.GitProject(b, make([]map[string]string, commits)...)
	store, _, err := cache.OpenStore(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	here := measure.MachineIdentity()
	n := 0
	put := func(method, commit string, mean float64) {
		n++
		env, _ := json.Marshal(measured.Environment{Commit: commit, JavaVendor: "Debian", JavaVersion: "17"})
		m := &cache.Measurement{Key: cache.Key{Method: method, Workload: "p.A#gen(int)", Args: "10", Code: commit, JVM: "java17", Harness: "h1",
			Machine: here}, Environment: env, CreatedAt: time.Unix(int64(n), 0)}
		for f := range 3 {
			x := mean * (1 + 0.01*float64(f-1) + 0.002*float64(n%3))
			m.Forks = append(m.Forks, cache.Fork{NsPerOp: []float64{x, x, x, x, x}, AllocBytesPerOp: []float64{24, 24, 24, 24, 24}})
		}
		if err := store.Put(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; n < results; i++ {
		h := hashes[(i/50)%commits]
		if i%50 == 0 {
			put("p.A#m(int)", h, map[bool]float64{false: 100, true: 118}[(i/50)%commits >= 30])
		} else {
			put(fmt.Sprintf("p.B%d#k(int)", i%50), h, 100)
		}
	}
	w := NewRegressionWatch(store)
	w.Every = 0
	if c, err := w.SlowerSince(ctx, dir, "p.A#m(int)"); err != nil || c == nil || c.Commit != hashes[30] {
		b.Fatalf("slower since %+v, %v; want commit 30", c, err)
	}
	b.Run("nothing-new", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.SlowerSince(ctx, dir, "p.A#m(int)"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-new", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			put("p.A#m(int)", hashes[commits-1], 118)
			b.StartTimer()
			if _, err := w.SlowerSince(ctx, dir, "p.A#m(int)"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
