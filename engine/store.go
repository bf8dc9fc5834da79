package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/redact"
	"github.com/perfls/perfls/internal/trust"
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
// a store, which the user must know about. Without trust no shared store
// is connected to (it may ask for the user's password): the local store
// serves, and the notice says so.
func (e *Engine) openStore(ctx context.Context) {
	spec, from := storeSpec(e.cfg)
	var refused string
	if spec != "" {
		if err := trust.Check(ctx, "connect to the store "+redact.Address(spec)+" (from "+from+")"); err != nil {
			refused = err.Error() + "; results are read from and kept in the local store"
			spec = ""
		}
	}
	defer func() {
		if refused != "" {
			e.notice = strings.TrimPrefix(e.notice+"; "+refused, "; ")
		}
	}()
	e.storeURL = ""
	e.store, e.notice, e.storeErr = cache.Open(ctx, spec, e.cfg.CacheDir)
	if e.storeErr == nil && e.store.Shared() {
		e.storeURL = spec
	}
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
	// Two SQLite stores: Dial has checked the daemon's cache directory is
	// this engine's (the paths may differ in spelling only).
	if !e.store.Shared() && !cache.IsPostgresURL(c.Store()) {
		return nil
	}
	return errors.New("the running daemon keeps its results in " + c.Store() + ", not in " + e.store.Path() +
		" (stop it with perfls daemon stop to measure through it)")
}

// environmentOf is a stored result's environment, its commit the one
// stored with it (schema 9: a materialised commit's, which the environment
// of results measured before did not hold) when there is one.
func environmentOf(m *cache.Measurement) measured.Environment {
	var env measured.Environment
	json.Unmarshal(m.Environment, &env) // an older result's may be empty
	if m.Commit != "" {
		env.Commit = m.Commit
	}
	return env
}
