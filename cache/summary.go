package cache

// What the change-point series (perfls regressions, the editor's "slower
// since") read of a result: its key, environment and commits, and the mean
// of each fork's samples per figure. A store of a million results holds
// gigabytes of samples; the series need three numbers a fork, so Put also
// stores those means (result_means, schema 11) and the readers here stream
// them in one query instead of loading every result with its samples.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// migrationMeans (schema 11) adds what the series read of each result,
// so that reading a million results is one scan of a narrow table: its
// series (measurements.series_hash), the method's name without its
// parameters (the look-up by name), the commit measured (the result's,
// else its environment's: older results have it there only) and whether
// the tree had changes, whether it is preliminary, and the mean of each
// fork's samples per figure. The look-up of a method goes by its name
// (indexed), then each result's exact method when the name has
// parameters. afterMigration fills it for the results stored before.
const migrationMeans = `CREATE TABLE result_means (
		measurement_id INTEGER PRIMARY KEY REFERENCES measurements(id) ON DELETE CASCADE,
		series_hash    TEXT NOT NULL,
		method_name    TEXT NOT NULL,    -- the method without its parameters: p.C#m
		commit_hash    TEXT NOT NULL,    -- "" unknown
		dirty          INTEGER NOT NULL, -- 1: measured in a tree with changes
		preliminary    INTEGER NOT NULL,
		ns_means       BLOB NOT NULL,    -- little-endian float64s: the mean of each fork's samples, forks without samples left out
		cpu_means      BLOB NOT NULL,
		alloc_means    BLOB NOT NULL
	);
	CREATE INDEX result_means_name ON result_means(method_name, measurement_id);`

// pgMigrationMeans is migrationMeans in PostgreSQL's types.
const pgMigrationMeans = `CREATE TABLE result_means (
		measurement_id BIGINT PRIMARY KEY REFERENCES measurements(id) ON DELETE CASCADE,
		series_hash    TEXT NOT NULL,
		method_name    TEXT NOT NULL,
		commit_hash    TEXT NOT NULL,
		dirty          BIGINT NOT NULL,
		preliminary    BIGINT NOT NULL,
		ns_means       BYTEA NOT NULL,
		cpu_means      BYTEA NOT NULL,
		alloc_means    BYTEA NOT NULL
	);
	CREATE INDEX result_means_name ON result_means(method_name, measurement_id);`

// afterMigration does in Go what the SQL of migration to version cannot:
// schema 11's means of the results already stored.
func afterMigration(ctx context.Context, tx *txn, version int) error {
	if version != 11 {
		return nil
	}
	return backfillMeans(ctx, tx)
}

// methodName is a key's method without its parameters.
func methodName(method string) string {
	name, _, _ := strings.Cut(method, "(")
	return name
}

// forkMeans is the mean of each series' samples, leaving out the empty
// ones, as little-endian float64s.
func forkMeans(series ...[]float64) []byte {
	var means []float64
	for _, xs := range series {
		if len(xs) > 0 {
			var sum float64 // as stats.Summarize's mean, without its order statistics
			for _, x := range xs {
				sum += x
			}
			means = append(means, sum/float64(len(xs)))
		}
	}
	return floats(means)
}

// meansRow is one row of result_means.
type meansRow struct {
	id                   int64
	series, name, commit string
	dirty, preliminary   int
	ns, cpu, alloc       []byte
}

// newMeansRow is the row of result id: key method, commit column, stored
// environment and preliminary flag, and its forks' samples per figure.
func newMeansRow(id int64, method, commit, env string, preliminary int, ns, cpu, alloc [][]float64) meansRow {
	// The environment's commit and dirty flag, as measured.Environment
	// writes them (an older result's environment may be empty).
	var e struct {
		Commit string
		Dirty  bool
	}
	json.Unmarshal([]byte(env), &e)
	if commit == "" {
		commit = e.Commit
	}
	return meansRow{id: id, name: methodName(method), commit: commit, dirty: boolInt(e.Dirty), preliminary: preliminary,
		ns: forkMeans(ns...), cpu: forkMeans(cpu...), alloc: forkMeans(alloc...)}
}

// putMeans stores the row of m, just inserted as id.
func putMeans(ctx context.Context, tx *txn, id int64, m *Measurement) error {
	var ns, cpu, alloc [][]float64
	for _, f := range m.Forks {
		ns, cpu, alloc = append(ns, f.NsPerOp), append(cpu, f.CPUNsPerOp), append(alloc, f.AllocBytesPerOp)
	}
	row := newMeansRow(id, m.Key.Method, m.Commit, string(m.Environment), boolInt(m.Preliminary), ns, cpu, alloc)
	row.series = m.Key.SeriesHash()
	return insertMeans(ctx, tx, []meansRow{row})
}

// insertMeans inserts rows, a hundred a statement.
func insertMeans(ctx context.Context, tx *txn, rows []meansRow) error {
	const perStatement = 100
	for len(rows) > 0 {
		n := min(len(rows), perStatement)
		q := "INSERT INTO result_means (measurement_id, series_hash, method_name, commit_hash, dirty, preliminary, ns_means, cpu_means, alloc_means) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", n), ", ")
		args := make([]any, 0, 9*n)
		for _, r := range rows[:n] {
			args = append(args, r.id, r.series, r.name, r.commit, r.dirty, r.preliminary, r.ns, r.cpu, r.alloc)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("store the fork means of result %d: %w", rows[0].id, err)
		}
		rows = rows[n:]
	}
	return nil
}

// backfillMeans fills result_means for every result that has no row, a
// thousand results at a time.
func backfillMeans(ctx context.Context, tx *txn) error {
	const chunk = 1000
	type result struct {
		id                          int64
		series, method, commit, env string
		preliminary                 int
		ns, cpu, alloc              [][]float64
	}
	for after := int64(-1); ; {
		var rs []result
		at := map[int64]int{}
		err := eachRow(ctx, tx, func(r *sql.Rows) error {
			var x result
			if err := r.Scan(&x.id, &x.series, &x.method, &x.commit, &x.env, &x.preliminary); err != nil {
				return err
			}
			at[x.id] = len(rs)
			rs = append(rs, x)
			return nil
		}, `SELECT id, series_hash, method, commit_hash, environment, preliminary FROM measurements m WHERE id > ?
			AND NOT EXISTS (SELECT 1 FROM result_means r WHERE r.measurement_id = m.id) ORDER BY id LIMIT ?`, after, chunk)
		if err != nil || len(rs) == 0 {
			return err
		}
		after = rs[len(rs)-1].id
		err = eachRow(ctx, tx, func(r *sql.Rows) error {
			var id int64
			var ns, cpu, alloc []byte
			if err := r.Scan(&id, &ns, &cpu, &alloc); err != nil {
				return err
			}
			if i, ok := at[id]; ok {
				x := &rs[i]
				x.ns, x.cpu, x.alloc = append(x.ns, unfloats(ns)), append(x.cpu, unfloats(cpu)), append(x.alloc, unfloats(alloc))
			}
			return nil
		}, `SELECT measurement_id, ns_per_op, cpu_ns_per_op, alloc_bytes_per_op FROM forks
			WHERE measurement_id >= ? AND measurement_id <= ? ORDER BY measurement_id, fork`, rs[0].id, after)
		if err != nil {
			return err
		}
		rows := make([]meansRow, len(rs))
		for i, x := range rs {
			rows[i] = newMeansRow(x.id, x.method, x.commit, x.env, x.preliminary, x.ns, x.cpu, x.alloc)
			rows[i].series = x.series
		}
		if err := insertMeans(ctx, tx, rows); err != nil {
			return err
		}
	}
}

// querier is a conn or a txn.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// eachRow runs q and calls row for each row it returns, closing the rows
// before it returns (a PostgreSQL connection runs one query at a time).
func eachRow(ctx context.Context, db querier, row func(*sql.Rows) error, q string, args ...any) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("query cache: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return fmt.Errorf("query cache: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query cache: %w", err)
	}
	return nil
}

// PutAll stores ms in one transaction and sets their IDs: all of them
// survive a crash after it returns, none is visible before. For filling a
// store in bulk (an import, bench scale); Put stores one.
func (s *Store) PutAll(ctx context.Context, ms []*Measurement) error {
	return s.run(ctx, func(db *conn) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store measurement: %w", err)
		}
		defer tx.Rollback() // no-op after Commit
		ids := make([]int64, len(ms))
		for i, m := range ms {
			if ids[i], err = putTx(ctx, tx, m); err != nil {
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store measurement: %w", err)
		}
		for i, m := range ms {
			m.ID = ids[i]
		}
		return nil
	})
}

// Series is what the results of one series share: the key (without
// Code) and the environment (JSON, as stored) of one of its results.
type Series struct {
	Key         Key
	Environment string
}

// Summary is a complete stored result as the change-point series read it:
// no samples, the mean of each fork's instead.
type Summary struct {
	ID     int64
	Series *Series // shared by the summaries of a series
	// Commit is the commit measured ("" unknown), Dirty that the tree had
	// changes; SeenAt the further commits the result was seen at.
	Commit string
	Dirty  bool
	SeenAt []string
	// NsPerOp, CPUNsPerOp and AllocBytesPerOp are the means of each fork's
	// samples of the figure, for the forks that have samples of it.
	NsPerOp, CPUNsPerOp, AllocBytesPerOp []float64
}

// Summaries calls fn with every complete result of method (named as for
// MeasurementsOf; "" for every method) whose ID is above after, in ID
// order; fn may keep the summary. It reads the series' keys first (a result of each), then scans
// result_means alone. It returns the highest ID of any result now stored,
// as MeasurementsOfAfter does.
func (s *Store) Summaries(ctx context.Context, method string, after int64, fn func(*Summary) error) (last int64, err error) {
	where, args := "r.measurement_id > ?", []any{after}
	switch {
	case method == "":
	case strings.Contains(method, "("):
		// By name through the index, then each result's method: only the
		// results above after are looked at.
		where, args = where+" AND r.method_name = ? AND (SELECT method FROM measurements WHERE id = r.measurement_id) = ?",
			append(args, methodName(method), method)
	default:
		where, args = "r.method_name = ? AND "+where, append([]any{method}, args...)
	}
	err = s.run(ctx, func(db *conn) error {
		if err := db.QueryRowContext(ctx, "SELECT CAST(coalesce(max(id), 0) AS BIGINT) FROM measurements").Scan(&last); err != nil {
			return fmt.Errorf("query cache: %w", err)
		}
		series, err := seriesOf(ctx, db, where, args)
		if err != nil {
			return err
		}
		seen := map[int64][]string{}
		err = eachRow(ctx, db, func(r *sql.Rows) error {
			var id int64
			var c string
			if err := r.Scan(&id, &c); err != nil {
				return err
			}
			seen[id] = append(seen[id], c)
			return nil
		}, `SELECT s.measurement_id, s.commit_hash FROM seen_at s JOIN result_means r ON r.measurement_id = s.measurement_id
			WHERE `+where+` ORDER BY s.measurement_id, s.commit_hash`, args...)
		if err != nil {
			return err
		}
		commits := interner{}
		return eachRow(ctx, db, func(r *sql.Rows) error {
			var sm Summary
			var hash, commit, ns, cpu, alloc sql.RawBytes
			var dirty int
			if err := r.Scan(&sm.ID, &hash, &commit, &dirty, &ns, &cpu, &alloc); err != nil {
				return err
			}
			if sm.Series = series[string(hash)]; sm.Series == nil {
				return nil // a series whose first result came after the keys were read
			}
			sm.Commit, sm.Dirty, sm.SeenAt = commits.of(commit), dirty != 0, seen[sm.ID]
			sm.NsPerOp, sm.CPUNsPerOp, sm.AllocBytesPerOp = unfloatsOrNil(ns), unfloatsOrNil(cpu), unfloatsOrNil(alloc)
			return fn(&sm)
		}, `SELECT r.measurement_id, r.series_hash, r.commit_hash, r.dirty, r.ns_means, r.cpu_means, r.alloc_means FROM result_means r
			WHERE `+where+` AND r.preliminary = 0 AND r.measurement_id <= ? ORDER BY r.measurement_id`, append(args, last)...)
	})
	return last, err
}

// seriesOf reads the key and an environment of every series with a
// result that where selects: the newest result of each, by ID.
func seriesOf(ctx context.Context, db *conn, where string, args []any) (map[string]*Series, error) {
	q := `SELECT max(r.measurement_id) FROM result_means r WHERE ` + where + ` GROUP BY r.series_hash`
	if len(args) == 1 { // every method: the series index serves the grouping
		q = `SELECT max(id) FROM measurements WHERE id > ? GROUP BY series_hash`
	}
	var ids []int64
	err := eachRow(ctx, db, func(r *sql.Rows) error {
		var id int64
		if err := r.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	}, q, args...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Series, len(ids))
	in := interner{}
	for len(ids) > 0 {
		n := min(len(ids), 500)
		list := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
		batch := make([]any, n)
		for i, id := range ids[:n] {
			batch[i] = id
		}
		ids = ids[n:]
		err := eachRow(ctx, db, func(r *sql.Rows) error {
			var hash string
			var se Series
			k := &se.Key
			if err := r.Scan(&hash, &k.Method, &k.Workload, &k.Args, &k.JVM, &k.Harness, &k.Machine, &se.Environment); err != nil {
				return err
			}
			k.JVM, k.Harness, k.Machine, se.Environment = in.of([]byte(k.JVM)), in.of([]byte(k.Harness)), in.of([]byte(k.Machine)), in.of([]byte(se.Environment))
			out[hash] = &se
			return nil
		}, `SELECT series_hash, method, workload, args, jvm, harness, machine, environment FROM measurements WHERE id IN (`+list+`)`, batch...)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// interner shares the strings a scan reads again and again (a method, a
// machine, an environment), up to a bound so that a store of unique
// strings does not grow it without end.
type interner map[string]string

func (in interner) of(b []byte) string {
	if s, ok := in[string(b)]; ok { // no allocation for the look-up
		return s
	}
	s := string(b)
	if len(in) < 1<<16 {
		in[s] = s
	}
	return s
}

// Size is the store's size on disk in bytes: the SQLite file's pages (its
// write-ahead log aside), or the PostgreSQL database's.
func (s *Store) Size(ctx context.Context) (n int64, err error) {
	err = s.run(ctx, func(db *conn) error {
		q := "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
		if db.pg {
			q = "SELECT pg_database_size(current_database())"
		}
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return fmt.Errorf("the store's size: %w", err)
		}
		return nil
	})
	return n, err
}
