package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/report/htmlreport"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/measure/remote"
	"github.com/perfls/perfls/measure/revision"
	"github.com/perfls/perfls/measure/service"
)

// ErrMethodName is a history request's method that names no class.
var ErrMethodName = errors.New("--method wants pkg.Class#method, e.g. quickstart.Search#binarySearch")

// MethodHistory lists every stored result of a method ("pkg.Class#m", or
// with its parameters "pkg.Class#m(int[])"), oldest first: its figures
// over commits and machines, from the store the engine uses (a team's
// shared store holds every machine's).
func (e *Engine) MethodHistory(ctx context.Context, method string) ([]report.HistoryRow, error) {
	if !strings.Contains(method, "#") || strings.HasPrefix(method, "#") {
		return nil, ErrMethodName
	}
	store, err := e.Store()
	if err != nil {
		return nil, err
	}
	ms, err := store.MeasurementsOf(ctx, method)
	if err != nil {
		return nil, err
	}
	rows := make([]report.HistoryRow, 0, len(ms))
	for _, m := range ms {
		env := environmentOf(m)
		k := m.Key
		row := report.HistoryRow{ID: m.ID, MeasuredAt: m.CreatedAt, Method: k.Method, Workload: k.Workload, Args: k.Args,
			Commit: env.Commit, Dirty: env.Dirty, Code: short(k.Code, 12), Machine: k.Machine,
			JVM: strings.TrimSpace(env.JavaVendor + " " + env.JavaVersion), Perfls: env.Perfls, Forks: len(m.Forks), Review: m.Review}
		var means []float64
		for _, f := range m.Forks {
			if len(f.NsPerOp) > 0 {
				means = append(means, stats.Summarize(f.NsPerOp).Mean)
				row.Samples += len(f.NsPerOp)
			}
		}
		s := stats.Summarize(means)
		row.MeanNs = s.Mean
		if lo, hi := stats.MeanCI(s, 0.95); !math.IsNaN(lo) {
			row.CILowNs, row.CIHighNs = lo, hi
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// HistoryPage renders rows (MethodHistory's) as perfls history --html's
// page: the results over the first-parent line of HEAD in the repository
// holding dir, one series per machine class and JVM; outside a git work
// tree the commits are in the order of their first result. args are the
// command's arguments after "perfls", shown on the page.
func (e *Engine) HistoryPage(ctx context.Context, dir, method string, rows []report.HistoryRow, args []string) ([]byte, error) {
	var line []string
	repo, err := revision.Open(ctx, dir)
	if err == nil {
		var head string
		if head, err = repo.Resolve(ctx, "HEAD"); err == nil {
			line, err = repo.Line(ctx, head)
		}
	}
	if err != nil && !revision.IsNotRepo(err) && !revision.IsUnknown(err) { // outside git, or no commit yet
		return nil, fmt.Errorf("the commits of %s: %w", dir, err)
	}
	p := report.PlaceHistory(method, rows, line)
	for i, c := range p.Commits {
		if repo != nil {
			p.Commits[i].Subject = repo.Subject(ctx, c.Commit)
		}
	}
	return htmlreport.RenderHistory(p, report.CommandLine(append([]string{"perfls"}, args...)), time.Now())
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// errNoQueue: remote measuring needs the shared store, where the queue is.
var errNoQueue = errors.New("measuring on workers needs a shared store: set PERFLS_STORE (or perfls.json's \"store\") to a postgres:// URL")

// checkService is the service a check measures through: the workers'
// queue for a remote check, else the usual one.
func (e *Engine) checkService(ctx context.Context, req CheckRequest) (service.Service, func(), error) {
	if !req.Remote {
		return e.service(ctx), func() {}, nil
	}
	return e.queueService(ctx, req.Label)
}

// queueService measures through the shared store's job queue, on the
// workers labelled label; the caller closes it with the function returned.
func (e *Engine) queueService(ctx context.Context, label string) (service.Service, func(), error) {
	if e.storeURL == "" {
		return nil, nil, errNoQueue
	}
	svc, err := remote.NewService(ctx, e.storeURL, label)
	if err != nil {
		return nil, nil, err
	}
	return svc, func() { svc.Close() }, nil
}

// QueueNote says what became of the job on the workers' queue that an
// interrupted remote measurement was waiting for ("cancelled job 12"), ""
// when err ended no such wait. Show it after the progress line is gone.
func QueueNote(err error) string {
	var ce *remote.CancelledError
	if errors.As(err, &ce) {
		return ce.Note()
	}
	return ""
}

// ValidLabel says what is wrong with a worker label ("" is fine: the
// unlabelled workers).
func ValidLabel(label string) error {
	_, err := remote.Queue(label)
	return err
}

// RunWorker takes measurement jobs from the shared store's queue, one at a
// time, measures them here and keeps the results in the store, until ctx
// ends (perfls worker).
func (e *Engine) RunWorker(ctx context.Context, label string) error {
	store, err := e.Store()
	if err != nil {
		return err
	}
	if e.storeURL == "" {
		return errNoQueue
	}
	return remote.RunWorker(ctx, remote.WorkerConfig{URL: e.storeURL, Label: label, CacheDir: e.cfg.CacheDir, Store: store, Logf: e.cfg.Logf})
}
