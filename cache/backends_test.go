package cache

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/internal/redact"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// eachBackend runs test against each store backend: SQLite, and
// PostgreSQL when a server binary exists. newLocation returns a new empty
// store's location for open: a directory, or a URL of a new database.
func eachBackend(t *testing.T, test func(t *testing.T, newLocation func(*testing.T) string)) {
	t.Run("sqlite", func(t *testing.T) {
		test(t, func(t *testing.T) string { return t.TempDir() })
	})
	t.Run("postgres", func(t *testing.T) {
		test(t, func(t *testing.T) string { return newPostgres(t) })
	})
}

func newPostgres(t *testing.T) string {
	t.Helper()
	return pgtest.NewTestDatabase(t)
}

// Every SQLite migration has its PostgreSQL twin, version for version.
func TestMigrationsPaired(t *testing.T) {
	if len(pgMigrations) != len(migrations) {
		t.Errorf("%d SQLite migrations but %d PostgreSQL ones: add the new migration to pgMigrations (postgres.go) too", len(migrations), len(pgMigrations))
	}
}

// Clients opening a new PostgreSQL store at once migrate it once: the
// advisory lock makes the others wait and find it current.
func TestPostgresConcurrentOpenMigratesOnce(t *testing.T) {
	url := newPostgres(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _, err := Open(context.Background(), url, "")
			if err == nil {
				err = s.Put(context.Background(), sampleMeasurement(baseKey, 1, 2))
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	s := open(t, url)
	var version int
	if err := s.db.QueryRow("SELECT version FROM perfls_schema").Scan(&version); err != nil || version != len(pgMigrations) {
		t.Errorf("schema version %d (%v), want %d", version, err, len(pgMigrations))
	}
	if entries, _ := s.List(context.Background()); len(entries) != 4 {
		t.Errorf("%d measurements, want 4", len(entries))
	}
}

// A password never appears in what the store says about itself or in its
// errors.
func TestPasswordsAreRedacted(t *testing.T) {
	for _, spec := range []string{
		"postgres://alice:s3cret@db.example/perfls",
		"postgresql://alice@db.example/perfls?password=s3cret&sslmode=require",
		"postgres://alice:s3cret@db example/%zz",
	} {
		if r := redact.Address(spec); strings.Contains(r, "s3cret") {
			t.Errorf("redact.Address(%q) = %q", spec, r)
		}
	}
	// A server that does not answer: the error names the store, without
	// the password.
	url := "postgres://alice:s3cret@/perfls?host=" + t.TempDir() + "&connect_timeout=2"
	_, _, err := Open(context.Background(), url, "")
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "alice") {
		t.Errorf("error %v", err)
	}
	if _, _, err := Open(context.Background(), "mysql://u:s3cret@h/db", t.TempDir()); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "postgres://") {
		t.Errorf("an unknown store: %v", err)
	}
	if _, err := pgtest.BinDir(); err == nil {
		s := open(t, newPostgres(t))
		if strings.Contains(s.Path(), "xxxxx") || !strings.HasPrefix(s.Path(), "postgres://") {
			t.Errorf("path %q", s.Path())
		}
	}
}

func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"},
		{"SELECT '?' FROM t WHERE b = ?", "SELECT '?' FROM t WHERE b = $1"},
		{`SELECT "a?" FROM t`, `SELECT "a?" FROM t`},
	} {
		if got := rebind(true, c.in); got != c.want {
			t.Errorf("rebind(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := rebind(false, c.in); got != c.in {
			t.Errorf("SQLite keeps ?: %q", got)
		}
	}
}
