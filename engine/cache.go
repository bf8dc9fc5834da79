package engine

import (
	"context"
	"time"

	"github.com/perfls/perfls/measure"
)

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
