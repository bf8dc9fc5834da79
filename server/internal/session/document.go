package session

import (
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
)

// Document is an immutable snapshot of an open file: handlers read it
// without locks once they hold the pointer. Edits replace the whole value.
type Document struct {
	URI         protocol.DocumentURI
	Path        string
	Version     int32
	Text        string                 // the document's text, which incremental changes edit
	Java        *javasrc.File          // nil for .spl files or when parsing failed
	SPL         *textpos.Mapper        // the text of a .spl file; nil for Java
	Formulas    []*workspace.Formula   // formulas found in the text
	Syntax      []workspace.Diagnostic // SPL syntax and semantic diagnostics of the text alone
	Linted      []workspace.Diagnostic // references resolved against the workspace
	Diagnostics []workspace.Diagnostic // syntax and checked, in document order

	// tree is kept for incremental reparse and shared by a URI's
	// versions; only the session touches it (Analyze, Close), under
	// Session.parse, so no two goroutines read it.
	tree *javasrc.Doc
	// lintMemo holds Linted per formula, checked in lintContext, for the
	// next version to reuse (Lint).
	lintMemo    *workspace.LintMemo
	lintContext lintContext
}

// Analyze parses a new version of the document u, reusing the tree of the
// open version for an incremental reparse; it returns the new version
// (not yet linted or stored) and the open one (nil when none is).
func (s *Session) Analyze(u protocol.DocumentURI, version int32, text string) (doc, prev *Document) {
	s.parse.Lock()
	defer s.parse.Unlock()
	s.mu.Lock()
	var tree *javasrc.Doc
	prev = s.docs[u]
	if prev != nil {
		tree = prev.tree
	}
	s.mu.Unlock()
	return analyze(u, version, text, tree), prev
}

// analyze parses a version of a document; tree, when not nil, holds the
// previous version's tree for an incremental reparse.
func analyze(u protocol.DocumentURI, version int32, text string, tree *javasrc.Doc) *Document {
	path := uri.URI(u).Filename()
	doc := &Document{URI: u, Path: path, Version: version, Text: text}
	if strings.HasSuffix(path, ".spl") {
		doc.Formulas, doc.Syntax = workspace.SPLFile(path, text)
		doc.Diagnostics = doc.Syntax
		doc.SPL = textpos.NewMapper(text)
		return doc
	}
	if tree == nil {
		tree = javasrc.NewDoc(path)
	}
	f, err := tree.Update([]byte(text))
	if err != nil {
		// The tree may have been closed by a racing didClose, or be in a
		// bad state: start over from scratch once.
		tree = javasrc.NewDoc(path)
		if f, err = tree.Update([]byte(text)); err != nil {
			tree.Close()
			return doc
		}
	}
	doc.tree = tree
	doc.Java = f
	doc.Formulas, doc.Syntax = workspace.JavaFormulas(f)
	doc.Diagnostics = doc.Syntax
	return doc
}

// Merge returns a and b in document order.
func Merge(a, b []workspace.Diagnostic) []workspace.Diagnostic {
	if len(b) == 0 {
		return a
	}
	out := make([]workspace.Diagnostic, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

// Store makes doc the open version of its document, unless a newer
// version is open already (a late, older change): then it reports false.
func (s *Session) Store(doc *Document) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.docs[doc.URI]; old != nil && old.Version > doc.Version {
		return false
	}
	s.docs[doc.URI] = doc
	return true
}

// Replace makes next the open version of old's document if old still is;
// it reports false when the document was edited (or closed) meanwhile.
func (s *Session) Replace(old, next *Document) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs[old.URI] != old {
		return false
	}
	s.docs[old.URI] = next
	return true
}

// Relinted is doc linted again against the current workspace, as a new
// value (doc stays as it is).
func (s *Session) Relinted(doc *Document) *Document {
	nd := *doc
	nd.Linted = s.Lint(&nd, doc)
	nd.Diagnostics = Merge(doc.Syntax, nd.Linted)
	return &nd
}

// Close forgets the document u and frees its tree.
func (s *Session) Close(u protocol.DocumentURI) {
	s.parse.Lock()
	defer s.parse.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[u]; d != nil && d.tree != nil {
		d.tree.Close()
	}
	delete(s.docs, u)
	s.highlight.forget(u)
}

// Doc is the open version of u; nil when u is not open.
func (s *Session) Doc(u protocol.DocumentURI) *Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[u]
}

// Docs are the open documents (each immutable), to work on without holding
// the lock.
func (s *Session) Docs() []*Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	docs := make([]*Document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	return docs
}

// openJava returns the Java models of the open documents, with doc's
// replacing its older version.
func (s *Session) openJava(doc *Document) []*javasrc.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*javasrc.File
	for u, d := range s.docs {
		if u == doc.URI {
			continue
		}
		if d.Java != nil {
			out = append(out, d.Java)
		}
	}
	if doc.Java != nil {
		out = append(out, doc.Java)
	}
	return out
}

// Within reports whether path is dir or lies below it.
func Within(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
