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
	"fmt"
	"strings"
)

// migrationMeans (schema 11) adds each result's fork means, keyed by the
// result, with the method's name without its parameters for the look-up by
// name, and an index on the method for the look-up by exact method. The
// means of the results stored before are computed by afterMigration.
const migrationMeans = `CREATE TABLE result_means (
		measurement_id INTEGER PRIMARY KEY REFERENCES measurements(id) ON DELETE CASCADE,
		method_name    TEXT NOT NULL, -- the method without its parameters: p.C#m
		ns_means       BLOB NOT NULL, -- little-endian float64s: the mean of each fork's samples, forks without samples left out
		cpu_means      BLOB NOT NULL,
		alloc_means    BLOB NOT NULL
	);
	CREATE INDEX result_means_name ON result_means(method_name, measurement_id);
	CREATE INDEX measurements_method ON measurements(method, id);`

// pgMigrationMeans is migrationMeans in PostgreSQL's types.
const pgMigrationMeans = `CREATE TABLE result_means (
		measurement_id BIGINT PRIMARY KEY REFERENCES measurements(id) ON DELETE CASCADE,
		method_name    TEXT NOT NULL,
		ns_means       BYTEA NOT NULL,
		cpu_means      BYTEA NOT NULL,
		alloc_means    BYTEA NOT NULL
	);
	CREATE INDEX result_means_name ON result_means(method_name, measurement_id);
	CREATE INDEX measurements_method ON measurements(method, id);`

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
	id             int64
	name           string
	ns, cpu, alloc []byte
}

// putMeans stores the fork means of m, just inserted as id.
func putMeans(ctx context.Context, tx *txn, id int64, m *Measurement) error {
	var ns, cpu, alloc [][]float64
	for _, f := range m.Forks {
		ns, cpu, alloc = append(ns, f.NsPerOp), append(cpu, f.CPUNsPerOp), append(alloc, f.AllocBytesPerOp)
	}
	return insertMeans(ctx, tx, []meansRow{{id, methodName(m.Key.Method), forkMeans(ns...), forkMeans(cpu...), forkMeans(alloc...)}})
}

// insertMeans inserts rows, a few hundred a statement.
func insertMeans(ctx context.Context, tx *txn, rows []meansRow) error {
	const perStatement = 200
	for len(rows) > 0 {
		n := min(len(rows), perStatement)
		q := "INSERT INTO result_means (measurement_id, method_name, ns_means, cpu_means, alloc_means) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", n), ", ")
		args := make([]any, 0, 5*n)
		for _, r := range rows[:n] {
			args = append(args, r.id, r.name, r.ns, r.cpu, r.alloc)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("store the fork means of result %d: %w", rows[0].id, err)
		}
		rows = rows[n:]
	}
	return nil
}

// backfillMeans computes the fork means of every result that has none, a
// thousand results at a time.
func backfillMeans(ctx context.Context, tx *txn) error {
	const chunk = 1000
	for after := int64(-1); ; {
		var rows []meansRow
		at := map[int64]int{}
		err := eachRow(ctx, tx, func(r *sql.Rows) error {
			var row meansRow
			var method string
			if err := r.Scan(&row.id, &method); err != nil {
				return err
			}
			row.name = methodName(method)
			at[row.id] = len(rows)
			rows = append(rows, row)
			return nil
		}, `SELECT id, method FROM measurements m WHERE id > ?
			AND NOT EXISTS (SELECT 1 FROM result_means r WHERE r.measurement_id = m.id) ORDER BY id LIMIT ?`, after, chunk)
		if err != nil || len(rows) == 0 {
			return err
		}
		after = rows[len(rows)-1].id
		forks := make([][3][][]float64, len(rows))
		err = eachRow(ctx, tx, func(r *sql.Rows) error {
			var id int64
			var ns, cpu, alloc []byte
			if err := r.Scan(&id, &ns, &cpu, &alloc); err != nil {
				return err
			}
			if i, ok := at[id]; ok {
				f := &forks[i]
				f[0], f[1], f[2] = append(f[0], unfloats(ns)), append(f[1], unfloats(cpu)), append(f[2], unfloats(alloc))
			}
			return nil
		}, `SELECT measurement_id, ns_per_op, cpu_ns_per_op, alloc_bytes_per_op FROM forks
			WHERE measurement_id >= ? AND measurement_id <= ? ORDER BY measurement_id, fork`, rows[0].id, after)
		if err != nil {
			return err
		}
		for i := range rows {
			rows[i].ns, rows[i].cpu, rows[i].alloc = forkMeans(forks[i][0]...), forkMeans(forks[i][1]...), forkMeans(forks[i][2]...)
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

// Summary is a complete stored result as the change-point series read it:
// no samples, the mean of each fork's instead.
type Summary struct {
	ID  int64
	Key Key // without Code
	// Environment is the result's environment as stored (JSON); equal
	// environments share one string.
	Environment string
	// Commit is the result's commit column ("" for older results: the
	// environment has it), SeenAt the further commits it was seen at.
	Commit string
	SeenAt []string
	// NsPerOp, CPUNsPerOp and AllocBytesPerOp are the means of each fork's
	// samples of the figure, for the forks that have samples of it.
	NsPerOp, CPUNsPerOp, AllocBytesPerOp []float64
}

// Summaries calls fn with every complete result of method (named as for
// MeasurementsOf; "" for every method) whose ID is above after, in ID
// order, reading them in one query. It returns the highest ID of any
// result now stored, as MeasurementsOfAfter does.
func (s *Store) Summaries(ctx context.Context, method string, after int64, fn func(*Summary) error) (last int64, err error) {
	where, args := "r.measurement_id > ?", []any{after}
	switch {
	case method == "":
	case strings.Contains(method, "("):
		where, args = "m.method = ? AND "+where, append([]any{method}, args...)
	default:
		where, args = "r.method_name = ? AND "+where, append([]any{method}, args...)
	}
	err = s.run(ctx, func(db *conn) error {
		if err := db.QueryRowContext(ctx, "SELECT CAST(coalesce(max(id), 0) AS BIGINT) FROM measurements").Scan(&last); err != nil {
			return fmt.Errorf("query cache: %w", err)
		}
		seen := map[int64][]string{}
		err := eachRow(ctx, db, func(r *sql.Rows) error {
			var id int64
			var c string
			if err := r.Scan(&id, &c); err != nil {
				return err
			}
			seen[id] = append(seen[id], c)
			return nil
		}, `SELECT s.measurement_id, s.commit_hash FROM seen_at s JOIN result_means r ON r.measurement_id = s.measurement_id
			JOIN measurements m ON m.id = s.measurement_id WHERE `+where+` ORDER BY s.measurement_id, s.commit_hash`, args...)
		if err != nil {
			return err
		}
		in := interner{}
		return eachRow(ctx, db, func(r *sql.Rows) error {
			var sm Summary
			k := &sm.Key
			var method, workload, args, jvm, harness, machine, env sql.RawBytes
			var ns, cpu, alloc sql.RawBytes
			if err := r.Scan(&sm.ID, &method, &workload, &args, &jvm, &harness, &machine, &env, &sm.Commit, &ns, &cpu, &alloc); err != nil {
				return err
			}
			k.Method, k.Workload, k.Args, k.JVM, k.Harness, k.Machine = in.of(method), in.of(workload), in.of(args), in.of(jvm), in.of(harness), in.of(machine)
			sm.Environment, sm.SeenAt = in.of(env), seen[sm.ID]
			sm.NsPerOp, sm.CPUNsPerOp, sm.AllocBytesPerOp = unfloatsOrNil(ns), unfloatsOrNil(cpu), unfloatsOrNil(alloc)
			return fn(&sm)
		}, `SELECT m.id, m.method, m.workload, m.args, m.jvm, m.harness, m.machine, m.environment, m.commit_hash, r.ns_means, r.cpu_means, r.alloc_means
			FROM result_means r JOIN measurements m ON m.id = r.measurement_id
			WHERE `+where+` AND m.preliminary = 0 ORDER BY r.measurement_id`, args...)
	})
	return last, err
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
