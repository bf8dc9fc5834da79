package session

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/trust"
)

// The ref list is made once in the background at the first ask (which
// does not wait for it), served from the cache after, and made again by
// the HEAD watch only when the ref files change; without trust git does
// not run and the list is read from the ref files.
func TestRefsCachedAndRefreshedWhenRefsChange(t *testing.T) {
	top, _ := fixture.GitProject(t, map[string]string{"src/p/A.java": "package p;\nclass A {}\n"})
	fixture.Git(t, top, "tag", "v1.0")
	gate := trust.Closed("not yet")
	done := make(chan struct{})
	arrived := make(chan struct{}, 8)
	s := New(Config{Base: trust.With(context.Background(), gate), Done: done, Logf: t.Logf, Indexed: func() {},
		FolderOf: func(string) string { return "" }, RefsChanged: func() { arrived <- struct{}{} }})
	t.Cleanup(func() { close(done); s.Stop() })
	path := filepath.Join(top, "src", "p", "A.java")
	doc, _ := s.Analyze(protocol.DocumentURI(uri.File(path)), 1, "package p;\nclass A {}\n")
	s.Store(doc)

	// Untrusted: git does not run; the list is read from the ref files,
	// in the background too.
	if r := s.Refs(path); r != nil {
		t.Fatal("the first ask waited for the list")
	}
	s.git.loads.Wait()
	untrusted := s.Refs(path)
	if untrusted == nil || !untrusted.Knows("v1.0") || untrusted.Knows("v2.0") {
		t.Fatalf("refs read as files without trust: %+v", untrusted)
	}
	select {
	case <-arrived:
	default:
		t.Error("RefsChanged was not called when the list from the files arrived")
	}
	if s.WatchHeads() || s.Refs(path) != untrusted {
		t.Error("the watch listed again without a change")
	}

	// Trust opening changes nothing the files did not tell.
	gate.Set(true, "")
	if s.WatchHeads() {
		t.Error("the watch listed again when trust opened, with nothing changed")
	}
	first := s.Refs(path)
	if first != untrusted {
		t.Fatalf("refs after trust opened: %+v", first)
	}
	if s.WatchHeads() || s.Refs(path) != first {
		t.Error("the refs were listed again though nothing changed")
	}
	fixture.Git(t, top, "tag", "v2.0")
	if !s.WatchHeads() {
		t.Error("a new tag did not make the watch report a change")
	}
	second := s.Refs(path)
	if second == first || !second.Knows("v2.0") {
		t.Errorf("after a new tag: %+v", second)
	}
	if s.WatchHeads() || s.Refs(path) != second {
		t.Error("listed again after the new tag with nothing changed")
	}
	fixture.Git(t, top, "commit", "-q", "--allow-empty", "-m", "HEAD moves")
	if !s.WatchHeads() || s.Refs(path) == second {
		t.Error("a commit (HEAD and main moved) did not list the refs again")
	}

	// Another repository, trusted from the start: the first ask lists in
	// the background and says so when the list arrives.
	other, _ := fixture.GitProject(t, map[string]string{"B.java": "class B {}\n"})
	fixture.Git(t, other, "branch", "side")
	bpath := filepath.Join(other, "B.java")
	if s.Refs(bpath) != nil {
		t.Fatal("the first ask waited for git")
	}
	select {
	case <-arrived:
	case <-time.After(time.Minute): // a hung git, not a slow one
		t.Fatal("RefsChanged was never called")
	}
	if r := s.Refs(bpath); r == nil || !r.Knows("side") || r.Knows("v1.0") {
		t.Errorf("the other repository's refs: %+v", r)
	}

	if r := s.Refs(filepath.Join(t.TempDir(), "C.java")); r != nil {
		t.Error("refs outside a repository")
	}
}
