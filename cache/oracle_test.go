package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/perfls/perfls/analysis/oracle"
)

func oracleRun(rng *rand.Rand, mean float64) *OracleRun {
	xs := make([]float64, 30)
	for i := range xs {
		xs[i] = mean + rng.NormFloat64()
	}
	return &OracleRun{Run: oracle.Run{Series: map[string][]float64{"ns_per_op": xs}, Env: map[string]string{"java.version": "17", "pid": fmt.Sprint(rng.IntN(1000))}}}
}

var oKey = OracleKey{Method: "p.A#m(int[])", Workload: "p.A#gen(int)", Args: "100"}

// Calibrate, classify, rebuild with other settings from the stored runs,
// and accept the latest run: the Go API the editor server uses.
func TestOracleCalibrateClassifyRebuildAccept(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		rng := rand.New(rand.NewPCG(4, 4))
		if m, err := s.OracleModel(ctx, oKey); m != nil || err != nil {
			t.Fatalf("no model yet: %v %v", m, err)
		}
		if _, _, err := s.AcceptLatestOracleRun(ctx, oKey); !errors.Is(err, ErrNotCalibrated) {
			t.Errorf("accept without a model: %v", err)
		}
		var runs []*OracleRun
		for i := 0; i < 10; i++ {
			runs = append(runs, oracleRun(rng, 100))
		}
		rev0, _ := s.VerdictsRevision(ctx)
		m, err := s.Calibrate(ctx, oKey, runs, oracle.Config{Window: 5}, map[string]string{"samples": "30"})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Runs) != 10 || m.Runs[0] != fmt.Sprint(runs[0].ID) || !m.Provisional || m.Config.Window != 5 {
			t.Errorf("model runs %v provisional %v window %d", m.Runs, m.Provisional, m.Config.Window)
		}
		stored, err := s.OracleModel(ctx, oKey)
		if err != nil || stored == nil || len(stored.Model.Metrics[0].Bands) != 26 {
			t.Fatalf("stored model %+v %v", stored, err)
		}
		if keys, _ := s.OracleModels(ctx); len(keys) != 1 || keys[0] != oKey {
			t.Errorf("models %v", keys)
		}
		if rev, _ := s.VerdictsRevision(ctx); rev <= rev0 {
			t.Error("storing a model must bump the revision editors poll")
		}

		// A slower run fails; it is stored with its result.
		slow := oracleRun(rng, 150).Run
		res, v, err := s.ClassifyAndRecord(ctx, oKey, []oracle.Run{slow}, "verify")
		if err != nil || v != oracle.Fail || len(res) != 1 {
			t.Fatalf("slow run: %v %v %v", res, v, err)
		}
		latest, err := s.LatestOracleResult(ctx, oKey)
		if err != nil || latest == nil || latest.Result.Verdict != oracle.Fail || latest.RunID == 0 || latest.Source != "verify" {
			t.Fatalf("latest %+v %v", latest, err)
		}

		// A check's forks are one batch: one failing fork of three does not
		// make the latest result a failure, two do.
		ok1, ok2 := oracleRun(rng, 100).Run, oracleRun(rng, 100).Run
		if _, v, err := s.ClassifyAndRecord(ctx, oKey, []oracle.Run{ok1, ok2, slow}, "check"); err != nil || v != oracle.Pass {
			t.Fatalf("batch of two passing forks and a failing one: %v %v", v, err)
		}
		if b, err := s.LatestOracleResult(ctx, oKey); err != nil || b.Result.Verdict != oracle.Pass || b.Runs != 3 || b.FailedRuns != 1 || b.Source != "check" {
			t.Fatalf("latest of a passing batch: %+v %v", b, err)
		}
		if _, v, _ := s.ClassifyAndRecord(ctx, oKey, []oracle.Run{slow, ok1, slow}, "check"); v != oracle.Fail {
			t.Fatalf("two failing forks of three: %v", v)
		}
		latest, err = s.LatestOracleResult(ctx, oKey)
		if err != nil || latest.Result.Verdict != oracle.Fail || latest.Runs != 3 || latest.FailedRuns != 2 || latest.RunID == 0 {
			t.Fatalf("latest of a failing batch: %+v %v", latest, err)
		}

		// Rebuild with other settings, without measuring.
		cfg := m.Config
		cfg.Window, cfg.K = 3, 6
		rb, err := s.RebuildOracleModel(ctx, oKey, &cfg)
		if err != nil || rb.Config.Window != 3 || rb.Config.K != 6 || len(rb.Metrics[0].Bands) != 28 || len(rb.Runs) != 10 || rb.Measure["samples"] != "30" {
			t.Fatalf("rebuilt %+v %v", rb, err)
		}

		// Accept the latest run as the new normal: it joins the model
		acc, id, err := s.AcceptLatestOracleRun(ctx, oKey)
		// (all three forks of the latest check).
		if err != nil || id != latest.RunID || len(acc.Runs) != 13 || acc.Runs[10] != fmt.Sprint(id) || acc.Config.Window != 3 {
			t.Fatalf("accepted %v %d %v", acc.Runs, id, err)
		}
		cal, _ := s.OracleRuns(ctx, oKey, RoleCalibration)
		if len(cal) != 13 {
			t.Errorf("%d calibration runs after accepting, want 13", len(cal))
		}
		if again, _, err := s.AcceptLatestOracleRun(ctx, oKey); err != nil || len(again.Runs) != 13 {
			t.Errorf("accepting twice must not add the run twice: %v %v", again.Runs, err)
		}
		if _, _, err := s.ClassifyAndRecord(ctx, OracleKey{Method: "other"}, []oracle.Run{slow}, "check"); !errors.Is(err, ErrNotCalibrated) {
			t.Errorf("classify without a model: %v", err)
		}
		if err := s.Clear(ctx); err != nil {
			t.Fatal(err)
		}
		if m, _ := s.OracleModel(ctx, oKey); m != nil {
			t.Error("clear must remove oracle models")
		}
	})
}

// A refused calibration (runs from two JVMs) stores nothing.
func TestOracleCalibrateAcrossEnvironmentsStoresNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		rng := rand.New(rand.NewPCG(5, 5))
		a, b := oracleRun(rng, 100), oracleRun(rng, 100)
		b.Run.Env["java.version"] = "21"
		if _, err := s.Calibrate(ctx, oKey, []*OracleRun{a, b}, oracle.Config{}, nil); !errors.Is(err, oracle.ErrEnvMismatch) {
			t.Fatalf("err %v", err)
		}
		if runs, _ := s.OracleRuns(ctx, oKey, ""); len(runs) != 0 {
			t.Errorf("%d runs stored by a refused calibration", len(runs))
		}
	})
}

// TestMigratesSchema3 opens a cache written by schema version 3 (with a
// measurement and a verdict), migrates it and keeps the data; new forks
// keep the JVM state series, old ones read as not measured.
func TestMigratesSchema3(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "perfls.db"))
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 3; v++ {
		if _, err := db.Exec(migrations[v]); err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.Exec(fmt.Sprintf(`PRAGMA user_version = 3; PRAGMA application_id = %d;
		INSERT INTO measurements VALUES (1, 'k', 's', 'm', 'w', 'a', 'c', 'j', 'h', 'x', '{}', 0, 5, 16);
		INSERT INTO forks VALUES (1, 0, x'0000000000005940', x'', x'', x'', 7, 1, 64);
		INSERT INTO verdicts VALUES ('f', 'c', 'm', '', 1, '{"file":"f","class":"c","method":"m"}');
		UPDATE verdict_revision SET rev = 9;`, applicationID))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	var version int
	s.db.QueryRow("PRAGMA user_version").Scan(&version)
	if version != len(migrations) || version < 4 {
		t.Errorf("schema version %d, want %d", version, len(migrations))
	}
	ctx := context.Background()
	m, err := s.Get(ctx, 1)
	if err != nil || len(m.Forks) != 1 || m.Forks[0].NsPerOp[0] != 100 || m.Forks[0].Ops != 64 || m.Forks[0].HeapUsed != nil {
		t.Errorf("migrated measurement %+v %v", m, err)
	}
	if vs, err := s.Verdicts(ctx); err != nil || len(vs) != 1 {
		t.Errorf("verdicts after migration: %v %v", vs, err)
	}
	if rev, _ := s.VerdictsRevision(ctx); rev != 9 {
		t.Errorf("revision %d, want 9", rev)
	}
	k := baseKey
	nm := sampleMeasurement(k, 1, 3)
	nm.Forks[0].HeapUsed = []float64{1e6, 2e6, 3e6}
	nm.Forks[0].Classes = []float64{900, 900, 901}
	nm.Forks[0].ProcCPUNsPerOp = []float64{120, 0, 130}
	nm.Forks[0].Processors = []int64{1, -2, 0}
	if err := s.Put(ctx, nm); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, nm.ID)
	if err != nil || len(got.Forks[0].HeapUsed) != 3 || got.Forks[0].HeapUsed[2] != 3e6 || got.Forks[0].Classes[2] != 901 || got.Forks[0].JITMs != nil {
		t.Errorf("JVM state round trip: %+v %v", got.Forks[0], err)
	}
	if p := got.Forks[0].ProcCPUNsPerOp; len(p) != 3 || p[0] != 120 || p[1] != 0 || p[2] != 130 {
		t.Errorf("process CPU round trip: %v", p)
	}
	if p := got.Forks[0].Processors; fmt.Sprint(p) != "[1 -2 0]" {
		t.Errorf("processors round trip: %v", p)
	}
	if m.Forks[0].ProcCPUNsPerOp != nil || m.Forks[0].Processors != nil {
		t.Errorf("a fork stored before schema 6 has process CPU %v, processors %v", m.Forks[0].ProcCPUNsPerOp, m.Forks[0].Processors)
	}
}

// BenchmarkClassifyAndRecord is what verify and check do per fork once it
// has been measured: load the model, store the run, classify it, store the
// result (durable transactions), with a 30-run model of eight metrics × 30
// samples.
func BenchmarkClassifyAndRecord(b *testing.B) {
	ctx := context.Background()
	s, _, err := OpenStore(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	mk := func() *OracleRun {
		r := oracleRun(rng, 100)
		for _, m := range []string{"cpu_ns_per_op", "alloc_bytes_per_op", "gc_count", "gc_ms", "heap_used", "jit_ms", "classes"} {
			r.Run.Series[m] = r.Run.Series["ns_per_op"]
		}
		return r
	}
	var runs []*OracleRun
	for i := 0; i < 30; i++ {
		runs = append(runs, mk())
	}
	if _, err := s.Calibrate(ctx, oKey, runs, oracle.Config{}, nil); err != nil {
		b.Fatal(err)
	}
	probe := mk().Run
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := s.ClassifyAndRecord(ctx, oKey, []oracle.Run{probe}, "verify"); err != nil {
			b.Fatal(err)
		}
	}
}
