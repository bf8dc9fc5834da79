package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

// Profiled forks (Params.Profile) run through the same scheduler as timing
// forks — never two JVMs at once — but apart from them: a profiled fork
// records with the flight recorder, which perturbs timing, so its samples
// are not returned as forks and never stored as a measurement. Only the
// reduced summary is kept, in the store's profiles under the item's key
// (the profile options are part of it) and kind cache.KindProfile.

// profileFromCache fills out.Profile from a stored profile of key for the
// same code, and reports whether it did.
func (l *Local) profileFromCache(ctx context.Context, key cache.Key, out *ItemResult, warn func(string)) bool {
	if l.store == nil {
		return false
	}
	cp, stale, err := l.store.LookupProfile(ctx, cache.KindProfile, key)
	if err != nil && ctx.Err() == nil {
		warn(fmt.Sprintf("could not read the cache %s (%v): profiling again", l.store.Path(), err))
	}
	if err != nil || cp == nil || stale {
		return false
	}
	var s profile.Summary
	if err := json.Unmarshal(cp.Summary, &s); err != nil || s.Validate() != nil {
		return false // a damaged or older summary: profile again
	}
	json.Unmarshal(cp.Environment, &out.Env)
	out.Profile, out.Cached, out.CacheID, out.MeasuredAt = &s, true, cp.ID, cp.CreatedAt
	return true
}

// profileQuick profiles req in the warm worker JVM (measure.Worker.Profile)
// with p.QuickOptions (else opt) through the scheduler, as measureQuick
// measures: it does not overlap a fork, and an interactive request gets the
// next turn. The summary goes into out.PreliminaryProfile; it is never
// cached.
func (l *Local) profileQuick(ctx context.Context, p Params, build *measure.Build, req measured.Request, key cache.Key, opt measure.Options, out *ItemResult, progress func(Progress)) {
	if p.QuickOptions != nil {
		opt = *p.QuickOptions
	}
	run := func(ctx context.Context, emit func(Progress)) (any, error) {
		emit(Progress{Message: "quick profile of " + req.Key() + " in the warm worker JVM"})
		return l.worker.Profile(ctx, build, req, opt, l.cacheDir)
	}
	if r, ok := l.runResult(ctx, p, key.Hash()+"/quick-profile", req.Key()+" (quick profile)", run, progress, out); ok {
		out.PreliminaryProfile, out.Env = r.Forks[0].Profile, r.Env
	}
}

// profileItem runs one profiled fork of req through the scheduler and
// stores its summary.
func (l *Local) profileItem(ctx context.Context, p Params, build *measure.Build, req measured.Request, key cache.Key, opt measure.Options, out *ItemResult, progress func(Progress), warn func(string)) {
	run := func(ctx context.Context, emit func(Progress)) (any, error) {
		prof, err := measure.ProfileJVMArgs(ctx, opt.Java, l.cacheDir)
		if err != nil {
			return nil, err
		}
		one := opt
		one.Forks, one.Profile = 1, true
		one.JVMArgs = append(prof, slices.Clone(opt.JVMArgs)...)
		results, err := measure.Measure(ctx, build, []measured.Request{req}, one, func(e measure.Event) {
			if e.Fork == 0 {
				return
			}
			msg := "profiled fork of " + req.Key()
			if e.Done {
				msg += " done"
			}
			emit(Progress{Message: msg, Fork: e.Fork, Of: 1})
		})
		if err != nil {
			return nil, err
		}
		return results[0], nil
	}
	r, ok := l.runResult(ctx, p, key.Hash()+"/profile", req.Key()+" (profile)", run, progress, out)
	if !ok {
		return
	}
	if len(r.Forks) != 1 || r.Forks[0].Profile == nil {
		out.Error = fmt.Sprintf("profile %s: the fork returned no profile", req.Key())
		return
	}
	out.Profile, out.Env = r.Forks[0].Profile, r.Env
	if l.store == nil {
		return
	}
	summary, err := json.Marshal(out.Profile)
	if err != nil {
		out.Error = fmt.Sprintf("profile %s: encode the summary: %v", req.Key(), err)
		return
	}
	env, _ := json.Marshal(r.Env)
	cp := &cache.Profile{Kind: cache.KindProfile, Key: key, Environment: env, Summary: summary}
	if err := l.store.PutProfile(ctx, cp); err != nil {
		warn(fmt.Sprintf("could not save the profile of %s in the cache (%v): it is not kept and will be profiled again next time", req.Key(), err))
		return
	}
	out.CacheID, out.MeasuredAt = cp.ID, cp.CreatedAt
}
