//go:build unix

package service

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
)

// BenchmarkDaemonCachedRoundTrip times a client request that the daemon
// answers from the cache: connect, compile check, fingerprint, lookup,
// reply. It reports p99 besides the mean.
func BenchmarkDaemonCachedRoundTrip(b *testing.B) {
	cacheDir := b.TempDir()
	os.Setenv("XDG_RUNTIME_DIR", "")
	d, err := Listen(cacheDir, NewLocal(context.Background(), cacheDir, openStore(b, cacheDir), 1), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go d.Serve(ctx)
	defer cancel()
	dir := b.TempDir()
	writeProject(b, dir)
	p := Params{Project: dir, Options: quick(), Items: []Item{{
		Method:    methodspec.Spec{Class: "w.Work", Name: "spin"},
		Generator: methodspec.Spec{Class: "w.Work", Name: "gen"},
		Args:      []measured.Arg{measured.IntArg(2000)},
	}}}
	c, err := Dial(context.Background(), cacheDir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Measure(context.Background(), p, nil); err != nil { // measure once
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r, err := c.Measure(context.Background(), p, nil)
		lat = append(lat, time.Since(start))
		if err != nil || !r.Items[0].Cached {
			b.Fatalf("not answered from the cache: %v", err)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
