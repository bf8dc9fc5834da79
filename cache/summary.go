package cache

// What the change-point series (perfls regressions, the editor's "slower
// since") read of a result: its key, environment and commits, and the mean
// of each fork's samples per figure. A store of a million results holds
// gigabytes of samples; the series need three numbers a fork, so Put also
// stores those means (result_means, schema 11; result_points, schema 12)
// and the readers here stream them in one query instead of loading every
// result with its samples.

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
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
// parameters. Schema 12 moves its rows to result_points (migrationPoints)
// and drops it; a store migrating from before 11 gets its points from its
// samples then.
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

// migrationPoints (schema 12) replaces result_means by result_points: the
// same per-result facts with what a scan reads in two numbers and one blob
// — the series as a number (seriesRef of its hash) and the point (the
// commit, whether the tree had changes, the fork means of each figure;
// encodePoint). A million results read through the database/sql driver
// cost per column and row: seven columns took 2.3 s of CPU here, three
// take a fifth of that. afterMigration moves the rows over.
const migrationPoints = `CREATE TABLE result_points (
		measurement_id INTEGER PRIMARY KEY REFERENCES measurements(id) ON DELETE CASCADE,
		series_hash    TEXT NOT NULL,
		series_ref     INTEGER NOT NULL, -- seriesRef(series_hash)
		method_name    TEXT NOT NULL,    -- the method without its parameters: p.C#m
		preliminary    INTEGER NOT NULL,
		point          BLOB NOT NULL     -- encodePoint
	);
	CREATE INDEX result_points_name ON result_points(method_name, measurement_id);`

// pgMigrationPoints is migrationPoints in PostgreSQL's types.
const pgMigrationPoints = `CREATE TABLE result_points (
		measurement_id BIGINT PRIMARY KEY REFERENCES measurements(id) ON DELETE CASCADE,
		series_hash    TEXT NOT NULL,
		series_ref     BIGINT NOT NULL,
		method_name    TEXT NOT NULL,
		preliminary    BIGINT NOT NULL,
		point          BYTEA NOT NULL
	);
	CREATE INDEX result_points_name ON result_points(method_name, measurement_id);`

// afterMigration does in Go what the SQL of migration to version cannot:
// schema 12's points, moved from schema 11's result_means (which a store
// migrating from an older schema leaves empty: its points are computed
// from the samples).
func afterMigration(ctx context.Context, tx *txn, version int) error {
	if version != 12 {
		return nil
	}
	if err := movePoints(ctx, tx); err != nil {
		return err
	}
	if err := backfillPoints(ctx, tx); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DROP TABLE result_means")
	return err
}

// methodName is a key's method without its parameters.
func methodName(method string) string {
	name, _, _ := strings.Cut(method, "(")
	return name
}

// forkMeans is the mean of each series' samples, leaving out the empty
// ones.
func forkMeans(series ...[]float64) []float64 {
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
	return means
}

// seriesRef is the number a series goes by in result_points: 63 bits of
// FNV-1a of its hash, the same for every result of the series whoever
// stores it (no look-up, no coordination between PostgreSQL clients).
// Two series of one scan sharing a number are told apart by their hashes
// (Summaries); at 10⁶ series that happens about once in 10⁷ stores.
var seriesRef = func(seriesHash string) int64 {
	h := fnv.New64a()
	h.Write([]byte(seriesHash))
	return int64(h.Sum64() >> 1)
}

// encodePoint is a result's point: a flags byte (1: the tree had
// changes), the commit's length (uvarint) and bytes, the number of fork
// means of time, CPU time and allocation (uvarints), then those means as
// little-endian float64s.
func encodePoint(commit string, dirty bool, ns, cpu, alloc []float64) []byte {
	b := make([]byte, 0, 1+1+len(commit)+3+8*(len(ns)+len(cpu)+len(alloc)))
	b = append(b, byte(boolInt(dirty)))
	b = binary.AppendUvarint(b, uint64(len(commit)))
	b = append(b, commit...)
	for _, xs := range [][]float64{ns, cpu, alloc} {
		b = binary.AppendUvarint(b, uint64(len(xs)))
	}
	for _, xs := range [][]float64{ns, cpu, alloc} {
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// errBadPoint says a point's bytes do not decode: a store written by
// something other than perfls, or damaged without SQLite noticing.
var errBadPoint = errors.New("its stored fork means do not decode: the store may be damaged (perfls cache verify checks a SQLite file)")

// decodePoint sets sm's commit (interned by commits), dirty flag and fork
// means from point b. The means share one array, from sl.
func decodePoint(b []byte, sm *Summary, commits interner, sl *slab) error {
	if len(b) < 1 {
		return errBadPoint
	}
	sm.Dirty = b[0]&1 != 0
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return errBadPoint
	}
	sm.Commit = commits.of(b[k : k+int(n)])
	b = b[k+int(n):]
	var counts [3]int
	total := 0
	for i := range counts {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) {
			return errBadPoint
		}
		counts[i], total, b = int(n), total+int(n), b[k:]
	}
	if len(b) != 8*total {
		return errBadPoint
	}
	vals := sl.floats(total)
	for i := range vals {
		vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	dst := [3]*[]float64{&sm.NsPerOp, &sm.CPUNsPerOp, &sm.AllocBytesPerOp}
	for i, n := range counts {
		*dst[i] = nil
		if n > 0 {
			*dst[i], vals = vals[:n:n], vals[n:]
		}
	}
	return nil
}

// slab hands out summaries and arrays of means from larger allocations: a
// scan of a million results would make millions of small objects for the
// collector to track. What it hands out stays valid (it is never reused).
// Its allocations double from small ones, so that the few results of a
// later look (the editor's hover) keep little memory alive.
type slab struct {
	summaries []Summary
	vals      []float64
	grown     int // how many allocations it made
}

// next is the size of the next allocation of a kind: small ones first,
// doubling up to most.
func (sl *slab) next(most int) int {
	sl.grown++
	return min(most, 8<<min(sl.grown, 20))
}

func (sl *slab) summary() *Summary {
	if len(sl.summaries) == 0 {
		sl.summaries = make([]Summary, sl.next(256))
	}
	sm := &sl.summaries[0]
	sl.summaries = sl.summaries[1:]
	return sm
}

// floats is an array of n values (capacity n: an append copies).
func (sl *slab) floats(n int) []float64 {
	if n > len(sl.vals) {
		sl.vals = make([]float64, max(n, sl.next(4096)))
	}
	xs := sl.vals[:n:n]
	sl.vals = sl.vals[n:]
	return xs
}

// pointRow is one row of result_points.
type pointRow struct {
	id           int64
	series, name string
	preliminary  int
	point        []byte
}

// newPointRow is the row of result id: key method, commit column, stored
// environment and preliminary flag, and its fork means per figure.
func newPointRow(id int64, series, method, commit, env string, preliminary int, ns, cpu, alloc []float64) pointRow {
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
	return pointRow{id: id, series: series, name: methodName(method), preliminary: preliminary, point: encodePoint(commit, e.Dirty, ns, cpu, alloc)}
}

// putMeans stores the point of m, just inserted as id.
func putMeans(ctx context.Context, tx *txn, id int64, m *Measurement) error {
	var ns, cpu, alloc [][]float64
	for _, f := range m.Forks {
		ns, cpu, alloc = append(ns, f.NsPerOp), append(cpu, f.CPUNsPerOp), append(alloc, f.AllocBytesPerOp)
	}
	row := newPointRow(id, m.Key.SeriesHash(), m.Key.Method, m.Commit, string(m.Environment), boolInt(m.Preliminary), forkMeans(ns...), forkMeans(cpu...), forkMeans(alloc...))
	return insertPoints(ctx, tx, []pointRow{row})
}

// insertPoints inserts rows, a hundred a statement.
func insertPoints(ctx context.Context, tx *txn, rows []pointRow) error {
	const perStatement = 100
	for len(rows) > 0 {
		n := min(len(rows), perStatement)
		q := "INSERT INTO result_points (measurement_id, series_hash, series_ref, method_name, preliminary, point) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", n), ", ")
		args := make([]any, 0, 6*n)
		for _, r := range rows[:n] {
			args = append(args, r.id, r.series, seriesRef(r.series), r.name, r.preliminary, r.point)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("store the fork means of result %d: %w", rows[0].id, err)
		}
		rows = rows[n:]
	}
	return nil
}

// movePoints turns schema 11's rows of result_means into points, ten
// thousand at a time.
func movePoints(ctx context.Context, tx *txn) error {
	const chunk = 10000
	for after := int64(-1); ; {
		var rows []pointRow
		err := eachRow(ctx, tx, func(r *sql.Rows) error {
			var x pointRow
			var commit string
			var dirty int
			var ns, cpu, alloc []byte
			if err := r.Scan(&x.id, &x.series, &x.name, &commit, &dirty, &x.preliminary, &ns, &cpu, &alloc); err != nil {
				return err
			}
			x.point = encodePoint(commit, dirty != 0, unfloats(ns), unfloats(cpu), unfloats(alloc))
			rows = append(rows, x)
			return nil
		}, `SELECT measurement_id, series_hash, method_name, commit_hash, dirty, preliminary, ns_means, cpu_means, alloc_means FROM result_means
			WHERE measurement_id > ? ORDER BY measurement_id LIMIT ?`, after, chunk)
		if err != nil || len(rows) == 0 {
			return err
		}
		after = rows[len(rows)-1].id
		if err := insertPoints(ctx, tx, rows); err != nil {
			return err
		}
	}
}

// backfillPoints fills result_points for every result that has no row, a
// thousand results at a time, from their samples.
func backfillPoints(ctx context.Context, tx *txn) error {
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
			AND NOT EXISTS (SELECT 1 FROM result_points r WHERE r.measurement_id = m.id) ORDER BY id LIMIT ?`, after, chunk)
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
		rows := make([]pointRow, len(rs))
		for i, x := range rs {
			rows[i] = newPointRow(x.id, x.series, x.method, x.commit, x.env, x.preliminary, forkMeans(x.ns...), forkMeans(x.cpu...), forkMeans(x.alloc...))
		}
		if err := insertPoints(ctx, tx, rows); err != nil {
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
// order; fn may keep the summary. It reads the series' keys first (a
// result of each), then scans result_points alone. It returns the highest
// ID of any result now stored, as MeasurementsOfAfter does.
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
		// The scan names a result's series by number; two series sharing
		// one are told apart by their hashes, read then too.
		byRef := make(map[int64]*Series, len(series))
		shared := false
		for hash, se := range series {
			ref := seriesRef(hash)
			shared = shared || byRef[ref] != nil
			byRef[ref] = se
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
		}, `SELECT s.measurement_id, s.commit_hash FROM seen_at s JOIN result_points r ON r.measurement_id = s.measurement_id
			WHERE `+where+` ORDER BY s.measurement_id, s.commit_hash`, args...)
		if err != nil {
			return err
		}
		commits, sl := interner{}, &slab{}
		cols := "r.measurement_id, r.series_ref, r.point"
		var id, ref int64
		var point, hash sql.RawBytes
		dest := []any{&id, &ref, &point} // made once: a million rows
		if shared {
			cols += ", r.series_hash"
			dest = append(dest, &hash)
		}
		return eachRow(ctx, db, func(r *sql.Rows) error {
			if err := r.Scan(dest...); err != nil {
				return err
			}
			sm := sl.summary()
			sm.ID = id
			if sm.Series = byRef[ref]; shared {
				sm.Series = series[string(hash)]
			}
			if sm.Series == nil {
				return nil // its series' results were all removed since the keys were read
			}
			if err := decodePoint(point, sm, commits, sl); err != nil {
				return fmt.Errorf("result %d of %s: %w", sm.ID, s.path, err)
			}
			sm.SeenAt = seen[sm.ID]
			return fn(sm)
		}, `SELECT `+cols+` FROM result_points r
			WHERE `+where+` AND r.preliminary = 0 AND r.measurement_id <= ? ORDER BY r.measurement_id`, append(args, last)...)
	})
	return last, err
}

// seriesOf reads the key and an environment of every series with a
// result that where selects (of every series, for every method): a
// result's of each — the newest, by ID for a method's, by time (then ID)
// for every series; by hash.
func seriesOf(ctx context.Context, db *conn, where string, args []any) (map[string]*Series, error) {
	q := `SELECT max(r.measurement_id) FROM result_points r WHERE ` + where + ` GROUP BY r.series_hash`
	if len(args) == 1 {
		// Every method: a walk from series to series through the series
		// index, two look-ups a series, instead of grouping every entry
		// (a million results: 0.5 s of CPU for 10,000 series).
		q, args = `WITH RECURSIVE s(h) AS (
				SELECT min(series_hash) FROM measurements
				UNION ALL
				SELECT (SELECT min(series_hash) FROM measurements WHERE series_hash > s.h) FROM s WHERE s.h IS NOT NULL)
			SELECT (SELECT id FROM measurements WHERE series_hash = s.h ORDER BY created_at DESC, id DESC LIMIT 1) FROM s WHERE s.h IS NOT NULL`, nil
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
