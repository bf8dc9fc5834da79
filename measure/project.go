package measure

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/internal/trust"
)

// Project is a set of Java sources to compile and measure.
type Project struct {
	// Dir is the absolute project directory.
	Dir string
	// SourceRoots are the absolute directories the sources' packages start
	// in, e.g. <Dir>/src/main/java; sorted.
	SourceRoots []string
	// Sources are the absolute paths of the .java files; sorted.
	Sources []string
	// Searched are the directories FindProject walked for .java files: Dir,
	// or perfls.json's "sourceRoots" (absolute), for a message when they
	// hold no formulas.
	Searched []string
	// Classpath holds extra jars or class directories the sources need
	// (dependencies): perfls.json's "classpath" and "classpathFile", else
	// what the build tool reports (ResolveClasspath fills it in), else
	// empty.
	Classpath []string
	// ClasspathFrom says where Classpath came from, for messages:
	// `perfls.json "classpath"`, `Maven (pom.xml)`, …; "" when nothing
	// provides one.
	ClasspathFrom string
	// BuildTool is "maven" when the root has a pom.xml, "gradle" when it has
	// a build.gradle(.kts) or settings.gradle(.kts), and perfls.json names no
	// classpath: ResolveClasspath asks the tool. "" otherwise.
	BuildTool string
	// ClasspathProblem, after ResolveClasspath, says why the build tool gave
	// no (or a partial) classpath and what to do; "" when it did.
	ClasspathProblem string
	resolved         bool // ResolveClasspath ran
	declaresDeps     bool // a build file declares dependencies
	// Outputs are the build tool's class directories that exist: Maven's
	// target/classes and target/test-classes, Gradle's
	// build/classes/java/main and build/classes/java/test. Compile uses them
	// instead of compiling when they are fresh.
	Outputs []string
	// Release, when set, is the Java release Compile compiles for (javac
	// --release): perfls.json's "release" as FindProject reads it; then
	// ApplyOptions makes it the command line's, and the forked JVM's when
	// that is older (ForkRelease).
	Release int
	// JavacArgs are extra javac flags of the project's compilation:
	// perfls.json's "javacArgs", then the command line's (ApplyOptions).
	JavacArgs []string
	// releaseSet says Release was asked for (perfls.json or the command
	// line), not only needed by the forked JVM: a javac that cannot
	// compile for it is then an error, not passed over.
	releaseSet bool
	// Config is the path of the perfls.json read, "" when there is none.
	Config string
	// Interpretation, Alpha and Semantics are the project's defaults for
	// deciding formulas (perfls.json "interpretation", "alpha",
	// "semantics"); empty and 0 when not set.
	Interpretation string
	Alpha          float64
	Semantics      string
	// JVMArgs are perfls.json's "jvmArgs": flags of every forked JVM, before
	// those of the command line or the editor (e.g. -Xmx2g, -XX:+UseParallelGC).
	JVMArgs []string
}

// ConfigFile is the name of the optional project configuration in the
// project root:
//
//	{"classpath": ["lib/dep.jar", "lib/*.jar", "~/jars/x.jar", "../other/classes"],
//	 "classpathFile": "target/cp.txt",
//	 "sourceRoots": ["src/main/java", "src/test/java"],
//	 "interpretation": "parametric", "alpha": 0.01, "semantics": "shown", "jvmArgs": ["-Xmx2g"],
//	 "release": 8, "javacArgs": ["-Xlint:none"]}
//
// Paths are relative to the root (absolute paths are kept, a leading ~ is
// the home directory); classpath entries may be globs. "classpathFile" names
// a file holding a classpath (entries separated by the path-list separator
// or new lines, relative to that file's directory), as
// `mvn dependency:build-classpath -Dmdep.outputFile=FILE` writes; its
// entries follow "classpath"'s. Either one, even an empty "classpath": [],
// keeps perfls from asking Maven or Gradle (ResolveClasspath). With sourceRoots, only those
// directories are searched for sources. "release" compiles the project for
// an older Java release (javac --release: old code that clashes with a
// newer JDK's methods), "javacArgs" adds javac flags (CheckJavacArgs).
const ConfigFile = "perfls.json"

// projectConfig is the content of perfls.json.
type projectConfig struct {
	Classpath      []string `json:"classpath"`
	ClasspathFile  string   `json:"classpathFile"`
	SourceRoots    []string `json:"sourceRoots"`
	Interpretation string   `json:"interpretation"`
	Alpha          float64  `json:"alpha"`
	Semantics      string   `json:"semantics"` // shown or classic (docs/statistics.md); checked by the engine
	JVMArgs        []string `json:"jvmArgs"`
	Release        int      `json:"release"`
	JavacArgs      []string `json:"javacArgs"`
	// Store names the measurement store the team shares (a postgres://
	// URL without a password); read by StoreSetting, not by the build.
	Store string `json:"store"`
	// Repository is where workers fetch the project's commits from
	// ("" = the origin remote's URL; "archive" = always send the sources);
	// read by RepositorySetting.
	Repository string `json:"repository"`
}

// buildOutputs are the build tools' class directories, relative to the root.
var buildOutputs = []string{"target/classes", "target/test-classes", "build/classes/java/main", "build/classes/java/test"}

// readConfig reads dir/perfls.json; nil when there is none.
func readConfig(dir string) (*projectConfig, string, error) {
	path := filepath.Join(dir, ConfigFile)
	data, err := input.ReadRegular(path, input.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, path, err
	}
	var c projectConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, path, fmt.Errorf("%s: %w (want {\"classpath\": [...], \"classpathFile\": \"...\", \"sourceRoots\": [...], \"interpretation\": \"...\", \"alpha\": 0.05, \"release\": 8, \"javacArgs\": [...]})", path, err)
	}
	if err := CheckRelease(c.Release); err != nil {
		return nil, path, fmt.Errorf("%s: \"release\": %w", path, err)
	}
	if err := CheckJavacArgs(c.JavacArgs); err != nil {
		return nil, path, fmt.Errorf("%s: \"javacArgs\": %w", path, err)
	}
	// 0 is "not set"; anything else must be a probability a test can use.
	if c.Alpha != 0 && !(c.Alpha > 0 && c.Alpha <= 0.5) {
		return nil, path, fmt.Errorf("%s: \"alpha\": %g is not a significance level: give one in (0, 0.5], e.g. 0.05 (or leave it out)", path, c.Alpha)
	}
	return &c, path, nil
}

// absIn makes p absolute: relative to dir, a leading ~ the home directory.
func absIn(dir, p string) string {
	p = filepath.FromSlash(expandHome(p))
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// expandHome replaces a leading ~ (alone or before a separator) by the
// user's home directory.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}

// configClasspath reads perfls.json's "classpath" and "classpathFile" into
// p.Classpath: globs expanded, ~ the home directory, every entry present.
func (p *Project) configClasspath(cfg *projectConfig, cfgPath string) error {
	for _, c := range cfg.Classpath {
		entries, err := expandEntry(p.Dir, c)
		if err != nil {
			return fmt.Errorf("%s: classpath entry %q: %w", cfgPath, c, err)
		}
		p.Classpath = append(p.Classpath, entries...)
	}
	if cfg.Classpath != nil {
		p.ClasspathFrom = fmt.Sprintf("%s \"classpath\"", ConfigFile)
	}
	if cfg.ClasspathFile == "" {
		return nil
	}
	entries, err := ReadClasspathFile(absIn(p.Dir, cfg.ClasspathFile))
	if err != nil {
		return fmt.Errorf("%s: classpathFile: %w", cfgPath, err)
	}
	p.Classpath = append(p.Classpath, entries...)
	from := fmt.Sprintf("%s \"classpathFile\" (%s)", ConfigFile, cfg.ClasspathFile)
	if p.ClasspathFrom != "" {
		from = p.ClasspathFrom + " and " + from
	}
	p.ClasspathFrom = from
	return nil
}

// ReadClasspathFile reads a file holding a classpath: entries separated by
// the path-list separator or new lines, relative to the file's directory,
// globs expanded; every other entry must exist.
func ReadClasspathFile(file string) ([]string, error) {
	data, err := input.ReadRegular(file, input.ClasspathFile)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range splitClasspath(string(data)) {
		entries, err := expandEntry(filepath.Dir(file), c)
		if err != nil {
			return nil, fmt.Errorf("%s: entry %q: %w", file, c, err)
		}
		out = append(out, entries...)
	}
	return out, nil
}

// UseClasspathFile makes the classpath in file (ReadClasspathFile) p's
// whole classpath, in place of perfls.json's and the build tool's, which
// is then not asked: perfls check --classpath-file, through which Maven's
// and Gradle's plugins pass the classpath they resolved.
func (p *Project) UseClasspathFile(file string) error {
	entries, err := ReadClasspathFile(file)
	if err != nil {
		return fmt.Errorf("--classpath-file: %w", err)
	}
	p.Classpath, p.ClasspathFrom, p.BuildTool, p.ClasspathProblem = entries, "--classpath-file "+file, "", ""
	return nil
}

// splitClasspath splits a classpath text at path-list separators and new
// lines, dropping empty entries.
func splitClasspath(s string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		for _, e := range filepath.SplitList(line) {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// expandEntry resolves one classpath entry against dir: ~ expanded, a glob
// to its matches (none is no error), else the entry, which must exist.
func expandEntry(dir, entry string) ([]string, error) {
	e := absIn(dir, entry)
	if strings.ContainsAny(entry, "*?[") {
		m, err := filepath.Glob(e)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	if _, err := os.Stat(e); err != nil {
		return nil, err
	}
	return []string{e}, nil
}

// freshOutputs returns p.Outputs when they are fresh: every source (but
// module-info and package-info) has its top-level class file,
// <package dirs>/<Name>.class, in one of them, and the oldest of those class
// files is newer than the newest source. Then nothing was edited since the
// build tool last compiled.
func freshOutputs(p *Project) ([]string, bool) {
	if len(p.Outputs) == 0 || len(p.Sources) == 0 {
		return nil, false
	}
	var newestSrc, oldestClass int64 = 0, 1<<63 - 1
	for _, src := range p.Sources {
		base := filepath.Base(src)
		if base == "module-info.java" || base == "package-info.java" {
			continue
		}
		st, err := os.Stat(src)
		if err != nil {
			return nil, false
		}
		newestSrc = max(newestSrc, st.ModTime().UnixNano())
		pkg, err := readPackage(src)
		if err != nil {
			return nil, false
		}
		rel := strings.TrimSuffix(base, ".java") + ".class"
		if pkg != "" {
			rel = filepath.Join(filepath.FromSlash(strings.ReplaceAll(pkg, ".", "/")), rel)
		}
		found := false
		for _, out := range p.Outputs {
			if cst, err := os.Stat(filepath.Join(out, rel)); err == nil {
				oldestClass = min(oldestClass, cst.ModTime().UnixNano())
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	if oldestClass < newestSrc {
		return nil, false
	}
	return append([]string(nil), p.Outputs...), true
}

// SkipDir reports whether a directory of this name holds no project
// sources: hidden directories (".git", ".idea", …) and build outputs
// (Maven's target, Gradle's build, IntelliJ's out, node_modules). Every
// walk over a project (FindProject, lint, the editor's index) uses it.
func SkipDir(name string) bool {
	switch name {
	case "target", "build", "out", "node_modules":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// FindProject walks dir for .java files and derives each file's source root
// from its package declaration.
func FindProject(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find project %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("find project: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("find project: %s is not a directory", abs)
	}
	p, cfg, err := configured(abs)
	if err != nil {
		return nil, fmt.Errorf("find project: %w", err)
	}
	walkRoots := []string{abs}
	if cfg != nil && len(cfg.SourceRoots) > 0 {
		walkRoots = nil
		for _, r := range cfg.SourceRoots {
			e := absIn(abs, r)
			if st, err := os.Stat(e); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("find project: %s: source root %q is not a directory", p.Config, r)
			}
			walkRoots = append(walkRoots, e)
		}
	}
	p.Searched = walkRoots
	roots := map[string]bool{}
	for _, walkRoot := range walkRoots {
		if err := p.walk(walkRoot, roots); err != nil {
			return nil, err
		}
	}
	for r := range roots {
		p.SourceRoots = append(p.SourceRoots, r)
	}
	sort.Strings(p.SourceRoots)
	sort.Strings(p.Sources)
	return p, nil
}

// configured is the project in abs as perfls.json and the build files
// configure it, its sources not yet searched: classpath (from perfls.json;
// the build tool's is read by ResolveClasspath), build tool, outputs.
func configured(abs string) (*Project, *projectConfig, error) {
	p := &Project{Dir: abs}
	cfg, cfgPath, err := readConfig(abs)
	if err != nil {
		return nil, nil, err
	}
	if cfg != nil {
		p.Config = cfgPath
		p.Interpretation, p.Alpha, p.Semantics, p.JVMArgs = cfg.Interpretation, cfg.Alpha, cfg.Semantics, cfg.JVMArgs
		p.Release, p.releaseSet, p.JavacArgs = cfg.Release, cfg.Release > 0, cfg.JavacArgs
		if err := p.configClasspath(cfg, cfgPath); err != nil {
			return nil, nil, err
		}
	}
	if cfg == nil || (cfg.Classpath == nil && cfg.ClasspathFile == "") {
		p.BuildTool = detectBuildTool(abs)
	}
	for _, o := range buildOutputs {
		d := filepath.Join(abs, filepath.FromSlash(o))
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			p.Outputs = append(p.Outputs, d)
		}
	}
	return p, cfg, nil
}

// ProjectClasspath reads the classpath of the project whose root is dir as
// a check compiles against it: perfls.json's, else the build tool's
// (ResolveClasspath, cached in cacheDir; with cacheDir "" the build tool is
// not asked), without searching the project's sources. Lint and the editor
// read the classes of these jars and folders. The returned project has
// Classpath, ClasspathFrom and ClasspathProblem set, and no sources.
//
// When ctx's trust gate is closed the build tool is not run: the
// classpath comes from files only (classpathFromFiles), and
// ClasspathProblem says what trust would add.
func ProjectClasspath(ctx context.Context, dir, cacheDir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("classpath of %s: %w", dir, err)
	}
	p, _, err := configured(abs)
	if err != nil {
		return nil, fmt.Errorf("classpath of %s: %w", abs, err)
	}
	if cacheDir == "" {
		return p, nil
	}
	if !trust.Trusted(ctx) {
		p.classpathFromFiles(ctx, cacheDir)
		return p, nil
	}
	if err := ResolveClasspath(ctx, p, cacheDir); err != nil {
		return nil, fmt.Errorf("classpath of %s: %w", abs, err)
	}
	return p, nil
}

// walk adds the .java files under top to p.Sources and their source roots
// to roots.
func (p *Project) walk(top string, roots map[string]bool) error {
	abs := top
	seen := map[string]bool{}
	for _, s := range p.Sources {
		seen[s] = true
	}
	err := filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == abs {
				return err
			}
			return nil // unreadable subtree: skip it
		}
		name := d.Name()
		if d.IsDir() {
			if path != abs && SkipDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if seen[path] {
			return nil
		}
		if !strings.HasSuffix(name, ".java") || !d.Type().IsRegular() {
			return nil
		}
		pkg, err := readPackage(path)
		if err != nil {
			return fmt.Errorf("read package of %s: %w", path, err)
		}
		p.Sources = append(p.Sources, path)
		roots[sourceRoot(filepath.Dir(path), pkg)] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("find project %s: %w", abs, err)
	}
	return nil
}

// sourceRoot strips the package's directories from dir; when dir does not end
// with them (a misplaced file), dir itself is the root.
func sourceRoot(dir, pkg string) string {
	if pkg == "" {
		return dir
	}
	rel := filepath.FromSlash(strings.ReplaceAll(pkg, ".", "/"))
	if strings.HasSuffix(dir, string(filepath.Separator)+rel) {
		return dir[:len(dir)-len(rel)-1]
	}
	return dir
}

// readPackage returns the package a Java file declares, "" for the default
// package. It reads only the file's head.
func readPackage(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(bufio.NewReader(f), 64<<10))
	if err != nil {
		return "", err
	}
	return scanPackage(string(head)), nil
}

// scanPackage finds `package a.b;` at the start of Java source text, skipping
// a byte-order mark, white space, comments and annotations (package-info.java
// may annotate the package).
func scanPackage(src string) string {
	s := &javaScanner{src: strings.TrimPrefix(src, "\uFEFF")}
	for {
		s.skipSpace()
		if s.eof() {
			return ""
		}
		if s.peek() == '@' {
			s.pos++
			s.skipSpace()
			if s.ident() == "interface" { // an annotation type declaration
				return ""
			}
			s.qualified()
			s.skipSpace()
			if !s.eof() && s.peek() == '(' {
				s.skipParens()
			}
			continue
		}
		if s.ident() != "package" {
			return ""
		}
		s.skipSpace()
		name := s.qualified()
		s.skipSpace()
		if s.eof() || s.peek() != ';' {
			return ""
		}
		return name
	}
}

type javaScanner struct {
	src string
	pos int
}

func (s *javaScanner) eof() bool  { return s.pos >= len(s.src) }
func (s *javaScanner) peek() byte { return s.src[s.pos] }

func (s *javaScanner) skipSpace() {
	for !s.eof() {
		c := s.peek()
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			s.pos++
		case strings.HasPrefix(s.src[s.pos:], "//"):
			if i := strings.IndexByte(s.src[s.pos:], '\n'); i >= 0 {
				s.pos += i + 1
			} else {
				s.pos = len(s.src)
			}
		case strings.HasPrefix(s.src[s.pos:], "/*"):
			if i := strings.Index(s.src[s.pos+2:], "*/"); i >= 0 {
				s.pos += i + 4
			} else {
				s.pos = len(s.src)
			}
		default:
			return
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func (s *javaScanner) ident() string {
	start := s.pos
	for !s.eof() && isIdentByte(s.peek()) {
		s.pos++
	}
	return s.src[start:s.pos]
}

// qualified reads a dotted name, allowing white space and comments around dots.
func (s *javaScanner) qualified() string {
	var parts []string
	for {
		id := s.ident()
		if id == "" {
			break
		}
		parts = append(parts, id)
		save := s.pos
		s.skipSpace()
		if s.eof() || s.peek() != '.' {
			s.pos = save
			break
		}
		s.pos++
		s.skipSpace()
	}
	return strings.Join(parts, ".")
}

// skipParens skips a balanced parenthesised annotation argument list,
// including string and character literals.
func (s *javaScanner) skipParens() {
	depth := 0
	for !s.eof() {
		s.skipSpace()
		if s.eof() {
			return
		}
		c := s.peek()
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				s.pos++
				return
			}
		case '"', '\'':
			s.pos++
			for !s.eof() && s.peek() != c {
				if s.peek() == '\\' {
					s.pos++
				}
				s.pos++
			}
		}
		s.pos++
	}
}
