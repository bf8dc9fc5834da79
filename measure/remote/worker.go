package remote

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/redact"
	"github.com/perfls/perfls/measure/service"
)

// Job time limits: a job runs at most JobTimeout; one whose worker died is
// given to another worker RescueAfter after it started.
const (
	JobTimeout  = 2 * time.Hour
	RescueAfter = JobTimeout + 15*time.Minute
)

// WorkerConfig configures RunWorker.
type WorkerConfig struct {
	URL      string       // the store's PostgreSQL URL: the queue is in the same database
	Label    string       // take the jobs asking for this label ("" = unlabelled ones)
	CacheDir string       // compiled projects and harnesses; unpacked sources under remote/
	Store    *cache.Store // where results go: the shared store
	Logf     func(format string, args ...any)
	// rescueAfter overrides RescueAfter (tests).
	rescueAfter time.Duration
}

// RunWorker takes measurement jobs from the queue, one at a time, until
// ctx ends; then it lets the running job finish for up to a minute.
func RunWorker(ctx context.Context, cfg WorkerConfig) error {
	queue, err := Queue(cfg.Label)
	if err != nil {
		return err
	}
	pool, err := connect(ctx, cfg.URL)
	if err != nil {
		return err
	}
	defer pool.Close()
	local := service.NewLocal(ctx, cfg.CacheDir, cfg.Store, 1)
	defer local.Close()
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{pool: pool, local: local, workDir: filepath.Join(cfg.CacheDir, "remote"), cacheDir: cfg.CacheDir, logf: cfg.Logf})
	rescue := cfg.rescueAfter
	if rescue == 0 {
		rescue = RescueAfter
	}
	timeout := JobTimeout
	if timeout >= rescue {
		timeout = rescue / 2
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:               map[string]river.QueueConfig{queue: {MaxWorkers: 1}},
		Workers:              workers,
		JobTimeout:           timeout,
		RescueStuckJobsAfter: rescue,
		FetchCooldown:        20 * time.Millisecond,
		Logger:               quiet(),
	})
	if err != nil {
		return fmt.Errorf("worker: %w", redact.Error(cfg.URL, err))
	}
	if err := client.Start(ctx); err != nil {
		return fmt.Errorf("worker: %w", redact.Error(cfg.URL, err))
	}
	cfg.Logf("taking jobs from queue %s in %s", queue, redact.Address(cfg.URL))
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := client.Stop(stop); err != nil {
		return client.StopAndCancel(context.WithoutCancel(ctx))
	}
	return nil
}

// unpack writes the archive (verified against sum) into its own
// directory, once: the next job on the same sources finds it, and its
// compiled classes, there.
func (w *worker) unpack(data []byte, sum string) (string, error) {
	dir := filepath.Join(w.workDir, sum[:16])
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(w.workDir+"-tmp", "")
	if err != nil {
		if err = os.MkdirAll(w.workDir+"-tmp", 0o700); err == nil {
			tmp, err = os.MkdirTemp(w.workDir+"-tmp", "")
		}
		if err != nil {
			return "", err
		}
	}
	if err := Unpack(data, sum, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o600)
	os.MkdirAll(w.workDir, 0o700)
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(filepath.Join(dir, ".complete")); serr == nil {
			return dir, nil // another worker process unpacked it meanwhile
		}
		return "", err
	}
	return dir, nil
}
