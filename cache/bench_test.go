package cache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// BenchmarkLookup100k times Lookup in a store of 100,000 measurements (the
// issue's figure) and reports the p99 latency besides the mean.
func BenchmarkLookup100k(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s, _, err := OpenStore(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 100_000
	// Fill in one transaction: each Put is its own durable transaction,
	// which is right for real use but slow for 100,000 rows.
	tx, _ := s.db.Begin()
	blob := floats(make([]float64, 30))
	for i := 0; i < n; i++ {
		k := baseKey
		k.Args = strconv.Itoa(i)
		res, err := tx.Exec(`INSERT INTO measurements (key_hash, series_hash, method, workload, args, code_fingerprint, jvm, harness, machine, environment, preliminary, created_at, bytes)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', 0, ?, ?)`, k.Hash(), k.SeriesHash(), k.Method, k.Workload, k.Args, k.Code, k.JVM, k.Harness, k.Machine, i, 4*len(blob))
		if err != nil {
			b.Fatal(err)
		}
		id, _ := res.LastInsertId()
		for f := 0; f < 3; f++ {
			tx.Exec(`INSERT INTO forks VALUES (?, ?, ?, ?, ?, ?, 0, 1, 1)`, id, f, blob, blob, blob, blob)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := baseKey
		k.Args = strconv.Itoa((i * 7919) % n)
		start := time.Now()
		m, _, err := s.Lookup(ctx, k)
		lat = append(lat, time.Since(start))
		if err != nil || m == nil {
			b.Fatalf("lookup %s: %v", k.Args, err)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	if st, err := os.Stat(filepath.Join(dir, "perfls.db")); err == nil {
		b.ReportMetric(float64(st.Size())/(1<<20), "db-MiB")
	}
}

// BenchmarkPutFork20k reports the bytes stored per fork of 20,000 samples
// (all four per-sample series) and the time of a durable Put.
func BenchmarkPutFork20k(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s, _, err := OpenStore(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := sampleMeasurement(baseKey, 1, 20_000)
	for i := 0; i < b.N; i++ {
		m.Key.Args = fmt.Sprint(i)
		if err := s.Put(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	var payload int64
	s.db.QueryRow("SELECT sum(bytes) FROM measurements").Scan(&payload)
	st, _ := os.Stat(filepath.Join(dir, "perfls.db"))
	b.ReportMetric(float64(payload)/float64(b.N), "payload-B/fork")
	b.ReportMetric(float64(st.Size())/float64(b.N), "file-B/fork")
}

// BenchmarkVerdictsRevision times the query the language server makes on
// every diagnostics publish and hover to see whether verdicts changed.
func BenchmarkVerdictsRevision(b *testing.B) {
	s, _, err := OpenStore(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < b.N; i++ {
		if _, err := s.VerdictsRevision(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
