package classpath

import (
	"fmt"
	"path"
	"strings"

	"github.com/perfls/perfls/analysis/workspace"
)

// Index is a table of class files by canonical name and by package, each
// parsed the first time it is asked for. A jar fills one; so does the
// JDK's class data without sources (package jdk: lib/ct.sym, the runtime
// image lib/modules, JDK 8's rt.jar). Filling is not safe for concurrent
// use; once filled, looking up is.
type Index struct {
	origin     string
	sourcesJar string
	read       func(entry string) ([]byte, error)
	pkgs       map[string][]string // package → canonical names of its named classes
	entries    map[string]string   // canonical name → entry name

	parsed slots // by canonical name
}

// NewIndex returns an empty index whose class files read returns by entry
// name. origin names the file they come from (ExternalClass.Origin);
// sourcesJar, when not "", is a zip of the classes' sources.
func NewIndex(origin, sourcesJar string, read func(entry string) ([]byte, error)) *Index {
	return &Index{origin: origin, sourcesJar: sourcesJar, read: read, pkgs: map[string][]string{}, entries: map[string]string{}}
}

// Add records the class file at entry whose binary name is internal, with
// slashes ("java/util/Map$Entry"). Classes Java source cannot name
// (anonymous, local, module-info, package-info) are left out; a class
// added twice keeps its first entry. It reports whether the class was
// added.
func (x *Index) Add(internal, entry string) bool {
	dir, file := path.Split(internal)
	if !named(file) {
		return false
	}
	cn := canonical(strings.ReplaceAll(internal, "/", "."))
	if _, dup := x.entries[cn]; dup {
		return false
	}
	pkg := strings.ReplaceAll(strings.TrimSuffix(dir, "/"), "/", ".")
	x.pkgs[pkg] = append(x.pkgs[pkg], cn)
	x.entries[cn] = entry
	return true
}

// Len is the number of classes added.
func (x *Index) Len() int { return len(x.entries) }

// HasPackage tells whether package pkg (dots) has classes here.
func (x *Index) HasPackage(pkg string) bool { return len(x.pkgs[pkg]) > 0 }

// ClassNames are the canonical names of pkg's classes. The slice is
// shared: callers must not modify it.
func (x *Index) ClassNames(pkg string) []string { return x.pkgs[pkg] }

// PrefixClasses returns the canonical names of the classes of the
// packages that prefix can complete into or that prefix lies in, unsorted.
func (x *Index) PrefixClasses(prefix string) []string {
	var names []string
	for pkg, cs := range x.pkgs {
		if strings.HasPrefix(pkg+".", prefix) || strings.HasPrefix(prefix, pkg+".") {
			names = append(names, cs...)
		}
	}
	return names
}

// Class returns the class with a canonical name, its class file parsed
// once; nil when there is none here.
func (x *Index) Class(name string) (*workspace.ExternalClass, error) {
	entry, ok := x.entries[name]
	if !ok {
		return nil, nil
	}
	c, err := x.parsed.slot(name).get(func() ([]byte, error) { return x.read(entry) }, x.origin, x.sourcesJar)
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", entry, x.origin, err)
	}
	return c, nil
}
