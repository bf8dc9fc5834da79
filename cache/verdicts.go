package cache

// The latest verdict of every formula instance lives in the same database
// as the measurements: `perfls check` and the language server's checks
// write it, and every editor window reads it for hovers and diagnostics.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/perfls/perfls/analysis/verdict"
)

// ReplaceVerdicts records the latest verdicts of the given methods,
// replacing what was recorded for each, in one transaction: checks running
// at once in several processes never lose each other's records.
func (s *Store) ReplaceVerdicts(ctx context.Context, results []verdict.MethodResult) error {
	type row struct {
		r    verdict.MethodResult
		json string
	}
	rows := make([]row, len(results))
	for i, r := range results {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("record verdicts of %s#%s: %w", r.Class, r.Method, err)
		}
		rows[i] = row{r, string(b)}
	}
	return s.run(ctx, func(db *conn) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("record verdicts: %w", err)
		}
		defer tx.Rollback() // no-op after Commit
		for _, x := range rows {
			r := x.r
			if _, err := tx.ExecContext(ctx, `INSERT INTO verdicts (file, class, method, params, checked_at, result)
				VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (file, class, method, params) DO UPDATE SET checked_at = excluded.checked_at, result = excluded.result`, r.File, r.Class, r.Method, strings.Join(r.Params, ","), r.CheckedAt.UnixNano(), x.json); err != nil {
				return fmt.Errorf("record verdicts: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE verdict_revision SET rev = rev + 1`); err != nil {
			return fmt.Errorf("record verdicts: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("record verdicts: %w", err)
		}
		return nil
	})
}

// Verdicts returns every recorded verdict.
func (s *Store) Verdicts(ctx context.Context) (out []verdict.MethodResult, err error) {
	err = s.run(ctx, func(db *conn) error {
		out = nil
		rows, err := db.QueryContext(ctx, `SELECT result FROM verdicts ORDER BY file, class, method, params`)
		if err != nil {
			return fmt.Errorf("read verdicts: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var b string
			var r verdict.MethodResult
			if err := rows.Scan(&b); err != nil {
				return fmt.Errorf("read verdicts: %w", err)
			}
			if err := json.Unmarshal([]byte(b), &r); err != nil {
				continue // written by a different perfls: skip rather than fail every hover
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read verdicts: %w", err)
		}
		return nil
	})
	return out, err
}

// VerdictsRevision changes whenever any process records verdicts, so a
// reader can tell cheaply whether to read them again.
func (s *Store) VerdictsRevision(ctx context.Context) (rev int64, err error) {
	err = s.run(ctx, func(db *conn) error {
		if err := db.QueryRowContext(ctx, `SELECT rev FROM verdict_revision`).Scan(&rev); err != nil {
			return fmt.Errorf("read verdict revision: %w", err)
		}
		return nil
	})
	return rev, err
}
