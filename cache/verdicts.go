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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record verdicts: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	for _, r := range results {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("record verdicts of %s#%s: %w", r.Class, r.Method, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO verdicts (file, class, method, params, checked_at, result)
			VALUES (?, ?, ?, ?, ?, ?)`, r.File, r.Class, r.Method, strings.Join(r.Params, ","), r.CheckedAt.UnixNano(), string(b)); err != nil {
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
}

// Verdicts returns every recorded verdict.
func (s *Store) Verdicts(ctx context.Context) ([]verdict.MethodResult, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT result FROM verdicts ORDER BY file, class, method, params`)
	if err != nil {
		return nil, fmt.Errorf("read verdicts: %w", classify(err))
	}
	defer rows.Close()
	var out []verdict.MethodResult
	for rows.Next() {
		var b string
		var r verdict.MethodResult
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("read verdicts: %w", err)
		}
		if err := json.Unmarshal([]byte(b), &r); err != nil {
			continue // written by a different perfls: skip rather than fail every hover
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// VerdictsRevision changes whenever any process records verdicts, so a
// reader can tell cheaply whether to read them again.
func (s *Store) VerdictsRevision(ctx context.Context) (int64, error) {
	var rev int64
	if err := s.db.QueryRowContext(ctx, `SELECT rev FROM verdict_revision`).Scan(&rev); err != nil {
		return 0, fmt.Errorf("read verdict revision: %w", classify(err))
	}
	return rev, nil
}
