package service

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/atomicfile"
)

// Resolutions outlive the process. A command run without the daemon
// starts a new service each time, and resolving its methods started a JVM
// each time (0.8–1.4 s of a one-fork measurement on a busy machine). The
// file holds one JSON object: key → resolution and when it was last
// written; it is read once and rewritten, merged with what another
// process wrote meanwhile, after each resolver run. Losing it, or an
// entry to a concurrent write, costs one resolver run.

const (
	resolvedFileName = "resolved.json"
	resolvedMax      = 2000 // entries kept, the most recently written
)

// resolverRuns counts the resolver JVMs started (for tests).
var resolverRuns atomic.Int64

type resolvedEntry struct {
	Resolved measured.Resolved `json:"resolved"`
	At       time.Time         `json:"at"`
}

// loadResolved reads the resolutions file of cacheDir; a missing or
// unreadable file is an empty one.
func loadResolved(cacheDir string) map[string]resolvedEntry {
	out := map[string]resolvedEntry{}
	data, err := os.ReadFile(filepath.Join(cacheDir, resolvedFileName))
	if err != nil {
		return out
	}
	if json.Unmarshal(data, &out) != nil {
		return map[string]resolvedEntry{}
	}
	return out
}

// saveResolved adds entries to the resolutions file of cacheDir, keeping
// the resolvedMax most recent. Errors are ignored: the file only saves
// time.
func saveResolved(cacheDir string, entries map[string]measured.Resolved) {
	if cacheDir == "" || len(entries) == 0 {
		return
	}
	all := loadResolved(cacheDir)
	now := time.Now().UTC()
	for k, r := range entries {
		all[k] = resolvedEntry{Resolved: r, At: now}
	}
	if len(all) > resolvedMax {
		keys := make([]string, 0, len(all))
		for k := range all {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return all[keys[i]].At.After(all[keys[j]].At) })
		for _, k := range keys[resolvedMax:] {
			delete(all, k)
		}
	}
	data, err := json.Marshal(all)
	if err != nil {
		return
	}
	_ = atomicfile.Write(filepath.Join(cacheDir, resolvedFileName), data, 0o644)
}
