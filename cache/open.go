package cache

// Opening the store, checking it, and replacing it when it is unusable.
//
// The file is unusable when it is not a perfls database, or when SQLite finds
// it damaged: on open, its header and schema, and PRAGMA quick_check (a
// structural check of every page) when the file is small enough for that to
// be quick (quickCheckMax); later, any operation failing with
// SQLITE_CORRUPT or SQLITE_NOTADB — the damage in a large file is found by
// the first operation that reads it, and Verify checks every page on
// demand (perfls cache verify). An unusable file is never altered or
// deleted: it is renamed, with its -wal and -shm, to
// perfls.db.unusable-<UTC time>, a new empty store takes its place, and a
// notice says where the old file went. Several processes share the file, so
// setting a file aside happens under perfls.db.lock after checking again, and
// every operation first checks that the path still names the file the store
// opened: a store whose file another process set aside (or the user deleted)
// follows to the new one instead of writing into the old.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/perfls/perfls/internal/diskfull"
)

// SQLite primary result codes the store tells apart.
const (
	sqliteReadOnly = 8
	sqliteIOErr    = 10 // its extended codes (a write, an fsync, growing the -shm file: 4874) hide an ENOSPC
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteNotADB   = 26
)

// explainFull turns an error of the store in dir that a full disk caused
// into one that says so, naming dir and the space left (diskfull).
func explainFull(dir string, err error) error {
	switch sqliteCode(err) {
	case sqliteFull:
		return diskfull.ExplainStorage(dir, err, true)
	case sqliteIOErr:
		return diskfull.ExplainStorage(dir, err, false)
	}
	return diskfull.Explain(dir, err)
}

// unusableError marks a file the store cannot use: set it aside.
type unusableError struct{ cause error }

func (e *unusableError) Error() string { return e.cause.Error() }
func (e *unusableError) Unwrap() error { return e.cause }

// sqliteCode is the primary SQLite result code in err's chain, 0 for none.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isCorrupt reports whether err says the database file is damaged or is no
// database at all.
func isCorrupt(err error) bool {
	switch sqliteCode(err) {
	case sqliteCorrupt, sqliteNotADB:
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "malformed") || strings.Contains(msg, "not a database")
}

// IsReadOnly reports whether err is a write refused because the cache file
// (or its directory) is read-only.
func IsReadOnly(err error) bool { return err != nil && sqliteCode(err) == sqliteReadOnly }

// checked remembers the files this process has already quick-checked, as
// they were then (modification time and size), so opening the same
// unchanged store again is not checked again.
var checked struct {
	sync.Mutex
	files []os.FileInfo
}

func alreadyChecked(fi os.FileInfo) bool {
	checked.Lock()
	defer checked.Unlock()
	for _, c := range checked.files {
		if os.SameFile(c, fi) && c.ModTime().Equal(fi.ModTime()) && c.Size() == fi.Size() {
			return true
		}
	}
	return false
}

func markChecked(fi os.FileInfo) {
	checked.Lock()
	defer checked.Unlock()
	for i, c := range checked.files {
		if os.SameFile(c, fi) {
			checked.files[i] = fi
			return
		}
	}
	checked.files = append(checked.files, fi)
}

// openUsable opens the store at path, setting an unusable file aside and
// starting a new store in its place; notice then says so. With locked, the
// caller holds path's lock.
func openUsable(ctx context.Context, path string, locked bool) (db *sql.DB, fi os.FileInfo, notice string, err error) {
	db, fi, err = openChecked(ctx, path)
	var unusable *unusableError
	if err == nil || !errors.As(err, &unusable) {
		return db, fi, "", err
	}
	if !locked {
		unlock, err := lockPath(path + ".lock")
		if err != nil {
			return nil, nil, "", fmt.Errorf("lock cache %s: %w", path, err)
		}
		defer unlock()
		// Another process may have replaced the file meanwhile.
		db, fi, err = openChecked(ctx, path)
		if err == nil || !errors.As(err, &unusable) {
			return db, fi, "", err
		}
	}
	aside, err := setAside(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("set aside the unusable cache %s (%v): %w", path, unusable.cause, err)
	}
	db, fi, err = openChecked(ctx, path)
	if err != nil {
		return nil, nil, "", err
	}
	return db, fi, fmt.Sprintf("the cache %s was unusable (%v); it was moved to %s and a new, empty cache started", path, unusable.cause, aside), nil
}

// openChecked opens path, checks the file (once per process while it is
// unchanged) and brings its schema up to date.
func openChecked(ctx context.Context, path string) (*sql.DB, os.FileInfo, error) {
	// busy_timeout lets concurrent writers (other editors, the CLI) wait for
	// each other; synchronous=FULL makes a committed measurement survive a
	// crash of the process at any moment.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	fail := func(err error) (*sql.DB, os.FileInfo, error) {
		db.Close()
		if isCorrupt(err) {
			return nil, nil, &unusableError{err}
		}
		return nil, nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	// The first query opens the file (and creates it when missing).
	if err := db.PingContext(ctx); err != nil {
		return fail(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail(err)
	}
	if !alreadyChecked(fi) {
		if err := checkAtOpen(ctx, db, fi.Size()); err != nil {
			return fail(err)
		}
		markChecked(fi)
	}
	if err := migrate(ctx, &conn{db, false}, path); err != nil {
		return fail(err)
	}
	return db, fi, nil
}

// quickCheckMax is the largest file checked page by page at every open:
// quick_check reads the whole file (about 2.5 s a GB here under load, 18 s
// for a team's store of a million results), which every perfls command
// would pay. A larger file gets its header and schema checked; a damaged
// page is found when an operation reads it (Store.run) and by Verify.
var quickCheckMax int64 = 128 << 20

// checkAtOpen checks a file of size bytes as quickCheckMax says.
func checkAtOpen(ctx context.Context, db *sql.DB, size int64) error {
	if size <= quickCheckMax {
		return quickCheck(ctx, db)
	}
	// Reading the schema reads page 1 (the header) and the schema's pages;
	// migrate reads the application id and version next.
	var n int
	return db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n)
}

// quickCheck runs SQLite's quick_check: every page's structure, not the
// indexes' agreement with their tables (integrity_check, several times
// slower).
func quickCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check(5)")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return &unusableError{fmt.Errorf("database disk image is malformed: %s", strings.Join(problems, "; "))}
	}
	return nil
}

// Verify checks every page of the store's file (PRAGMA quick_check), which
// opening a large file leaves out (quickCheckMax). A damaged file is set
// aside and a new store started, as when an operation meets the damage;
// the message says where the file went. A PostgreSQL store has no file
// here to check.
func (s *Store) Verify(ctx context.Context) (string, error) {
	if s.pg {
		return s.path + " is a PostgreSQL store: its server keeps its pages' integrity (pg_amcheck checks them)", nil
	}
	db, err := s.current(ctx)
	if err != nil {
		return "", err
	}
	err = quickCheck(ctx, db)
	var unusable *unusableError
	switch {
	case err == nil:
		return s.path + ": every page checked, no damage found", nil
	case ctx.Err() != nil || (!isCorrupt(err) && !errors.As(err, &unusable)):
		return "", fmt.Errorf("verify cache %s: %w", s.path, err)
	}
	if _, rerr := s.replace(ctx, db, err); rerr != nil {
		return "", fmt.Errorf("verify cache %s: %w (and the cache could not be replaced: %v)", s.path, err, rerr)
	}
	return strings.Join(s.Notices(), "; "), nil
}

// setAside renames path (and its -wal and -shm) to an unused
// path.unusable-<UTC time> name and returns it.
func setAside(path string) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	aside := path + ".unusable-" + stamp
	for i := 2; exists(aside) || exists(aside+"-wal"); i++ {
		aside = fmt.Sprintf("%s.unusable-%s-%d", path, stamp, i)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return aside, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// probeWrite reports whether the store can be written: a row updated in a
// transaction that is rolled back (SQLite opens a file it may not write
// read-only, and only a write tells).
func probeWrite(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "UPDATE verdict_revision SET rev = rev")
	return err
}

// current returns the database to use: the open one while path still names
// its file, else (the file was set aside by another process, or deleted) a
// new handle on what path names now.
func (s *Store) current(ctx context.Context) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pg {
		return s.db, nil
	}
	if fi, err := os.Stat(s.path); err == nil && os.SameFile(fi, s.file) {
		return s.db, nil
	}
	db, fi, notice, err := openUsable(ctx, s.path, false)
	if err != nil {
		return nil, err
	}
	s.swap(db, fi, notice)
	return s.db, nil
}

// replace sets the open file aside after an operation on failed reported
// it corrupt (cause), starts a new store in its place and returns it.
func (s *Store) replace(ctx context.Context, failed *sql.DB, cause error) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != failed {
		return s.db, nil // another goroutine replaced it already
	}
	unlock, err := lockPath(s.path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("lock cache %s: %w", s.path, err)
	}
	defer unlock()
	var notice string
	if fi, err := os.Stat(s.path); err == nil && os.SameFile(fi, s.file) {
		aside, err := setAside(s.path)
		if err != nil {
			return nil, fmt.Errorf("set aside the corrupt cache %s (%v): %w", s.path, cause, err)
		}
		notice = fmt.Sprintf("the cache %s is corrupt (%v); it was moved to %s and a new, empty cache started", s.path, cause, aside)
	}
	db, fi, n2, err := openUsable(ctx, s.path, true)
	if err != nil {
		return nil, err
	}
	s.swap(db, fi, strings.Join(nonEmpty(notice, n2), "; "))
	return s.db, nil
}

// swap makes db the store's database; s.mu is held. The old handle is
// closed once its running queries end.
func (s *Store) swap(db *sql.DB, fi os.FileInfo, notice string) {
	old := s.db
	s.db, s.file = db, fi
	if notice != "" {
		s.notices = append(s.notices, notice)
	}
	go old.Close()
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// run runs op on the store's database. When op fails because the file is
// corrupt, the file is set aside, a new store takes its place (Notices says
// so) and op runs once more, on the new store.
//
// An error a full disk caused says so (explainFull).
func (s *Store) run(ctx context.Context, op func(db *conn) error) error {
	err := s.runOnce(ctx, op)
	if s.pg {
		return err
	}
	return explainFull(filepath.Dir(s.path), err)
}

func (s *Store) runOnce(ctx context.Context, op func(db *conn) error) error {
	db, err := s.current(ctx)
	if err != nil {
		return err
	}
	err = op(&conn{db, s.pg})
	if err == nil || s.pg || !isCorrupt(err) || ctx.Err() != nil {
		return err
	}
	db, rerr := s.replace(ctx, db, err)
	if rerr != nil {
		return fmt.Errorf("%w (and the cache could not be replaced: %v)", err, rerr)
	}
	return op(&conn{db, s.pg})
}

// Notices returns, and forgets, what the store did on its own since the last
// call: a corrupt file set aside and replaced. Show them to the user.
func (s *Store) Notices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notices
	s.notices = nil
	return n
}

// ClearDir empties the store in dir whatever its file holds: a working
// store is cleared in place (other processes may have it open), and a file
// that cannot be opened or cleared — corrupt, not a database, not even a
// file — is removed. Files set aside earlier (perfls.db.unusable-*) are
// removed too. It returns what it did, for the user.
func ClearDir(ctx context.Context, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("clear cache: %w", err)
	}
	path := filepath.Join(dir, dbName)
	unlock, err := lockPath(path + ".lock")
	if err != nil {
		return "", fmt.Errorf("clear cache: lock %s: %w", path, err)
	}
	defer unlock()
	var did []string
	db, _, err := openChecked(ctx, path)
	if err == nil {
		err = clearAll(ctx, &conn{db, false})
		db.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if rerr := os.RemoveAll(path + suffix); rerr != nil {
				return "", fmt.Errorf("clear cache %s: %w (it could not be cleared: %v)", path, rerr, err)
			}
		}
		did = append(did, fmt.Sprintf("removed %s, which could not be cleared (%v)", path, err))
	}
	old, _ := filepath.Glob(path + ".unusable-*")
	for _, p := range old {
		if err := os.RemoveAll(p); err != nil {
			return "", fmt.Errorf("clear cache: %w", err)
		}
	}
	if len(old) > 0 {
		did = append(did, fmt.Sprintf("removed %d file(s) set aside earlier (%s.unusable-*)", len(old), path))
	}
	return strings.Join(append(did, "cleared "+path), "\n"), nil
}
