package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// KindProfile is the kind of a profiled fork's summary (measured.Fork.Profile).
const KindProfile = "profile"

// Profile is a stored profile: what a profiled fork of the measurement Key
// reduced its recording to. Only the summary is kept, never the recording;
// the store keeps the newest profile of each series and kind.
type Profile struct {
	ID          int64
	Kind        string
	Key         Key
	Environment json.RawMessage
	CreatedAt   time.Time
	Summary     json.RawMessage
}

// PutProfile stores p, replacing the profiles of the same kind and series
// (its key without the code), and sets p.ID.
func (s *Store) PutProfile(ctx context.Context, p *Profile) error {
	if p.Kind == "" {
		return errors.New("store profile: no kind")
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = time.Now()
	}
	env := p.Environment
	if len(env) == 0 {
		env = json.RawMessage("{}")
	}
	return s.run(ctx, func(db *conn) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store profile: %w", err)
		}
		defer tx.Rollback() // no-op after Commit
		k := p.Key
		if _, err := tx.ExecContext(ctx, "DELETE FROM profiles WHERE kind = ? AND series_hash = ?", p.Kind, k.SeriesHash()); err != nil {
			return fmt.Errorf("store profile: %w", err)
		}
		id, err := tx.insert(ctx, `INSERT INTO profiles
			(kind, key_hash, series_hash, method, workload, args, code_fingerprint, jvm, harness, machine, environment, created_at, summary)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.Kind, k.Hash(), k.SeriesHash(), k.Method, k.Workload, k.Args, k.Code, k.JVM, k.Harness, k.Machine,
			string(env), p.CreatedAt.UnixNano(), string(p.Summary))
		if err != nil {
			return fmt.Errorf("store profile: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store profile: %w", err)
		}
		p.ID = id
		return nil
	})
}

// LookupProfile returns the newest profile of kind for k; like Lookup, one
// of the same series for other code comes with stale = true, and nil when
// the series has none.
func (s *Store) LookupProfile(ctx context.Context, kind string, k Key) (p *Profile, stale bool, err error) {
	err = s.run(ctx, func(db *conn) error {
		var err error
		stale = false
		p, err = queryProfile(ctx, db, "kind = ? AND key_hash = ?", kind, k.Hash())
		if err != nil || p != nil {
			return err
		}
		p, err = queryProfile(ctx, db, "kind = ? AND series_hash = ?", kind, k.SeriesHash())
		stale = p != nil
		return err
	})
	return p, stale, err
}

// ProfilesOf returns the stored profiles of kind whose method (as keys
// spell it, e.g. "p.C#m(int[])") match accepts, newest first.
func (s *Store) ProfilesOf(ctx context.Context, kind string, match func(method string) bool) (out []*Profile, err error) {
	err = s.run(ctx, func(db *conn) error {
		out = nil
		rows, err := db.QueryContext(ctx, "SELECT id, method FROM profiles WHERE kind = ? ORDER BY created_at DESC, id DESC", kind)
		if err != nil {
			return fmt.Errorf("read profiles: %w", err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			var method string
			if err := rows.Scan(&id, &method); err != nil {
				rows.Close()
				return fmt.Errorf("read profiles: %w", err)
			}
			if match(method) {
				ids = append(ids, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read profiles: %w", err)
		}
		for _, id := range ids {
			p, err := queryProfile(ctx, db, "id = ?", id)
			if err != nil {
				return err
			}
			if p != nil {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// queryProfile reads the newest profile a WHERE clause selects; nil when none.
func queryProfile(ctx context.Context, db *conn, where string, args ...any) (*Profile, error) {
	p := &Profile{}
	var env, summary string
	var created int64
	k := &p.Key
	err := db.QueryRowContext(ctx, `SELECT id, kind, method, workload, args, code_fingerprint, jvm, harness, machine, environment, created_at, summary
		FROM profiles WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT 1`, args...).
		Scan(&p.ID, &p.Kind, &k.Method, &k.Workload, &k.Args, &k.Code, &k.JVM, &k.Harness, &k.Machine, &env, &created, &summary)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	p.Environment, p.Summary, p.CreatedAt = json.RawMessage(env), json.RawMessage(summary), time.Unix(0, created)
	return p, nil
}
