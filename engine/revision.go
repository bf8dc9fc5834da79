package engine

// Revisions in formulas (m@v1.0, pkg.C#m@HEAD~2, @6a49ef6:pkg.C#m): each
// revision's commit is materialised in the cache directory, compiled like
// the working tree and measured with the same harness.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/revision"
	"github.com/perfls/perfls/measure/service"
)

// tree is a commit's materialised project.
type tree struct {
	Name   string // as the user named it
	Commit string // full hash
	Dir    string // the project directory inside the materialised tree
	index  *workspace.Index
	Err    error // the revision could not be materialised
}

// label names the tree in messages: "v1.0 (commit 1a2b3c4d5e6f)".
func (t *tree) label() string {
	if t.Commit == "" || t.Commit[:min(len(t.Name), len(t.Commit))] == t.Name {
		return t.Name
	}
	return fmt.Sprintf("%s (commit %.12s)", t.Name, t.Commit)
}

// materialise resolves name in the git repository holding dir and
// materialises its commit's tree in the cache directory; with index it
// also parses the tree's sources.
func (e *Engine) materialise(ctx context.Context, dir, name string, index bool) *tree {
	t := &tree{Name: name}
	repo, err := revision.Open(ctx, dir)
	if err != nil {
		t.Err = err
		return t
	}
	if t.Commit, err = repo.Resolve(ctx, name); err != nil {
		t.Err = err
		return t
	}
	if t.Dir, err = repo.Materialise(ctx, e.cfg.CacheDir, t.Commit); err != nil {
		t.Err = err
		return t
	}
	if _, err := os.Stat(t.Dir); err != nil {
		t.Err = fmt.Errorf("%s has no directory %s: the project is not there at that commit", t.label(), filepath.ToSlash(repo.Rel))
		return t
	}
	if index {
		src, err := readSources(ctx, t.Dir, func(*workspace.Formula) bool { return false })
		if err != nil {
			t.Err = fmt.Errorf("read %s: %w", t.label(), err)
			return t
		}
		t.index = workspace.NewIndex(src.files)
	}
	return t
}

// at is r as declared in the tree: its method and generator found among
// the tree's sources (parameter types as they are there). A class in
// neither tree (the JDK's, a jar's) is passed on as named. A workload
// (generator or loop) whose class the tree lacks but the working tree has
// is the working tree's: added, its file (path in the working tree) is
// returned, to be compiled with the tree's classes.
func (t *tree) at(r workspace.Request, now *workspace.Index) (_ workspace.Request, added string, _ error) {
	out := workspace.Request{Args: r.Args}
	for i, tg := range []workspace.Target{r.Method, r.Generator} {
		if tg.Class == "" {
			continue
		}
		found := tg
		switch {
		case i == 1 && t.index.Type(tg.Class) == nil && now.Type(tg.Class) != nil:
			added = now.FileOf(now.Type(tg.Class)).Path
			found.Params = nil // its overload is picked by the harness
		case t.index.Type(tg.Class) != nil || now.Type(tg.Class) != nil:
			var err error
			params := tg.Params
			if i == 1 {
				params = nil // a generator's overload is picked by the harness
			}
			found, err = t.index.Member(tg.Class, tg.Method, params)
			if err != nil {
				return out, "", fmt.Errorf("%s#%s at %s: %w", tg.Class, tg.Method, t.label(), err)
			}
			if i == 1 {
				found.Params = nil
			}
		}
		found.Revision, found.Decl = tg.Revision, nil
		if i == 0 {
			out.Method = found
		} else {
			out.Generator = found
		}
	}
	return out, added, nil
}

// withAdded is the project directory of t with the working tree's files
// added (paths in the working tree, whose project directory is dir; t is
// a commit of the repository holding repoDir).
func (e *Engine) withAdded(ctx context.Context, dir, repoDir string, t *tree, files []string) (string, error) {
	add := map[string][]byte{}
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil || !filepath.IsLocal(rel) {
			return "", fmt.Errorf("workload file %s is outside the project %s", f, dir)
		}
		if add[rel], err = os.ReadFile(f); err != nil {
			return "", fmt.Errorf("workload for %s: %w", t.label(), err)
		}
	}
	repo, err := revision.Open(ctx, repoDir)
	if err != nil {
		return "", err
	}
	pdir, err := repo.MaterialiseWith(ctx, e.cfg.CacheDir, t.Commit, add)
	if err != nil {
		return "", fmt.Errorf("%s with the working tree's workload: %w", t.label(), err)
	}
	return pdir, nil
}

// measured is what measureRequests found.
type measured struct {
	results map[string]service.ItemResult // by workspace.Request.Key
	// revisionErrs are the requests (by key) a revision left unmeasured: not
	// a repository, unknown revision, method missing or not compiling there.
	revisionErrs  map[string]string
	compileErrors []measure.CompilerMessage // of the working tree
	notices       []string
}

// measureRequests measures reqs through svc with p's settings (p.Items and
// p.Project are set here): those of the working tree in dir, each
// revision's in its materialised tree (trees, filled as revisions are
// met) from the repository holding repoDir (dir, or the work tree dir was
// copied from). A revision that cannot be measured is no error: its requests get
// their reason in revisionErrs and as their item's error.
func (e *Engine) measureRequests(ctx context.Context, svc service.Service, dir, repoDir string, p service.Params, reqs []workspace.Request, now *workspace.Index, trees map[string]*tree, progress func(service.Progress)) (*measured, error) {
	out := &measured{results: map[string]service.ItemResult{}, revisionErrs: map[string]string{}}
	groups := map[string][]workspace.Request{}
	var revs []string
	for _, r := range reqs {
		rev := r.Revision()
		if _, ok := groups[rev]; !ok {
			revs = append(revs, rev)
		}
		groups[rev] = append(groups[rev], r)
	}
	sort.Strings(revs) // the working tree ("") first
	fail := func(r workspace.Request, msg string) {
		out.revisionErrs[r.Key()] = msg
		out.results[r.Key()] = service.ItemResult{Error: msg}
	}
	for _, rev := range revs {
		q := p
		q.Project, q.Items = dir, nil
		var group []workspace.Request
		if rev == "" {
			group = groups[rev]
		} else {
			t := trees[rev]
			if t == nil {
				t = e.materialise(ctx, repoDir, rev, true)
				trees[rev] = t
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if t.Err != nil {
				for _, r := range groups[rev] {
					fail(r, fmt.Sprintf("revision @%s: %v", rev, t.Err))
				}
				continue
			}
			q.Project = t.Dir
			var added []string
			for _, r := range groups[rev] {
				ra, file, err := t.at(r, now)
				if err != nil {
					fail(r, err.Error())
					continue
				}
				if file != "" && !slices.Contains(added, file) {
					added = append(added, file)
				}
				group = append(group, r)
				q.Items = append(q.Items, item(ra))
			}
			if len(added) > 0 {
				pdir, err := e.withAdded(ctx, dir, repoDir, t, added)
				if err != nil {
					for _, r := range group {
						fail(r, err.Error())
					}
					continue
				}
				q.Project = pdir
			}
		}
		if rev == "" {
			for _, r := range group {
				q.Items = append(q.Items, item(r))
			}
		}
		if len(q.Items) == 0 {
			continue
		}
		resp, err := svc.Measure(ctx, q, progress)
		if err != nil {
			return nil, err
		}
		out.notices = append(out.notices, resp.Notices...)
		if len(resp.CompileErrors) > 0 {
			if rev == "" {
				out.compileErrors = resp.CompileErrors
				return out, nil
			}
			m := resp.CompileErrors[0]
			msg := fmt.Sprintf("revision @%s does not compile: %s:%d: %s", trees[rev].label(), m.File, m.Line, m.Message)
			if he, ok := incomplete(ctx, repoDir, trees[rev].Commit, &CompileError{Messages: resp.CompileErrors}).(*revision.HistoryError); ok {
				msg = fmt.Sprintf("revision @%s does not compile: %s", trees[rev].label(), he.Error())
			}
			for _, r := range group {
				fail(r, msg)
			}
			continue
		}
		for i, r := range group {
			out.results[r.Key()] = resp.Items[i]
		}
	}
	return out, nil
}

// revisionDiagnostics point at the "@rev" text of every operand a revision
// left unmeasured, once per place.
func revisionDiagnostics(plan *workspace.Plan, errs map[string]string) []workspace.Diagnostic {
	if len(errs) == 0 {
		return nil
	}
	var out []workspace.Diagnostic
	seen := map[string]bool{}
	for _, in := range plan.Instances {
		for _, c := range in.Comparisons {
			for _, o := range []workspace.Operand{c.Left, c.Right} {
				msg, ok := errs[o.Request.Key()]
				if o.Err != nil || !ok {
					continue
				}
				d := in.Formula.Diagnostic(o.RevisionSpan, workspace.Error, "revision", msg)
				key := fmt.Sprint(d.Path, d.Span, msg)
				if !seen[key] {
					seen[key] = true
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// openRepo opens the git repository holding dir for diff or bisect; with
// fetch it may fetch what a shallow or single-branch clone lacks, each
// command told to the engine's log first.
func (e *Engine) openRepo(ctx context.Context, dir string, fetch bool) (*revision.Repo, error) {
	repo, err := revision.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if fetch {
		repo.Fetch = func(cmd string) { e.cfg.Logf("fetching what this clone lacks: %s", cmd) }
	}
	return repo, nil
}

// incomplete is err, the compile error of commit's materialised tree,
// made the reason when the tree lacks submodules this clone does not
// have: their sources are missing, which javac's messages do not say. Any
// other error is returned as it is.
func incomplete(ctx context.Context, dir, commit string, err error) error {
	var ce *CompileError
	if !errors.As(err, &ce) {
		return err
	}
	var he *revision.HistoryError
	repo, oerr := revision.Open(ctx, dir)
	if oerr != nil || !errors.As(repo.Lacking(ctx, commit), &he) {
		return err
	}
	he.Msg = fmt.Sprintf("%v; %s", errorOf(err), he.Msg)
	return he
}

// RevisionInfo describes the commit a revision name names, for the
// editor's hover on "@rev".
type RevisionInfo struct {
	Name    string    // as written
	Commit  string    // full hash
	Subject string    // first line of its message
	Date    time.Time // committer date
}

// Revision resolves name in the git repository holding dir. Without
// trust git does not run: the refs are read as files, which give the
// commit (for a branch or tag) but not its subject and date, and a name
// the files cannot settle is an error wrapping trust.ErrUntrusted.
func (e *Engine) Revision(ctx context.Context, dir, name string) (RevisionInfo, error) {
	info := RevisionInfo{Name: name}
	if !trust.Trusted(ctx) {
		if err := revisionFromFiles(ctx, dir, name); err != nil {
			return info, err
		}
		info.Commit, _ = revision.ResolveFromFiles(revision.GitDir(dir), name)
		return info, nil
	}
	repo, err := revision.Open(ctx, dir)
	if err != nil {
		return info, err
	}
	if info.Commit, err = repo.Resolve(ctx, name); err != nil {
		return info, err
	}
	info.Subject, info.Date = repo.Subject(ctx, info.Commit), repo.Date(ctx, info.Commit)
	return info, nil
}

// RevisionName reports whether err is about a revision name or repository
// (an unknown revision, not a git repository), as opposed to a failure.
func RevisionName(err error) bool {
	return revision.IsUnknown(err) || revision.IsNotRepo(err)
}

// revisionNames checks, without materialising anything, that the
// revisions the formulas name exist in the git repository holding each
// formula's file: perfls lint's diagnostics on "@rev". Without trust git
// does not run: the refs are read as files (revision.ResolveFromFiles),
// and the names files cannot settle are left unchecked, listed in
// unchecked.
func revisionNames(ctx context.Context, ix *workspace.Index, formulas []*workspace.Formula) (diags []workspace.Diagnostic, unchecked []string) {
	plan := workspace.PlanCheck(ix, formulas)
	errs := map[string]string{}
	known := map[[2]string]error{} // (directory, revision) → its error
	trusted := trust.Trusted(ctx)
	seen := map[string]bool{}
	for _, in := range plan.Instances {
		for _, c := range in.Comparisons {
			for _, o := range []workspace.Operand{c.Left, c.Right} {
				rev := o.Request.Revision()
				if o.Err != nil || rev == "" {
					continue
				}
				k := [2]string{filepath.Dir(in.Formula.Path), rev}
				err, ok := known[k]
				if !ok {
					if trusted {
						var repo *revision.Repo
						if repo, err = revision.Open(ctx, k[0]); err == nil {
							_, err = repo.Resolve(ctx, rev)
						}
					} else {
						err = revisionFromFiles(ctx, k[0], rev)
					}
					known[k] = err
				}
				switch {
				case errors.Is(err, trust.ErrUntrusted):
					if !seen[rev] {
						seen[rev] = true
						unchecked = append(unchecked, rev)
					}
				case err != nil && ctx.Err() == nil:
					errs[o.Request.Key()] = fmt.Sprintf("revision @%s: %v", rev, err)
				}
			}
		}
	}
	return revisionDiagnostics(plan, errs), unchecked
}

// revisionFromFiles is revisionNames's answer without git: nil when the
// refs name rev, an *revision.UnknownError when they tell it does not
// exist, and an error wrapping trust.ErrUntrusted when files cannot tell.
func revisionFromFiles(ctx context.Context, dir, rev string) error {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	gitDir := revision.GitDir(dir)
	if gitDir == "" {
		return &revision.NotRepoError{Dir: dir, Msg: "no .git directory above it"}
	}
	commit, checked := revision.ResolveFromFiles(gitDir, rev)
	switch {
	case !checked:
		if err := trust.Check(ctx, "run git for @"+rev+" (the refs, read as files, cannot tell)"); err != nil {
			return err
		}
		return fmt.Errorf("revision @%s: needs git: %w", rev, trust.ErrUntrusted)
	case commit == "":
		return &revision.UnknownError{Name: rev, Msg: "no such tag or branch in " + filepath.Dir(gitDir)}
	}
	return nil
}
