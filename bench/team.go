package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/internal/redact"
)

// team prints issue 22's reuse figure: perfls check of the quickstart from
// clone A (its own cache directory) against an empty shared PostgreSQL
// store, then from clone B (another directory, another cache directory,
// the same store), both the built binary out of process; B's wall time as
// a ratio of A's (goal ≤ 0.1). The store is $PERFLS_STORE when set (it
// must be empty), else a throwaway server started here (internal/pgtest).
func team(ctx context.Context) error {
	store, stop, err := sharedStore(ctx)
	if err != nil {
		return err
	}
	defer stop()
	tmp, bin, err := tempPerfls(ctx, "perfls-team-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("team: perfls check of examples/quickstart from two clones sharing %s\n", redact.Address(store))
	var took [2]time.Duration
	for i, name := range []string{"A", "B"} {
		clone := filepath.Join(tmp, "clone-"+name)
		if err := os.CopyFS(clone, os.DirFS("examples/quickstart")); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, bin, "check", "--format", "json", clone)
		cmd.Env = append(os.Environ(), "PERFLS_STORE="+store, "PERFLS_CACHE_DIR="+filepath.Join(tmp, "cache-"+name))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		out, err := cmd.Output()
		took[i] = time.Since(start)
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
			return fmt.Errorf("perfls check (clone %s): %v\n%s", name, err, stderr.String())
		}
		var doc struct {
			Summary map[string]any `json:"summary"`
		}
		json.Unmarshal(out, &doc)
		fmt.Printf("  clone %s: %6.1f s  measurements %v, answered by the store %v\n", name, took[i].Seconds(),
			doc.Summary["measurements"], doc.Summary["cached"])
	}
	fmt.Printf("  reuse: clone B's time / clone A's = %.3f (goal ≤ 0.1)\n", took[1].Seconds()/took[0].Seconds())
	return nil
}

// sharedStore is $PERFLS_STORE when set, else a new database on a
// throwaway PostgreSQL server that stop stops.
func sharedStore(ctx context.Context) (url string, stop func(), err error) {
	if url = os.Getenv("PERFLS_STORE"); url != "" {
		return url, func() {}, nil
	}
	srv, err := pgtest.Start(ctx)
	if err != nil {
		return "", nil, err
	}
	if url, err = srv.NewDatabase(ctx); err != nil {
		srv.Stop()
		return "", nil, err
	}
	return url, func() { srv.Stop() }, nil
}
