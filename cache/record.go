// Package cache keeps what perfls learned across runs. For now it is a
// single JSON record of the latest verdict of every formula instance, written
// by `perfls check` and read by the language server for hovers; the real
// measurement store (SQLite, fingerprints, run history) replaces it later.
package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/perfls/perfls/analysis/verdict"
)

// Dir is the per-user cache directory: $PERFLS_CACHE_DIR, else the OS user
// cache directory (e.g. ~/.cache/perfls).
func Dir() (string, error) {
	if d := os.Getenv("PERFLS_CACHE_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find user cache directory (set PERFLS_CACHE_DIR): %w", err)
	}
	return filepath.Join(base, "perfls"), nil
}

// Verdicts is the record file of the latest verdicts.
type Verdicts struct {
	path string
}

// OpenVerdicts returns the record in dir (see Dir).
func OpenVerdicts(dir string) *Verdicts {
	return &Verdicts{path: filepath.Join(dir, "verdicts.json")}
}

// Path is the record file's location.
func (v *Verdicts) Path() string { return v.path }

// Load reads all records. A missing file is an empty record; a corrupt one is
// an error that names the file, so the caller can report it and go on.
func (v *Verdicts) Load() ([]verdict.MethodResult, error) {
	b, err := os.ReadFile(v.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read verdict record: %w", err)
	}
	var recs []verdict.MethodResult
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("verdict record %s is corrupt (delete it; the next check rewrites it): %w", v.path, err)
	}
	return recs, nil
}

// ForFile returns the records of one source file.
func (v *Verdicts) ForFile(path string) ([]verdict.MethodResult, error) {
	recs, err := v.Load()
	var out []verdict.MethodResult
	for _, r := range recs {
		if r.File == path {
			out = append(out, r)
		}
	}
	return out, err
}

// Replace stores recs, replacing every older record of the same method. The
// file is rewritten atomically, so a crash leaves the old or the new record,
// never a torn one. A corrupt old record is replaced.
func (v *Verdicts) Replace(recs []verdict.MethodResult) error {
	old, _ := v.Load()
	key := func(r verdict.MethodResult) string {
		return fmt.Sprint(r.File, "\x00", r.Class, "\x00", r.Method, "\x00", r.Params)
	}
	byKey := map[string]verdict.MethodResult{}
	for _, r := range old {
		byKey[key(r)] = r
	}
	for _, r := range recs {
		byKey[key(r)] = r
	}
	merged := make([]verdict.MethodResult, 0, len(byKey))
	for _, r := range byKey {
		merged = append(merged, r)
	}
	sort.Slice(merged, func(i, j int) bool { return key(merged[i]) < key(merged[j]) })
	b, err := json.MarshalIndent(merged, "", " ")
	if err != nil {
		return fmt.Errorf("encode verdict record: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(v.path), 0o700); err != nil {
		return fmt.Errorf("create cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(v.path), ".verdicts-*.json")
	if err != nil {
		return fmt.Errorf("write verdict record: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write verdict record: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write verdict record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write verdict record: %w", err)
	}
	if err := os.Rename(tmp.Name(), v.path); err != nil {
		return fmt.Errorf("write verdict record: %w", err)
	}
	return nil
}
