package server

// The project classpath in the editor: resolved per project root in the
// background (perfls.json, or Maven or Gradle, which may take seconds:
// never on a didChange), first when a document of the project is opened,
// again when its build files change; then the open documents are linted
// again. Hover, completion and definition of classes outside the workspace
// (jars, the JDK) follow.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

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

// externalMethod finds the method a resolved target names outside the
// workspace (a jar's, the JDK's): the chosen overload, or ok false with the
// candidates when the target does not tell which.
func (s *server) externalMethod(doc *document, f *workspace.Formula, ix *workspace.Index, t workspace.Target) (m workspace.ExternalMember, cands []workspace.ExternalMember, ok bool) {
	ext := s.workspaceIndex().externalFor(doc.path)
	if ext == nil || t.Class == "" || t.Revision != "" {
		return m, nil, false
	}
	var scope *javasrc.Type
	if f.Method != nil {
		scope = f.Method.Type
	}
	cls := ix.ClassName(f.File, scope, t.Class, ext)
	_, ms, _ := workspace.ExternalMembers(ext, cls, t.Method)
	m, ok = workspace.PickExternal(ms, t.Params)
	return m, ms, ok
}

// externalSource finds m's declaration in its class's source (a
// -sources.jar beside the jar, the JDK's src.zip): the parsed file and the
// method; nil when there is none.
func (s *server) externalSource(m workspace.ExternalMember) (*javasrc.File, *javasrc.Method) {
	c := m.Class
	if c.SourceArchive == "" {
		return nil, nil
	}
	f := s.sources.parsed(c.SourceArchive, c.SourceEntry)
	if f == nil {
		return nil, nil
	}
	return f, workspace.MethodIn(f, c.Name, m.Method.Name, m.Method.Params)
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

// externalHover documents a method outside the workspace: its declaration,
// the class and the jar (or JDK) it comes from, and its source line when
// the sources are at hand.
func (s *server) externalHover(doc *document, f *workspace.Formula, ix *workspace.Index, t workspace.Target) string {
	m, cands, ok := s.externalMethod(doc, f, ix, t)
	if !ok {
		if len(cands) == 0 {
			return ""
		}
		var b strings.Builder
		b.WriteString("\noverloads:\n\n")
		for _, c := range cands {
			fmt.Fprintf(&b, "- `%s`\n", c.Signature())
		}
		return b.String()
	}
	var b strings.Builder
	file, decl := s.externalSource(m)
	text := externalDeclText(m.Method)
	if decl != nil {
		text = declText(decl)
	}
	fmt.Fprintf(&b, "\n```java\n%s\n```\n\ndeclared in `%s`", text, strings.ReplaceAll(m.Class.Name, "$", "."))
	if o := m.Class.Origin; o != "" {
		// The JDK's class data (package jdk) lies in its lib directory.
		jdkData := filepath.Base(filepath.Dir(o)) == "lib" && slices.Contains([]string{"ct.sym", "modules", "rt.jar"}, filepath.Base(o))
		if (o == m.Class.SourceArchive && strings.HasSuffix(o, "src.zip")) || jdkData {
			b.WriteString(" (the JDK)")
		} else {
			fmt.Fprintf(&b, " from `%s`", filepath.Base(o))
		}
	}
	b.WriteString("\n")
	if decl != nil {
		line := file.Mapper.Range(decl.NameSpan).Start.Line + 1
		fmt.Fprintf(&b, "\n%s:%d (%s)\n", m.Class.SourceEntry, line, filepath.Base(m.Class.SourceArchive))
	}
	return b.String()
}

// externalDeclText renders a class file's method like declText:
// "static Builder create()", parameter names when the class file has them.
func externalDeclText(m workspace.ExternalMethod) string {
	var b strings.Builder
	if m.Static {
		b.WriteString("static ")
	}
	if m.Return != "" {
		b.WriteString(m.Return + " ")
	}
	b.WriteString(m.Name + "(")
	for i, p := range m.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if m.Varargs && i == len(m.Params)-1 {
			p = strings.TrimSuffix(p, "[]") + "..."
		}
		b.WriteString(p)
		if i < len(m.ParamNames) && m.ParamNames[i] != "" {
			b.WriteString(" " + m.ParamNames[i])
		}
	}
	b.WriteString(")")
	return b.String()
}

// externalLocation is where go-to-definition goes for a method outside the
// workspace: its source file extracted (read-only) into the cache
// directory. ok is false without sources or a cache directory: no place is
// invented.
func (s *server) externalLocation(doc *document, f *workspace.Formula, ix *workspace.Index, t workspace.Target) (protocol.Location, bool) {
	m, _, ok := s.externalMethod(doc, f, ix, t)
	if !ok {
		return protocol.Location{}, false
	}
	file, decl := s.externalSource(m)
	if decl == nil {
		return protocol.Location{}, false
	}
	p, err := classpath.ExtractSource(s.opts.CacheDir, m.Class.SourceArchive, m.Class.SourceEntry)
	if err != nil {
		s.logf("definition of %s: %v", t, err)
		return protocol.Location{}, false
	}
	return protocol.Location{URI: uri.File(p), Range: toProtocolRange(file.Mapper.Range(decl.NameSpan))}, true
}
