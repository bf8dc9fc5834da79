package session

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/editor"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/measure/revision"
)

// gitState remembers each directory's git directory, and, per git
// directory of an open document, what HEAD was at the last look and when
// it was last seen to move: verdicts of formulas whose revisions are
// relative names (HEAD~1, main, v1) checked before that moment may
// describe other commits than the names now mean.
type gitState struct {
	dirsMu sync.Mutex
	dirs   map[string]string // directory → its work tree's git directory, "" for none

	mu    sync.Mutex
	head  map[string]string    // git directory → HEAD's commit (or ref line)
	moved map[string]time.Time // git directory → when HEAD was seen to move

	refsMu  sync.Mutex
	refs    map[string]*refsEntry // git directory → its refs, as git listed them
	stopped bool                  // Stop was called: no more listings start
	loads   sync.WaitGroup        // listings running in the background
	done    <-chan struct{}       // the connection's: a listing stops with it
	changed func()                // told when a first listing arrives
}

// refsEntry is one repository's ref list and what the ref files looked
// like when it was made (revision.RefsStamp).
type refsEntry struct {
	stamp   string
	refs    *revision.Refs // nil while listing, or when it failed
	memo    *editor.RevisionMemo
	loading bool
	// trusted: the listing ran with git allowed; one that failed without
	// is made again once trust opens.
	trusted bool
}

// refsTimeout bounds one `git for-each-ref`.
const refsTimeout = 20 * time.Second

// GitDir is the git directory of path's work tree (revision.GitDir),
// remembered per directory: hovers, lenses and the HEAD watch ask for the
// same few directories again and again.
func (s *Session) GitDir(path string) string {
	g := &s.git
	dir := filepath.Dir(path)
	g.dirsMu.Lock()
	defer g.dirsMu.Unlock()
	if d, ok := g.dirs[dir]; ok {
		return d
	}
	d := revision.GitDir(dir)
	if g.dirs == nil {
		g.dirs = map[string]string{}
	}
	g.dirs[dir] = d
	return d
}

// InGitTree reports whether path lies in a git work tree.
func (s *Session) InGitTree(path string) bool { return s.GitDir(path) != "" }

// WatchHeads looks at HEAD of every open document's work tree and reports
// whether one moved since the last look (the first look only records).
func (s *Session) WatchHeads() bool {
	g := &s.git
	moved := false
	seen := map[string]bool{}
	for _, d := range s.Docs() {
		dir := s.GitDir(d.Path)
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		if s.refreshRefs(dir, filepath.Dir(d.Path)) {
			moved = true // the refs changed: unknown revisions may be known now
		}
		h := revision.ReadHead(dir)
		g.mu.Lock()
		if old, ok := g.head[dir]; ok && old != h {
			if g.moved == nil {
				g.moved = map[string]time.Time{}
			}
			g.moved[dir] = time.Now()
			moved = true
		}
		if g.head == nil {
			g.head = map[string]string{}
		}
		g.head[dir] = h
		g.mu.Unlock()
	}
	return moved
}

// HeadMovedSince reports when HEAD of path's work tree was last seen to
// move, if after t.
func (s *Session) HeadMovedSince(path string, t time.Time) (time.Time, bool) {
	dir := s.GitDir(path)
	g := &s.git
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.moved[dir]
	return m, ok && m.After(t)
}

// Refs is the ref list of path's repository, never waiting for git: nil
// outside a repository, while the list is being made (the first ask
// starts it in the background; Config.RefsChanged is told when it
// arrives), or when git could not make it. WatchHeads makes it again when
// the ref files change.
func (s *Session) Refs(path string) *revision.Refs { return s.refsOf(path).refs }

// UnknownRevisions are the "@rev" of doc (a Java file's annotations, a
// .spl file's text) that its repository's refs do not know, with their
// fixes (editor.UnknownRevisions); none outside git
// or until the refs are listed (Refs). What each annotation string holds
// is remembered with the list: only changed strings are read again.
func (s *Session) UnknownRevisions(doc *Document) []editor.Problem {
	if doc == nil || doc.Java == nil && doc.SPL == nil {
		return nil
	}
	m := s.refsOf(doc.Path).memo
	switch {
	case m == nil:
		return nil
	case doc.SPL != nil:
		return m.ProblemsInSPL(doc.Path, doc.SPL)
	}
	return m.Problems(doc.Java)
}

// refsOf is Refs's entry (empty when there is none yet).
func (s *Session) refsOf(path string) refsEntry {
	dir := s.GitDir(path)
	if dir == "" {
		return refsEntry{}
	}
	g := &s.git
	g.refsMu.Lock()
	defer g.refsMu.Unlock()
	if e := g.refs[dir]; e != nil {
		return *e
	}
	if g.stopped {
		return refsEntry{}
	}
	if g.refs == nil {
		g.refs = map[string]*refsEntry{}
	}
	g.refs[dir] = &refsEntry{loading: true}
	g.loads.Add(1)
	go func() {
		defer g.loads.Done()
		if s.listRefs(dir, filepath.Dir(path)) && g.changed != nil {
			g.changed()
		}
	}()
	return refsEntry{}
}

// refreshRefs lists dir's refs again when a list was made and the ref
// files changed since (or it failed for want of trust, which is open
// now); it reports whether a new list was made. It runs git: the HEAD
// watch calls it, never a handler.
func (s *Session) refreshRefs(dir, workDir string) bool {
	g := &s.git
	g.refsMu.Lock()
	e := g.refs[dir]
	g.refsMu.Unlock()
	if e == nil {
		return false // never asked for: nothing to keep current
	}
	stamp := revision.RefsStamp(dir) // outside the lock: Refs must not wait for the disk
	g.refsMu.Lock()
	again := g.refs[dir] == e && !e.loading && !g.stopped &&
		(e.stamp != stamp || e.refs == nil && !e.trusted && trust.Trusted(s.base))
	if again {
		e.loading = true
		g.loads.Add(1)
	}
	g.refsMu.Unlock()
	if !again {
		return false
	}
	defer g.loads.Done()
	return s.listRefs(dir, workDir)
}

// listRefs makes dir's ref list with git in workDir and keeps it; it
// reports whether it got one.
func (s *Session) listRefs(dir, workDir string) bool {
	g := &s.git
	stamp := revision.RefsStamp(dir) // before listing: a change meanwhile lists again
	ctx, cancel := context.WithTimeout(s.base, refsTimeout)
	defer cancel()
	ctx, stop := UntilDone(ctx, g.done)
	defer stop()
	// In a workspace not trusted git does not run (the repository's config
	// can name programs): its ref files tell the same list.
	var refs *revision.Refs
	var err error
	if trust.Trusted(ctx) {
		refs, err = revision.ListRefs(ctx, workDir, dir)
	} else {
		refs, err = revision.RefsFromFiles(dir)
	}
	if err != nil && s.logf != nil {
		s.logf("unknown revisions are not reported in %s: %v", workDir, err)
	}
	g.refsMu.Lock()
	defer g.refsMu.Unlock()
	e := &refsEntry{stamp: stamp, refs: refs, trusted: trust.Trusted(ctx)}
	if refs != nil {
		e.memo = editor.NewRevisionMemo(refs)
	}
	g.refs[dir] = e
	return refs != nil
}

// stopRefs lets no more listings start and waits for those running.
func (g *gitState) stopRefs() {
	g.refsMu.Lock()
	g.stopped = true
	g.refsMu.Unlock()
	g.loads.Wait()
}
