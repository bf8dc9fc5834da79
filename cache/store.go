package cache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/diskfull"
	"github.com/perfls/perfls/internal/redact"
)

// applicationID marks a SQLite file as perfls's ("PRFL"), so a foreign
// database at our path is recognised and set aside instead of altered.
const applicationID = 0x5052464c

// migrations bring the schema from version i to i+1; the schema version is
// SQLite's user_version. Append, never edit, a released migration.
var migrations = []string{
	`CREATE TABLE measurements (
		id               INTEGER PRIMARY KEY,
		key_hash         TEXT NOT NULL,  -- the full key: method, workload, args, code, JVM, harness, machine
		series_hash      TEXT NOT NULL,  -- the key without the code fingerprint: one run history
		method           TEXT NOT NULL,
		workload         TEXT NOT NULL,
		args             TEXT NOT NULL,
		code_fingerprint TEXT NOT NULL,
		jvm              TEXT NOT NULL,
		harness          TEXT NOT NULL,
		machine          TEXT NOT NULL,
		environment      TEXT NOT NULL,  -- JSON
		preliminary      INTEGER NOT NULL,
		created_at       INTEGER NOT NULL, -- Unix nanoseconds
		bytes            INTEGER NOT NULL  -- stored sample bytes, for the size limit
	);
	CREATE INDEX measurements_key ON measurements(key_hash, created_at);
	CREATE INDEX measurements_series ON measurements(series_hash, created_at);
	CREATE TABLE forks (
		measurement_id     INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
		fork               INTEGER NOT NULL,
		ns_per_op          BLOB NOT NULL, -- little-endian float64s, one per sample
		cpu_ns_per_op      BLOB NOT NULL,
		alloc_bytes_per_op BLOB NOT NULL,
		gcs                BLOB NOT NULL, -- little-endian int64s
		warmup_ns          INTEGER NOT NULL,
		PRIMARY KEY (measurement_id, fork)
	);`,
	// 2: how each fork's warm-up ended and how many operations a sample held.
	`ALTER TABLE forks ADD COLUMN warmup_settled INTEGER NOT NULL DEFAULT -1;
	ALTER TABLE forks ADD COLUMN ops_per_sample INTEGER NOT NULL DEFAULT 0;`,
	// 3: the latest verdicts, one row per annotated method (a JSON
	// verdict.MethodResult), and a revision readers poll for changes.
	`CREATE TABLE verdicts (
		file       TEXT NOT NULL,
		class      TEXT NOT NULL,
		method     TEXT NOT NULL,
		params     TEXT NOT NULL,
		checked_at INTEGER NOT NULL,
		result     TEXT NOT NULL,
		PRIMARY KEY (file, class, method, params)
	);
	CREATE TABLE verdict_revision (rev INTEGER NOT NULL);
	INSERT INTO verdict_revision VALUES (0);`,
	// 4: the JVM state per sample (protocol 2) and the bounds oracle: raw
	// runs of calibrated workloads, their models (with the whole
	// configuration) and the latest classifications. See oracle.go.
	`ALTER TABLE forks ADD COLUMN gc_ms BLOB NOT NULL DEFAULT x'';
	ALTER TABLE forks ADD COLUMN heap_used BLOB NOT NULL DEFAULT x'';
	ALTER TABLE forks ADD COLUMN jit_ms BLOB NOT NULL DEFAULT x'';
	ALTER TABLE forks ADD COLUMN classes BLOB NOT NULL DEFAULT x'';
	CREATE TABLE oracle_runs (
		id         INTEGER PRIMARY KEY,
		method     TEXT NOT NULL,
		workload   TEXT NOT NULL,
		args       TEXT NOT NULL,
		role       TEXT NOT NULL,    -- "calibration" (part of the model) or "verify"
		code       TEXT NOT NULL,    -- what ran, when known (code fingerprint or "")
		created_at INTEGER NOT NULL, -- Unix nanoseconds
		run        TEXT NOT NULL     -- JSON oracle.Run: per-sample series and meta-data
	);
	CREATE INDEX oracle_runs_key ON oracle_runs(method, workload, args, role, created_at);
	CREATE TABLE oracle_models (
		method     TEXT NOT NULL,
		workload   TEXT NOT NULL,
		args       TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		model      TEXT NOT NULL, -- JSON oracle.Model: config, run IDs, bands, environment
		PRIMARY KEY (method, workload, args)
	);
	CREATE TABLE oracle_results (
		id         INTEGER PRIMARY KEY,
		method     TEXT NOT NULL,
		workload   TEXT NOT NULL,
		args       TEXT NOT NULL,
		run_id     INTEGER REFERENCES oracle_runs(id) ON DELETE SET NULL,
		source     TEXT NOT NULL,    -- "verify" or "check"
		checked_at INTEGER NOT NULL, -- Unix nanoseconds
		result     TEXT NOT NULL     -- JSON oracle.Result
	);
	CREATE INDEX oracle_results_key ON oracle_results(method, workload, args, checked_at);`,
	// 5: profiles (profile.go): the reduced summary of a profiled fork,
	// keyed like a measurement plus a kind.
	`CREATE TABLE profiles (
		id               INTEGER PRIMARY KEY,
		kind             TEXT NOT NULL,  -- "profile"
		key_hash         TEXT NOT NULL,
		series_hash      TEXT NOT NULL,
		method           TEXT NOT NULL,
		workload         TEXT NOT NULL,
		args             TEXT NOT NULL,
		code_fingerprint TEXT NOT NULL,
		jvm              TEXT NOT NULL,
		harness          TEXT NOT NULL,
		machine          TEXT NOT NULL,
		environment      TEXT NOT NULL,  -- JSON
		created_at       INTEGER NOT NULL, -- Unix nanoseconds
		summary          TEXT NOT NULL   -- JSON profile summary
	);
	CREATE INDEX profiles_key ON profiles(kind, key_hash, created_at);
	CREATE INDEX profiles_series ON profiles(kind, series_hash, created_at);`,
	// 6: process CPU time per operation per sample (protocol 3; empty for
	// older forks).
	`ALTER TABLE forks ADD COLUMN proc_cpu_ns_per_op BLOB NOT NULL DEFAULT x'';`,
	// 7: the processor each sample ran on (protocol 4; empty for older
	// forks and where the JVM cannot tell).
	`ALTER TABLE forks ADD COLUMN processors BLOB NOT NULL DEFAULT x'';`,
	// 8: a result's review (review.go): "" none, "passed" or "regression".
	`ALTER TABLE measurements ADD COLUMN review TEXT NOT NULL DEFAULT '';`,
	// 9: the commit whose code was measured and its git tree hash ("" when
	// unknown; older results keep their commit only in the environment).
	`ALTER TABLE measurements ADD COLUMN commit_hash TEXT NOT NULL DEFAULT '';
	ALTER TABLE measurements ADD COLUMN tree_hash TEXT NOT NULL DEFAULT '';
	CREATE INDEX measurements_commit ON measurements(commit_hash);`,
	// 10: further commits at which a result's code was found unchanged
	// (its key answered from the cache there), so that a result measured
	// once is placed at the first commit known to hold its code.
	`CREATE TABLE seen_at (
		measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
		commit_hash    TEXT NOT NULL,
		PRIMARY KEY (measurement_id, commit_hash)
	);`,
	// 11: each result's fork means and the index on method (summary.go).
	migrationMeans,
	// 12: the same as a series number and one blob a result (summary.go).
	migrationPoints,
}

// dbName is the store's file in the cache directory.
const dbName = "perfls.db"

// Store is the persistent measurement cache: raw per-fork samples with
// their environment, keyed as DESIGN §7 says. It is safe for concurrent use
// by goroutines and by several processes (SQLite in WAL mode). A store
// whose file turns out corrupt replaces it by a new one on its own (open.go)
// and says so through Notices.
type Store struct {
	path string // the SQLite file, or the PostgreSQL address as Redact shows it
	pg   bool   // a PostgreSQL store: no file to check or set aside

	mu      sync.Mutex  // guards the fields below
	db      *sql.DB     // the open database; replaced with its file
	file    os.FileInfo // the file db opened
	notices []string    // what the store did on its own, for the user
}

// Open opens the store spec names: a postgres:// (or postgresql://) URL,
// or libpq's key=value connection string, names a shared PostgreSQL store,
// "" the SQLite store in dir (OpenStore). Anything else is an error saying
// what is expected.
func Open(ctx context.Context, spec, dir string) (s *Store, notice string, err error) {
	switch {
	case spec == "":
		return OpenStore(ctx, dir)
	case IsPostgresURL(spec):
		s, err := openPostgres(ctx, spec)
		return s, "", err
	}
	if err := redact.KeyValueError(spec); strings.Contains(spec, "=") && !strings.Contains(spec, "://") {
		return nil, "", fmt.Errorf("store %q: its key=value settings do not parse: %v (quote a value holding spaces with '…', and escape ' and \\ in it with \\)", redact.Address(spec), err)
	}
	return nil, "", fmt.Errorf("store %q: want a postgres:// URL or key=value settings (host=… dbname=…), or nothing for the SQLite cache in %s", redact.Address(spec), dir)
}

// OpenStore opens (creating if needed) the store in dir. A file that is not
// a perfls database, or is corrupt (checkAtOpen: PRAGMA quick_check for a
// file up to 128 MiB, the header and schema above), is renamed aside
// and a new store created; the returned notice says so, and says when the
// store is read-only, for the caller to show the user.
func OpenStore(ctx context.Context, dir string) (s *Store, notice string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", diskfull.Explain(dir, fmt.Errorf("open cache: %w", err))
	}
	path := filepath.Join(dir, dbName)
	db, fi, notice, err := openUsable(ctx, path, false)
	if err != nil {
		return nil, "", explainFull(dir, err)
	}
	if err := probeWrite(ctx, db); err != nil {
		var full *diskfull.Error
		switch {
		case IsReadOnly(err):
			notice = strings.Join(nonEmpty(notice, fmt.Sprintf("the cache %s is read-only (%v): results are shown but nothing measured now is saved; make it writable or set PERFLS_CACHE_DIR to a writable directory", path, err)), "; ")
		case errors.As(explainFull(dir, err), &full):
			notice = strings.Join(nonEmpty(notice, full.Error()+"; until then results are shown but nothing measured now is saved"), "; ")
		default:
			db.Close()
			return nil, "", fmt.Errorf("open cache %s: %w", path, err)
		}
	}
	return &Store{path: path, db: db, file: fi}, notice, nil
}

func migrate(ctx context.Context, db *conn, path string) error {
	var appID, version int
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if appID != applicationID {
		var tables int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
			return err
		}
		if appID != 0 || tables > 0 {
			return &unusableError{fmt.Errorf("not a perfls cache (application id %#x, %d tables)", appID, tables)}
		}
	}
	if version > len(migrations) {
		return fmt.Errorf("cache %s has schema version %d, newer than this perfls understands (%d): upgrade perfls or set PERFLS_CACHE_DIR", path, version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmts := migrations[v] + fmt.Sprintf(";\nPRAGMA user_version = %d;\nPRAGMA application_id = %d;", v+1, applicationID)
		if _, err := tx.ExecContext(ctx, stmts); err == nil {
			err = afterMigration(ctx, tx, v+1)
		}
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate cache to schema %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate cache to schema %d: %w", v+1, err)
		}
	}
	return nil
}

// Close releases the database.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.Close()
}

// Path is the database file, or the shared store's URL without its
// password.
func (s *Store) Path() string { return s.path }

// Shared reports whether the store is a shared (PostgreSQL) one rather
// than the SQLite file in a cache directory.
func (s *Store) Shared() bool { return s.pg }

// Key identifies a measurement (DESIGN §7). Code is the fingerprint of the
// compiled code it ran; everything else names a series whose history feeds
// the parametric interpretation and the bounds oracle.
type Key struct {
	Method   string // e.g. quickstart.Search#binarySearch(int[],int)
	Workload string // e.g. quickstart.Search#lookups(int)
	Args     string // e.g. 10000
	Code     string // Fingerprint of the reachable classes
	JVM      string // version, vendor and flags
	Harness  string // harness version
	Machine  string // CPU model, cores, OS, architecture
}

func hash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Hash identifies the exact key.
func (k Key) Hash() string {
	return hash(k.Method, k.Workload, k.Args, k.Code, k.JVM, k.Harness, k.Machine)
}

// SeriesHash identifies the key's history: the same key with any code.
func (k Key) SeriesHash() string {
	return hash(k.Method, k.Workload, k.Args, k.JVM, k.Harness, k.Machine)
}

// Fork is the raw data of one JVM fork: the measured data as the store
// keeps it. The store keeps the per-sample series, the warm-up (Warmup,
// WarmupSettled) and Ops; a read fork has the other fields zero. The JVM's
// state series arrived with schema 4, process CPU with 6 and processors
// with 7: older forks read them as nil.
type Fork = measured.Fork

// Measurement is one stored measurement.
type Measurement struct {
	ID          int64
	Key         Key
	Environment json.RawMessage
	Preliminary bool
	CreatedAt   time.Time
	Forks       []Fork
	// Review is what a user recorded about the result (SetReview): "" for
	// none, ReviewPassed or ReviewRegression. Put ignores it: a new result
	// is not reviewed.
	Review string
	// Commit is the git commit whose code was measured (a work tree's HEAD,
	// with changes when the environment says Dirty, or a materialised
	// commit's), Tree the git tree hash of the project's directory at that
	// commit when the measured tree was exactly it; "" when unknown
	// (schema 9: older results have their commit in the environment only).
	Commit, Tree string
	// SeenAt are further commits whose code was found to be this result's
	// (the same key answered from the cache at them), in no order.
	SeenAt []string
}

// Put stores m in one transaction and sets m.ID: after Put returns, the
// measurement survives a crash; before, none of it is visible.
func (s *Store) Put(ctx context.Context, m *Measurement) error {
	return s.PutAll(ctx, []*Measurement{m})
}

// putTx inserts m (setting its CreatedAt when zero) in tx and returns its
// new ID.
func putTx(ctx context.Context, tx *txn, m *Measurement) (int64, error) {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now()
	}
	env := m.Environment
	if len(env) == 0 {
		env = json.RawMessage("{}")
	}
	var size int
	blobs := make([][10][]byte, len(m.Forks))
	for i, f := range m.Forks {
		blobs[i] = [10][]byte{floats(f.NsPerOp), floats(f.CPUNsPerOp), floats(f.AllocBytesPerOp), ints(f.GCs),
			floats(f.GCMs), floats(f.HeapUsed), floats(f.JITMs), floats(f.Classes), floats(f.ProcCPUNsPerOp), ints(f.Processors)}
		for _, b := range blobs[i] {
			size += len(b)
		}
	}
	k := m.Key
	id, err := tx.insert(ctx, `INSERT INTO measurements
		(key_hash, series_hash, method, workload, args, code_fingerprint, jvm, harness, machine, environment, preliminary, created_at, bytes, commit_hash, tree_hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.Hash(), k.SeriesHash(), k.Method, k.Workload, k.Args, k.Code, k.JVM, k.Harness, k.Machine,
		string(env), boolInt(m.Preliminary), m.CreatedAt.UnixNano(), size, m.Commit, m.Tree)
	if err != nil {
		return 0, fmt.Errorf("store measurement: %w", err)
	}
	for i, f := range m.Forks {
		b := blobs[i]
		if _, err := tx.ExecContext(ctx, `INSERT INTO forks (measurement_id, fork, ns_per_op, cpu_ns_per_op, alloc_bytes_per_op, gcs, warmup_ns, warmup_settled, ops_per_sample,
			gc_ms, heap_used, jit_ms, classes, proc_cpu_ns_per_op, processors)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, i, b[0], b[1], b[2], b[3], int64(f.Warmup), f.WarmupSettled, f.Ops,
			b[4], b[5], b[6], b[7], b[8], b[9]); err != nil {
			return 0, fmt.Errorf("store fork %d: %w", i, err)
		}
	}
	if err := putMeans(ctx, tx, id, m); err != nil {
		return 0, err
	}
	return id, nil
}

// Lookup returns the newest complete (not preliminary) measurement for k.
// When none matches k's code but the series has one for other code, that
// one is returned with stale = true: the code changed since, so it is shown
// as stale rather than hidden. It returns nil when the series is empty.
func (s *Store) Lookup(ctx context.Context, k Key) (m *Measurement, stale bool, err error) {
	err = s.run(ctx, func(db *conn) error {
		var err error
		stale = false
		m, err = newest(ctx, db, "key_hash = ? AND preliminary = 0", k.Hash())
		if err != nil || m != nil {
			return err
		}
		m, err = newest(ctx, db, "series_hash = ? AND preliminary = 0", k.SeriesHash())
		stale = m != nil
		return err
	})
	return m, stale, err
}

// LookupOther returns the newest complete measurement with exactly key k
// whose ID is none of used, nil when there is none: forks measured by
// another run (another client of a shared store, an earlier check) that
// are as independent of used's forks as new ones would be.
func (s *Store) LookupOther(ctx context.Context, k Key, used []int64) (m *Measurement, err error) {
	where := "key_hash = ? AND preliminary = 0"
	args := []any{k.Hash()}
	for _, id := range used {
		where += " AND id <> ?"
		args = append(args, id)
	}
	err = s.run(ctx, func(db *conn) error {
		ms, err := load(ctx, db, where+" ORDER BY created_at DESC, id DESC LIMIT 1", args...)
		if len(ms) > 0 {
			m = ms[0]
		}
		return err
	})
	return m, err
}

// Previous returns up to limit complete measurements with exactly key k
// (same code, JVM and machine), newest first, leaving out the measurement
// with ID except. Their forks are earlier runs of the same thing: the run
// history whose spread of run means the parametric interpretation needs.
func (s *Store) Previous(ctx context.Context, k Key, except int64, limit int) (ms []*Measurement, err error) {
	err = s.run(ctx, func(db *conn) error {
		ms, err = load(ctx, db, "key_hash = ? AND preliminary = 0 AND id <> ? ORDER BY created_at DESC, id DESC LIMIT ?", k.Hash(), except, limit)
		return err
	})
	return ms, err
}

// load reads every measurement a WHERE clause selects, in its order.
func load(ctx context.Context, db *conn, where string, args ...any) ([]*Measurement, error) {
	ids, err := ids(ctx, db, where, args...)
	if err != nil {
		return nil, err
	}
	out := make([]*Measurement, 0, len(ids))
	for _, id := range ids {
		m, err := get(ctx, db, id)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func newest(ctx context.Context, db *conn, where string, arg any) (*Measurement, error) {
	ids, err := ids(ctx, db, where+" ORDER BY created_at DESC, id DESC LIMIT 1", arg)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return get(ctx, db, ids[0])
}

func ids(ctx context.Context, db *conn, where string, args ...any) ([]int64, error) {
	rows, err := db.QueryContext(ctx, "SELECT id FROM measurements WHERE "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("query cache: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("query cache: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query cache: %w", err)
	}
	return ids, nil
}

// Get loads one measurement with its forks.
func (s *Store) Get(ctx context.Context, id int64) (m *Measurement, err error) {
	err = s.run(ctx, func(db *conn) error {
		m, err = get(ctx, db, id)
		return err
	})
	return m, err
}

func get(ctx context.Context, db *conn, id int64) (*Measurement, error) {
	m := &Measurement{ID: id}
	var env string
	var created, prelim int64
	k := &m.Key
	err := db.QueryRowContext(ctx, `SELECT method, workload, args, code_fingerprint, jvm, harness, machine, environment, preliminary, created_at, review, commit_hash, tree_hash
		FROM measurements WHERE id = ?`, id).Scan(&k.Method, &k.Workload, &k.Args, &k.Code, &k.JVM, &k.Harness, &k.Machine, &env, &prelim, &created, &m.Review, &m.Commit, &m.Tree)
	m.Preliminary = prelim != 0
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("no measurement %d in the cache", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read measurement %d: %w", id, err)
	}
	m.Environment = json.RawMessage(env)
	m.CreatedAt = time.Unix(0, created)
	rows, err := db.QueryContext(ctx, `SELECT ns_per_op, cpu_ns_per_op, alloc_bytes_per_op, gcs, warmup_ns, warmup_settled, ops_per_sample,
		gc_ms, heap_used, jit_ms, classes, proc_cpu_ns_per_op, processors
		FROM forks WHERE measurement_id = ? ORDER BY fork`, id)
	if err != nil {
		return nil, fmt.Errorf("read forks of %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var ns, cpu, alloc, gcs, gcMs, heap, jit, classes, proc, processors []byte
		var f Fork
		var warmupNs int64
		if err := rows.Scan(&ns, &cpu, &alloc, &gcs, &warmupNs, &f.WarmupSettled, &f.Ops, &gcMs, &heap, &jit, &classes, &proc, &processors); err != nil {
			return nil, fmt.Errorf("read forks of %d: %w", id, err)
		}
		f.Warmup = time.Duration(warmupNs)
		f.NsPerOp, f.CPUNsPerOp, f.AllocBytesPerOp, f.GCs = unfloats(ns), unfloats(cpu), unfloats(alloc), unints(gcs)
		f.GCMs, f.HeapUsed, f.JITMs, f.Classes = unfloatsOrNil(gcMs), unfloatsOrNil(heap), unfloatsOrNil(jit), unfloatsOrNil(classes)
		f.ProcCPUNsPerOp = unfloatsOrNil(proc)
		if len(processors) > 0 {
			f.Processors = unints(processors)
		}
		m.Forks = append(m.Forks, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read forks of %d: %w", id, err)
	}
	if m.SeenAt, err = seenAt(ctx, db, id); err != nil {
		return nil, err
	}
	return m, nil
}

// Entry is one line of a cache listing.
type Entry struct {
	ID          int64
	Key         Key
	Preliminary bool
	CreatedAt   time.Time
	Forks       int
	Bytes       int64
}

// List returns every stored measurement, newest first.
func (s *Store) List(ctx context.Context) ([]Entry, error) {
	out, _, err := s.Newest(ctx, 0)
	return out, err
}

// Newest returns the newest limit stored measurements, newest first (all
// of them when limit ≤ 0), and how many the store holds: a team store of a
// million results is listed a page at a time.
func (s *Store) Newest(ctx context.Context, limit int) (out []Entry, total int, err error) {
	err = s.run(ctx, func(db *conn) error {
		out = nil
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM measurements").Scan(&total); err != nil {
			return fmt.Errorf("list cache: %w", err)
		}
		query := `SELECT m.id, m.method, m.workload, m.args, m.code_fingerprint, m.jvm, m.harness, m.machine,
			m.preliminary, m.created_at, m.bytes, (SELECT count(*) FROM forks f WHERE f.measurement_id = m.id)
			FROM measurements m ORDER BY m.created_at DESC, m.id DESC`
		var args []any
		if limit > 0 {
			query += " LIMIT ?"
			args = append(args, limit)
		}
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("list cache: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var e Entry
			var created, prelim int64
			k := &e.Key
			if err := rows.Scan(&e.ID, &k.Method, &k.Workload, &k.Args, &k.Code, &k.JVM, &k.Harness, &k.Machine, &prelim, &created, &e.Bytes, &e.Forks); err != nil {
				return fmt.Errorf("list cache: %w", err)
			}
			e.Preliminary = prelim != 0
			e.CreatedAt = time.Unix(0, created)
			out = append(out, e)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list cache: %w", err)
		}
		return nil
	})
	return out, total, err
}

// GC evicts the oldest measurements until the stored sample bytes fit in
// maxBytes, keeping the newest measurement of every series so no result
// disappears entirely. It returns how many it removed. With compact, the
// file is also shrunk when it evicted or a tenth of it is free (VACUUM
// rewrites it: seconds for a large cache, so only on request); otherwise
// SQLite reuses the freed pages.
func (s *Store) GC(ctx context.Context, maxBytes int64, compact bool) (removed int, err error) {
	err = s.run(ctx, func(db *conn) error {
		removed = 0
		var total int64
		if err := db.QueryRowContext(ctx, "SELECT CAST(coalesce(sum(bytes), 0) AS BIGINT) FROM measurements").Scan(&total); err != nil {
			return fmt.Errorf("cache gc: %w", err)
		}
		victims, err := gcVictims(ctx, db, total, maxBytes)
		if err != nil {
			return err
		}
		for _, id := range victims {
			if _, err := db.ExecContext(ctx, "DELETE FROM measurements WHERE id = ?", id); err != nil {
				return fmt.Errorf("cache gc: %w", err)
			}
			removed++
		}
		// PostgreSQL's autovacuum reclaims the space. In SQLite, compact
		// also when a tenth of the file is free pages though nothing was
		// evicted: a migration's dropped table leaves them (schema 12
		// freed ~240 MB of a store of a million results).
		if compact && !db.pg && (len(victims) > 0 || mostlyFree(ctx, db)) {
			// Hand the space back to the file system; a checkpoint first so the
			// WAL does not hold the deleted pages.
			db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
			db.ExecContext(ctx, "VACUUM")
		}
		return nil
	})
	return removed, err
}

// gcVictims are the oldest measurements whose removal brings the stored
// sample bytes (total) within maxBytes, never the newest of a series.
func gcVictims(ctx context.Context, db *conn, total, maxBytes int64) ([]int64, error) {
	if total <= maxBytes {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT id, bytes FROM measurements m
		WHERE id <> (SELECT id FROM measurements n WHERE n.series_hash = m.series_hash ORDER BY created_at DESC, id DESC LIMIT 1)
		ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("cache gc: %w", err)
	}
	defer rows.Close()
	var victims []int64
	for rows.Next() && total > maxBytes {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("cache gc: %w", err)
		}
		victims = append(victims, id)
		total -= n
	}
	return victims, nil
}

// mostlyFree reports whether a tenth or more of the SQLite file's pages
// are free (reused by later writes, but not given back to the disk).
func mostlyFree(ctx context.Context, db *conn) bool {
	var free, pages int64
	if db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free) != nil || db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages) != nil {
		return false
	}
	return pages > 0 && free*10 >= pages
}

// Clear removes every measurement, every recorded verdict, every profile
// and every bounds-oracle calibration (runs, models and results).
func (s *Store) Clear(ctx context.Context) error {
	return s.run(ctx, func(db *conn) error { return clearAll(ctx, db) })
}

func clearAll(ctx context.Context, db *conn) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM measurements; DELETE FROM verdicts; DELETE FROM profiles;
		DELETE FROM oracle_results; DELETE FROM oracle_models; DELETE FROM oracle_runs;
		UPDATE verdict_revision SET rev = rev + 1`); err != nil {
		return fmt.Errorf("clear cache: %w", err)
	}
	if !db.pg {
		db.ExecContext(ctx, "VACUUM")
	}
	return nil
}

func floats(xs []float64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func unfloats(b []byte) []float64 {
	xs := make([]float64, len(b)/8)
	for i := range xs {
		xs[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return xs
}

// unfloatsOrNil is unfloats with nil for an empty blob: a series that was
// not measured (or not stored by an older perfls).
func unfloatsOrNil(b []byte) []float64 {
	if len(b) == 0 {
		return nil
	}
	return unfloats(b)
}

func ints(xs []int64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func unints(b []byte) []int64 {
	xs := make([]int64, len(b)/8)
	for i := range xs {
		xs[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return xs
}

// MeasurementsOf returns the complete measurements of a method, oldest
// first: every workload, argument, code, JVM and machine, for a method's
// history across commits and machines. method is a key's method
// ("p.C#m(int[])") or its name without the parameters ("p.C#m"), which
// matches every overload.
func (s *Store) MeasurementsOf(ctx context.Context, method string) (ms []*Measurement, err error) {
	err = s.run(ctx, func(db *conn) error {
		ms, err = load(ctx, db, ofMethod+" ORDER BY created_at, id", method, len(method)+1, method+"(")
		return err
	})
	return ms, err
}

// ofMethod selects the complete measurements of a method named with or
// without its parameters; its arguments are the name, its length + 1 and
// the name with "(".
const ofMethod = "(method = ? OR substr(method, 1, ?) = ?) AND preliminary = 0"

// MeasurementsOfAfter returns the complete measurements of method (named
// as for MeasurementsOf) whose ID is above after, in ID order, leaving out
// those whose ID skip reports (nil skips none) without reading them, and
// the highest ID of any measurement now stored: for a reader that polls
// for new results, which reads only those. The highest ID falling below
// what the reader saw says the store was emptied or replaced (IDs start
// again). In SQLite IDs are committed in order; in PostgreSQL a result can
// become visible after one with a higher ID (its transaction committed
// later), so a poller asks again from somewhat below its last ID and skips
// what it has.
func (s *Store) MeasurementsOfAfter(ctx context.Context, method string, after int64, skip func(id int64) bool) (ms []*Measurement, last int64, err error) {
	err = s.run(ctx, func(db *conn) error {
		ms = nil
		if err := db.QueryRowContext(ctx, "SELECT CAST(coalesce(max(id), 0) AS BIGINT) FROM measurements").Scan(&last); err != nil {
			return fmt.Errorf("query cache: %w", err)
		}
		found, err := ids(ctx, db, ofMethod+" AND id > ? ORDER BY id", method, len(method)+1, method+"(", after)
		if err != nil {
			return err
		}
		for _, id := range found {
			if skip != nil && skip(id) {
				continue
			}
			m, err := get(ctx, db, id)
			if err != nil {
				return err
			}
			ms = append(ms, m)
		}
		return nil
	})
	return ms, last, err
}

// IsPostgresURL reports whether spec names a PostgreSQL store: a
// postgres:// or postgresql:// URL, or libpq's key=value connection string
// (host=db dbname=perfls user=me), both as pgx reads them.
func IsPostgresURL(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") || redact.IsKeyValue(spec)
}
