package cache

// The store speaks to two databases through database/sql: SQLite (a file
// in the cache directory, the default) and PostgreSQL (a team's shared
// store, through pgx's database/sql driver). The queries are written once,
// in the common subset, with ? placeholders; conn and txn rewrite them to
// PostgreSQL's $n and return the ids of inserted rows, the two places where
// the databases differ at run time. Their schemas differ in types only
// (BLOB/BYTEA, INTEGER/BIGINT, how ids are generated): migrations.go.

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// conn is the store's database with its dialect.
type conn struct {
	*sql.DB
	pg bool
}

// txn is a transaction on a conn.
type txn struct {
	*sql.Tx
	pg bool
}

func (c *conn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return c.DB.ExecContext(ctx, rebind(c.pg, q), args...)
}

func (c *conn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return c.DB.QueryContext(ctx, rebind(c.pg, q), args...)
}

func (c *conn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return c.DB.QueryRowContext(ctx, rebind(c.pg, q), args...)
}

func (c *conn) BeginTx(ctx context.Context, opts *sql.TxOptions) (*txn, error) {
	tx, err := c.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &txn{tx, c.pg}, nil
}

func (t *txn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, rebind(t.pg, q), args...)
}

func (t *txn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.Tx.QueryContext(ctx, rebind(t.pg, q), args...)
}

func (t *txn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, rebind(t.pg, q), args...)
}

// insert runs an INSERT into a table whose key is the column id and
// returns the new row's id (PostgreSQL's driver has no LastInsertId).
func (t *txn) insert(ctx context.Context, q string, args ...any) (int64, error) {
	if t.pg {
		var id int64
		err := t.QueryRowContext(ctx, q+" RETURNING id", args...).Scan(&id)
		return id, err
	}
	res, err := t.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// rebind rewrites the ? placeholders of q to $1, $2, … for PostgreSQL. A ?
// inside a quoted string or identifier is left alone.
func rebind(pg bool, q string) string {
	if !pg || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// boolInt stores a flag as 0 or 1 in both databases (the column is an
// integer in both; PostgreSQL converts no bool to an integer).
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
