package cache

import (
	"context"
	"fmt"
)

// SeenAt records that the code of result id was found unchanged at commit
// (its key answered from the cache for a request at that commit). It is
// idempotent, and a no-op for the result's own commit.
func (s *Store) SeenAt(ctx context.Context, id int64, commit string) error {
	if commit == "" {
		return nil
	}
	return s.run(ctx, func(db *conn) error {
		_, err := db.ExecContext(ctx, `INSERT INTO seen_at (measurement_id, commit_hash)
			SELECT id, ? FROM measurements WHERE id = ? AND commit_hash <> ?
			ON CONFLICT DO NOTHING`, commit, id, commit)
		if err != nil {
			return fmt.Errorf("record result %d as seen at commit %.12s: %w", id, commit, err)
		}
		return nil
	})
}

// seenAt are the commits result id was seen at besides its own.
func seenAt(ctx context.Context, db *conn, id int64) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT commit_hash FROM seen_at WHERE measurement_id = ? ORDER BY commit_hash`, id)
	if err != nil {
		return nil, fmt.Errorf("read the commits of result %d: %w", id, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read the commits of result %d: %w", id, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the commits of result %d: %w", id, err)
	}
	return out, nil
}
