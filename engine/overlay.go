package engine

// The working tree's set-up on every revision (docs/revisions.md): a
// commit is built from its materialised tree with the working tree's
// perfls.json and workload classes overlaid, so that a release written
// before its benchmarks (no perfls.json, no generators) builds and is
// measured as the working tree is, for @REV formulas, diff and bisect
// alike.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/revision"
)

// revisions are the commits one action measures, each materialised once
// with the working tree's set-up overlaid.
type revisions struct {
	dir string // the working tree's project directory
	// own: a commit's own perfls.json wins where it has one
	// (--commit-config); else the working tree's does.
	own bool
	// workloads are all the working tree's workloads (its formulas' and
	// @Workload annotations' requests): their generators' and loops'
	// sources are overlaid, but not those that declare the class of a
	// method measured at a commit (measured): that code is the commit's.
	// All of them, not only those an action measures, so that every action
	// builds a commit in the same tree.
	workloads, measured []workspace.Request
	now                 *workspace.Index // the working tree's declarations
	setup               *setup           // the overlay, found on first use
	trees               map[string]*tree // by name as written
	// byCommit holds the trees by full hash: two names of one commit are
	// one tree.
	byCommit map[string]*tree
	// names are the user's names of commits given by hash (diff's base,
	// bisect's GOOD and BAD), for messages.
	names   map[string]string
	notices []string // what was overlaid, once per commit
}

func newRevisions(dir string, src *sources, now *workspace.Index, measured []workspace.Request, own bool) *revisions {
	return &revisions{dir: dir, own: own, workloads: allWorkloads(src, now), measured: measured, now: now,
		trees: map[string]*tree{}, byCommit: map[string]*tree{}, names: map[string]string{}}
}

// allWorkloads are the requests of every formula of src that parses and
// of its @Workload annotations.
func allWorkloads(src *sources, now *workspace.Index) []workspace.Request {
	var formulas []*workspace.Formula
	for _, f := range src.all {
		if !f.Broken {
			formulas = append(formulas, f)
		}
	}
	return append(workspace.PlanCheck(now, formulas).Requests, projectWorkloads(src)...)
}

// setup is what the working tree contributes to every commit's tree.
type setup struct {
	config []byte            // its perfls.json; nil when it has none
	files  map[string][]byte // workload sources by path relative to the project
	err    error             // reading them failed
}

// workloadFiles are the working tree's files (absolute) that declare the
// generators and workload loops of workloads, but not the class of a
// method measured: that code at a commit is the commit's.
func workloadFiles(workloads, measured []workspace.Request, now *workspace.Index) (files []string) {
	fileOf := func(class string) string {
		if t := now.Type(class); t != nil {
			if f := now.FileOf(t); f != nil {
				return f.Path
			}
		}
		return ""
	}
	subject := map[string]bool{}
	for _, r := range measured {
		subject[fileOf(r.Method.Class)] = true
	}
	for _, r := range workloads {
		if f := fileOf(r.Generator.Class); f != "" && !subject[f] && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return files
}

// setupOf reads the working tree's set-up once.
func (rs *revisions) setupOf() *setup {
	if rs.setup != nil {
		return rs.setup
	}
	s := &setup{files: map[string][]byte{}}
	rs.setup = s
	data, err := input.ReadRegular(filepath.Join(rs.dir, measure.ConfigFile), input.Config)
	switch {
	case err == nil:
		s.config = data
	case !errors.Is(err, fs.ErrNotExist):
		s.err = fmt.Errorf("the working tree's %s: %w", measure.ConfigFile, err)
		return s
	}
	for _, path := range workloadFiles(rs.workloads, rs.measured, rs.now) {
		rel, err := filepath.Rel(rs.dir, path)
		if err != nil || !filepath.IsLocal(rel) {
			continue // a file outside the project: not part of its tree
		}
		data, err := input.ReadRegular(path, input.JavaSource)
		if err != nil {
			s.err = fmt.Errorf("workload %s: %w", path, err)
			return s
		}
		s.files[rel] = data
	}
	return s
}

// tree is the commit name names, materialised with the working tree's
// set-up overlaid; its Err says why it could not be.
func (rs *revisions) tree(ctx context.Context, e *Engine, name string) *tree {
	if t := rs.trees[name]; t != nil {
		return t
	}
	t := &tree{Name: name}
	rs.trees[name] = t
	repo, err := revision.Open(ctx, rs.dir)
	if err != nil {
		t.Err = err
		return t
	}
	if t.Commit, err = repo.Resolve(ctx, name); err != nil {
		t.Err = err
		return t
	}
	if n := rs.names[t.Commit]; n != "" && strings.HasPrefix(t.Commit, name) {
		t.Name = n
	}
	if c := rs.byCommit[t.Commit]; c != nil {
		t.Dir, t.TreeHash, t.Err, t.same = c.Dir, c.TreeHash, c.Err, c
		return t
	}
	rs.byCommit[t.Commit] = t
	base, err := repo.Materialise(ctx, e.cfg.CacheDir, t.Commit)
	if err != nil {
		t.Err = err
		return t
	}
	if _, err := os.Stat(base); err != nil {
		t.Err = fmt.Errorf("%s has no directory %s: the project is not there at that commit", t.label(), filepath.ToSlash(repo.Rel))
		return t
	}
	files, notice, err := rs.overlay(base)
	if err != nil {
		t.Err = fmt.Errorf("%s: %w", t.label(), err)
		return t
	}
	if t.Dir, err = repo.MaterialiseWith(ctx, e.cfg.CacheDir, t.Commit, files); err != nil {
		t.Err = err
		return t
	}
	t.TreeHash, _ = repo.TreeHash(ctx, t.Commit) // "" when git cannot tell: only history loses it
	if notice != "" {
		rs.notices = append(rs.notices, fmt.Sprintf("%s built with %s", t.label(), notice))
	}
	return t
}

// relative makes the files of javac's messages about the tree relative to
// its project directory: the path in the commit, not in the cache.
func (t *tree) relative(err error) error {
	var ce *CompileError
	if !errors.As(err, &ce) {
		return err
	}
	for i, m := range ce.Messages {
		if rel, rerr := filepath.Rel(t.Dir, m.File); rerr == nil && filepath.IsLocal(rel) {
			ce.Messages[i].File = filepath.ToSlash(rel)
		}
	}
	return err
}

// overlay is what the working tree adds to the commit's project in base:
// its perfls.json (unless the commit's own wins) with the source roots the
// commit lacks left out, and its workload sources where the commit lacks
// them or has others. notice says what, for the user.
func (rs *revisions) overlay(base string) (map[string][]byte, string, error) {
	s := rs.setupOf()
	if s.err != nil {
		return nil, "", s.err
	}
	files := map[string][]byte{}
	var added []string
	for rel, data := range s.files {
		// A commit's own file is read only when regular and no larger than
		// the working tree's: a link to /dev/zero in a commit reads nothing.
		same := input.Limit{Max: int64(len(data)), What: "a file of the commit", Hint: "it differs from the working tree's"}
		if old, err := input.ReadRegular(filepath.Join(base, rel), same); err == nil && string(old) == string(data) {
			continue
		}
		files[rel] = data
		added = append(added, filepath.ToSlash(rel))
	}
	sort.Strings(added)
	config, what, skipped, err := rs.config(base, files)
	if err != nil {
		return nil, "", err
	}
	if config != nil {
		files[measure.ConfigFile] = config
	}
	var parts []string
	if what != "" {
		parts = append(parts, what)
	}
	if len(added) > 0 {
		src := "the working tree's workload sources "
		if strings.HasPrefix(what, "the working tree's") {
			src = "workload sources "
		}
		parts = append(parts, src+strings.Join(added, ", "))
	}
	notice := strings.Join(parts, " and ")
	if skipped != "" {
		if notice == "" {
			notice = "its own set-up"
		}
		notice += "; " + skipped
	}
	return files, notice, nil
}

// config is the perfls.json to build the commit in base with, nil when
// the commit's own file serves as it is; what says which was used and
// what was changed. The working tree's wins unless rs.own and the commit
// has one. A relative classpath entry or classpath file is the commit's
// when the commit has it (its jars of the time), else the working tree's.
// Source roots the commit lacks (and no overlaid file fills) are left
// out; none left is an error.
func (rs *revisions) config(base string, overlaid map[string][]byte) (config []byte, what, skippedRoots string, err error) {
	own, err := input.ReadRegular(filepath.Join(base, measure.ConfigFile), input.Config)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", "", fmt.Errorf("its %s: %w", measure.ConfigFile, err)
	}
	data, whose := rs.setupOf().config, "the working tree's "+measure.ConfigFile
	if data == nil || rs.own && own != nil {
		data, whose = own, "its own "+measure.ConfigFile
	}
	if data == nil {
		return nil, "", "", nil
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", whose, err)
	}
	changed := string(data) != string(own) // the working tree's, and not the commit's already
	var fields []string
	for _, k := range []string{"sourceRoots", "classpath", "classpathFile", "jvmArgs", "release", "javacArgs"} {
		if _, ok := cfg[k]; ok {
			fields = append(fields, k)
		}
	}
	if changed {
		if err := rs.rebase(cfg, base); err != nil {
			return nil, "", "", fmt.Errorf("%s: %w", whose, err)
		}
	}
	skipped, err := dropMissingRoots(cfg, base, overlaid)
	if err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", whose, err)
	}
	if changed {
		what = whose
		if len(fields) > 0 {
			what += " (" + strings.Join(fields, ", ") + ")"
		}
	}
	if len(skipped) > 0 {
		skippedRoots = fmt.Sprintf("source root %s skipped: not at this commit", strings.Join(skipped, ", "))
	}
	if !changed && len(skipped) == 0 {
		return nil, "", "", nil
	}
	out, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, "", "", err
	}
	return out, what, skippedRoots, nil
}

// rebase makes the working tree's relative classpath entries (and
// classpath file) absolute in the working tree where the commit in base
// does not have them.
func (rs *revisions) rebase(cfg map[string]json.RawMessage, base string) error {
	local := func(p string) bool {
		return p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~")
	}
	inBase := func(p string) bool {
		if strings.ContainsAny(p, "*?[") {
			m, _ := filepath.Glob(filepath.Join(base, filepath.FromSlash(p)))
			return len(m) > 0
		}
		_, err := os.Stat(filepath.Join(base, filepath.FromSlash(p)))
		return err == nil
	}
	move := func(p string) string {
		if local(p) && !inBase(p) {
			return filepath.Join(rs.dir, filepath.FromSlash(p))
		}
		return p
	}
	if raw, ok := cfg["classpath"]; ok {
		var cp []string
		if err := json.Unmarshal(raw, &cp); err != nil {
			return fmt.Errorf("\"classpath\": %w", err)
		}
		for i := range cp {
			cp[i] = move(cp[i])
		}
		cfg["classpath"], _ = json.Marshal(cp)
	}
	if raw, ok := cfg["classpathFile"]; ok {
		var f string
		if err := json.Unmarshal(raw, &f); err != nil {
			return fmt.Errorf("\"classpathFile\": %w", err)
		}
		cfg["classpathFile"], _ = json.Marshal(move(f))
	}
	return nil
}

// dropMissingRoots leaves out of cfg's "sourceRoots" those neither the
// commit in base has nor an overlaid file lies in, and returns them.
func dropMissingRoots(cfg map[string]json.RawMessage, base string, overlaid map[string][]byte) ([]string, error) {
	raw, ok := cfg["sourceRoots"]
	if !ok {
		return nil, nil
	}
	var roots, kept, skipped []string
	if err := json.Unmarshal(raw, &roots); err != nil {
		return nil, fmt.Errorf("\"sourceRoots\": %w", err)
	}
	for _, r := range roots {
		dir := filepath.Clean(filepath.FromSlash(r))
		found := filepath.IsAbs(dir) || strings.HasPrefix(r, "~")
		if st, err := os.Stat(filepath.Join(base, dir)); err == nil && st.IsDir() {
			found = true
		}
		for f := range overlaid {
			if rel, err := filepath.Rel(dir, f); err == nil && filepath.IsLocal(rel) {
				found = true
			}
		}
		if found {
			kept = append(kept, r)
		} else {
			skipped = append(skipped, r)
		}
	}
	if len(kept) == 0 && len(roots) > 0 {
		return nil, fmt.Errorf("none of its source roots (%s) is at this commit", strings.Join(roots, ", "))
	}
	if len(skipped) > 0 {
		cfg["sourceRoots"], _ = json.Marshal(kept)
	}
	return skipped, nil
}

// indexed parses the tree's sources once, for looking methods up in it.
func (t *tree) indexed(ctx context.Context) error {
	if t.same != nil {
		err := t.same.indexed(ctx)
		t.index = t.same.index
		return err
	}
	if t.index != nil {
		return nil
	}
	src, err := readSources(ctx, t.Dir, func(*workspace.Formula) bool { return false })
	if err != nil {
		return fmt.Errorf("read %s: %w", t.label(), err)
	}
	t.index = workspace.NewIndex(src.files)
	return nil
}
