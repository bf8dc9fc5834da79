package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// storeSpec says which store the engine keeps results in, and where that
// was said: Config.Store, $PERFLS_STORE, perfls.json's "store", or ""
// for the SQLite file in the cache directory.
func storeSpec(cfg Config) (spec, from string) {
	if cfg.Store != "" {
		return cfg.Store, "the store setting"
	}
	if v := os.Getenv("PERFLS_STORE"); v != "" {
		return v, "PERFLS_STORE"
	}
	dir := cfg.ProjectDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if dir == "" {
		return "", ""
	}
	// A perfls.json that cannot be read is the build's to report.
	spec, from, _ = measure.StoreSetting(dir)
	return spec, from
}

// openStore opens the store the configuration names. A shared store that
// cannot be opened is said in the notice: measuring then goes on without
// a store, which the user must know about.
func (e *Engine) openStore(ctx context.Context) {
	spec, from := storeSpec(e.cfg)
	e.store, e.notice, e.storeErr = cache.Open(ctx, spec, e.cfg.CacheDir)
	switch {
	case e.storeErr != nil && spec == "":
		e.storeErr = fmt.Errorf("open the measurement store in %s: %w", e.cfg.CacheDir, e.storeErr)
	case e.storeErr != nil:
		e.storeErr = fmt.Errorf("open the measurement store (from %s): %w", from, e.storeErr)
		e.notice = fmt.Sprintf("%v; measuring without a store: nothing is reused or saved", e.storeErr)
	}
}

// sameStore checks that the daemon c keeps its results where this engine
// does, so a result measured through it lands in the store the user
// chose (a daemon started before PERFLS_STORE was set does not).
func (e *Engine) sameStore(c *service.Client) error {
	if e.store == nil || c.Store() == e.store.Path() {
		return nil
	}
	return errors.New("the running daemon keeps its results in " + c.Store() + ", not in " + e.store.Path() +
		" (stop it with perfls daemon stop to measure through it)")
}
