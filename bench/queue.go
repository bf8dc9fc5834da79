package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/remote"
	"github.com/perfls/perfls/measure/service"
)

// queueOverhead prints issue 22's queue figure: jobs enqueued one after
// another to an idle worker on a local database (a throwaway server), the
// time from enqueue to the worker taking the job (River's created_at to
// attempted_at, both the database's clock), median and spread over n jobs
// (goal ≤ 50 ms median). The jobs measure nothing, so only the queue
// counts.
func queueOverhead(ctx context.Context, n int) error {
	srv, err := pgtest.Start(ctx)
	if err != nil {
		return err
	}
	defer srv.Stop()
	url, err := srv.NewDatabase(ctx)
	if err != nil {
		return err
	}
	store, _, err := cache.Open(ctx, url, "")
	if err != nil {
		return err
	}
	defer store.Close()
	tmp, err := os.MkdirTemp("", "perfls-queue-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- remote.RunWorker(wctx, remote.WorkerConfig{URL: url, CacheDir: filepath.Join(tmp, "cache"), Store: store, Logf: func(string, ...any) {}})
	}()
	defer func() { stop(); <-done }()
	svc, err := remote.NewService(ctx, url, "")
	if err != nil {
		return err
	}
	defer svc.Close()
	proj := filepath.Join(tmp, "project")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "A.java"), []byte("class A {}"), 0o644)
	var waits []time.Duration
	for i := 0; i < n+1; i++ {
		job, _, err := svc.Enqueue(ctx, service.Params{Project: proj, Options: measure.Options{SamplesPerFork: i + 1}})
		if err != nil {
			return err
		}
		_, row, err := svc.Wait(ctx, job.ID, nil)
		if err != nil {
			return err
		}
		if i > 0 && row.AttemptedAt != nil { // the first waits for the worker to start
			waits = append(waits, row.AttemptedAt.Sub(row.CreatedAt))
		}
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("queue: enqueue → a worker takes the job, %d jobs on a local database: median %.1f ms, min %.1f, max %.1f (goal ≤ 50 ms median)\n",
		len(waits), ms(waits[len(waits)/2]), ms(waits[0]), ms(waits[len(waits)-1]))
	return nil
}
