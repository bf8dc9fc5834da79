package session

import (
	"context"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
)

func newTestSession(t *testing.T) *Session {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	return New(Config{Base: context.Background(), Done: done, Logf: t.Logf, Indexed: func() {},
		FolderOf: func(string) string { return "" }})
}

// A snapshot does not change when the session does: new verdicts, a new
// version of its document.
func TestSnapshotIsAValue(t *testing.T) {
	s := newTestSession(t)
	path := filepath.Join(t.TempDir(), "A.java")
	u := protocol.DocumentURI(uri.File(path))
	doc, prev := s.Analyze(u, 1, "package p;\nclass A { void m() {} }\n")
	if prev != nil || doc.Java == nil {
		t.Fatalf("first version: prev %v, java %v", prev, doc.Java)
	}
	s.Store(doc)
	s.SetResults(path, []verdict.MethodResult{{Class: "p.A", Method: "m"}})
	snap := s.Snapshot(u)

	s.SetResults(path, []verdict.MethodResult{{Class: "p.A", Method: "n"}})
	s.SetResults(filepath.Join(filepath.Dir(path), "B.java"), []verdict.MethodResult{{Class: "p.B", Method: "m"}})
	next, prev := s.Analyze(u, 2, "package p;\nclass A { void m() {} void n() {} }\n")
	if prev != doc {
		t.Error("Analyze did not return the open version as prev")
	}
	s.Store(next)

	if snap.Doc != doc || len(snap.Results(path)) != 1 || snap.Results(path)[0].Method != "m" || len(snap.AllResults()) != 1 {
		t.Errorf("the snapshot changed: doc v%d, results %+v", snap.Doc.Version, snap.AllResults())
	}
	if now := s.Snapshot(u); now.Doc != next || len(now.Results(path)) != 2 || len(now.AllResults()) != 3 {
		t.Errorf("a new snapshot: doc v%d, results %+v", now.Doc.Version, now.AllResults())
	}
	if ix := snap.Overlay(); ix.Type("p.A") == nil {
		t.Error("the overlay lacks the open document's class")
	}
	s.Close(u) // frees the tree
}

// A late, older version of a document does not replace the newer one, and
// Replace refuses a version edited meanwhile.
func TestStoreKeepsTheNewest(t *testing.T) {
	s := newTestSession(t)
	u := protocol.DocumentURI(uri.File(filepath.Join(t.TempDir(), "f.spl")))
	v2, _ := s.Analyze(u, 2, "")
	v1, _ := s.Analyze(u, 1, "")
	if !s.Store(v2) || s.Store(v1) || s.Doc(u) != v2 {
		t.Fatal("an older version replaced the newer one")
	}
	v3, _ := s.Analyze(u, 3, "")
	s.Store(v3)
	if s.Replace(v2, s.Relinted(v2)) || s.Doc(u) != v3 {
		t.Error("Replace overwrote a version edited meanwhile")
	}
	if !s.Replace(v3, s.Relinted(v3)) || s.Doc(u) == v3 {
		t.Error("Replace refused the open version")
	}
	s.Close(u)
	if s.Doc(u) != nil || len(s.Docs()) != 0 {
		t.Error("Close left the document open")
	}
}
