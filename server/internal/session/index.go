package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/classpath"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/cache/declindex"
	"github.com/perfls/perfls/measure"
)

// wsIndex is the index of the Java files on disk under the projects of the
// open documents. It is built in the background the first time a document
// of a project is opened; until then formulas are linted against the open
// documents only, with unknown classes left unreported (Partial).
//
// Its goroutines belong to the connection: they stop when it closes, and
// bg counts them (Session.Stop waits for them).
type wsIndex struct {
	base     context.Context // the session's (trust.With): background work derives from it
	done     <-chan struct{} // the connection's Done
	cacheDir string          // where the declarations are persisted; "" = not at all
	bg       sync.WaitGroup  // the index builds and classpath resolutions running; added to under mu

	mu       sync.Mutex
	stopped  bool                     // stop was called: no more background work starts
	roots    map[string]bool          // project roots being or already indexed
	loose    map[string]bool          // files outside every workspace folder, indexed alone
	rootOf   map[string]string        // directory → its project root, found once (every change asks)
	building int                      // roots still being built
	files    map[string]*javasrc.File // by path
	ix       *workspace.Index         // of files; rebuilt when they change
	gen      int                      // counts rebuilds of ix
	ext      workspace.External       // the JDK's classes; nil when not found
	extDone  bool
	extHome  string // the javaHome setting ext was looked up with
	// javaHome reads the javaHome setting; jdkNotice tells the user, once
	// a session, that the JDK's classes were not found.
	javaHome       func() string
	jdkNotice      func(msg string)
	jdkNoticeShown bool
	// classpaths holds each project root's classpath lookup, once its
	// resolution (perfls.json, Maven, Gradle: classpath.go) has finished;
	// a root being resolved maps to nil. cpRuns counts each root's
	// resolutions, so that a late one does not replace a newer answer.
	classpaths map[string]*classpath.Classpath
	cpRuns     map[string]int
	onReady    func()                   // called (without mu) after a root has been indexed
	folderOf   func(path string) string // the innermost workspace folder holding path, "" for none
	logf       func(format string, args ...any)

	// client receives $/progress while a root is indexed, when
	// progressOK says the client shows work-done progress.
	client     protocol.Client
	progressOK func() bool // reads the client's capabilities; may be nil
	tokens     int         // progress tokens created
}

// external returns the JDK lookup: the classes of the JDK of the javaHome
// setting, else of JAVA_HOME or PATH (jdk.Load: its src.zip, else its
// class data), looked up again when the setting changes. A lookup stays
// open until the connection closes (a lint may still be reading a
// replaced one). Not finding any is logged each time and shown to the
// user once a session: method names through JDK types go unchecked.
func (w *wsIndex) external() workspace.External {
	home := ""
	if w.javaHome != nil {
		home = w.javaHome()
	}
	w.mu.Lock()
	if w.extDone && w.extHome == home {
		defer w.mu.Unlock()
		return w.ext
	}
	w.extDone, w.extHome, w.ext = true, home, nil
	classes, err := jdk.Load(home)
	notice := ""
	if err != nil {
		notice = fmt.Sprintf("perfls: JDK classes not found (%v): method names of classes extending JDK types are not checked; set the javaHome setting or JAVA_HOME to a JDK", err)
		if w.jdkNoticeShown || w.jdkNotice == nil {
			w.logf("%s", notice)
			notice = ""
		}
		w.jdkNoticeShown = true
	} else {
		w.ext = classes
		w.logf("JDK classes from %s", classes)
		go func() {
			<-w.done
			classes.Close()
		}()
	}
	ext := w.ext
	w.mu.Unlock()
	if notice != "" {
		w.jdkNotice(notice) // shown and logged
	}
	return ext
}

// snapshot returns the disk index and whether it covers every project of
// the open documents.
func (w *wsIndex) snapshot() (*workspace.Index, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ix == nil {
		w.ix = workspace.NewIndex(nil)
	}
	return w.ix, w.building == 0 && len(w.roots) > 0
}

// ensure starts indexing the project that holds path, once per project.
// It runs on every change, so a directory's root is looked up once: a
// build file created later in the session is seen after a restart.
//
// The index never leaves the workspace folders: a project whose root lies
// above its folder is indexed from the folder down, and a file outside
// every folder (or in a session without folders) is indexed alone, not
// its directory's tree, which may be a home directory or the filesystem's
// root.
func (w *wsIndex) ensure(path string) {
	dir := filepath.Dir(path)
	w.mu.Lock()
	root, ok := w.rootOf[dir]
	w.mu.Unlock()
	if !ok {
		root = measure.ProjectRoot(dir)
		w.mu.Lock()
		if w.rootOf == nil {
			w.rootOf = map[string]string{}
		}
		w.rootOf[dir] = root
		w.mu.Unlock()
	}
	switch folder := w.folderOf(path); {
	case folder == "":
		w.ensureLoose(path)
	case Within(folder, root):
		w.ensureRoot(root)
	default:
		w.ensureRoot(folder)
	}
	w.ensureClasspath(root)
}

// ensureLoose indexes a file outside the workspace folders, once: the file
// alone (refresh reads it when it is a regular file).
func (w *wsIndex) ensureLoose(path string) {
	w.mu.Lock()
	if w.loose[path] || w.stopped || !strings.HasSuffix(path, ".java") {
		w.mu.Unlock()
		return
	}
	if w.loose == nil {
		w.loose = map[string]bool{}
	}
	w.loose[path] = true
	w.mu.Unlock()
	w.refresh(path)
	w.logf("indexed %s alone: it lies outside the workspace folders", path)
}

// ensureRoot starts indexing root unless it is (being) indexed, or lies
// inside a root that is.
func (w *wsIndex) ensureRoot(root string) {
	w.mu.Lock()
	for r := range w.roots {
		if root == r || strings.HasPrefix(root, r+string(filepath.Separator)) {
			w.mu.Unlock()
			return
		}
	}
	if w.roots[root] || w.stopped {
		w.mu.Unlock()
		return
	}
	w.roots[root] = true
	w.building++
	w.bg.Go(func() { w.build(root) }) // under mu, as stop needs
	w.mu.Unlock()
}

// stop waits for the background work to end (it ends with the
// connection) and lets no more start.
func (w *wsIndex) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.bg.Wait()
}

// build reads the declarations of every Java file under root, from the
// persisted index in the cache directory where their files are unchanged.
func (w *wsIndex) build(root string) {
	report := w.beginProgress(root)
	files, stats, err := declindex.IndexRoot(root, declindex.Path(w.cacheDir, root), w.done, report.update)
	report.end(stats)
	if err != nil {
		w.logf("%v", err)
	}
	w.logf("indexed %s: %d Java files (%d parsed, %d from the cache) in %v", root, stats.Files, stats.Parsed, stats.Reused, stats.Elapsed)
	w.mu.Lock()
	for _, f := range files {
		w.files[f.Path] = f
	}
	w.building--
	w.rebuildLocked()
	w.mu.Unlock()
	select {
	case <-w.done:
	default:
		w.onReady()
	}
}

func (w *wsIndex) rebuildLocked() {
	all := make([]*javasrc.File, 0, len(w.files))
	for _, f := range w.files {
		all = append(all, f)
	}
	w.ix = workspace.NewIndex(all)
	w.gen++
}

// generation counts the index's rebuilds, so a check can tell that it
// raced with one.
func (w *wsIndex) generation() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

// refresh re-reads one file from disk (saved or changed on disk); a file
// that no longer exists, or is no regular file (a FIFO is never opened),
// leaves the index.
func (w *wsIndex) refresh(path string) {
	if !strings.HasSuffix(path, ".java") {
		return
	}
	var f *javasrc.File
	if src, err := declindex.ReadJava(path); err == nil {
		f, _ = javasrc.Parse(path, src)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if f == nil {
		delete(w.files, path)
	} else {
		w.files[path] = f
	}
	w.rebuildLocked()
}

// progressReport sends $/progress for one indexing run; a nil report
// sends nothing.
type progressReport struct {
	w       *wsIndex
	token   protocol.ProgressToken
	mu      sync.Mutex
	lastPct uint32
}

// beginProgress creates a progress token and sends begin, when the client
// handles progress; otherwise it returns nil.
func (w *wsIndex) beginProgress(root string) *progressReport {
	supported := w.progressOK != nil && w.progressOK()
	w.mu.Lock()
	if !supported || w.client == nil {
		w.mu.Unlock()
		return nil
	}
	w.tokens++
	token := *protocol.NewProgressToken(fmt.Sprintf("perfls/index/%d", w.tokens))
	w.mu.Unlock()
	ctx, cancel := UntilDone(w.base, w.done)
	defer cancel()
	if err := w.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
		w.logf("progress for indexing %s: %v", root, err)
		return nil
	}
	r := &progressReport{w: w, token: token}
	r.send(&protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: "perfls: indexing Java files", Message: root})
	return r
}

func (r *progressReport) send(v any) {
	if err := r.w.client.Progress(r.w.base, &protocol.ProgressParams{Token: r.token, Value: v}); err != nil {
		r.w.logf("progress: %v", err)
	}
}

// update reports parsed of total files, at most once per 5 %.
func (r *progressReport) update(parsed, total int) {
	if r == nil || total == 0 {
		return
	}
	pct := uint32(parsed * 100 / total)
	r.mu.Lock()
	defer r.mu.Unlock()
	if pct < r.lastPct+5 && parsed != total {
		return
	}
	r.lastPct = pct
	r.send(&protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: fmt.Sprintf("%d/%d files", parsed, total), Percentage: pct})
}

func (r *progressReport) end(st declindex.Stats) {
	if r == nil {
		return
	}
	r.send(&protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd,
		Message: fmt.Sprintf("%d Java files (%d parsed, %d from the cache)", st.Files, st.Parsed, st.Reused)})
}

// UntilDone is ctx, ended also when done closes (the connection's Done): a
// request to the client waits for its reply, which a closed connection
// never brings. cancel releases the watching goroutine.
func UntilDone(ctx context.Context, done <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
