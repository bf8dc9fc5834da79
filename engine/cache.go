package engine

import (
	"context"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

// CacheList lists the newest limit stored measurements (all when limit ≤
// 0), newest first, with how many the store holds and its path.
func (e *Engine) CacheList(ctx context.Context, limit int) (rows []report.CacheRow, total int, path string, err error) {
	store, err := e.Store()
	if err != nil {
		return nil, 0, "", err
	}
	entries, total, err := store.Newest(ctx, limit)
	if err != nil {
		return nil, 0, "", err
	}
	rows = make([]report.CacheRow, len(entries))
	for i, en := range entries {
		rows[i] = report.CacheRow{ID: en.ID, Measured: en.CreatedAt, Method: en.Key.Method, Workload: en.Key.Workload,
			Args: en.Key.Args, Forks: en.Forks, Preliminary: en.Preliminary, Bytes: en.Bytes}
	}
	return rows, total, store.Path(), nil
}

// CacheShow is one stored measurement.
func (e *Engine) CacheShow(ctx context.Context, id int64) (*report.StoredMeasurement, error) {
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	m, err := store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	k := m.Key
	out := &report.StoredMeasurement{ID: m.ID, Measured: m.CreatedAt, Method: k.Method, Workload: k.Workload, Args: k.Args,
		Code: k.Code, JVM: k.JVM, Harness: k.Harness, Machine: k.Machine, Environment: m.Environment}
	for _, f := range m.Forks {
		out.Forks = append(out.Forks, f.NsPerOp)
	}
	return out, nil
}

// CacheVerify checks every page of the store's file, which opening a
// large one leaves out (cache.Store.Verify); a damaged file is set aside
// and the message says where.
func (e *Engine) CacheVerify(ctx context.Context) (string, error) {
	store, err := e.Store()
	if err != nil {
		return "", err
	}
	return store.Verify(ctx)
}

// CacheClear removes every measurement, profile, verdict and bounds-oracle model,
// run and result, whatever the store's file holds (cache.ClearDir: a
// damaged file is removed), and reopens the store. It returns what it did.
func (e *Engine) CacheClear(ctx context.Context) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.store != nil && e.store.Shared() {
		// A shared store is cleared in place: there is no file to remove.
		if err := e.store.Clear(ctx); err != nil {
			return "", err
		}
		return "cleared " + e.store.Path(), nil
	}
	if e.store != nil {
		if err := e.store.Close(); err != nil {
			e.cfg.Logf("close the store before clearing it: %v", err)
		}
		e.store = nil
	}
	msg, err := cache.ClearDir(ctx, e.cfg.CacheDir)
	if err != nil {
		return "", err
	}
	e.openStore(ctx)
	return msg, nil
}

// GC trims the cache: it evicts the oldest measurements above maxBytes of
// stored samples, keeping the newest of every series, and removes compiled
// harnesses, libraries and projects not used for maxAge and left-over
// temporary files. It returns the number of measurements evicted and what
// was removed from disk.
func (e *Engine) GC(ctx context.Context, maxBytes int64, maxAge time.Duration) (int, measure.Pruned, error) {
	store, err := e.Store()
	if err != nil {
		return 0, measure.Pruned{}, err
	}
	n, err := store.GC(ctx, maxBytes, true)
	if err != nil {
		return n, measure.Pruned{}, err
	}
	p, err := measure.PruneFiles(e.cfg.CacheDir, maxAge)
	return n, p, err
}
