package cache

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"
)

// On PostgreSQL a measurement's ID comes from a sequence when it is
// inserted, but others see it only when its transaction commits: a result
// with a lower ID can become visible after one with a higher ID. A poller
// that asked from its highest ID would never read it; one that asks again
// from a window below that ID and skips what it has (the editor's
// RegressionWatch, engine/regressions_watch.go, with 256 IDs) reads it once.
// Real PostgreSQL, two real transactions: the late one is held open by a
// trigger on its fork rows that waits for an advisory lock the test holds.
func TestMeasurementsOfAfterOutOfIDOrderPostgres(t *testing.T) {
	url := newPostgres(t)
	ctx := context.Background()
	s := open(t, url)
	early := sampleMeasurement(baseKey, 1, 3)
	if err := s.Put(ctx, early); err != nil { // also migrates: the forks table exists
		t.Fatal(err)
	}

	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder, err := db.Conn(ctx) // one session holds the lock throughout
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	for _, q := range []string{
		`CREATE FUNCTION hold_late() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF (SELECT args FROM measurements WHERE id = NEW.measurement_id) = 'late' THEN
				PERFORM pg_advisory_xact_lock_shared(4242);
			END IF;
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER hold_late BEFORE INSERT ON forks FOR EACH ROW EXECUTE FUNCTION hold_late()`,
		`SELECT pg_advisory_lock(4242)`,
	} {
		if _, err := holder.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	released := false
	release := func() {
		if !released {
			released = true
			if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_unlock(4242)`); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer release()

	lateKey := baseKey
	lateKey.Args = "late"
	late := sampleMeasurement(lateKey, 2, 3)
	lateDone := make(chan error, 1)
	go func() { lateDone <- s.Put(ctx, late) }()
	// Wait until the late insert has taken its ID and waits on the lock.
	for deadline := time.Now().Add(time.Minute); ; {
		var waiting int
		if err := holder.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case err := <-lateDone:
			t.Fatalf("the late result was stored without waiting (%v): the trigger did not hold it", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the late result's transaction never reached the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	onTime := sampleMeasurement(baseKey, 1, 3)
	if err := s.Put(ctx, onTime); err != nil {
		t.Fatal(err)
	}

	// A poller's first look: the on-time result, not the late one, whose
	// ID is lower but whose transaction is still open.
	seen := map[int64]bool{}
	var placed int64
	look := func(after int64) []int64 {
		t.Helper()
		ms, _, err := s.MeasurementsOfAfter(ctx, "p.A#m", after, func(id int64) bool { return seen[id] })
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, m := range ms {
			got = append(got, m.ID)
			seen[m.ID] = true
			placed = max(placed, m.ID)
		}
		return got
	}
	if got := look(0); !slices.Equal(got, []int64{early.ID, onTime.ID}) {
		t.Fatalf("first look: %v, want %v (early, on time)", got, []int64{early.ID, onTime.ID})
	}

	release()
	if err := <-lateDone; err != nil {
		t.Fatal(err)
	}
	if !(early.ID < late.ID && late.ID < onTime.ID) {
		t.Fatalf("IDs early %d, late %d, on time %d: the late result did not take its ID before the on-time one", early.ID, late.ID, onTime.ID)
	}
	// Asking only above the highest ID placed misses the late result for
	// good; asking from the window below it, skipping what was placed,
	// reads it, once.
	if ms, _, err := s.MeasurementsOfAfter(ctx, "p.A#m", placed, nil); err != nil || len(ms) != 0 {
		t.Errorf("above the highest ID placed: %d results (%v), want none", len(ms), err)
	}
	const window = 256 // engine's reorderWindow
	if got := look(max(0, placed-window)); !slices.Equal(got, []int64{late.ID}) {
		t.Errorf("second look from %d: %v, want the late result %d", max(0, placed-window), got, late.ID)
	}
	if got := look(max(0, placed-window)); len(got) != 0 {
		t.Errorf("third look: %v again, want nothing new", got)
	}
	ms, _, err := s.MeasurementsOfAfter(ctx, "p.A#m", late.ID-1, nil)
	if err != nil || len(ms) == 0 || ms[0].Key != lateKey || len(ms[0].Forks) != 2 {
		t.Errorf("the late result read back: %v", err)
	}
}
