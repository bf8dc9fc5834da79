package session

import (
	"path/filepath"
	"sync"
	"time"

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
}

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
