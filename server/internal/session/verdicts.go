package session

import (
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/verdict"
)

// verdicts are the latest verdicts by file: read from Records when any
// process recorded new ones, and set by this session's own checks. byFile
// is replaced, never written, so a Snapshot shares it.
type verdicts struct {
	mu       sync.Mutex
	byFile   map[string][]verdict.MethodResult
	rev      int64         // revision of the records byFile came from; -1 = none read
	lastSync time.Time     // when Sync last read the revision
	stale    chan struct{} // signalled when newly read verdicts change lens titles
}

func (v *verdicts) byFileNow() map[string][]verdict.MethodResult {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.byFile
}

// revision is the revision of the records the verdicts came from.
func (v *verdicts) revision() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.rev
}

// SyncVerdicts reloads the recorded verdicts when any process recorded
// new ones (a CLI check, another editor), so every window shows the
// latest. One small query per call keeps it cheap enough for every
// publish and hover. It reports whether the records changed.
func (s *Session) SyncVerdicts() bool {
	r := s.Records()
	if r == nil {
		return false
	}
	v := &s.verdicts
	rev, err := r.VerdictsRevision(s.base)
	if err != nil {
		s.logf("verdicts: %v", err)
		return false
	}
	v.mu.Lock()
	same := rev == v.rev
	v.lastSync = time.Now()
	v.mu.Unlock()
	if same {
		return false
	}
	recs, err := r.Verdicts(s.base)
	if err != nil {
		s.logf("verdicts: %v", err)
		return false
	}
	byFile := map[string][]verdict.MethodResult{}
	for _, r := range recs {
		byFile[r.File] = append(byFile[r.File], r)
	}
	v.mu.Lock()
	first := v.rev == -1
	v.byFile, v.rev = byFile, rev
	v.mu.Unlock()
	if !first {
		// New verdicts change lens titles too, whichever request noticed
		// them first; the watcher sends the refresh (not from a handler).
		select {
		case v.stale <- struct{}{}:
		default:
		}
	}
	return true
}

// SyncVerdictsEvery is SyncVerdicts unless the verdicts were read less
// than interval ago (the first read always happens).
func (s *Session) SyncVerdictsEvery(interval time.Duration) bool {
	v := &s.verdicts
	v.mu.Lock()
	recent := v.rev != -1 && time.Since(v.lastSync) < interval
	v.mu.Unlock()
	if recent {
		return false
	}
	return s.SyncVerdicts()
}

// LensesStale is signalled when verdicts read from the records change lens
// titles.
func (s *Session) LensesStale() <-chan struct{} { return s.verdicts.stale }

// SetResults replaces the verdicts of the methods in results, of file.
func (s *Session) SetResults(file string, results []verdict.MethodResult) {
	v := &s.verdicts
	v.mu.Lock()
	defer v.mu.Unlock()
	var merged []verdict.MethodResult
	for _, o := range v.byFile[file] {
		replaced := false
		for _, r := range results {
			replaced = replaced || SameMethod(o, r)
		}
		if !replaced {
			merged = append(merged, o)
		}
	}
	next := make(map[string][]verdict.MethodResult, len(v.byFile)+1)
	for f, rs := range v.byFile {
		next[f] = rs
	}
	next[file] = append(merged, results...)
	v.byFile = next
}

// SameMethod tells whether two results are of the same method.
func SameMethod(a, b verdict.MethodResult) bool {
	return a.Class == b.Class && a.Method == b.Method && strings.Join(a.Params, ",") == strings.Join(b.Params, ",")
}
