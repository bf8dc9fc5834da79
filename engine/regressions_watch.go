package engine

// The editor's "slower since <commit>" line: change points of the hovered
// methods' stored results, kept in memory and fed only new results.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/regression"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/revision"
)

// RegressionWatch keeps, for the editor, one change-point detector per
// series of the methods hovered: built from the store on a method's first
// hover, then fed only the results recorded since (by anyone: this editor,
// the command line, another machine on a shared store), which are
// appended when their commit comes after the series' last one. HEAD
// moving forward extends the line; moving elsewhere (another branch, a
// rewrite) rebuilds that method's series. Safe for concurrent use.
type RegressionWatch struct {
	store *cache.Store
	// Every is how long an answer stands before the store and HEAD are
	// looked at again.
	Every   time.Duration
	mu      sync.Mutex
	methods map[string]*watchedMethod   // by directory and method
	lines   map[string]*regression.Line // the latest line read, by repository and tip
}

// line is the first-parent line of head, read once for every method.
func (w *RegressionWatch) line(ctx context.Context, repo *revision.Repo, head string) (*regression.Line, error) {
	key := repo.Top + "\x00" + head
	if l := w.lines[key]; l != nil {
		return l, nil
	}
	commits, err := repo.Line(ctx, head)
	if err != nil {
		return nil, err
	}
	for k := range w.lines {
		if strings.HasPrefix(k, repo.Top+"\x00") {
			delete(w.lines, k)
		}
	}
	w.lines[key] = regression.NewLine(commits)
	return w.lines[key], nil
}

type watchedMethod struct {
	repo     *revision.Repo
	head     string
	set      *regression.Set
	seen     map[int64]bool // the results placed with IDs in the reorder window below last
	last     int64          // the highest ID placed
	checked  time.Time
	answer   *report.RegressionChange
	subjects map[string]string
	envs     summaries // the JVM label of each series the current look read
}

// NewRegressionWatch watches the results in store.
func NewRegressionWatch(store *cache.Store) *RegressionWatch {
	return &RegressionWatch{store: store, Every: 2 * time.Second, methods: map[string]*watchedMethod{}, lines: map[string]*regression.Line{}}
}

// SlowerSince is the latest change point of method's time per op on this
// machine (or, when this machine has no series, on any) when it is a
// slow-down: the editor's "slower since <commit> (+18 %)". nil when there
// is none, or dir is not in a git work tree.
func (w *RegressionWatch) SlowerSince(ctx context.Context, dir, method string) (*report.RegressionChange, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := dir + "\x00" + method
	wm := w.methods[key]
	if wm != nil && time.Since(wm.checked) < w.Every {
		return wm.answer, nil
	}
	if wm == nil {
		repo, err := revision.Open(ctx, dir)
		if err != nil {
			var nr *revision.NotRepoError
			if errors.As(err, &nr) {
				err = nil
			}
			return nil, err
		}
		wm = &watchedMethod{repo: repo, subjects: map[string]string{}, envs: summaries{}}
		w.methods[key] = wm
	}
	if err := w.refresh(ctx, wm, method); err != nil {
		return nil, err
	}
	wm.checked, wm.answer = time.Now(), wm.latestSlowDown(ctx)
	return wm.answer, nil
}

// reorderWindow is how far below the highest ID it placed a look asks the
// store again on a shared store: PostgreSQL's IDs come from a sequence,
// and a result whose transaction committed late becomes visible after
// results with higher IDs. SQLite's writers take turns, so its IDs are
// committed in order and a look asks from the highest ID placed.
const reorderWindow = 256

// refresh follows HEAD (read from the git directory, not by running git)
// and appends the method's results recorded since the last look: the
// store reads only those with IDs above what was placed.
func (w *RegressionWatch) refresh(ctx context.Context, wm *watchedMethod, method string) error {
	head, err := wm.repo.Head(ctx)
	if err != nil {
		return nil // a repository without commits: nothing to order
	}
	if wm.set == nil || head != wm.head {
		l, err := w.line(ctx, wm.repo, head)
		if err != nil {
			return err
		}
		if old := wm.set; old != nil && l.Extends(old.Line(), wm.head) {
			old.Extend(l)
		} else {
			wm.rebuild(l)
		}
		wm.head = head
	}
	after := wm.last
	if w.store.Shared() {
		after = max(0, after-reorderWindow)
	}
	// Each look reads the series' records anew: the labels and the set
	// go by the key's strings, not by records of earlier looks (which
	// they would keep alive).
	wm.envs = summaries{}
	add := func(sm *cache.Summary) error {
		if wm.seen[sm.ID] {
			return nil
		}
		wm.seen[sm.ID] = true
		wm.last = max(wm.last, sm.ID)
		r := wm.envs.result(sm)
		r.Series = nil
		wm.set.Add(r)
		return nil
	}
	before := wm.last
	last, err := w.store.Summaries(ctx, method, after, add)
	if err != nil {
		return err
	}
	if last < before { // the store was emptied or replaced: its IDs start again
		wm.rebuild(wm.set.Line())
		if _, err := w.store.Summaries(ctx, method, 0, add); err != nil {
			return err
		}
	}
	for id := range wm.seen { // only the reorder window needs remembering
		if id <= wm.last-reorderWindow {
			delete(wm.seen, id)
		}
	}
	return wm.set.Detect()
}

// rebuild starts wm's series afresh on line l, with nothing placed.
func (wm *watchedMethod) rebuild(l *regression.Line) {
	wm.set, wm.seen, wm.last = regression.NewSet(l, true), map[int64]bool{}, 0
}

// latestSlowDown is the newest of the time series' latest change points
// that are slow-downs, on this machine when it has a series
// (Set.LatestSlowDown); nil before any series (a repository without
// commits).
func (wm *watchedMethod) latestSlowDown(ctx context.Context) *report.RegressionChange {
	if wm.set == nil {
		return nil
	}
	s, c, ok := wm.set.LatestSlowDown(measure.MachineIdentity())
	if !ok {
		return nil
	}
	if _, ok := wm.subjects[c.Commit]; !ok {
		wm.subjects[c.Commit] = wm.repo.Subject(ctx, c.Commit)
	}
	rc := s.Change(c, wm.subjects[c.Commit], true)
	return &rc
}
