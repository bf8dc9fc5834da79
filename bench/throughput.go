package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"

	"github.com/riverqueue/river/rivertype"

	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/remote"
	"github.com/perfls/perfls/measure/service"
)

// throughputJava is the measured project: one method, measured on a
// different argument by every job, so that no job reuses another's result.
const throughputJava = `package t;
public class W {
    public static long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += (i ^ s) * 31; return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`

// throughputOptions are each job's measurement: small, so that a run of
// both configurations takes a few minutes.
var throughputOptions = measure.Options{Forks: 3, SamplesPerFork: 10}

// throughput prints issue 22's last figure: n independent measurement jobs
// enqueued at once, done by 1 and then by 2 `perfls worker` processes (the
// built binary, each with its own cache directory, as on two machines),
// each configuration on a fresh database of a throwaway local server so
// that nothing is reused; jobs per minute from the first enqueue to the
// last job's end (both the database's clock), the jobs' own run times,
// and the load average around each run.
func throughput(ctx context.Context, n int) error {
	srv, err := pgtest.Start(ctx)
	if err != nil {
		return err
	}
	defer srv.Stop()
	tmp, bin, err := tempPerfls(ctx, "perfls-throughput-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	proj := filepath.Join(tmp, "project")
	if err := os.MkdirAll(filepath.Join(proj, "t"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(proj, "t", "W.java"), []byte(throughputJava), 0o644); err != nil {
		return err
	}
	fmt.Printf("throughput: %d independent jobs (t.W#work on %d arguments, %d forks × %d samples each), perfls worker processes on this machine (%d CPUs)\n",
		n, n, throughputOptions.Forks, throughputOptions.SamplesPerFork, runtime.NumCPU())
	var rate [3]float64
	for _, workers := range []int{1, 2} {
		url, err := srv.NewDatabase(ctx)
		if err != nil {
			return err
		}
		r, err := throughputRun(ctx, bin, filepath.Join(tmp, fmt.Sprintf("run%d", workers)), url, proj, n, workers)
		if err != nil {
			return fmt.Errorf("%d worker(s): %w", workers, err)
		}
		rate[workers] = r
	}
	fmt.Printf("  2 workers / 1 worker: %.2f× the jobs per minute\n", rate[2]/rate[1])
	return nil
}

// throughputRun starts workers worker processes, enqueues n jobs, waits
// for all of them and prints the configuration's figures; it returns its
// jobs per minute.
func throughputRun(ctx context.Context, bin, dir, url, proj string, n, workers int) (float64, error) {
	loadBefore := load1()
	stop, err := startWorkers(ctx, bin, dir, url, workers)
	if err != nil {
		return 0, err
	}
	defer stop()
	svc, err := remote.NewService(ctx, url, "")
	if err != nil {
		return 0, err
	}
	defer svc.Close()
	var ids []int64
	for i := 0; i < n; i++ {
		item := service.Item{Method: methodspec.Spec{Class: "t.W", Name: "work", Params: []string{"int"}},
			Generator: methodspec.Spec{Class: "t.W", Name: "gen", Params: []string{"int"}}, Args: []measured.Arg{measured.IntArg(int64(20000 + 1000*i))}}
		job, _, err := svc.Enqueue(ctx, service.Params{Project: proj, Items: []service.Item{item}, Options: throughputOptions, Priority: service.Batch})
		if err != nil {
			return 0, err
		}
		ids = append(ids, job.ID)
	}
	var rows []*rivertype.JobRow
	for _, id := range ids {
		resp, row, err := svc.Wait(ctx, id, nil)
		if err != nil {
			return 0, err
		}
		if len(resp.Items) != 1 || resp.Items[0].Error != "" || len(resp.Items[0].Forks) != throughputOptions.Forks {
			return 0, fmt.Errorf("job %d measured %+v", id, resp.Items)
		}
		rows = append(rows, row)
	}
	first, last := rows[0].CreatedAt, *rows[0].FinalizedAt
	var runs []float64
	by := map[string]int{}
	for _, r := range rows {
		if r.CreatedAt.Before(first) {
			first = r.CreatedAt
		}
		if r.FinalizedAt.After(last) {
			last = *r.FinalizedAt
		}
		runs = append(runs, r.FinalizedAt.Sub(*r.AttemptedAt).Seconds())
		by[r.AttemptedBy[len(r.AttemptedBy)-1]]++
	}
	sort.Float64s(runs)
	wall := last.Sub(first)
	perMin := float64(n) / wall.Minutes()
	var counts []string
	for _, c := range by {
		counts = append(counts, fmt.Sprint(c))
	}
	sort.Strings(counts)
	fmt.Printf("  %d worker(s): %d jobs in %.1f s = %.1f jobs/min; a job's run %.1f s median (min %.1f, max %.1f); jobs per worker %s; load %s → %s\n",
		workers, n, wall.Seconds(), perMin, runs[len(runs)/2], runs[0], runs[len(runs)-1], strings.Join(counts, "/"), loadBefore, load1())
	return perMin, nil
}

// startWorkers starts n `perfls worker` processes on the store at url,
// each with its own cache directory under dir, and waits until each takes
// jobs. stop sends them SIGTERM (a worker finishes its job and exits) and
// reaps them.
func startWorkers(ctx context.Context, bin, dir, url string, n int) (stop func(), err error) {
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range cmds {
			c.Wait()
		}
	}
	var logs []string
	for i := 0; i < n; i++ {
		wdir := filepath.Join(dir, fmt.Sprint("worker", i))
		if err := os.MkdirAll(wdir, 0o700); err != nil {
			stop()
			return nil, err
		}
		log, err := os.Create(filepath.Join(wdir, "log"))
		if err != nil {
			stop()
			return nil, err
		}
		c := exec.CommandContext(ctx, bin, "worker")
		c.Env = append(os.Environ(), "PERFLS_STORE="+url, "PERFLS_CACHE_DIR="+filepath.Join(wdir, "cache"))
		c.Stdout, c.Stderr = log, log
		c.WaitDelay = time.Minute
		err = c.Start()
		log.Close()
		if err != nil {
			stop()
			return nil, fmt.Errorf("start a worker: %w", err)
		}
		cmds, logs = append(cmds, c), append(logs, log.Name())
	}
	deadline := time.Now().Add(2 * time.Minute)
	for _, l := range logs {
		for {
			b, _ := os.ReadFile(l)
			if strings.Contains(string(b), "taking jobs") {
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				stop()
				return nil, errors.Join(ctx.Err(), fmt.Errorf("a worker did not start: %s", b))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return stop, nil
}

// load1 is the 1-minute load average (loadAverage's first field).
func load1() string { return strings.Fields(loadAverage() + " ?")[0] }
