package measure

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	mvnpom "deps.dev/util/maven"

	"github.com/perfls/perfls/internal/input"
)

// Limits of MavenClasspathFromFiles: a hostile project or local repository
// costs at most this much reading and memory.
const (
	maxReadBytes     = 256 << 20 // all the files read by one call
	maxParents       = 32        // length of a parent chain
	maxGraphDepth    = 64        // levels of transitive dependencies
	maxArtifacts     = 20000     // artifacts mediated per module
	maxQueue         = 200000    // dependencies waiting to be mediated per module
	maxModules       = 1000      // modules of a reactor
	maxRelocations   = 8         // relocations followed for one artifact
	maxInterpolation = 64 << 10  // length of an interpolated value
)

// MavenClasspathFromFiles returns the classpath that the sources of the Maven
// project in root compile against — main and test sources alike, as
// `mvn dependency:build-classpath -Dmdep.includeScope=test` prints it for
// every module of the build, in one union — reading files only: the
// pom.xml files of the project and the .pom files of repo, the local Maven
// repository (MavenLocalRepository finds the user's). It runs nothing,
// opens no socket and downloads nothing, so it is safe on an untrusted
// folder.
//
// What it takes, per module (root's pom and its <modules>, recursively):
//   - the pom with its parents (<relativePath>, by default ../pom.xml, when
//     that pom is the parent named; else the parent's .pom in repo), their
//     active-by-default profiles (and those activated by this OS or by an
//     absent property), properties interpolated (the poms' <properties>,
//     project.*, project.parent.*, basedir);
//   - <dependencyManagement>, including scope=import BOMs read from repo
//     (or from a module of the build);
//   - the direct dependencies of scope compile, provided, runtime and test
//     (lint checks test sources too), and system ones whose <systemPath> is
//     a regular file inside root;
//   - their compile and runtime dependencies, transitively, from each
//     dependency's .pom in repo: exclusions (with * wildcards) honoured,
//     optional dependencies not followed, the module's dependency management
//     applied to transitive ones, relocations followed, one version per
//     artifact chosen as Maven does (nearest wins, the first declared on a
//     tie).
//
// An artifact maps to repo/<group path>/<artifact>/<version>/
// <artifact>-<version>[-<classifier>].<extension> (test-jar is the jar with
// classifier tests; pom, war, ear, rar, sources and javadoc are not put on
// the classpath). A dependency on a module of the build (its pom is in the
// tree, listed by a reactor's <modules>) maps to that module's
// target/classes (target/test-classes for a test-jar) when present, as Maven
// does in a reactor, else to its jar in repo.
//
// missing lists, one a line, what could not be read and so is not on cp —
// an artifact or pom absent from repo, a version range or LATEST (Maven
// resolves those against repository metadata), a property no pom defines
// (a -D option, an environment variable), a malformed or unreadable pom, a
// parent or relocation cycle, a limit reached — an artifact's line as
// "group:artifact:type[:classifier]:version: why (needed by …)", as Maven
// names artifacts. Nothing is guessed: an artifact is on cp only when its
// file is there.
//
// err is set only when root's own pom.xml cannot be read or parsed; a
// module's or a dependency's broken pom is reported in missing.
//
// Every file is checked with Stat before it is opened and read only when
// it is a regular file (never a FIFO or device), up to input.POM each and
// maxReadBytes in all; parent chains, graph depth, artifacts and modules are
// bounded, so it never hangs.
func MavenClasspathFromFiles(root, repo string) (cp []string, missing []string, err error) {
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, nil, fmt.Errorf("maven classpath of %s: %w", root, err)
	}
	if repo != "" {
		if repo, err = filepath.Abs(repo); err != nil {
			return nil, nil, fmt.Errorf("maven local repository %s: %w", repo, err)
		}
	}
	r := newMavenReader(root, repo)
	rootPOM := filepath.Join(root, "pom.xml")
	top, err := r.fileModel(rootPOM)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w (perfls reads the pom to find the dependencies; fix it, or list the jars in %s \"classpath\")", rootPOM, err, ConfigFile)
	}
	// The modules of this build, and of the reactors above it whose poms
	// are parents on disk, so that a sibling module is found in the tree.
	r.indexModules(top)
	for m, n := top, 0; m.fileParent != nil && n < maxParents; m, n = m.fileParent, n+1 {
		r.indexModules(m.fileParent)
	}
	for _, m := range r.reactor(top) {
		r.resolveModule(m)
	}
	return r.cp, r.missing, nil
}

// MavenLocalRepository returns the local repository Maven uses for this
// user: <localRepository> of ~/.m2/settings.xml (${user.home} and
// ${env.HOME} expanded), else ~/.m2/repository. It reads the user's files
// only — never a project's .mvn/maven.config or settings, which an untrusted
// project controls. The global settings (${maven.home}/conf/settings.xml)
// and -Dmaven.repo.local in MAVEN_OPTS are not read.
func MavenLocalRepository() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the Maven local repository: %w", err)
	}
	return mavenLocalRepositoryIn(home)
}

// mavenLocalRepositoryIn is MavenLocalRepository for the home directory home.
func mavenLocalRepositoryIn(home string) (string, error) {
	def := filepath.Join(home, ".m2", "repository")
	settings := filepath.Join(home, ".m2", "settings.xml")
	data, err := input.ReadRegular(settings, input.Limit{Max: 1 << 20, What: "a Maven settings.xml", Hint: "is it ~/.m2/settings.xml?"})
	if errors.Is(err, os.ErrNotExist) {
		return def, nil
	}
	if err != nil {
		return def, fmt.Errorf("read %s: %w", settings, err)
	}
	var s struct {
		LocalRepository string `xml:"localRepository"`
	}
	if err := newPOMDecoder(data).Decode(&s); err != nil {
		return def, fmt.Errorf("read %s: %w", settings, err)
	}
	p := strings.TrimSpace(s.LocalRepository)
	if p == "" {
		return def, nil
	}
	p = strings.NewReplacer("${user.home}", home, "${env.HOME}", home).Replace(p)
	if strings.Contains(p, "${") {
		return def, fmt.Errorf("%s: <localRepository>%s</localRepository> names a property perfls does not know", settings, s.LocalRepository)
	}
	if !filepath.IsAbs(p) {
		// Maven takes it from the working directory; the home is the one
		// directory that does not depend on where perfls runs.
		p = filepath.Join(home, p)
	}
	return filepath.Clean(p), nil
}

// GradleClasspathFromFilesProblem says why a Gradle build's classpath is
// not read without trust, for the notice that replaces it: build.gradle and
// build.gradle.kts are programs (plugins, conventions, version catalogs
// and repositories are all decided by running them), so no file says which
// dependencies a project has. Gradle's caches (~/.gradle/caches/modules-2)
// hold jars and poms, but not which of them this build uses; taking them
// all would be a guess. gradle/libs.versions.toml names versions, not which
// project uses which. It returns "" when root is not a Gradle build.
func GradleClasspathFromFilesProblem(root string) string {
	var found string
	for _, f := range gradleFiles {
		if st, err := os.Stat(filepath.Join(root, f)); err == nil && st.Mode().IsRegular() {
			found = f
			break
		}
	}
	if found == "" {
		return ""
	}
	return fmt.Sprintf("%s is a Gradle build: its dependencies are decided by running %s (a program), which perfls does only in a trusted folder, "+
		"so no jar of it is known until then. Trust the folder, or list the jars in %s \"classpath\" or \"classpathFile\" "+
		"(a file that a trusted Gradle run wrote)", root, found, ConfigFile)
}

// pomModel is a pom merged with its parents and active profiles and
// interpolated: its dependency management is not yet applied (imports not
// processed), so that a BOM's model can be imported as it is.
type pomModel struct {
	proj       mvnpom.Project
	name       string            // group:artifact:version, for messages
	path       string            // the file read
	dir        string            // its directory (${basedir})
	fileParent *pomModel         // the parent, when read from the tree (not repo)
	systemPath map[string]string // group:artifact → <systemPath>, interpolated
	modules    []string          // absolute paths of its modules' poms
}

// mavenReader reads poms for one MavenClasspathFromFiles call and holds
// what it found.
type mavenReader struct {
	root, repo string
	decoded    map[string]decodedPOM   // every pom read, by path
	files      map[string]*modelResult // by absolute path of a pom in the tree
	repoPOMs   map[string]*modelResult // by group:artifact:version
	modules    map[string]*pomModel    // modules of the build by group:artifact
	read       int64                   // bytes read so far
	nesting    int                     // fileModel calls within fileModel
	cp         []string
	inCP       map[string]bool
	missing    []string
	inMissing  map[string]bool
}

type modelResult struct {
	m   *pomModel
	err error
}

func newMavenReader(root, repo string) *mavenReader {
	return &mavenReader{
		root: root, repo: repo,
		decoded: map[string]decodedPOM{}, files: map[string]*modelResult{}, repoPOMs: map[string]*modelResult{},
		modules: map[string]*pomModel{}, inCP: map[string]bool{}, inMissing: map[string]bool{},
	}
}

func (r *mavenReader) addCP(p string) {
	if !r.inCP[p] {
		r.inCP[p] = true
		r.cp = append(r.cp, p)
	}
}

func (r *mavenReader) miss(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !r.inMissing[s] {
		r.inMissing[s] = true
		r.missing = append(r.missing, s)
	}
}

// errReadBudget stops reading when a call has read maxReadBytes.
var errReadBudget = fmt.Errorf("perfls read %d MB of poms for this project and stops there", maxReadBytes>>20)

// readPOM reads and decodes one pom file, once per call of
// MavenClasspathFromFiles (parents are shared by many poms).
func (r *mavenReader) readPOM(path string) (mvnpom.Project, pomExtra, error) {
	if d, ok := r.decoded[path]; ok {
		return d.proj, d.extra, d.err
	}
	p, x, err := r.decodePOM(path)
	if !errors.Is(err, errReadBudget) {
		r.decoded[path] = decodedPOM{clipProject(p), x, err}
	}
	return clipProject(p), x, err
}

type decodedPOM struct {
	proj  mvnpom.Project
	extra pomExtra
	err   error
}

// clipProject caps the slices the model's methods append to (MergeParent,
// MergeProfiles) at their length, so that appending to a copy never writes
// into the cached pom.
func clipProject(p mvnpom.Project) mvnpom.Project {
	p.Dependencies = slices.Clip(p.Dependencies)
	p.DependencyManagement.Dependencies = slices.Clip(p.DependencyManagement.Dependencies)
	p.Properties.Properties = slices.Clip(p.Properties.Properties)
	p.Modules = slices.Clip(p.Modules)
	p.Repositories = slices.Clip(p.Repositories)
	p.Licenses = slices.Clip(p.Licenses)
	p.Developers = slices.Clip(p.Developers)
	p.Build.PluginManagement.Plugins = slices.Clip(p.Build.PluginManagement.Plugins)
	return p
}

func (r *mavenReader) decodePOM(path string) (mvnpom.Project, pomExtra, error) {
	if r.read >= maxReadBytes {
		return mvnpom.Project{}, pomExtra{}, errReadBudget
	}
	data, err := input.ReadRegular(path, input.POM)
	r.read += int64(len(data))
	if err != nil {
		return mvnpom.Project{}, pomExtra{}, err
	}
	var p mvnpom.Project
	if err := newPOMDecoder(data).Decode(&p); err != nil {
		return mvnpom.Project{}, pomExtra{}, fmt.Errorf("%s: %w", path, err)
	}
	// What deps.dev's model leaves out: <systemPath>, and an empty
	// <relativePath/> (no parent on disk) told apart from none (../pom.xml).
	var x pomExtra
	if err := newPOMDecoder(data).Decode(&x); err != nil {
		return mvnpom.Project{}, pomExtra{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, x, nil
}

type pomExtra struct {
	Parent *struct {
		RelativePath *string `xml:"relativePath"`
	} `xml:"parent"`
	Dependencies []extraDep `xml:"dependencies>dependency"`
	Managed      []extraDep `xml:"dependencyManagement>dependencies>dependency"`
}

type extraDep struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	SystemPath string `xml:"systemPath"`
}

// newPOMDecoder decodes a pom as Maven's parser does: HTML entities known,
// Latin-1 and ASCII encodings read.
func newPOMDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return in, nil
		case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "windows-1252", "cp1252":
			return latin1Reader(in)
		}
		return nil, fmt.Errorf("encoding %q not supported", label)
	}
	return d
}

// latin1Reader converts Latin-1 to UTF-8 (windows-1252 read as Latin-1:
// they differ only in characters poms do not put in coordinates).
func latin1Reader(in io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	out := make([]rune, len(b))
	for i, c := range b {
		out[i] = rune(c)
	}
	return strings.NewReader(string(out)), nil
}

// profileOS is this machine as Maven's profile activation sees it (Java's
// os.name, os.arch), so that OS-activated profiles apply as they would.
func profileOS() mvnpom.ActivationOS {
	name, family, arch := runtime.GOOS, "unix", runtime.GOARCH
	switch runtime.GOOS {
	case "windows":
		family = "windows"
	case "darwin":
		name = "mac os x"
	}
	switch runtime.GOARCH {
	case "arm64":
		arch = "aarch64"
	case "386":
		arch = "x86"
	}
	return mvnpom.ActivationOS{Name: mvnpom.String(name), Family: mvnpom.String(family), Arch: mvnpom.String(arch)}
}

// fileModel is the model of a pom in the tree (cached by path). Its parent
// is read from <relativePath> when that pom is the parent named, else from
// the repository.
func (r *mavenReader) fileModel(path string) (*pomModel, error) {
	path = filepath.Clean(path)
	if res, ok := r.files[path]; ok {
		if res == nil {
			return nil, fmt.Errorf("%s is its own ancestor (a parent cycle)", path)
		}
		return res.m, res.err
	}
	r.files[path] = nil // in progress: a cycle finds nil
	m, err := r.buildModel(path, true)
	r.files[path] = &modelResult{m, err}
	return m, err
}

// repoModel is the model of group:artifact:version from the repository
// (cached); relocations are followed by the caller.
func (r *mavenReader) repoModel(g, a, v string) (*pomModel, error) {
	key := g + ":" + a + ":" + v
	if res, ok := r.repoPOMs[key]; ok {
		if res == nil {
			return nil, fmt.Errorf("%s is its own ancestor (a parent or relocation cycle)", key)
		}
		return res.m, res.err
	}
	r.repoPOMs[key] = nil
	path, err := r.repoPath(g, a, v, "", "pom")
	var m *pomModel
	if err == nil {
		m, err = r.buildModel(path, false)
	}
	r.repoPOMs[key] = &modelResult{m, err}
	return m, err
}

// buildModel reads the pom at path, merges its parents and profiles and
// interpolates it. inTree: the pom is in the project (its parent may be on
// disk, its <modules> matter).
func (r *mavenReader) buildModel(path string, inTree bool) (*pomModel, error) {
	p, x, err := r.readPOM(path)
	if err != nil {
		return nil, err
	}
	m := &pomModel{path: path, dir: filepath.Dir(path)}
	// Profiles are merged into each pom before inheritance, as Maven does;
	// one whose activation cannot be read is not active.
	_ = p.MergeProfiles("", profileOS())
	extras := []pomExtra{x}
	// Walk up the parents, merging each into p (nearest first: a child's
	// values win). A missing parent is reported; the rest is still used.
	child, childExtra, childPath := p, x, path
	seen := map[string]bool{path: true}
	for depth := 0; child.Parent.ArtifactID != ""; depth++ {
		want := child.Parent
		if depth >= maxParents {
			r.miss("%s: more than %d parents: the rest are not read", path, maxParents)
			break
		}
		parent, px, ppath, fromTree, perr := r.findParent(child, childExtra, filepath.Dir(childPath), inTree)
		if perr == nil && seen[ppath] {
			perr = fmt.Errorf("%s is its own ancestor (a parent cycle)", ppath)
		}
		if perr != nil {
			r.miss("%s:%s:pom:%s: the parent of %s is not read: %v", want.GroupID, want.ArtifactID, want.Version, path, perr)
			break
		}
		seen[ppath] = true
		if fromTree && depth == 0 && inTree && r.nesting < maxParents {
			// Its model too, to find its reactor's modules; nesting bounds
			// this recursion on a long chain of parents on disk.
			r.nesting++
			if pm, err := r.fileModel(ppath); err == nil {
				m.fileParent = pm
			}
			r.nesting--
		}
		_ = parent.MergeProfiles("", profileOS())
		p.MergeParent(parent)
		extras = append(extras, px)
		child, childExtra, childPath, inTree = parent, px, ppath, fromTree
	}
	props := r.properties(&p, m.dir)
	interpolateModel(&p, props)
	m.proj = p
	m.name = string(p.GroupID) + ":" + string(p.ArtifactID) + ":" + string(p.Version)
	m.systemPath = map[string]string{}
	for _, x := range extras {
		for _, d := range append(x.Dependencies, x.Managed...) {
			if d.SystemPath == "" {
				continue
			}
			k, _ := interpolate(strings.TrimSpace(d.GroupID)+":"+strings.TrimSpace(d.ArtifactID), props)
			if _, ok := m.systemPath[k]; !ok {
				m.systemPath[k], _ = interpolate(strings.TrimSpace(d.SystemPath), props)
			}
		}
	}
	for _, mod := range p.Modules {
		mp := filepath.Join(m.dir, filepath.FromSlash(string(mod)))
		if !strings.HasSuffix(strings.ToLower(mp), ".xml") {
			mp = filepath.Join(mp, "pom.xml")
		}
		m.modules = append(m.modules, mp)
	}
	return m, nil
}

// parentFile is the path of a child's <relativePath> pom ("" when the
// child's relativePath is empty: no parent on disk).
func parentFile(childDir string, x pomExtra) string {
	rel := "../pom.xml"
	if x.Parent != nil && x.Parent.RelativePath != nil {
		rel = strings.TrimSpace(*x.Parent.RelativePath)
		if rel == "" {
			return ""
		}
	}
	p := filepath.Join(childDir, filepath.FromSlash(rel))
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, "pom.xml")
	}
	return p
}

// findParent reads the parent of child: from its <relativePath> when child
// is in the tree and that pom is the parent named (Maven's rule), else
// from the repository. It returns the parent's path and whether it is in
// the tree.
func (r *mavenReader) findParent(child mvnpom.Project, x pomExtra, childDir string, inTree bool) (mvnpom.Project, pomExtra, string, bool, error) {
	want := child.Parent
	if inTree {
		if pf := parentFile(childDir, x); pf != "" {
			if p, px, err := r.readPOM(pf); err == nil && isParent(p, want) {
				return p, px, filepath.Clean(pf), true, nil
			}
		}
	}
	g, a, v := string(want.GroupID), string(want.ArtifactID), string(want.Version)
	if strings.Contains(v, "${") || strings.Contains(g, "${") {
		return mvnpom.Project{}, pomExtra{}, "", false, fmt.Errorf("its coordinates name a property, and no pom on disk at <relativePath> is that parent")
	}
	path, err := r.repoPath(g, a, v, "", "pom")
	if err != nil {
		return mvnpom.Project{}, pomExtra{}, "", false, err
	}
	p, px, err := r.readPOM(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("no %s in the local repository", path)
		}
		return mvnpom.Project{}, pomExtra{}, "", false, err
	}
	return p, px, path, false, nil
}

// isParent says whether p is the parent want names: same artifactId and
// groupId (its own or inherited), and same version unless either is an
// expression (CI-friendly ${revision}).
func isParent(p mvnpom.Project, want mvnpom.Parent) bool {
	g := p.GroupID
	if g == "" {
		g = p.Parent.GroupID
	}
	v := p.Version
	if v == "" {
		v = p.Parent.Version
	}
	if p.ArtifactID != want.ArtifactID || g != want.GroupID {
		return false
	}
	return v == want.Version || v.ContainsProperty() || want.Version.ContainsProperty()
}

// properties is the property map of a merged model: its <properties> and
// the project's coordinates.
func (r *mavenReader) properties(p *mvnpom.Project, dir string) map[string]string {
	m := map[string]string{}
	for _, prop := range p.Properties.Properties {
		m[prop.Name] = prop.Value
	}
	builtin := map[string]string{
		"groupId": string(p.GroupID), "artifactId": string(p.ArtifactID), "version": string(p.Version),
		"packaging": string(p.Packaging), "name": string(p.Name),
		"parent.groupId": string(p.Parent.GroupID), "parent.artifactId": string(p.Parent.ArtifactID),
		"parent.version": string(p.Parent.Version), "basedir": dir,
	}
	if builtin["packaging"] == "" {
		builtin["packaging"] = "jar"
	}
	for k, v := range builtin {
		if v == "" {
			continue
		}
		// project.* and pom.* are the model's and cannot be overridden;
		// the bare deprecated forms can.
		m["project."+k], m["pom."+k] = v, v
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	m["basedir"] = dir
	m["project.build.directory"] = filepath.Join(dir, "target")
	if r.repo != "" {
		m["settings.localRepository"] = r.repo
	}
	return m
}

// interpolate replaces ${name} in s by the values of props, themselves
// interpolated. When a name is unknown, in a cycle, or the expansion passes
// maxInterpolation bytes (nested properties can double at each level), ok is
// false and s is returned as it is, so that messages show what the pom says.
func interpolate(s string, props map[string]string) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, true
	}
	budget := maxInterpolation
	out, ok := interpolating(s, props, map[string]bool{}, &budget)
	if !ok {
		return s, false
	}
	return out, true
}

func interpolating(s string, props map[string]string, active map[string]bool, budget *int) (string, bool) {
	ok := true
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		key := s[i+2 : i+j]
		v, known := props[key]
		*budget -= len(v) + 1
		if !known || active[key] || *budget < 0 {
			ok = false
			b.WriteString(s[i : i+j+1])
		} else {
			active[key] = true
			v, vok := interpolating(v, props, active, budget)
			active[key] = false
			ok = ok && vok
			b.WriteString(v)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String(), ok
}

// interpolateModel interpolates what the classpath depends on: the
// coordinates, dependencies, managed dependencies, modules and relocation.
// Unresolved values keep their ${…} and are reported when used.
func interpolateModel(p *mvnpom.Project, props map[string]string) {
	str := func(s *mvnpom.String) {
		v, _ := interpolate(string(*s), props)
		*s = mvnpom.String(v)
	}
	str(&p.GroupID)
	str(&p.ArtifactID)
	str(&p.Version)
	str(&p.Packaging)
	deps := func(ds []mvnpom.Dependency) []mvnpom.Dependency {
		out := make([]mvnpom.Dependency, 0, len(ds))
		for _, d := range ds {
			str(&d.GroupID)
			str(&d.ArtifactID)
			str(&d.Version)
			str(&d.Type)
			str(&d.Classifier)
			str(&d.Scope)
			o, _ := interpolate(string(d.Optional), props)
			d.Optional = mvnpom.FalsyBool(strings.ToLower(strings.TrimSpace(o)))
			ex := make([]mvnpom.Exclusion, len(d.Exclusions))
			for i, e := range d.Exclusions {
				str(&e.GroupID)
				str(&e.ArtifactID)
				ex[i] = e
			}
			d.Exclusions = ex
			out = append(out, d)
		}
		return out
	}
	p.Dependencies = deps(p.Dependencies)
	p.DependencyManagement.Dependencies = deps(p.DependencyManagement.Dependencies)
	mods := make([]mvnpom.String, len(p.Modules))
	for i, m := range p.Modules {
		str(&m)
		mods[i] = m
	}
	p.Modules = mods
	rel := &p.DistributionManagement.Relocation
	str(&rel.GroupID)
	str(&rel.ArtifactID)
	str(&rel.Version)
}

// indexModules records the modules of m's reactor, recursively, by
// group:artifact, so that a dependency on one is read from the tree.
func (r *mavenReader) indexModules(m *pomModel) {
	for _, mod := range r.reactor(m) {
		k := string(mod.proj.GroupID) + ":" + string(mod.proj.ArtifactID)
		if _, ok := r.modules[k]; !ok {
			r.modules[k] = mod
		}
	}
}

// reactor lists top and its modules, recursively (each once, at most
// maxModules); a module whose pom cannot be read is reported.
func (r *mavenReader) reactor(top *pomModel) []*pomModel {
	out := []*pomModel{top}
	seen := map[string]bool{top.path: true}
	for i := 0; i < len(out); i++ {
		for _, mp := range out[i].modules {
			mp = filepath.Clean(mp)
			if seen[mp] {
				continue
			}
			seen[mp] = true
			if len(out) >= maxModules {
				r.miss("%s: more than %d modules: the rest are not read", top.path, maxModules)
				return out
			}
			mod, err := r.fileModel(mp)
			if err != nil {
				r.miss("module %s of %s is not read: %v", mp, out[i].name, err)
				continue
			}
			out = append(out, mod)
		}
	}
	return out
}

// managed applies m's dependency management (importing BOMs) to its
// dependencies, on a copy; a BOM that cannot be read is reported.
func (r *mavenReader) managed(m *pomModel) mvnpom.Project {
	p := m.proj
	p.Dependencies = append([]mvnpom.Dependency(nil), p.Dependencies...)
	p.DependencyManagement.Dependencies = append([]mvnpom.Dependency(nil), p.DependencyManagement.Dependencies...)
	p.ProcessDependencies(func(g, a, v mvnpom.String) (mvnpom.DependencyManagement, error) {
		bom, err := r.lookup(string(g), string(a), string(v))
		if err != nil {
			r.miss("%s:%s:pom:%s: a BOM imported by %s is not read: %v", g, a, v, m.name, err)
			return mvnpom.DependencyManagement{}, err
		}
		// A copy: ProcessDependencies keeps what it is given.
		return mvnpom.DependencyManagement{Dependencies: append([]mvnpom.Dependency(nil), bom.proj.DependencyManagement.Dependencies...)}, nil
	})
	return p
}

// lookup is the model of group:artifact:version: a module of the build when
// one has those coordinates, else the repository's pom.
func (r *mavenReader) lookup(g, a, v string) (*pomModel, error) {
	if err := checkVersion(v); err != nil {
		return nil, err
	}
	if mod, ok := r.modules[g+":"+a]; ok && string(mod.proj.Version) == v {
		return mod, nil
	}
	return r.repoModel(g, a, v)
}

// checkVersion refuses what cannot name one version in the repository.
func checkVersion(v string) error {
	switch {
	case v == "":
		return errors.New("no version (none declared, none in <dependencyManagement>)")
	case strings.Contains(v, "${"):
		return fmt.Errorf("version %s names a property no pom defines (a -D option or the environment sets it for Maven)", clip(v))
	case strings.ContainsAny(v, "[(,") || v == "LATEST" || v == "RELEASE":
		return fmt.Errorf("version %s is a range that Maven resolves against repository metadata; perfls does not guess one", clip(v))
	}
	return nil
}

// repoPath is the file of an artifact in the repository, refusing
// coordinates that would leave it.
func (r *mavenReader) repoPath(g, a, v, classifier, ext string) (string, error) {
	if r.repo == "" {
		return "", errors.New("no local repository")
	}
	for _, c := range []string{a, v, classifier, ext} {
		if strings.ContainsAny(c, "/\\:\x00") || c == "." || c == ".." || strings.Contains(c, "${") {
			return "", fmt.Errorf("%q cannot be part of a repository path", c)
		}
	}
	parts := strings.Split(g, ".")
	for _, s := range parts {
		if s == "" || strings.ContainsAny(s, "/\\:\x00") || strings.Contains(s, "${") {
			return "", fmt.Errorf("group %q cannot be a repository path", g)
		}
	}
	if a == "" || v == "" {
		return "", errors.New("an artifact and a version are needed")
	}
	name := a + "-" + v
	if classifier != "" {
		name += "-" + classifier
	}
	return filepath.Join(append(append([]string{r.repo}, parts...), a, v, name+"."+ext)...), nil
}

// artifactType is how Maven's artifact handlers map a dependency type to a
// file (maven-core's artifact-handlers.xml).
type artifactType struct {
	ext, classifier string
	onClasspath     bool // a compiler reads it
	includesDeps    bool // war, ear, rar bundle their dependencies: not followed
}

var artifactTypes = map[string]artifactType{
	"jar":          {"jar", "", true, false},
	"test-jar":     {"jar", "tests", true, false},
	"maven-plugin": {"jar", "", true, false},
	"ejb":          {"jar", "", true, false},
	"ejb-client":   {"jar", "client", true, false},
	"bundle":       {"jar", "", true, false}, // OSGi: the felix plugin's type, a jar
	"java-source":  {"jar", "sources", false, false},
	"javadoc":      {"jar", "javadoc", false, false},
	"pom":          {"pom", "", false, false},
	"war":          {"war", "", false, true},
	"ear":          {"ear", "", false, true},
	"rar":          {"rar", "", false, true},
}

func typeOf(d mvnpom.Dependency) artifactType {
	t, ok := artifactTypes[string(d.Type)]
	if !ok {
		if d.Type == "" {
			t = artifactTypes["jar"]
		} else {
			t = artifactType{ext: string(d.Type)} // unknown: not a classpath file
		}
	}
	if d.Classifier != "" {
		t.classifier = string(d.Classifier)
	}
	return t
}

// coords is group:artifact:type[:classifier]:version, as Maven names an
// artifact in its messages.
func coords(d mvnpom.Dependency) string {
	t := string(d.Type)
	if t == "" {
		t = "jar"
	}
	s := clip(string(d.GroupID)) + ":" + clip(string(d.ArtifactID)) + ":" + clip(t)
	if d.Classifier != "" {
		s += ":" + clip(string(d.Classifier))
	}
	return s + ":" + clip(string(d.Version))
}

// clip shortens a value from a pom for a message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

// node is a dependency waiting to be mediated.
type node struct {
	dep      mvnpom.Dependency
	depth    int
	excluded []mvnpom.Exclusion // inherited from the path to it
	from     string             // the artifact that needs it
}

// resolveModule adds the classpath of one module of the build.
func (r *mavenReader) resolveModule(m *pomModel) {
	p := r.managed(m)
	manage := map[mvnpom.DependencyKey]mvnpom.Dependency{}
	for _, d := range p.DependencyManagement.Dependencies {
		manage[d.Key()] = d
	}
	var queue []node
	for _, d := range p.Dependencies {
		switch d.Scope {
		case "", "compile", "provided", "runtime", "test":
			queue = append(queue, node{dep: d, depth: 1, from: m.name})
		case "system":
			r.systemDep(m, d)
		}
	}
	chosen := map[mvnpom.DependencyKey]bool{}
	for n := 0; len(queue) > 0; n++ {
		nd := queue[0]
		queue = queue[1:]
		k := nd.dep.Key()
		if chosen[k] {
			continue // a nearer one (or the first at this depth) won
		}
		chosen[k] = true
		if n >= maxArtifacts {
			r.miss("%s: more than %d artifacts in its dependency graph: the rest are not read", m.name, maxArtifacts)
			return
		}
		for _, c := range r.visit(nd, manage) {
			if len(queue) >= maxQueue {
				r.miss("%s: more than %d dependencies waiting: the rest are not read", m.name, maxQueue)
				break
			}
			if !chosen[c.dep.Key()] {
				queue = append(queue, c)
			}
		}
	}
}

// systemDep adds a system-scoped dependency whose <systemPath> is a regular
// file inside the project.
func (r *mavenReader) systemDep(m *pomModel, d mvnpom.Dependency) {
	sp := m.systemPath[string(d.GroupID)+":"+string(d.ArtifactID)]
	switch {
	case sp == "":
		r.miss("%s: system scope without a <systemPath> (needed by %s)", coords(d), m.name)
		return
	case strings.Contains(sp, "${"):
		r.miss("%s: <systemPath>%s</systemPath> names a property no pom defines (needed by %s)", coords(d), sp, m.name)
		return
	}
	p := filepath.Clean(sp)
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.dir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		r.miss("%s: <systemPath> %s: %v (needed by %s)", coords(d), p, err, m.name)
		return
	}
	if !inside(r.root, real) {
		r.miss("%s: <systemPath> %s is outside the project %s: not read without trust (needed by %s)", coords(d), p, r.root, m.name)
		return
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		r.miss("%s: <systemPath> %s is not a regular file (needed by %s)", coords(d), p, m.name)
		return
	}
	r.addCP(p)
}

// inside says whether path is dir or under it (both cleaned, symlinks of
// dir resolved).
func inside(dir, path string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// visit puts the artifact of nd on the classpath (or reports it missing)
// and returns its dependencies to mediate next.
func (r *mavenReader) visit(nd node, manage map[mvnpom.DependencyKey]mvnpom.Dependency) []node {
	d := nd.dep
	g, a, v := string(d.GroupID), string(d.ArtifactID), string(d.Version)
	if err := checkVersion(v); err != nil {
		r.miss("%s: %v (needed by %s)", coords(d), err, nd.from)
		return nil
	}
	if strings.Contains(g+a+string(d.Type)+string(d.Classifier), "${") {
		r.miss("%s: its coordinates name a property no pom defines (needed by %s)", coords(d), nd.from)
		return nil
	}
	m, err := r.lookup(g, a, v)
	// A relocated artifact is read from its new coordinates, as Maven does.
	for i := 0; err == nil && m.relocated(); i++ {
		if i >= maxRelocations {
			err = fmt.Errorf("more than %d relocations", maxRelocations)
			break
		}
		rel := m.proj.DistributionManagement.Relocation
		if rel.GroupID != "" {
			d.GroupID = rel.GroupID
		}
		if rel.ArtifactID != "" {
			d.ArtifactID = rel.ArtifactID
		}
		if rel.Version != "" {
			d.Version = rel.Version
		}
		m, err = r.lookup(string(d.GroupID), string(d.ArtifactID), string(d.Version))
	}
	t := typeOf(d)
	found := true
	if mod, ok := r.modules[string(d.GroupID)+":"+string(d.ArtifactID)]; ok && m == mod {
		r.moduleArtifact(d, t, mod, nd.from)
	} else if t.onClasspath {
		found = r.repoArtifact(d, t, nd.from)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if !found {
				return nil // one line says the artifact is not there
			}
			err = errors.New("its pom is not in the local repository, so its own dependencies are unknown")
		}
		r.miss("%s: %v (needed by %s)", coords(d), err, nd.from)
		return nil
	}
	if t.includesDeps || nd.depth >= maxGraphDepth {
		return nil
	}
	p := r.managed(m)
	excluded := append(append([]mvnpom.Exclusion(nil), nd.excluded...), d.Exclusions...)
	var out []node
	for _, c := range p.Dependencies {
		// Maven selects on what the pom declares — provided, test and
		// system dependencies and optional ones are not transitive — and
		// then applies the module's dependency management, which wins over
		// the versions and scopes declared.
		switch c.Scope {
		case "", "compile", "runtime":
		default:
			continue
		}
		if c.Optional.Boolean() || isExcluded(c, excluded) {
			continue
		}
		if md, ok := manage[c.Key()]; ok {
			if md.Version != "" {
				c.Version = md.Version
			}
			if md.Scope != "" {
				c.Scope = md.Scope
			}
			c.Exclusions = append(append([]mvnpom.Exclusion(nil), c.Exclusions...), md.Exclusions...)
		}
		out = append(out, node{dep: c, depth: nd.depth + 1, excluded: excluded, from: m.name})
	}
	return out
}

func (m *pomModel) relocated() bool {
	rel := m.proj.DistributionManagement.Relocation
	if rel.GroupID == "" && rel.ArtifactID == "" && rel.Version == "" {
		return false
	}
	return (rel.GroupID != "" && rel.GroupID != m.proj.GroupID) || (rel.ArtifactID != "" && rel.ArtifactID != m.proj.ArtifactID) ||
		(rel.Version != "" && rel.Version != m.proj.Version)
}

func isExcluded(d mvnpom.Dependency, ex []mvnpom.Exclusion) bool {
	for _, e := range ex {
		if (e.GroupID == "*" || e.GroupID == d.GroupID) && (e.ArtifactID == "*" || e.ArtifactID == d.ArtifactID) {
			return true
		}
	}
	return false
}

// repoArtifact puts a repository artifact's file on the classpath; false
// when it is not there (reported).
func (r *mavenReader) repoArtifact(d mvnpom.Dependency, t artifactType, from string) bool {
	path, err := r.repoPath(string(d.GroupID), string(d.ArtifactID), string(d.Version), t.classifier, t.ext)
	if err != nil {
		r.miss("%s: %v (needed by %s)", coords(d), err, from)
		return false
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		r.miss("%s: no %s in the local repository (needed by %s)", coords(d), path, from)
		return false
	}
	r.addCP(path)
	return true
}

// moduleArtifact puts a module's class directory on the classpath, as
// Maven's reactor does, else its jar installed in the repository.
func (r *mavenReader) moduleArtifact(d mvnpom.Dependency, t artifactType, mod *pomModel, from string) {
	if !t.onClasspath {
		return
	}
	out := filepath.Join(mod.dir, "target", "classes")
	if t.classifier == "tests" {
		out = filepath.Join(mod.dir, "target", "test-classes")
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		r.addCP(out)
		return
	}
	if path, err := r.repoPath(string(d.GroupID), string(d.ArtifactID), string(d.Version), t.classifier, t.ext); err == nil {
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			r.addCP(path)
			return
		}
	}
	r.miss("%s: a module of this build (%s), not compiled yet (no %s) nor installed in the local repository (needed by %s)", coords(d), mod.dir, out, from)
}
