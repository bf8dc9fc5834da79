package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perfls/perfls/internal/pgtest"
)

var (
	pgOnce   sync.Once
	pgServer *pgtest.Server
	pgErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pgServer != nil {
		if err := pgServer.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// newPostgres returns the URL of a new database on the package's
// throwaway server, started on first need.
func newPostgres(t *testing.T) string {
	t.Helper()
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start(context.Background()) })
	if errors.Is(pgErr, pgtest.ErrNoServer) {
		t.Skip(pgErr)
	}
	if pgErr != nil {
		t.Fatal(pgErr)
	}
	url, err := pgServer.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// The store is chosen by the engine's setting, else PERFLS_STORE, else
// perfls.json's "store" in the project, else the SQLite cache.
func TestStoreSpecPrecedence(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "perfls.json"), []byte(`{"store": "postgres://team-db/perfls"}`), 0o644)
	sub := filepath.Join(dir, "src", "p")
	os.MkdirAll(sub, 0o755)
	t.Setenv("PERFLS_STORE", "")
	if spec, from := storeSpec(Config{ProjectDir: sub}); spec != "postgres://team-db/perfls" || !strings.Contains(from, "perfls.json") {
		t.Errorf("from perfls.json: %q (%s)", spec, from)
	}
	t.Setenv("PERFLS_STORE", "postgres://env-db/perfls")
	if spec, from := storeSpec(Config{ProjectDir: sub}); spec != "postgres://env-db/perfls" || from != "PERFLS_STORE" {
		t.Errorf("from the environment: %q (%s)", spec, from)
	}
	if spec, _ := storeSpec(Config{ProjectDir: sub, Store: "postgres://flag-db/perfls"}); spec != "postgres://flag-db/perfls" {
		t.Errorf("from the setting: %q", spec)
	}
	t.Setenv("PERFLS_STORE", "")
	if spec, _ := storeSpec(Config{ProjectDir: t.TempDir()}); spec != "" {
		t.Errorf("no setting: %q, want the SQLite cache", spec)
	}
}

// A shared store that cannot be reached: the engine still opens (measuring
// goes on without a store), and says so without the password.
func TestUnreachableSharedStoreIsSaid(t *testing.T) {
	url := "postgres://alice:s3cret@/perfls?host=" + t.TempDir() + "&connect_timeout=2"
	e, err := Open(context.Background(), Config{CacheDir: t.TempDir(), Service: InProcess, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n := e.Notice()
	if !strings.Contains(n, "measuring without a store") || strings.Contains(n, "s3cret") {
		t.Errorf("notice %q", n)
	}
	if _, err := e.Store(); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("store error %v", err)
	}
}

// Two clones of one project in different directories, each with its own
// cache directory, sharing one PostgreSQL store: what the first measured,
// the second reuses and measures nothing (issue #22, item 1).
func TestSharedStoreIsReusedByAnotherClone(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	url := newPostgres(t)
	ctx := context.Background()
	run := func() int {
		t.Helper()
		e, err := Open(ctx, Config{CacheDir: t.TempDir(), Service: InProcess, Logf: t.Logf, Base: small, Store: url})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		store, err := e.Store()
		if err != nil || !store.Shared() {
			t.Fatalf("store %v, %v: want the shared one", store, err)
		}
		dir, src := writeProject(t, "p/A.java", classA("return n;"))
		req := MethodRequest{Root: dir, File: src, Class: "p.A", Method: "fast", Params: []string{"int"}}
		if _, err := e.MeasureMethod(ctx, req, func(string) {}); err != nil {
			t.Fatal(err)
		}
		entries, err := store.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	first := run()
	if first == 0 {
		t.Fatal("the first clone stored nothing")
	}
	if second := run(); second != first {
		t.Errorf("the second clone measured again: %d measurements stored, %d after the first", second, first)
	}
}
