package session

import (
	"context"
	"strconv"
	"sync"

	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/cache"
)

// OracleEntry is one calibrated workload of a method with its model and
// latest classified run.
type OracleEntry struct {
	Key    cache.OracleKey
	Model  *cache.OracleModel
	Latest *cache.OracleResult // nil: none, or older than the model
}

// Accepted tells whether the latest run was accepted into the model.
func (e OracleEntry) Accepted() bool {
	if e.Latest == nil || e.Latest.RunID == 0 {
		return false
	}
	id := strconv.FormatInt(e.Latest.RunID, 10)
	for _, r := range e.Model.Model.Runs {
		if r == id {
			return true
		}
	}
	return false
}

// State is "pass", "fail", "not applicable", "accepted" or "calibrated"
// (no run classified since calibration).
func (e OracleEntry) State() string {
	switch {
	case e.Latest == nil:
		return "calibrated"
	case e.Accepted():
		return "accepted"
	case e.Latest.Result.Verdict == oracle.NotApplicable:
		return "not applicable"
	default:
		return string(e.Latest.Result.Verdict)
	}
}

// Failed tells whether the latest run failed and was not accepted.
func (e OracleEntry) Failed() bool {
	return e.Latest != nil && e.Latest.Result.Verdict == oracle.Fail && !e.Accepted()
}

// oracleCache is what was read of the oracle at rev, the verdicts'
// revision: storing a model or a result bumps it, so nothing is read again
// until it changes. Every publication asks (each keystroke).
type oracleCache struct {
	mu         sync.Mutex
	calibrated []cache.OracleKey // calibrated workloads as of rev
	rev        int64             // verdicts' revision calibrated was read at; -1 = not read
	read       map[cache.OracleKey]oracleRead
}

// oracleRead is a workload's oracle state as read at rev.
type oracleRead struct {
	entry OracleEntry
	ok    bool
}

// OracleKeys lists every calibrated workload; nil without records.
func (s *Session) OracleKeys(ctx context.Context) []cache.OracleKey {
	r := s.Records()
	if r == nil {
		return nil
	}
	c := &s.oracle
	rev := s.verdicts.revision()
	c.mu.Lock()
	if rev != -1 && rev == c.rev {
		keys := c.calibrated
		c.mu.Unlock()
		return keys
	}
	c.mu.Unlock()
	keys, err := r.OracleModels(ctx)
	if err != nil {
		s.logf("oracle models: %v", err)
		return keys
	}
	c.mu.Lock()
	c.calibrated, c.rev, c.read = keys, rev, map[cache.OracleKey]oracleRead{}
	c.mu.Unlock()
	return keys
}

// OracleEntries reads the models and latest results of the calibrated
// workloads among keys of the method spec names.
func (s *Session) OracleEntries(ctx context.Context, keys []cache.OracleKey, spec methodspec.Spec) []OracleEntry {
	c := &s.oracle
	var out []OracleEntry
	for _, k := range keys {
		if !spec.Matches(k.Method) {
			continue
		}
		c.mu.Lock()
		rev := c.rev
		r, cached := c.read[k]
		c.mu.Unlock()
		if !cached {
			r.entry, r.ok = s.OracleEntry(ctx, k)
			c.mu.Lock()
			if c.rev == rev && c.read != nil {
				c.read[k] = r
			}
			c.mu.Unlock()
		}
		if r.ok {
			out = append(out, r.entry)
		}
	}
	return out
}

// OracleEntry reads one calibrated workload's model and latest run.
func (s *Session) OracleEntry(ctx context.Context, k cache.OracleKey) (OracleEntry, bool) {
	r := s.Records()
	if r == nil {
		return OracleEntry{}, false
	}
	model, err := r.OracleModel(ctx, k)
	if err != nil || model == nil {
		if err != nil {
			s.logf("oracle model of %s: %v", k, err)
		}
		return OracleEntry{}, false
	}
	e := OracleEntry{Key: k, Model: model}
	latest, err := r.LatestOracleResult(ctx, k)
	if err != nil {
		s.logf("oracle result of %s: %v", k, err)
	}
	// A run classified before the current model was built says nothing
	// about it, unless it was accepted into it.
	if latest != nil {
		e.Latest = latest
		if latest.CheckedAt.Before(model.CreatedAt) && !e.Accepted() {
			e.Latest = nil
		}
	}
	return e, true
}
