package engine

// perfls regressions and the editor's "slower since" line: the change points
// of the stored results over a repository's first-parent history
// (analysis/changepoint), one series per (method, workload, args, metric)
// and machine class (the cache key's machine and JVM).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/regression"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure/revision"
)

// RegressionsRequest asks for the change points of the stored results over
// the first-parent history of the repository holding Dir.
type RegressionsRequest struct {
	Dir string
	// Since names a commit on HEAD's first-parent line: only slow-downs at
	// later commits make the result's exit status 1 (all of them without).
	Since string
	// Method selects one method, pkg.C#m (every overload) or pkg.C#m(int[]);
	// "" = every stored method.
	Method string
}

// summaries turns stored results' summaries into what the series read,
// naming the JVM of each series once (from its environment).
type summaries map[*cache.Series]string

func (labels summaries) result(sm *cache.Summary) regression.Result {
	k := sm.Series.Key
	label, ok := labels[sm.Series]
	if !ok {
		var env measured.Environment
		json.Unmarshal([]byte(sm.Series.Environment), &env) // an older result's may be empty
		label = jvmLabel(env, k.JVM)
		labels[sm.Series] = label
	}
	return regression.Result{Method: k.Method, Workload: k.Workload, Args: k.Args, Machine: k.Machine, JVM: k.JVM, Harness: k.Harness,
		JVMLabel: label, Commit: sm.Commit, Dirty: sm.Dirty, SeenAt: sm.SeenAt, ForkMeans: [3][]float64{sm.NsPerOp, sm.CPUNsPerOp, sm.AllocBytesPerOp},
		Series: sm.Series}
}

// jvmLabel names a JVM for people: vendor and version, then the heap and
// flags perfls gave it (the end of the cache key's JVM identity, after the
// binary's size and date), so that two classes of one JDK tell apart.
func jvmLabel(env measured.Environment, identity string) string {
	label := strings.TrimSpace(env.JavaVendor + " " + env.JavaVersion)
	if flags := jvmSettings(identity); flags != "" {
		label += " " + flags
	}
	return label
}

// jvmSettings is the end of a JVM identity (measure.JVMIdentity: "java
// (size, date) heap flags…"): the heap perfls gave it (-Xmx…, nothing for
// the default) and the extra flags.
func jvmSettings(identity string) string {
	i := strings.LastIndex(identity, ") ")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(identity[i+2:], "default heap"))
}

// Regressions lists the change points of every stored series on the
// first-parent line of HEAD in req.Dir's repository, and the level shifts
// seen only between machine classes ("environment differs").
func (e *Engine) Regressions(ctx context.Context, req RegressionsRequest) (*report.Regressions, error) {
	if req.Method != "" && (!strings.Contains(req.Method, "#") || strings.HasPrefix(req.Method, "#")) {
		return nil, ErrMethodName
	}
	repo, err := revision.Open(ctx, req.Dir)
	if err != nil {
		return nil, err
	}
	head, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	commits, err := repo.Line(ctx, head)
	if err != nil {
		return nil, fmt.Errorf("first-parent history of %s: %w", repo.Top, err)
	}
	res := &report.Regressions{Head: head, Commits: len(commits), Changes: []report.RegressionChange{}, Environment: []report.EnvironmentShift{}}
	var after map[string]bool
	if req.Since != "" {
		if res.Since, after, err = commitsAfter(ctx, repo, req.Since, head); err != nil {
			return nil, fmt.Errorf("--since: %w", err)
		}
	}
	set := regression.NewSet(regression.NewLine(commits), false)
	if err := e.loadSeries(ctx, set, req.Method); err != nil {
		return nil, err
	}
	if err := set.Detect(); err != nil {
		return nil, err
	}
	subjects := map[string]string{}
	subject := func(c string) string {
		if _, ok := subjects[c]; !ok {
			subjects[c] = repo.Subject(ctx, c)
		}
		return subjects[c]
	}
	all := set.Ordered()
	for _, s := range all {
		for _, c := range s.Changes() {
			res.Changes = append(res.Changes, s.Change(c, subject(c.Commit), after == nil || after[c.Commit]))
		}
	}
	for _, sh := range set.EnvironmentShifts() {
		if after == nil || after[sh.Commit] {
			sh.Subject = subject(sh.Commit)
			res.Environment = append(res.Environment, sh)
		}
	}
	res.Results, res.Series, res.LeftOut = set.Results(), len(all), set.LeftOut()
	if len(all) == 0 {
		res.Notes = append(res.Notes, "no stored result is of a commit on this line: measure commits in a clean tree (perfls check, perfls measure) to build the history")
	}
	return res, nil
}

// commitsAfter resolves since and lists the commits after it on head's
// first-parent line.
func commitsAfter(ctx context.Context, repo *revision.Repo, since, head string) (string, map[string]bool, error) {
	commit, err := repo.Resolve(ctx, since)
	if err != nil {
		return "", nil, err
	}
	later, err := repo.FirstParents(ctx, commit, head)
	if err != nil {
		return "", nil, err
	}
	after := map[string]bool{}
	for _, c := range later {
		after[c] = true
	}
	return commit, after, nil
}

// loadSeries places every stored result of method (of every method, "")
// on the set's series, reading the store once. The store's scan and the
// placing run side by side (a million results: seconds each), the
// summaries passed in batches.
func (e *Engine) loadSeries(ctx context.Context, set *regression.Set, method string) error {
	store, err := e.Store()
	if err != nil {
		return err
	}
	batches := make(chan []*cache.Summary, 4)
	placed := make(chan struct{})
	go func() {
		defer close(placed)
		labels := summaries{}
		for b := range batches {
			for _, sm := range b {
				set.Add(labels.result(sm))
			}
		}
	}()
	const batch = 512
	var b []*cache.Summary
	_, err = store.Summaries(ctx, method, 0, func(sm *cache.Summary) error {
		if b = append(b, sm); len(b) == batch {
			batches <- b
			b = nil
		}
		return nil
	})
	if len(b) > 0 {
		batches <- b
	}
	close(batches)
	<-placed
	return err
}

// environmentDiffs lists the components in which two results' environments
// differ, as "memory 16384 MiB → 8192 MiB"; none when either is unknown
// (an older result's is empty). The JVM's arguments are left out: the
// cache key already holds its flags, and the rest name local paths.
func environmentDiffs(base, head measured.Environment) []string {
	if base.JavaVersion == "" || head.JavaVersion == "" {
		return nil
	}
	var out []string
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"processor", base.CPUModel, head.CPUModel}, {"cores", base.Cores, head.Cores}, {"memory MiB", base.MemoryMB, head.MemoryMB},
		{"OS", base.OS + "/" + base.Arch, head.OS + "/" + head.Arch}, {"JVM", base.JavaVendor + " " + base.VMVersion, head.JavaVendor + " " + head.VMVersion},
		{"collector", base.GC, head.GC}, {"max heap MiB", base.MaxHeapMB, head.MaxHeapMB},
	} {
		if c.a != c.b {
			out = append(out, fmt.Sprintf("%s %v → %v", c.name, c.a, c.b))
		}
	}
	return out
}
