package cache

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/stats"
)

// summaries collects what Summaries calls back with.
func summaries(t *testing.T, s *Store, method string, after int64) (got []Summary, last int64) {
	t.Helper()
	last, err := s.Summaries(context.Background(), method, after, func(sm *Summary) error {
		got = append(got, *sm)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, last
}

func idsOf(ss []Summary) []int64 {
	var out []int64
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

// The summaries are the complete results with their forks' means, found by
// exact method or by name, in ID order, from an ID on.
func TestSummaries(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		var put []*Measurement
		for i, method := range []string{"p.A#m(int[])", "p.A#m(long)", "p.A#mm(int)", "p.A#m", "p.A#m(int[])"} {
			k := baseKey
			k.Method, k.Code = method, fmt.Sprint("c", i)
			m := sampleMeasurement(k, 3, 5)
			m.Commit = fmt.Sprint("commit", i)
			m.Forks[1].CPUNsPerOp = nil // a fork without CPU time: left out of its means
			put = append(put, m)
		}
		prelim := sampleMeasurement(baseKey, 1, 2)
		prelim.Preliminary = true
		if err := s.PutAll(ctx, append(slices.Clone(put), prelim)); err != nil {
			t.Fatal(err)
		}
		if err := s.SeenAt(ctx, put[0].ID, "commit9"); err != nil {
			t.Fatal(err)
		}
		all, last := summaries(t, s, "", 0)
		if want := []int64{put[0].ID, put[1].ID, put[2].ID, put[3].ID, put[4].ID}; !slices.Equal(idsOf(all), want) || last != prelim.ID {
			t.Fatalf("every summary: IDs %v, last %d; want %v, %d (the preliminary left out)", idsOf(all), last, want, prelim.ID)
		}
		for i, sm := range all {
			m := put[i]
			var ns, cpu []float64
			for _, f := range m.Forks {
				ns = append(ns, stats.Summarize(f.NsPerOp).Mean)
				if len(f.CPUNsPerOp) > 0 {
					cpu = append(cpu, stats.Summarize(f.CPUNsPerOp).Mean)
				}
			}
			if !slices.Equal(sm.NsPerOp, ns) || !slices.Equal(sm.CPUNsPerOp, cpu) || len(sm.AllocBytesPerOp) != 3 || sm.AllocBytesPerOp[0] != 16 {
				t.Errorf("result %d: means %v %v %v; want %v %v [16 16 16]", i, sm.NsPerOp, sm.CPUNsPerOp, sm.AllocBytesPerOp, ns, cpu)
			}
			if k := sm.Series.Key; k.Method != m.Key.Method || k.Machine != m.Key.Machine || sm.Commit != m.Commit || sm.Series.Environment != string(m.Environment) || sm.Dirty {
				t.Errorf("result %d: %+v; want the key, commit and environment of %+v", i, sm, m)
			}
		}
		if !slices.Equal(all[0].SeenAt, []string{"commit9"}) || all[1].SeenAt != nil {
			t.Errorf("seen at %v and %v; want [commit9] and none", all[0].SeenAt, all[1].SeenAt)
		}
		byName, _ := summaries(t, s, "p.A#m", 0)
		if want := []int64{put[0].ID, put[1].ID, put[3].ID, put[4].ID}; !slices.Equal(idsOf(byName), want) {
			t.Errorf("p.A#m: %v; want every overload and p.A#m itself, not p.A#mm: %v", idsOf(byName), want)
		}
		exact, _ := summaries(t, s, "p.A#m(int[])", put[0].ID)
		if want := []int64{put[4].ID}; !slices.Equal(idsOf(exact), want) {
			t.Errorf("p.A#m(int[]) after %d: %v; want %v", put[0].ID, idsOf(exact), want)
		}
		ms, err := s.MeasurementsOf(ctx, "p.A#m")
		if err != nil || len(ms) != len(byName) {
			t.Errorf("MeasurementsOf p.A#m: %d results (%v); Summaries found %d", len(ms), err, len(byName))
		}
	})
}

// storeOfSchema makes an empty store of schema version in dir, as the
// perfls of that version did, and returns it open.
func storeOfSchema(t *testing.T, dir string, version int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "perfls.db"))
	if err != nil {
		t.Fatal(err)
	}
	for v, m := range migrations[:version] {
		if _, err := db.Exec(m + fmt.Sprintf(";PRAGMA user_version = %d; PRAGMA application_id = %d;", v+1, applicationID)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// A store of schema 10 gets the means of its results when it migrates.
func TestMigrationComputesMeans(t *testing.T) {
	dir := t.TempDir()
	db := storeOfSchema(t, dir, 10)
	_, err := db.Exec(`INSERT INTO measurements (id, key_hash, series_hash, method, workload, args, code_fingerprint, jvm, harness, machine, environment, preliminary, created_at, bytes, commit_hash)
		VALUES (1, 'k', 's', 'p.A#m(int)', 'w', 'a', 'c', 'j', 'h', 'x', '{}', 0, 5, 16, 'c1'), (2, 'k', 's', 'p.A#m(int)', 'w', 'a', 'c', 'j', 'h', 'x', '{}', 0, 6, 0, 'c2');
		INSERT INTO forks (measurement_id, fork, ns_per_op, cpu_ns_per_op, alloc_bytes_per_op, gcs, warmup_ns) VALUES (1, 0, ?, x'', ?, x'', 7), (1, 1, ?, x'', ?, x'', 7);`,
		floats([]float64{100, 102}), floats([]float64{8}), floats([]float64{110}), floats([]float64{8}))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	got, _ := summaries(t, s, "p.A#m", 0)
	if len(got) != 2 || !slices.Equal(got[0].NsPerOp, []float64{101, 110}) || got[0].CPUNsPerOp != nil || !slices.Equal(got[0].AllocBytesPerOp, []float64{8, 8}) ||
		got[1].NsPerOp != nil {
		t.Errorf("migrated summaries %+v; want the first with means [101 110], no CPU, alloc [8 8], the second (no forks) with none", got)
	}
}

// A result's commit is its own, else its environment's (older results
// have it there only); the environment says whether the tree was dirty.
func TestSummaryCommitAndDirty(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	old := sampleMeasurement(baseKey, 1, 2)
	old.Environment = []byte(`{"JavaVersion":"17","Commit":"abc","Dirty":true}`)
	own := sampleMeasurement(baseKey, 1, 2)
	own.Commit, own.Environment = "def", []byte(`{"Commit":"abc"}`)
	if err := s.PutAll(ctx, []*Measurement{old, own}); err != nil {
		t.Fatal(err)
	}
	got, _ := summaries(t, s, "", 0)
	if len(got) != 2 || got[0].Commit != "abc" || !got[0].Dirty || got[1].Commit != "def" || got[1].Dirty || got[0].Series != got[1].Series {
		t.Errorf("summaries %+v; want commit abc (dirty), then def (clean), one series", got)
	}
}

// A store of schema 11, as the perfls before schema 12 wrote it, keeps its
// results' means, commits and dirty flags when they move to result_points.
func TestMigrationMovesSchema11Means(t *testing.T) {
	dir := t.TempDir()
	db := storeOfSchema(t, dir, 11)
	// No forks: the means can only come from result_means.
	_, err := db.Exec(`INSERT INTO measurements (id, key_hash, series_hash, method, workload, args, code_fingerprint, jvm, harness, machine, environment, preliminary, created_at, bytes, commit_hash)
		VALUES (1, 'k', 's', 'p.A#m(int)', 'w', 'a', 'c', 'j', 'h', 'x', '{}', 0, 5, 16, 'c1'), (2, 'k', 's', 'p.A#m(int)', 'w', 'a', 'c', 'j', 'h', 'x', '{}', 0, 6, 0, ''),
			(3, 'k2', 's2', 'p.A#m(long)', 'w', 'a', 'c', 'j', 'h', 'x', '{}', 1, 7, 0, 'c3');
		INSERT INTO result_means (measurement_id, series_hash, method_name, commit_hash, dirty, preliminary, ns_means, cpu_means, alloc_means)
		VALUES (1, 's', 'p.A#m', 'c1', 0, 0, ?, x'', ?), (2, 's', 'p.A#m', 'env-commit', 1, 0, ?, ?, x''), (3, 's2', 'p.A#m', 'c3', 0, 1, x'', x'', x'');`,
		floats([]float64{101, 110}), floats([]float64{8, 8}), floats([]float64{200}), floats([]float64{190}))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	got, last := summaries(t, s, "p.A#m", 0)
	if len(got) != 2 || last != 3 {
		t.Fatalf("migrated summaries %+v, last %d; want results 1 and 2 (3 is preliminary), last 3", got, last)
	}
	if g := got[0]; g.ID != 1 || g.Commit != "c1" || g.Dirty || !slices.Equal(g.NsPerOp, []float64{101, 110}) || g.CPUNsPerOp != nil || !slices.Equal(g.AllocBytesPerOp, []float64{8, 8}) {
		t.Errorf("result 1: %+v", g)
	}
	if g := got[1]; g.ID != 2 || g.Commit != "env-commit" || !g.Dirty || !slices.Equal(g.NsPerOp, []float64{200}) || !slices.Equal(g.CPUNsPerOp, []float64{190}) || g.AllocBytesPerOp != nil {
		t.Errorf("result 2: %+v", g)
	}
	var tables int
	if err := s.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'result_means'").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("result_means still there (%d, %v)", tables, err)
	}
}

// Two series sharing a number in result_points are still told apart.
func TestSummariesSeriesSharingANumber(t *testing.T) {
	defer func(old func(string) int64) { seriesRef = old }(seriesRef)
	seriesRef = func(string) int64 { return 7 }
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		var put []*Measurement
		for i := range 4 {
			k := baseKey
			k.Workload = fmt.Sprint("w", i%2)
			put = append(put, sampleMeasurement(k, 2, 3))
		}
		if err := s.PutAll(ctx, put); err != nil {
			t.Fatal(err)
		}
		for _, method := range []string{"", baseKey.Method} {
			got, _ := summaries(t, s, method, 0)
			if len(got) != 4 {
				t.Fatalf("%q: %d summaries, want 4", method, len(got))
			}
			for i, sm := range got {
				if sm.Series.Key.Workload != put[i].Key.Workload || sm.Series != got[i%2].Series || got[0].Series == got[1].Series {
					t.Errorf("%q: result %d in the series of %q; want %q", method, i, sm.Series.Key.Workload, put[i].Key.Workload)
				}
			}
		}
	})
}

// A point decodes to what was encoded; any shorter or longer bytes are an
// error, never a crash.
func TestPointEncoding(t *testing.T) {
	b := encodePoint("abc123", true, []float64{1.5, 2}, nil, []float64{8})
	var sm Summary
	if err := decodePoint(b, &sm, interner{}, &slab{}); err != nil || sm.Commit != "abc123" || !sm.Dirty || !slices.Equal(sm.NsPerOp, []float64{1.5, 2}) ||
		sm.CPUNsPerOp != nil || !slices.Equal(sm.AllocBytesPerOp, []float64{8}) {
		t.Fatalf("decoded %+v, %v", sm, err)
	}
	for n := range len(b) {
		if err := decodePoint(b[:n], &sm, interner{}, &slab{}); err == nil {
			t.Errorf("the first %d of %d bytes decoded", n, len(b))
		}
	}
	if err := decodePoint(append(b, 0), &sm, interner{}, &slab{}); err == nil {
		t.Error("a byte too many decoded")
	}
}

// A point that does not decode (a damaged or foreign store) is an error
// naming the result and the store, and what checks it.
func TestSummariesMalformedPoint(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	m := sampleMeasurement(baseKey, 2, 3)
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec("UPDATE result_points SET point = x'0005'"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Summaries(ctx, "", 0, func(*Summary) error { return nil })
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("result %d of %s", m.ID, s.Path())) || !strings.Contains(err.Error(), "perfls cache verify") {
		t.Errorf("error %v", err)
	}
}
