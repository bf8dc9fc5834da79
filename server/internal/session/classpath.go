package session

// The project classpath in the editor: resolved per project root in the
// background (perfls.json, or Maven or Gradle, which may take seconds:
// never on a didChange), first when a document of the project is opened,
// again when its build files change; then the open documents are linted
// again.

import (
	"context"
	"path/filepath"
	"strings"
	"sync"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/classpath"
	"github.com/perfls/perfls/cache/declindex"
	"github.com/perfls/perfls/measure"
)

// ensureClasspath starts resolving root's classpath unless it is (being)
// resolved.
func (w *wsIndex) ensureClasspath(root string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.classpaths[root]; !ok {
		w.startClasspathLocked(root)
	}
}

// startClasspathLocked starts a resolution of root's classpath; the
// previous answer, if any, serves until it arrives.
func (w *wsIndex) startClasspathLocked(root string) {
	if w.classpaths == nil {
		w.classpaths, w.cpRuns = map[string]*classpath.Classpath{}, map[string]int{}
	}
	if _, ok := w.classpaths[root]; !ok {
		w.classpaths[root] = nil
	}
	if w.stopped {
		return
	}
	w.cpRuns[root]++
	run := w.cpRuns[root]
	w.bg.Go(func() { w.resolveClasspath(root, run) }) // under mu, as stop needs
}

// resolveClasspathsAgain starts a resolution of every project's classpath
// known so far (trust was granted: the build tool may now answer).
func (w *wsIndex) resolveClasspathsAgain() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for root := range w.classpaths {
		w.startClasspathLocked(root)
	}
}

// classpathFiles are the files that decide a project's classpath.
var classpathFiles = map[string]bool{measure.ConfigFile: true, "pom.xml": true, "build.gradle": true, "build.gradle.kts": true,
	"settings.gradle": true, "settings.gradle.kts": true}

// classpathFileChanged resolves again the classpath of the projects that a
// file changed on disk concerns: a build file or perfls.json in a project
// (a module's too), or a jar on its classpath (a rebuilt SNAPSHOT; jars
// are cached by size and modification time, so only what changed is read
// again). Class folders need nothing: a package is listed again when its
// directory changes.
func (w *wsIndex) classpathFileChanged(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for root, cp := range w.classpaths {
		switch {
		case classpathFiles[filepath.Base(path)] && strings.HasPrefix(path, root+string(filepath.Separator)):
		case cp != nil && strings.HasSuffix(path, ".jar") && onClasspath(cp, path):
		default:
			continue
		}
		w.startClasspathLocked(root)
	}
}

// onClasspath tells whether path is an entry of cp or lies in one.
func onClasspath(cp *classpath.Classpath, path string) bool {
	for _, e := range cp.Paths() {
		if path == e || strings.HasPrefix(path, e+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolveClasspath runs in its own goroutine; it stops with the connection
// (the build tool is killed through ctx). run numbers the resolutions of
// root: only the latest one's answer is kept.
func (w *wsIndex) resolveClasspath(root string, run int) {
	ctx, cancel := context.WithCancel(w.base)
	defer cancel()
	go func() {
		select {
		case <-w.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	p, err := measure.ProjectClasspath(ctx, root, w.cacheDir)
	if err != nil {
		w.logf("classpath of %s: %v", root, err)
		return // references into jars stay unchecked for this project
	}
	for _, n := range p.ClasspathNotices() {
		w.logf("%s", n)
	}
	var cp *classpath.Classpath
	if len(p.Classpath) > 0 {
		cp = classpath.New(p.Classpath)
		for _, problem := range cp.Problems() { // opens the jars here, not in a didChange
			w.logf("classpath of %s: %s", root, problem)
		}
		w.logf("classpath of %s: %d entries from %s", root, len(p.Classpath), p.ClasspathFrom)
	}
	w.mu.Lock()
	if w.cpRuns[root] != run || (cp == nil && w.classpaths[root] == nil) {
		w.mu.Unlock()
		return // superseded, or nothing to change
	}
	w.classpaths[root] = cp
	w.gen++ // a lint that raced with this runs again (update)
	w.mu.Unlock()
	select {
	case <-w.done:
	default:
		w.onReady()
	}
}

// externalFor is what lies outside the workspace for a document: the JDK,
// then its project's classpath once resolved.
func (w *wsIndex) externalFor(path string) workspace.External {
	jdk := w.external()
	w.mu.Lock()
	root, ok := w.rootOf[filepath.Dir(path)]
	var cp *classpath.Classpath
	if ok {
		cp = w.classpaths[root]
	}
	w.mu.Unlock()
	if cp == nil {
		return jdk
	}
	return workspace.Externals{jdk, cp}
}

// sourceFiles caches source files parsed from archives, by archive and
// entry (the archives themselves are cached by size and modification
// time in package classpath).
type sourceFiles struct {
	mu    sync.Mutex
	files map[[2]string]*javasrc.File
}

func (c *sourceFiles) parsed(archive, entry string) *javasrc.File {
	k := [2]string{archive, entry}
	c.mu.Lock()
	f, ok := c.files[k]
	c.mu.Unlock()
	if ok {
		return f
	}
	if src, err := classpath.ReadSource(archive, entry); err == nil && len(src) <= declindex.MaxFileSize {
		f, _ = javasrc.Parse(entry, src)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil || len(c.files) > 64 {
		c.files = map[[2]string]*javasrc.File{}
	}
	c.files[k] = f
	return f
}
