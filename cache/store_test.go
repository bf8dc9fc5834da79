package cache

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// open opens the store at loc: a SQLite cache directory or a PostgreSQL
// URL (eachBackend's locations).
func open(t *testing.T, loc string) *Store {
	t.Helper()
	var s *Store
	var notice string
	var err error
	if IsPostgresURL(loc) {
		s, notice, err = Open(context.Background(), loc, "")
	} else {
		s, notice, err = OpenStore(context.Background(), loc)
	}
	if err != nil {
		t.Fatal(err)
	}
	if notice != "" {
		t.Fatalf("unexpected notice: %s", notice)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sampleMeasurement(k Key, forks, samples int) *Measurement {
	m := &Measurement{Key: k, Environment: []byte(`{"java_version":"17"}`)}
	for f := 0; f < forks; f++ {
		fk := Fork{Warmup: time.Duration(1000 * (f + 1))}
		for i := 0; i < samples; i++ {
			fk.NsPerOp = append(fk.NsPerOp, float64(100+f)+float64(i)/1000)
			fk.CPUNsPerOp = append(fk.CPUNsPerOp, 99)
			fk.AllocBytesPerOp = append(fk.AllocBytesPerOp, 16)
			fk.GCs = append(fk.GCs, int64(i%3))
		}
		m.Forks = append(m.Forks, fk)
	}
	return m
}

var baseKey = Key{Method: "p.A#m(int[])", Workload: "p.A#gen(int)", Args: "100", Code: "c1", JVM: "17 -Xmx1g", Harness: "1", Machine: "cpu x4"}

func TestPutLookupStaleAndHistory(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		if m, stale, err := s.Lookup(ctx, baseKey); m != nil || stale || err != nil {
			t.Fatalf("empty store: %v %v %v", m, stale, err)
		}
		first := sampleMeasurement(baseKey, 3, 50)
		first.CreatedAt = time.Unix(100, 0)
		if err := s.Put(ctx, first); err != nil {
			t.Fatal(err)
		}
		got, stale, err := s.Lookup(ctx, baseKey)
		if err != nil || stale || got == nil || got.ID != first.ID {
			t.Fatalf("lookup: %+v stale=%v err=%v", got, stale, err)
		}
		if len(got.Forks) != 3 || len(got.Forks[2].NsPerOp) != 50 || got.Forks[2].NsPerOp[1] != 102.001 || got.Forks[1].GCs[2] != 2 || got.Forks[0].Warmup != 1000 {
			t.Errorf("raw data not kept exactly: %+v", got.Forks[2])
		}
		if string(got.Environment) != `{"java_version":"17"}` || got.Key != baseKey {
			t.Errorf("key or environment: %+v", got)
		}

		// The code changed: the old result is stale, not hidden.
		edited := baseKey
		edited.Code = "c2"
		got, stale, _ = s.Lookup(ctx, edited)
		if got == nil || !stale || got.ID != first.ID {
			t.Errorf("after a code change: %+v stale=%v", got, stale)
		}
		second := sampleMeasurement(edited, 2, 10)
		second.CreatedAt = time.Unix(200, 0)
		s.Put(ctx, second)
		if got, stale, _ = s.Lookup(ctx, edited); got.ID != second.ID || stale {
			t.Errorf("fresh after re-measuring: %+v stale=%v", got, stale)
		}
		// Preliminary figures never answer a lookup.
		prelim := sampleMeasurement(edited, 1, 5)
		prelim.Preliminary = true
		s.Put(ctx, prelim)
		if got, _, _ = s.Lookup(ctx, edited); got.ID != second.ID {
			t.Errorf("a preliminary figure answered a lookup")
		}
		// Previous measurements of the same key (same code) are its run history;
		// measurements of other code are not.
		third := sampleMeasurement(edited, 2, 10)
		third.CreatedAt = time.Unix(300, 0)
		s.Put(ctx, third)
		prev, err := s.Previous(ctx, edited, third.ID, 10)
		if err != nil || len(prev) != 1 || prev[0].ID != second.ID {
			t.Errorf("previous of the edited code: %v %v", prev, err)
		}
		// Another machine is another series.
		other := baseKey
		other.Machine = "cpu y8"
		if got, _, _ := s.Lookup(ctx, other); got != nil {
			t.Errorf("another machine's result matched: %+v", got)
		}
	})
}

func TestCorruptAndForeignFilesAreSetAside(t *testing.T) {
	ctx := context.Background()
	for name, prepare := range map[string]func(path string) error{
		"garbage": func(path string) error {
			return os.WriteFile(path, []byte(strings.Repeat("this is not sqlite ", 500)), 0o600)
		},
		"foreign sqlite": func(path string) error {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				return err
			}
			defer db.Close()
			_, err = db.Exec("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('keep me')")
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "perfls.db")
			if err := prepare(path); err != nil {
				t.Fatal(err)
			}
			s, notice, err := OpenStore(ctx, dir)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer s.Close()
			if !strings.Contains(notice, "moved to") {
				t.Errorf("notice %q", notice)
			}
			if err := s.Put(ctx, sampleMeasurement(baseKey, 1, 3)); err != nil {
				t.Errorf("the new store does not work: %v", err)
			}
			aside, _ := filepath.Glob(path + ".unusable-*")
			if len(aside) == 0 {
				t.Errorf("the old file was not kept aside")
			}
		})
	}
}

func TestGCKeepsNewestOfEverySeries(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		var newest []int64
		for series := 0; series < 3; series++ {
			k := baseKey
			k.Args = strconv.Itoa(series)
			for i := 0; i < 4; i++ {
				m := sampleMeasurement(k, 1, 100)
				m.CreatedAt = time.Unix(int64(10*series+i), 0)
				s.Put(ctx, m)
				if i == 3 {
					newest = append(newest, m.ID)
				}
			}
		}
		removed, err := s.GC(ctx, 1, true) // far below what is stored
		if err != nil || removed != 9 {
			t.Fatalf("gc removed %d, err %v; want the 9 older measurements", removed, err)
		}
		entries, _ := s.List(ctx)
		if len(entries) != 3 {
			t.Fatalf("%d left: %+v", len(entries), entries)
		}
		for _, e := range entries {
			found := false
			for _, id := range newest {
				found = found || e.ID == id
			}
			if !found {
				t.Errorf("kept %d, not a newest one", e.ID)
			}
			if _, err := s.Get(ctx, e.ID); err != nil {
				t.Error(err)
			}
		}
		var forks int
		s.db.QueryRow("SELECT count(*) FROM forks").Scan(&forks)
		if forks != 3 {
			t.Errorf("%d fork rows left; deleting a measurement must delete its forks", forks)
		}
	})
}

// Newest lists a page of the newest measurements and says how many there
// are; a limit of 0 lists them all, as List does.
func TestNewestPage(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		s := open(t, newLocation(t))
		for i := 0; i < 5; i++ {
			k := baseKey
			k.Args = strconv.Itoa(i)
			m := sampleMeasurement(k, 2, 3)
			m.CreatedAt = time.Unix(int64(100+i), 0)
			if err := s.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		page, total, err := s.Newest(ctx, 2)
		if err != nil || total != 5 || len(page) != 2 || page[0].Key.Args != "4" || page[1].Key.Args != "3" || page[0].Forks != 2 {
			t.Fatalf("newest 2: %+v of %d, %v; want args 4 and 3 (2 forks each) of 5", page, total, err)
		}
		all, total, err := s.Newest(ctx, 0)
		if err != nil || total != 5 || len(all) != 5 || all[4].Key.Args != "0" {
			t.Fatalf("all: %d of %d, %v", len(all), total, err)
		}
	})
}

// Free pages a dropped table left (as the schema 12 migration's) go back
// to the disk with gc's compaction though nothing is evicted; a few free
// pages do not make gc rewrite the file.
func TestGCCompactsAFileMostlyFree(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	size := func() int64 {
		t.Helper()
		if _, err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	if err := s.Put(ctx, sampleMeasurement(baseKey, 1, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(ctx, 1<<40, true); err != nil { // nothing to evict, nothing free
		t.Fatal(err)
	}
	small := size()
	if _, err := s.db.Exec("CREATE TABLE old_rows (v BLOB)"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := s.db.Exec("INSERT INTO old_rows VALUES (zeroblob(16384))"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.Exec("DROP TABLE old_rows"); err != nil {
		t.Fatal(err)
	}
	grown := size()
	if _, err := s.GC(ctx, 1<<40, false); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != grown {
		t.Errorf("gc without compaction: %d bytes, want the file left at %d", got, grown)
	}
	if n, err := s.GC(ctx, 1<<40, true); err != nil || n != 0 {
		t.Fatalf("gc: %d removed, %v", n, err)
	}
	if got := size(); got >= grown || got > 2*small {
		t.Errorf("after compacting: %d bytes (%d before, %d without the dropped table)", got, grown, small)
	}
	if _, err := s.Get(ctx, 1); err != nil {
		t.Errorf("the measurement after compacting: %v", err)
	}
}

// TestConcurrentWriters has two stores on one file (as two editors and a
// CLI would) write and read at once.
func TestConcurrentWriters(t *testing.T) {
	eachBackend(t, func(t *testing.T, newLocation func(*testing.T) string) {
		ctx := context.Background()
		dir := newLocation(t)
		stores := []*Store{open(t, dir), open(t, dir), open(t, dir)}
		var wg sync.WaitGroup
		errs := make(chan error, 300)
		for w, s := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 30; i++ {
					k := baseKey
					k.Args = fmt.Sprintf("%d-%d", w, i)
					if err := s.Put(ctx, sampleMeasurement(k, 2, 20)); err != nil {
						errs <- err
						return
					}
					if m, _, err := s.Lookup(ctx, k); err != nil || m == nil {
						errs <- fmt.Errorf("read own write %s: %v", k.Args, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if entries, _ := stores[0].List(ctx); len(entries) != 90 {
			t.Errorf("%d measurements, want 90", len(entries))
		}
	})
}

// TestKillDuringWrites SIGKILLs a process that writes measurements at random
// moments, then checks the database is intact and holds every measurement
// the writer reported as committed.
func TestKillDuringWrites(t *testing.T) {
	if os.Getenv("PERFLS_CACHE_WRITER") != "" {
		writer(os.Getenv("PERFLS_CACHE_WRITER"))
		return
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 8))
	committed := map[int64]bool{}
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringWrites$")
		cmd.Env = append(os.Environ(), "PERFLS_CACHE_WRITER="+dir)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		deadline := time.After(time.Duration(50+rng.IntN(400)) * time.Millisecond)
	collect:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break collect
				}
				if id, err := strconv.ParseInt(strings.TrimPrefix(l, "committed "), 10, 64); err == nil {
					committed[id] = true
				}
			case <-deadline:
				cmd.Process.Signal(syscall.SIGKILL)
				for l := range lines { // what it printed before dying
					if id, err := strconv.ParseInt(strings.TrimPrefix(l, "committed "), 10, 64); err == nil {
						committed[id] = true
					}
				}
				break collect
			}
		}
		cmd.Wait()
	}
	s := open(t, dir)
	var check string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	if len(committed) == 0 {
		t.Fatal("the writer committed nothing; the test proves nothing")
	}
	for id := range committed {
		m, err := s.Get(context.Background(), id)
		if err != nil || len(m.Forks) != 3 || len(m.Forks[2].NsPerOp) != 2000 {
			t.Errorf("committed measurement %d lost or torn: %v", id, err)
		}
	}
	t.Logf("%d committed measurements survived 8 SIGKILLs", len(committed))
}

func writer(dir string) {
	s, _, err := OpenStore(context.Background(), dir)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		k := baseKey
		k.Args = strconv.Itoa(i)
		m := sampleMeasurement(k, 3, 2000)
		if err := s.Put(context.Background(), m); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Printf("committed %d\n", m.ID)
	}
}

// TestMigratesOlderSchema opens a cache written by schema version 1 and
// reads its measurements after the migration.
func TestMigratesOlderSchema(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "perfls.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(migrations[0] + fmt.Sprintf(";PRAGMA user_version = 1; PRAGMA application_id = %d;", applicationID) +
		`INSERT INTO measurements VALUES (1, 'k', 's', 'm', 'w', 'a', 'c', 'j', 'h', 'x', '{}', 0, 5, 16);
		 INSERT INTO forks VALUES (1, 0, x'0000000000005940', x'', x'', x'', 7);`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	var version int
	s.db.QueryRow("PRAGMA user_version").Scan(&version)
	if version != len(migrations) {
		t.Errorf("schema version %d, want %d", version, len(migrations))
	}
	m, err := s.Get(context.Background(), 1)
	if err != nil || len(m.Forks) != 1 || m.Forks[0].NsPerOp[0] != 100 || m.Forks[0].Warmup != 7 || m.Forks[0].WarmupSettled != -1 {
		t.Errorf("migrated measurement %+v %v", m, err)
	}
}
