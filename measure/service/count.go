package service

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

// Counting forks (Params.Count) run through the same scheduler as timing
// forks, apart from them: a counting fork runs an instrumented copy of the
// project (measure.CountCalls), whose timings are never returned or stored.
// Its counts are kept in the store's profiles under the item's key and
// kind KindCount, so that they are counted again only when the code
// changes.

// KindCount is the kind of stored invocation counts (measured.CallCounts).
const KindCount = "count"

// countFromCache fills out.Counts from stored counts of key for the same
// code, and reports whether it did.
func (l *Local) countFromCache(ctx context.Context, key cache.Key, out *ItemResult) bool {
	if l.store == nil {
		return false
	}
	cp, stale, err := l.store.LookupProfile(ctx, KindCount, key)
	if err != nil || cp == nil || stale {
		return false
	}
	var c measured.CallCounts
	if err := json.Unmarshal(cp.Summary, &c); err != nil || c.Ops <= 0 {
		return false
	}
	json.Unmarshal(cp.Environment, &out.Env)
	out.Counts, out.Cached, out.CacheID, out.MeasuredAt = &c, true, cp.ID, cp.CreatedAt
	return true
}

// countItem runs one counting fork of req through the scheduler and stores
// its counts; opt are the request's options as given (their zero fields
// take measure.CountDefaults' values, not a timing fork's).
func (l *Local) countItem(ctx context.Context, p Params, proj *measure.Project, build *measure.Build, req measured.Request, key cache.Key, opt measure.Options, out *ItemResult, progress func(Progress), warn func(string)) {
	run := func(ctx context.Context, emit func(Progress)) (any, error) {
		emit(Progress{Message: "counting fork of " + req.Key(), Fork: 1, Of: 1})
		return measure.CountCalls(ctx, proj, build, req, opt)
	}
	v, err := l.sched.Do(ctx, key.Hash()+"/count", req.Key()+" (counts)", p.Priority, p.Budget, run, progress)
	out.MeasuredAt = time.Now()
	if err != nil {
		out.fail(err)
		return
	}
	out.Counts = v.(*measured.CallCounts)
	if l.store == nil {
		return
	}
	data, err := json.Marshal(out.Counts)
	if err != nil {
		out.Error = fmt.Sprintf("counts of %s: %v", req.Key(), err)
		return
	}
	cp := &cache.Profile{Kind: KindCount, Key: key, Summary: data}
	if err := l.store.PutProfile(ctx, cp); err != nil {
		warn(fmt.Sprintf("could not save the counts of %s in the cache (%v): they will be counted again next time", req.Key(), err))
		return
	}
	out.CacheID, out.MeasuredAt = cp.ID, cp.CreatedAt
}
