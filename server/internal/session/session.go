// Package session owns the language server's state between messages, as
// gopls's Session → View → Snapshot does: the open documents, the index of
// the workspace's Java files with each project's classpath and the JDK's
// classes, the verdicts recorded in the store, the caches of the bounds
// oracle, profiles and comparisons with the base, and the watches of git
// HEAD and of regressions. Each part keeps its own lock; handlers take a
// Snapshot, an immutable value they read without locks, and never touch
// the store: what they read of it comes through Records, which tests
// fake.
package session

import (
	"context"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
)

// Records is what the editor reads of the store (through the engine's
// store, or a fake in tests): the latest verdicts, the bounds oracle's
// models and runs, and the regression watch of hovered methods.
type Records interface {
	// VerdictsRevision counts the changes of the recorded verdicts and
	// oracle state; Verdicts reads the latest verdict of every method.
	VerdictsRevision(ctx context.Context) (int64, error)
	Verdicts(ctx context.Context) ([]verdict.MethodResult, error)
	OracleModels(ctx context.Context) ([]cache.OracleKey, error)
	OracleModel(ctx context.Context, k cache.OracleKey) (*cache.OracleModel, error)
	LatestOracleResult(ctx context.Context, k cache.OracleKey) (*cache.OracleResult, error)
	AcceptLatestOracleRun(ctx context.Context, k cache.OracleKey) (*oracle.Model, int64, error)
	// SlowerSince is the latest change point of method's time per op over
	// the first-parent history of dir's repository when it is a
	// slow-down; nil otherwise (engine.RegressionWatch).
	SlowerSince(ctx context.Context, dir, method string) (*report.RegressionChange, error)
}

// Config wires a session to its connection.
type Config struct {
	Base     context.Context // the session's (trust.With): background work derives from it
	Done     <-chan struct{} // the connection's Done: background work stops then
	CacheDir string          // where declarations are persisted; "" = nowhere
	Logf     func(format string, args ...any)
	// Client receives $/progress while a project is indexed, when
	// Progress (may be nil) says the client shows it.
	Client   protocol.Client
	Progress func() bool
	// Indexed is called (in the background) when a project's index or
	// classpath changed: the open documents need linting again.
	Indexed func()
	// FolderOf is the innermost workspace folder holding a path, "" for
	// none; JavaHome the javaHome setting; Notice tells the user something
	// once (the JDK's classes were not found).
	FolderOf func(path string) string
	JavaHome func() string
	Notice   func(msg string)
	// RefsChanged is called (in the background) when a repository's ref
	// list, which Refs started, arrives: the open documents' unknown
	// revisions can be reported now.
	RefsChanged func()
}

// Session is the editor's state; see the package doc.
type Session struct {
	logf  func(format string, args ...any)
	base  context.Context
	index *wsIndex

	// parse orders the uses of the documents' tree-sitter trees: changes
	// arrive one at a time anyway, but a tree must never be read from two
	// goroutines, whatever the caller does.
	parse sync.Mutex
	mu    sync.Mutex
	docs  map[protocol.DocumentURI]*Document

	records  recordsRef
	verdicts verdicts
	oracle   oracleCache
	sources  sourceFiles // files parsed from -sources.jars and src.zip
	decls    declFiles   // files parsed from disk to locate declarations
	git      gitState
	// highlight: each open document's semantic-token highlighter
	highlight highlighters

	// Profiles are the profiles known, by MethodKey (a method present
	// with none had none in the store when read); Diffs the latest
	// comparisons with the base, by MethodKey.
	Profiles MethodStore[[]*engine.Profiled]
	Diffs    MethodStore[*report.Diff]
}

// New makes a session; its background work ends with cfg.Done, and Stop
// waits for it.
func New(cfg Config) *Session {
	s := &Session{logf: cfg.Logf, base: cfg.Base, docs: map[protocol.DocumentURI]*Document{}}
	s.verdicts.rev, s.oracle.rev = -1, -1
	s.verdicts.stale = make(chan struct{}, 1)
	s.git.done, s.git.changed = cfg.Done, cfg.RefsChanged
	s.index = &wsIndex{base: cfg.Base, done: cfg.Done, cacheDir: cfg.CacheDir, roots: map[string]bool{}, files: map[string]*javasrc.File{},
		logf: cfg.Logf, client: cfg.Client, progressOK: cfg.Progress, onReady: cfg.Indexed, folderOf: cfg.FolderOf,
		javaHome: cfg.JavaHome, jdkNotice: cfg.Notice}
	return s
}

// Stop waits for the background work (index builds, classpath
// resolutions, which write to the cache directory; ref listings) to end —
// it ends with the connection — and lets no more start.
func (s *Session) Stop() {
	s.index.stop()
	s.git.stopRefs()
}

// recordsRef holds the session's Records, set once the engine is open.
type recordsRef struct {
	mu sync.Mutex
	r  Records
}

// SetRecords makes r what the session reads of the store; nil reads
// nothing.
func (s *Session) SetRecords(r Records) {
	s.records.mu.Lock()
	defer s.records.mu.Unlock()
	s.records.r = r
}

// Records is what the session reads of the store; nil when there is none.
func (s *Session) Records() Records {
	s.records.mu.Lock()
	defer s.records.mu.Unlock()
	return s.records.r
}

// Snapshot is the session's state as one request sees it: the document,
// the disk index and the verdicts at one moment. It is a value: nothing in
// it changes, so handlers read it without locks.
type Snapshot struct {
	Doc      *Document        // nil when the document is not open
	Index    *workspace.Index // the index of the files on disk
	Complete bool             // the index covers every project of the open documents
	open     []*javasrc.File  // the open documents' models, Doc's version included
	results  map[string][]verdict.MethodResult
}

// Snapshot is the state for a request about u.
func (s *Session) Snapshot(u protocol.DocumentURI) Snapshot { return s.SnapshotOf(s.Doc(u)) }

// SnapshotOf is the state with doc (nil: none) as its document's version.
func (s *Session) SnapshotOf(doc *Document) Snapshot {
	sn := Snapshot{Doc: doc, results: s.verdicts.byFileNow()}
	sn.Index, sn.Complete = s.index.snapshot()
	if doc != nil {
		sn.open = s.openJava(doc)
	}
	return sn
}

// Overlay is the index with the open documents over the files on disk.
func (sn Snapshot) Overlay() *workspace.Index { return sn.Index.With(sn.open) }

// Results are the verdicts of the methods of file.
func (sn Snapshot) Results(file string) []verdict.MethodResult { return sn.results[file] }

// AllResults are the verdicts of every method, for lookups across files
// (@SeeAlso).
func (sn Snapshot) AllResults() []verdict.MethodResult {
	var out []verdict.MethodResult
	for _, rs := range sn.results {
		out = append(out, rs...)
	}
	return out
}

// Index operations: the handlers of changes tell the session what
// happened; the index builds and resolves in the background.

// Ensure starts indexing the project that holds path (and resolving its
// classpath), once per project.
func (s *Session) Ensure(path string) { s.index.ensure(path) }

// EnsureRoot starts indexing a workspace folder.
func (s *Session) EnsureRoot(root string) { s.index.ensureRoot(root) }

// Generation counts the index's rebuilds, so a lint can tell that it
// raced with one.
func (s *Session) Generation() int { return s.index.generation() }

// Refresh re-reads one Java file from disk into the index.
func (s *Session) Refresh(path string) { s.index.refresh(path) }

// ClasspathFileChanged resolves again the classpaths path concerns.
func (s *Session) ClasspathFileChanged(path string) { s.index.classpathFileChanged(path) }

// ResolveClasspathsAgain resolves every known project's classpath again
// (trust was granted: the build tool may now answer).
func (s *Session) ResolveClasspathsAgain() { s.index.resolveClasspathsAgain() }

// ExternalFor is what lies outside the workspace for a document: the JDK,
// then its project's classpath once resolved.
func (s *Session) ExternalFor(path string) workspace.External { return s.index.externalFor(path) }

// Source is entry of a source archive (a -sources.jar, the JDK's src.zip),
// parsed; nil when it cannot be read.
func (s *Session) Source(archive, entry string) *javasrc.File {
	return s.sources.parsed(archive, entry)
}

// DiskFile is path's model as on disk, reparsed only when it changed;
// nil when it cannot be read.
func (s *Session) DiskFile(path string) *javasrc.File { return s.decls.parsed(path) }

// Indexed lists the roots the index walks (or walked) and the files it
// holds, sorted (for tests).
func (s *Session) Indexed() (roots, files []string) {
	w := s.index
	w.mu.Lock()
	defer w.mu.Unlock()
	for r := range w.roots {
		roots = append(roots, r)
	}
	for f := range w.files {
		files = append(files, f)
	}
	slices.Sort(roots)
	slices.Sort(files)
	return roots, files
}

// MethodKey names a method in the session's caches: "p.C#m(int[])".
func MethodKey(class, method string, params []string) string {
	return class + "#" + method + "(" + strings.Join(params, ",") + ")"
}

// MethodStore holds what the session knows per method (by MethodKey),
// safe for concurrent use.
type MethodStore[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// Get is the value of key, and whether there is one.
func (ms *MethodStore[T]) Get(key string) (T, bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	v, ok := ms.m[key]
	return v, ok
}

// Set makes v the value of key.
func (ms *MethodStore[T]) Set(key string, v T) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.m == nil {
		ms.m = map[string]T{}
	}
	ms.m[key] = v
}

// All are the values of every method.
func (ms *MethodStore[T]) All() []T {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	out := make([]T, 0, len(ms.m))
	for _, v := range ms.m {
		out = append(out, v)
	}
	return out
}
