package cache

// The bounds oracle's data (schema 4): the raw runs of calibrated
// workloads, one model per workload with the configuration it was built
// with, and the classifications of later runs. Raw runs are kept so a model
// can be rebuilt with other settings, or with an accepted run added, without
// measuring again (reference 000-bounds-oracle.md §5.5).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/perfls/perfls/analysis/oracle"
)

// OracleKey names a calibrated workload: the resolved method, workload
// (generator, "" for none) and arguments, spelt as in Key. The code
// fingerprint is not part of it: the oracle exists to judge changed code
// against the calibrated behaviour.
type OracleKey struct {
	Method   string `json:"method"`
	Workload string `json:"workload"`
	Args     string `json:"args"`
}

func (k OracleKey) String() string {
	s := k.Method
	if k.Workload != "" {
		s += "[" + k.Workload + "]"
	}
	return s + "(" + k.Args + ")"
}

// Roles of stored oracle runs.
const (
	RoleCalibration = "calibration" // one of the runs a model is built from
	RoleVerify      = "verify"      // a run classified against the model
)

// OracleRun is one stored run (one fork) of a calibrated workload.
type OracleRun struct {
	ID        int64
	Key       OracleKey
	Role      string
	Code      string // code fingerprint when known
	CreatedAt time.Time
	Run       oracle.Run // Run.ID is the decimal ID once stored
}

// OracleModel is a stored model.
type OracleModel struct {
	Key       OracleKey
	CreatedAt time.Time
	Model     *oracle.Model // Model.Runs are the IDs of its calibration runs
}

// OracleResult is a stored classification of one run.
type OracleResult struct {
	ID        int64
	Key       OracleKey
	RunID     int64  // the classified run; 0 when it was not stored
	Source    string // "verify" or "check"
	CheckedAt time.Time
	Result    oracle.Result
	// Runs and FailedRuns count the runs classified together with this one
	// (the forks of one check or verify; they share CheckedAt) and how many
	// of them failed. LatestOracleResult returns a run whose verdict is the
	// batch's combined verdict (oracle.Combine).
	Runs, FailedRuns int
}

// PutOracleRuns stores runs in one transaction, setting their ID and
// Run.ID.
func (s *Store) PutOracleRuns(ctx context.Context, runs []*OracleRun) error {
	return s.run(ctx, func(db *conn) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store oracle runs: %w", err)
		}
		defer tx.Rollback()
		for _, r := range runs {
			if err := putOracleRun(ctx, tx, r); err != nil {
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store oracle runs: %w", err)
		}
		return nil
	})
}

func putOracleRun(ctx context.Context, tx *txn, r *OracleRun) error {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	if r.Role == "" {
		r.Role = RoleVerify
	}
	r.Run.ID = ""
	b, err := json.Marshal(r.Run)
	if err != nil {
		return fmt.Errorf("store oracle run of %s: %w", r.Key, err)
	}
	r.ID, err = tx.insert(ctx, `INSERT INTO oracle_runs (method, workload, args, role, code, created_at, run) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.Key.Method, r.Key.Workload, r.Key.Args, r.Role, r.Code, r.CreatedAt.UnixNano(), string(b))
	if err != nil {
		return fmt.Errorf("store oracle run of %s: %w", r.Key, err)
	}
	r.Run.ID = strconv.FormatInt(r.ID, 10)
	return nil
}

// OracleRuns returns the stored runs of k with the given role ("" = any),
// oldest first.
func (s *Store) OracleRuns(ctx context.Context, k OracleKey, role string) ([]*OracleRun, error) {
	q := `SELECT id, role, code, created_at, run FROM oracle_runs WHERE method = ? AND workload = ? AND args = ?`
	args := []any{k.Method, k.Workload, k.Args}
	if role != "" {
		q += " AND role = ?"
		args = append(args, role)
	}
	return s.oracleRuns(ctx, k, q+" ORDER BY created_at, id", args...)
}

// OracleRunsByID returns the stored runs with the given IDs, in that order.
func (s *Store) OracleRunsByID(ctx context.Context, k OracleKey, ids []string) ([]*OracleRun, error) {
	all, err := s.OracleRuns(ctx, k, "")
	if err != nil {
		return nil, err
	}
	byID := map[string]*OracleRun{}
	for _, r := range all {
		byID[r.Run.ID] = r
	}
	out := make([]*OracleRun, 0, len(ids))
	for _, id := range ids {
		r, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("oracle run %s of %s is no longer stored", id, k)
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *Store) oracleRuns(ctx context.Context, k OracleKey, q string, args ...any) (out []*OracleRun, err error) {
	err = s.run(ctx, func(db *conn) error {
		out = nil
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("read oracle runs of %s: %w", k, err)
		}
		defer rows.Close()
		for rows.Next() {
			r := &OracleRun{Key: k}
			var created int64
			var b string
			if err := rows.Scan(&r.ID, &r.Role, &r.Code, &created, &b); err != nil {
				return fmt.Errorf("read oracle runs of %s: %w", k, err)
			}
			if err := json.Unmarshal([]byte(b), &r.Run); err != nil {
				return fmt.Errorf("read oracle run %d of %s: %w", r.ID, k, err)
			}
			r.CreatedAt = time.Unix(0, created)
			r.Run.ID = strconv.FormatInt(r.ID, 10)
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read oracle runs of %s: %w", k, err)
		}
		return nil
	})
	return out, err
}

// PutOracleModel stores (or replaces) the model of k and bumps the
// revision editors poll.
func (s *Store) PutOracleModel(ctx context.Context, k OracleKey, m *oracle.Model) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("store oracle model of %s: %w", k, err)
	}
	return s.run(ctx, func(db *conn) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store oracle model of %s: %w", k, err)
		}
		defer tx.Rollback() // no-op after Commit
		if _, err := tx.ExecContext(ctx, `INSERT INTO oracle_models (method, workload, args, created_at, model) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (method, workload, args) DO UPDATE SET created_at = excluded.created_at, model = excluded.model`,
			k.Method, k.Workload, k.Args, time.Now().UnixNano(), string(b)); err != nil {
			return fmt.Errorf("store oracle model of %s: %w", k, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE verdict_revision SET rev = rev + 1`); err != nil {
			return fmt.Errorf("store oracle model of %s: %w", k, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store oracle model of %s: %w", k, err)
		}
		return nil
	})
}

// OracleModel returns the model of k, or nil when k is not calibrated.
func (s *Store) OracleModel(ctx context.Context, k OracleKey) (*OracleModel, error) {
	var created int64
	var b string
	found := false
	err := s.run(ctx, func(db *conn) error {
		err := db.QueryRowContext(ctx, `SELECT created_at, model FROM oracle_models WHERE method = ? AND workload = ? AND args = ?`,
			k.Method, k.Workload, k.Args).Scan(&created, &b)
		found = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read oracle model of %s: %w", k, err)
	}
	if !found {
		return nil, nil
	}
	m := &OracleModel{Key: k, CreatedAt: time.Unix(0, created), Model: &oracle.Model{}}
	if err := json.Unmarshal([]byte(b), m.Model); err != nil {
		return nil, fmt.Errorf("read oracle model of %s: %w", k, err)
	}
	return m, nil
}

// OracleModels lists the calibrated workloads (without their bands).
func (s *Store) OracleModels(ctx context.Context) (out []OracleKey, err error) {
	err = s.run(ctx, func(db *conn) error {
		out = nil
		rows, err := db.QueryContext(ctx, `SELECT method, workload, args FROM oracle_models ORDER BY method, workload, args`)
		if err != nil {
			return fmt.Errorf("list oracle models: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k OracleKey
			if err := rows.Scan(&k.Method, &k.Workload, &k.Args); err != nil {
				return fmt.Errorf("list oracle models: %w", err)
			}
			out = append(out, k)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list oracle models: %w", err)
		}
		return nil
	})
	return out, err
}

// PutOracleResult records a classification (of the run with runID, 0 when
// it was not stored) and bumps the revision editors poll.
func (s *Store) PutOracleResult(ctx context.Context, r *OracleResult) error {
	if r.CheckedAt.IsZero() {
		r.CheckedAt = time.Now()
	}
	return s.run(ctx, func(db *conn) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store oracle result of %s: %w", r.Key, err)
		}
		defer tx.Rollback()
		if err := putOracleResult(ctx, tx, r); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store oracle result of %s: %w", r.Key, err)
		}
		return nil
	})
}

// putOracleResult inserts r and bumps the revision, in tx.
func putOracleResult(ctx context.Context, tx *txn, r *OracleResult) error {
	if r.CheckedAt.IsZero() {
		r.CheckedAt = time.Now()
	}
	b, err := json.Marshal(r.Result)
	if err != nil {
		return fmt.Errorf("store oracle result of %s: %w", r.Key, err)
	}
	var runID any
	if r.RunID != 0 {
		runID = r.RunID
	}
	r.ID, err = tx.insert(ctx, `INSERT INTO oracle_results (method, workload, args, run_id, source, checked_at, result) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.Key.Method, r.Key.Workload, r.Key.Args, runID, r.Source, r.CheckedAt.UnixNano(), string(b))
	if err != nil {
		return fmt.Errorf("store oracle result of %s: %w", r.Key, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE verdict_revision SET rev = rev + 1`); err != nil {
		return fmt.Errorf("store oracle result of %s: %w", r.Key, err)
	}
	return nil
}

// LatestOracleResult returns the latest classification of k's runs; nil,
// nil when there is none. When several runs were classified together (the
// forks of one check), it is one of them whose verdict is the batch's
// combined verdict, so a majority of passing forks is not shown as a
// failure (nor the reverse), with Runs and FailedRuns counting the batch.
func (s *Store) LatestOracleResult(ctx context.Context, k OracleKey) (*OracleResult, error) {
	var batch []*OracleResult
	err := s.run(ctx, func(db *conn) error {
		batch = nil
		rows, err := db.QueryContext(ctx, `SELECT id, run_id, source, checked_at, result FROM oracle_results
			WHERE method = ? AND workload = ? AND args = ? AND checked_at = (
				SELECT MAX(checked_at) FROM oracle_results WHERE method = ? AND workload = ? AND args = ?)
			ORDER BY id`,
			k.Method, k.Workload, k.Args, k.Method, k.Workload, k.Args)
		if err != nil {
			return fmt.Errorf("read oracle result of %s: %w", k, err)
		}
		defer rows.Close()
		for rows.Next() {
			r := &OracleResult{Key: k}
			var runID sql.NullInt64
			var checked int64
			var b string
			if err := rows.Scan(&r.ID, &runID, &r.Source, &checked, &b); err != nil {
				return fmt.Errorf("read oracle result of %s: %w", k, err)
			}
			r.RunID, r.CheckedAt = runID.Int64, time.Unix(0, checked)
			if err := json.Unmarshal([]byte(b), &r.Result); err != nil {
				return fmt.Errorf("read oracle result of %s: %w", k, err)
			}
			batch = append(batch, r)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read oracle result of %s: %w", k, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(batch) == 0 {
		return nil, nil
	}
	results := make([]oracle.Result, len(batch))
	failed := 0
	for i, r := range batch {
		results[i] = r.Result
		if r.Result.Verdict == oracle.Fail {
			failed++
		}
	}
	combined := oracle.Combine(results)
	pick := batch[len(batch)-1]
	for _, r := range batch {
		if r.Result.Verdict == combined {
			pick = r
			break
		}
	}
	pick.Runs, pick.FailedRuns = len(batch), failed
	return pick, nil
}

// ErrNotCalibrated is returned when a workload has no stored model.
var ErrNotCalibrated = errors.New("not calibrated")

// Calibrate stores runs as the calibration runs of k, builds a model from
// them with cfg and stores it, replacing any earlier model; measured
// (Model.Measure) says how the runs were measured. Runs stored before stay
// in the cache but no longer belong to the model.
func (s *Store) Calibrate(ctx context.Context, k OracleKey, runs []*OracleRun, cfg oracle.Config, measured map[string]string) (*oracle.Model, error) {
	for _, r := range runs {
		r.Key, r.Role = k, RoleCalibration
	}
	plain := make([]oracle.Run, len(runs))
	for i, r := range runs {
		plain[i] = r.Run
	}
	if _, err := oracle.Calibrate(plain, cfg); err != nil { // refuse before storing anything
		return nil, fmt.Errorf("calibrate %s: %w", k, err)
	}
	if err := s.PutOracleRuns(ctx, runs); err != nil {
		return nil, err
	}
	for i, r := range runs {
		plain[i] = r.Run // now with the stored IDs
	}
	m, err := oracle.Calibrate(plain, cfg)
	if err != nil {
		return nil, fmt.Errorf("calibrate %s: %w", k, err)
	}
	m.Measure = measured
	return m, s.PutOracleModel(ctx, k, m)
}

// RebuildOracleModel rebuilds the model of k from its stored runs with cfg
// (nil: the model's own configuration) without measuring, and stores it.
func (s *Store) RebuildOracleModel(ctx context.Context, k OracleKey, cfg *oracle.Config) (*oracle.Model, error) {
	old, err := s.OracleModel(ctx, k)
	if err != nil {
		return nil, err
	}
	if old == nil {
		return nil, fmt.Errorf("%s: %w", k, ErrNotCalibrated)
	}
	c := old.Model.Config
	if cfg != nil {
		c = *cfg
	}
	return s.rebuild(ctx, k, old.Model.Runs, c, old.Model.Measure)
}

func (s *Store) rebuild(ctx context.Context, k OracleKey, ids []string, cfg oracle.Config, measured map[string]string) (*oracle.Model, error) {
	stored, err := s.OracleRunsByID(ctx, k, ids)
	if err != nil {
		return nil, err
	}
	runs := make([]oracle.Run, len(stored))
	for i, r := range stored {
		runs[i] = r.Run
	}
	m, err := oracle.Calibrate(runs, cfg)
	if err != nil {
		return nil, fmt.Errorf("rebuild the oracle of %s: %w", k, err)
	}
	m.Measure = measured
	return m, s.PutOracleModel(ctx, k, m)
}

// AcceptLatestOracleRun accepts the latest classified run of k as normal
// behaviour (the seed's "accept and re-train", reference §1.2) — all runs of
// it when it was a batch (the forks of one check): they join the model's
// calibration runs and the model is rebuilt with its own configuration. It
// returns the new model and the ID of the run LatestOracleResult shows. It
// fails when k is not calibrated or no classified run is stored, and when
// the run came from another environment (a model spans one environment).
func (s *Store) AcceptLatestOracleRun(ctx context.Context, k OracleKey) (*oracle.Model, int64, error) {
	old, err := s.OracleModel(ctx, k)
	if err != nil {
		return nil, 0, err
	}
	if old == nil {
		return nil, 0, fmt.Errorf("%s: %w", k, ErrNotCalibrated)
	}
	latest, err := s.LatestOracleResult(ctx, k)
	if err != nil {
		return nil, 0, fmt.Errorf("accept the latest run of %s: %w", k, err)
	}
	if latest == nil || latest.RunID == 0 {
		return nil, 0, fmt.Errorf("%s: no verified run to accept (run perfls verify first)", k)
	}
	var batch []int64
	err = s.run(ctx, func(db *conn) error {
		batch = nil
		rows, err := db.QueryContext(ctx, `SELECT r.id FROM oracle_results o JOIN oracle_runs r ON r.id = o.run_id
			WHERE o.method = ? AND o.workload = ? AND o.args = ? AND o.checked_at = ? ORDER BY o.id`,
			k.Method, k.Workload, k.Args, latest.CheckedAt.UnixNano())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			batch = append(batch, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("accept the latest run of %s: %w", k, err)
	}
	have := map[string]bool{}
	for _, id := range old.Model.Runs {
		have[id] = true
	}
	ids := append([]string(nil), old.Model.Runs...)
	var added []int64
	for _, id := range batch {
		if sid := strconv.FormatInt(id, 10); !have[sid] {
			ids = append(ids, sid)
			added = append(added, id)
		}
	}
	if len(added) == 0 {
		return old.Model, latest.RunID, nil // already accepted
	}
	m, err := s.rebuild(ctx, k, ids, old.Model.Config, old.Model.Measure)
	if err != nil {
		return nil, 0, err
	}
	for _, id := range added {
		if err := s.run(ctx, func(db *conn) error {
			_, err := db.ExecContext(ctx, `UPDATE oracle_runs SET role = ? WHERE id = ?`, RoleCalibration, id)
			return err
		}); err != nil {
			return nil, 0, fmt.Errorf("accept run %d of %s: %w", id, k, err)
		}
	}
	return m, latest.RunID, nil
}

// ClassifyAndRecord classifies runs (forks of one measurement) against the
// model of k, stores each run (role verify) and its result from source
// ("verify" or "check"), and returns the results and the combined verdict
// (oracle.Combine). It returns ErrNotCalibrated when k has no model.
func (s *Store) ClassifyAndRecord(ctx context.Context, k OracleKey, runs []oracle.Run, source string) ([]oracle.Result, oracle.Verdict, error) {
	m, err := s.OracleModel(ctx, k)
	if err != nil {
		return nil, "", err
	}
	if m == nil {
		return nil, "", fmt.Errorf("%s: %w", k, ErrNotCalibrated)
	}
	results := make([]oracle.Result, len(runs))
	at := time.Now() // one time for the batch: LatestOracleResult combines it
	err = s.run(ctx, func(db *conn) error {
		// Runs and results in one durable transaction: one disk sync.
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("record oracle results of %s: %w", k, err)
		}
		defer tx.Rollback()
		for i, r := range runs {
			stored := &OracleRun{Key: k, Role: RoleVerify, Run: r}
			if err := putOracleRun(ctx, tx, stored); err != nil {
				return err
			}
			results[i] = oracle.Classify(m.Model, stored.Run)
			if err := putOracleResult(ctx, tx, &OracleResult{Key: k, RunID: stored.ID, Source: source, CheckedAt: at, Result: results[i]}); err != nil {
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("record oracle results of %s: %w", k, err)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return results, oracle.Combine(results), nil
}
