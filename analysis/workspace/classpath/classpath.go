// Package classpath implements workspace.External over a project's
// classpath, its jars and class folders, reading class files with
// analysis/classfile (no javap, no JVM). It is lazy: the jars' tables of
// contents (which packages and classes each holds) are read the first time
// any class is looked up, and a class file is parsed the first time that
// class is asked for (parsing a whole package would cost 0.4 s for
// Guava's com.google.common.collect). Open jars and parsed classes are kept
// for the life of the process, keyed by the jar's path, size and
// modification time, so that re-resolving a project's classpath or linting
// again costs nothing.
package classpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/classfile"
	"github.com/perfls/perfls/analysis/workspace"
)

// Classpath looks classes up in jars and class folders, first entry first
// as the JVM does. It is safe for concurrent use.
type Classpath struct {
	paths []string

	once     sync.Once
	entries  []entry
	problems []string // entries that could not be read
}

// entry is a jar or a class folder.
type entry interface {
	where() string
	// hasPackage tells whether package pkg (dots) has class files here.
	hasPackage(pkg string) bool
	// classNames are the canonical names of pkg's named classes, unparsed.
	classNames(pkg string) []string
	// class returns the class with canonical name in package pkg, its class
	// file parsed once; nil when there is none.
	class(pkg, name string) (*workspace.ExternalClass, error)
}

// New returns a lookup over the classpath entries paths (jars and class
// folders); nothing is read until a class is looked up. Entries that do not
// exist or cannot be read are skipped and listed by Problems.
func New(paths []string) *Classpath {
	return &Classpath{paths: append([]string(nil), paths...)}
}

// Paths returns the entries as given to New.
func (cp *Classpath) Paths() []string { return cp.paths }

func (cp *Classpath) open() {
	cp.once.Do(func() {
		for _, p := range cp.paths {
			st, err := os.Stat(p)
			switch {
			case err != nil:
				cp.problems = append(cp.problems, err.Error())
			case st.IsDir():
				cp.entries = append(cp.entries, folderAt(p))
			case strings.HasSuffix(strings.ToLower(p), ".jar") || strings.HasSuffix(strings.ToLower(p), ".zip"):
				j, err := jarAt(p)
				if err != nil {
					cp.problems = append(cp.problems, err.Error())
					continue
				}
				cp.entries = append(cp.entries, j)
			default:
				cp.problems = append(cp.problems, fmt.Sprintf("%s: neither a jar nor a class folder", p))
			}
		}
	})
}

// Problems lists the entries that could not be read, once opened.
func (cp *Classpath) Problems() []string {
	cp.open()
	return cp.problems
}

// packagesOf lists the packages a canonical class name may be in, longest
// first: "a.b.C.D" may be D nested in C of a.b, or D of package a.b.C.
func packagesOf(name string) []string {
	var out []string
	for i := strings.LastIndexByte(name, '.'); i > 0; i = strings.LastIndexByte(name[:i], '.') {
		out = append(out, name[:i])
	}
	return out
}

// canonical turns a binary name ("a.B$C") into the canonical one ("a.B.C").
func canonical(name string) string { return classfile.SourceName(name) }

// Covers implements workspace.External: the class's package has class
// files on the classpath, so a class missing there does not exist.
func (cp *Classpath) Covers(class string) bool {
	cp.open()
	for _, pkg := range packagesOf(canonical(class)) {
		for _, e := range cp.entries {
			if e.hasPackage(pkg) {
				return true
			}
		}
	}
	return false
}

// Class implements workspace.External.
func (cp *Classpath) Class(name string) (*workspace.ExternalClass, error) {
	cp.open()
	name = canonical(name)
	var errs []error
	for _, pkg := range packagesOf(name) {
		for _, e := range cp.entries {
			if !e.hasPackage(pkg) {
				continue
			}
			c, err := e.class(pkg, name)
			if c != nil {
				return c, nil
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return nil, errors.Join(errs...)
}

// Package implements workspace.ExternalPackages.
func (cp *Classpath) Package(class string) (pkg, origin string, classes []string) {
	cp.open()
	for _, p := range packagesOf(canonical(class)) {
		var where []string
		for _, e := range cp.entries {
			if e.hasPackage(p) {
				where = append(where, filepath.Base(e.where()))
				classes = append(classes, e.classNames(p)...)
			}
		}
		if len(where) > 0 {
			sort.Strings(classes)
			return p, strings.Join(where, ", "), classes
		}
	}
	return "", "", nil
}

// ClassesWithPrefix implements workspace.ExternalNames over the jars (class
// folders are not listed).
func (cp *Classpath) ClassesWithPrefix(prefix string, limit int) []string {
	cp.open()
	var names []string
	for _, e := range cp.entries {
		j, ok := e.(*jar)
		if !ok {
			continue
		}
		names = append(names, j.idx.PrefixClasses(prefix)...)
	}
	return workspace.SortedPrefix(names, prefix, limit)
}

// named tells a class file name ("Element$Attr") Java source can name: not
// anonymous or local ("Element$1", "Element$1Local"), not module-info or
// package-info.
func named(simple string) bool {
	if simple == "module-info" || simple == "package-info" {
		return false
	}
	for _, seg := range strings.Split(simple, "$") {
		if seg != "" && seg[0] >= '0' && seg[0] <= '9' {
			return false
		}
	}
	return true
}

// externalClass converts a parsed class file; nil for classes source cannot
// name.
func externalClass(c *classfile.Class, origin, sourcesJar string) *workspace.ExternalClass {
	if c.Anonymous || c.Access&(classfile.AccSynthetic|classfile.AccModule) != 0 {
		return nil
	}
	ec := &workspace.ExternalClass{Name: c.Name, Complete: true, Origin: origin}
	if c.Super != "" {
		ec.Supers = append(ec.Supers, c.Super)
	}
	ec.Supers = append(ec.Supers, c.Interfaces...)
	for _, m := range c.Methods {
		if m.Hidden() || m.Constructor() {
			continue
		}
		ec.Methods = append(ec.Methods, workspace.ExternalMethod{
			Name: m.Name, Params: m.Params, Static: m.Static(), Abstract: m.Abstract(),
			Return: m.Return, Varargs: m.Varargs(), ParamNames: m.ParamNames,
		})
	}
	if sourcesJar != "" && strings.HasSuffix(c.SourceFile, ".java") {
		dir := ""
		if i := strings.LastIndexByte(c.Name, '.'); i >= 0 {
			dir = strings.ReplaceAll(c.Name[:i], ".", "/") + "/"
		}
		ec.SourceArchive, ec.SourceEntry = sourcesJar, dir+c.SourceFile
	}
	return ec
}

// classSlot holds one class file, parsed once.
type classSlot struct {
	once  sync.Once
	class *workspace.ExternalClass
	err   error
}

// get parses the class file read returns, once.
func (sl *classSlot) get(read func() ([]byte, error), origin, sourcesJar string) (*workspace.ExternalClass, error) {
	sl.once.Do(func() {
		data, err := read()
		if err == nil {
			var c *classfile.Class
			if c, err = classfile.Parse(data); err == nil {
				sl.class = externalClass(c, origin, sourcesJar)
			}
		}
		sl.err = err
	})
	return sl.class, sl.err
}

// slots holds the class slots of one jar or folder package by name.
type slots struct {
	mu sync.Mutex
	m  map[string]*classSlot
}

// slot returns name's slot, made on first need.
func (s *slots) slot(name string) *classSlot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*classSlot{}
	}
	sl := s.m[name]
	if sl == nil {
		sl = &classSlot{}
		s.m[name] = sl
	}
	return sl
}

// jar is a jar's table of contents; its class files are parsed one by one
// as they are asked for.
type jar struct {
	a   *archive
	idx *Index
}

// jars caches jar indexes by archive (itself cached by path, size and
// modification time).
var jars = struct {
	sync.Mutex
	m map[*archive]*jar
}{m: map[*archive]*jar{}}

func jarAt(jarPath string) (*jar, error) {
	a, err := openArchive(jarPath)
	if err != nil {
		return nil, err
	}
	jars.Lock()
	defer jars.Unlock()
	if j := jars.m[a]; j != nil {
		return j, nil
	}
	sourcesJar := ""
	src := strings.TrimSuffix(jarPath, filepath.Ext(jarPath)) + "-sources.jar"
	if st, err := os.Stat(src); err == nil && st.Mode().IsRegular() {
		sourcesJar = src
	}
	j := &jar{a: a, idx: NewIndex(a.path, sourcesJar, func(entry string) ([]byte, error) { return a.read(a.files[entry]) })}
	for name := range a.files {
		// META-INF/versions/N/… (multi-release jars) repeats classes for
		// newer JVMs; the base entries declare the same API.
		if internal, ok := strings.CutSuffix(name, ".class"); ok && !strings.HasPrefix(name, "META-INF/") {
			j.idx.Add(internal, name)
		}
	}
	jars.m[a] = j
	return j, nil
}

func (j *jar) where() string                  { return j.a.path }
func (j *jar) hasPackage(pkg string) bool     { return j.idx.HasPackage(pkg) }
func (j *jar) classNames(pkg string) []string { return j.idx.ClassNames(pkg) }

func (j *jar) class(_, name string) (*workspace.ExternalClass, error) { return j.idx.Class(name) }

// folder is a class folder (target/classes of another module). Class
// files change when it is rebuilt, so a package is parsed again when its
// directory's modification time changes.
type folder struct {
	dir string

	mu   sync.Mutex
	pkgs map[string]*folderPackage
}

type folderPackage struct {
	mtime   int64     // of the package's directory; -1 when there is none
	checked time.Time // when mtime was last compared with the directory's
	names   []string  // class files' base names without .class, named ones only
	parsed  slots     // by base name
}

// folders caches class folders by path.
var folders = struct {
	sync.Mutex
	m map[string]*folder
}{m: map[string]*folder{}}

func folderAt(dir string) *folder {
	folders.Lock()
	defer folders.Unlock()
	if f := folders.m[dir]; f != nil {
		return f
	}
	f := &folder{dir: dir, pkgs: map[string]*folderPackage{}}
	folders.m[dir] = f
	return f
}

func (f *folder) where() string { return f.dir }

// folderRecheck is how long a class folder's package listing is trusted
// before its directory is looked at again: a lint asks about the same
// packages many times, a rebuild takes longer than this.
var folderRecheck = time.Second

// pkg returns the package's listing, re-read when its directory changed;
// nil when the directory holds no class files.
func (f *folder) pkg(pkg string) *folderPackage {
	now := time.Now()
	f.mu.Lock()
	if fp, ok := f.pkgs[pkg]; ok && now.Sub(fp.checked) < folderRecheck {
		f.mu.Unlock()
		return fp.orNil()
	}
	f.mu.Unlock()
	d := filepath.Join(f.dir, filepath.FromSlash(strings.ReplaceAll(pkg, ".", "/")))
	var mtime int64 = -1 // no directory
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		mtime = st.ModTime().UnixNano()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if fp := f.pkgs[pkg]; fp != nil && fp.mtime == mtime {
		fp.checked = now
		return fp.orNil()
	}
	fp := &folderPackage{mtime: mtime, checked: now}
	if mtime >= 0 {
		des, _ := os.ReadDir(d)
		for _, de := range des {
			if n, ok := strings.CutSuffix(de.Name(), ".class"); ok && de.Type()&fs.ModeType == 0 && named(n) {
				fp.names = append(fp.names, n)
			}
		}
	}
	f.pkgs[pkg] = fp
	return fp.orNil()
}

// orNil is fp, or nil when it holds no class files.
func (fp *folderPackage) orNil() *folderPackage {
	if len(fp.names) == 0 {
		return nil
	}
	return fp
}

func (f *folder) hasPackage(pkg string) bool { return f.pkg(pkg) != nil }

func (f *folder) classNames(pkg string) []string {
	fp := f.pkg(pkg)
	if fp == nil {
		return nil
	}
	out := make([]string, len(fp.names))
	for i, n := range fp.names {
		out[i] = canonical(pkg + "." + n)
	}
	return out
}

func (f *folder) class(pkg, name string) (*workspace.ExternalClass, error) {
	fp := f.pkg(pkg)
	if fp == nil {
		return nil, nil
	}
	base := ""
	for _, n := range fp.names {
		if canonical(pkg+"."+n) == name {
			base = n
		}
	}
	if base == "" {
		return nil, nil
	}
	p := filepath.Join(f.dir, filepath.FromSlash(strings.ReplaceAll(pkg, ".", "/")), base+".class")
	c, err := fp.parsed.slot(base).get(func() ([]byte, error) { return os.ReadFile(p) }, f.dir, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return c, nil
}
