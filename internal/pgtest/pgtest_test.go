package pgtest

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestServer starts a server, creates two databases, writes to one and
// checks the other is separate, then stops it and checks its files are gone.
func TestServer(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx)
	if errors.Is(err, ErrNoServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Exec(ctx, "CREATE TABLE t (x int); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	ca.Close(ctx)
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 't'").Scan(&n); err != nil || n != 0 {
		t.Errorf("second database sees the first's table: n=%d err=%v", n, err)
	}
	cb.Close(ctx)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("server directory %s left behind: %v", s.dir, err)
	}
}
