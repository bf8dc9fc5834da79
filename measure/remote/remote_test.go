package remote

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/methodspec"

	"github.com/riverqueue/river/rivertype"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	fixture.WriteFiles(t, dir, files)
	return dir
}

// The same sources give the same archive wherever they are; build
// outputs and version control are left out; any source change is another
// archive; Unpack refuses bytes that are not the named archive.
func TestPackIsContentAddressed(t *testing.T) {
	src := map[string]string{"p/A.java": "class A {}", "perfls.json": "{}"}
	a := writeTree(t, src)
	b := writeTree(t, map[string]string{"p/A.java": "class A {}", "perfls.json": "{}", "target/classes/p/A.class": "x", ".git/HEAD": "ref"})
	da, sa, err := Pack(a)
	if err != nil {
		t.Fatal(err)
	}
	_, sb, _ := Pack(b)
	if sa != sb {
		t.Errorf("same sources, archives %s and %s", sa, sb)
	}
	_, sc, _ := Pack(writeTree(t, map[string]string{"p/A.java": "class A { }", "perfls.json": "{}"}))
	if sc == sa {
		t.Error("a changed source, the same archive")
	}
	out := t.TempDir()
	if err := Unpack(da, sa, out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "p", "A.java")); string(b) != "class A {}" {
		t.Errorf("unpacked %q", b)
	}
	if _, err := os.Stat(filepath.Join(out, "target")); err == nil {
		t.Error("build output unpacked")
	}
	if err := Unpack(da, sc, t.TempDir()); !errors.Is(err, errFingerprint) {
		t.Errorf("wrong fingerprint: %v", err)
	}
	// An entry leaving the directory is refused.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "../evil", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("x"))
	tw.Close()
	zw.Close()
	h := sha256.Sum256(buf.Bytes())
	parent := t.TempDir()
	if err := Unpack(buf.Bytes(), hex.EncodeToString(h[:]), filepath.Join(parent, "in")); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("traversal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "evil")); err == nil {
		t.Error("a file was written outside the directory")
	}
}

func TestQueueNames(t *testing.T) {
	if q, err := Queue(""); q != "perfls" || err != nil {
		t.Errorf("%q %v", q, err)
	}
	if q, err := Queue("quiet-x86"); q != "perfls_quiet-x86" || err != nil {
		t.Errorf("%q %v", q, err)
	}
	if _, err := Queue("Quiet x86; drop"); err == nil {
		t.Error("a bad label was accepted")
	}
}

// Through a real server: identical requests in flight merge into one job;
// a worker answers code that does not compile with the compiler's
// messages (completed, not retried); a job whose sources are missing is
// cancelled, not retried.
func TestQueue(t *testing.T) {
	ctx, url, svc := newQueue(t, "t1", 2*time.Minute)
	proj := writeTree(t, map[string]string{"p/A.java": "package p; public class A { int x = ; }"})
	item := service.Item{Method: methodspec.Spec{Class: "p.A", Name: "m"}}
	p := service.Params{Project: proj, Items: []service.Item{item}, Options: measure.Options{Forks: 1, SamplesPerFork: 2}}
	j1, err := svc.EnqueueArchive(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	j2, err := svc.EnqueueArchive(ctx, p)
	if err != nil || j2.ID != j1.ID {
		t.Errorf("the same request in flight: jobs %d and %v (%v)", j1.ID, j2, err)
	}
	// Its sources vanish from the store before a worker takes it.
	missing, _ := svc.EnqueueArchive(ctx, service.Params{Project: writeTree(t, map[string]string{"B.java": "class B {}"})})
	_, keep, _ := Pack(proj)
	if _, err := svc.pool.Exec(ctx, "DELETE FROM perfls_archives WHERE sha256 <> $1", keep); err != nil {
		t.Fatal(err)
	}

	startWorker(ctx, t, url, WorkerConfig{Label: "t1"})
	resp, job, err := svc.Wait(ctx, j1.ID, func(p service.Progress) { t.Log(p.Message) })
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.CompileErrors) == 0 || job.Attempt != 1 {
		t.Errorf("response %+v after %d attempts, want the compiler's messages at once", resp, job.Attempt)
	}
	_, job, err = svc.Wait(ctx, missing.ID, nil)
	if err == nil || job.State != rivertype.JobStateCancelled || job.Attempt != 1 || !strings.Contains(err.Error(), "not in the store") {
		t.Errorf("missing sources: %v, job %+v", err, job)
	}
}

// A job whose worker was killed while running it (left running, taken long
// ago) is rescued and done by another worker.
func TestKilledWorkersJobIsRescued(t *testing.T) {
	ctx, url, svc := newQueue(t, "", 2*time.Minute)
	proj := writeTree(t, map[string]string{"p/A.java": "package p; public class A { int x = ; }"})
	job, err := svc.EnqueueArchive(ctx, service.Params{Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	// What a worker killed mid-job leaves behind.
	if _, err := svc.pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '1 hour',
		attempted_by = '{killed-worker}' WHERE id = $1`, job.ID); err != nil {
		t.Fatal(err)
	}
	startWorker(ctx, t, url, WorkerConfig{rescueAfter: 10 * time.Minute})
	resp, row, err := svc.Wait(ctx, job.ID, func(p service.Progress) { t.Log(p.Message) })
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.CompileErrors) == 0 || row.Attempt != 2 || row.AttemptedBy[len(row.AttemptedBy)-1] == "killed-worker" {
		t.Errorf("attempt %d by %v, response %+v", row.Attempt, row.AttemptedBy, resp)
	}
}

// startWorker runs a worker on the database at url, with a store of its
// own and cfg's other settings (a cache directory of the test's when
// none), until the test ends; an error it returns fails the test.
func startWorker(ctx context.Context, t *testing.T, url string, cfg WorkerConfig) {
	t.Helper()
	store, _, err := cache.Open(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.URL, cfg.Store = url, store
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	if cfg.CacheDir == "" {
		cfg.CacheDir = t.TempDir()
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- RunWorker(wctx, cfg) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
		store.Close()
	})
}

// newQueue gives a test a database of its own on the throwaway server, a
// Service on its queue for workers labelled label (closed when the test
// ends) and a context that ends within timeout.
func newQueue(t *testing.T, label string, timeout time.Duration) (context.Context, string, *Service) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	url := pgtest.NewTestDatabase(t)
	svc, err := NewService(ctx, url, label)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return ctx, url, svc
}
