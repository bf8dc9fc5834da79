// Package jdk implements workspace.External over a JDK's classes: its
// src.zip (the archive's table of contents is read once, and each class's
// file is parsed with javasrc the first time a formula names it, then
// kept), or without one its class data (classdata.go). home.go finds the
// JDK, by its files only.
package jdk

import (
	"archive/zip"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
)

// SrcZip looks up JDK classes in a src.zip. It is safe for concurrent use.
type SrcZip struct {
	path string
	zr   *zip.ReadCloser

	mu      sync.Mutex
	files   map[string]*zip.File // "java/util/Arrays" → entry
	classes map[string]*workspace.ExternalClass
	parsed  map[string]bool // top-level paths parsed (or failed)
	// packages lists each package's top-level classes (canonical names),
	// built on first need.
	packages map[string][]string
}

// Open reads the table of contents of a JDK src.zip.
func Open(path string) (*SrcZip, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("open JDK sources: %w", err)
	}
	z := &SrcZip{path: path, zr: zr, files: map[string]*zip.File{}, classes: map[string]*workspace.ExternalClass{}, parsed: map[string]bool{}}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".java")
		if !ok {
			continue
		}
		// JDK 9+: module/java/util/Arrays.java; JDK 8: java/util/Arrays.java.
		if i := strings.IndexByte(name, '/'); i >= 0 && strings.Contains(name[:i], ".") {
			name = name[i+1:]
		}
		z.files[name] = f
	}
	return z, nil
}

// Close releases the archive.
func (z *SrcZip) Close() error { return z.zr.Close() }

// Covers implements workspace.External: java.*, and the packages of
// Platform the JDK has (javax.inject, javax.servlet and the like come in
// jars).
func (z *SrcZip) Covers(class string) bool { return covers(class, z.hasPackage) }

func (z *SrcZip) hasPackage(pkg string) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.packagesLocked()
	return len(z.packages[pkg]) > 0
}

// Path is the src.zip read.
func (z *SrcZip) Path() string { return z.path }

// String says what is read.
func (z *SrcZip) String() string { return z.path }

// packageOf finds the package of a class name among the JDK's: the longest
// dotted prefix that holds a source file; "" when there is none.
func (z *SrcZip) packageOf(class string) string {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.packagesLocked()
	class = strings.ReplaceAll(class, "$", ".")
	for i := strings.LastIndexByte(class, '.'); i > 0; i = strings.LastIndexByte(class[:i], '.') {
		if len(z.packages[class[:i]]) > 0 {
			return class[:i]
		}
	}
	return ""
}

// ClassesWithPrefix implements workspace.ExternalNames: the JDK's
// top-level classes.
func (z *SrcZip) ClassesWithPrefix(prefix string, limit int) []string {
	z.mu.Lock()
	z.packagesLocked()
	var names []string
	for pkg, cs := range z.packages {
		if strings.HasPrefix(pkg+".", prefix) || strings.HasPrefix(prefix, pkg+".") {
			names = append(names, cs...)
		}
	}
	z.mu.Unlock()
	return workspace.SortedPrefix(names, prefix, limit)
}

// packagesLocked builds z.packages on first need.
func (z *SrcZip) packagesLocked() {
	if z.packages != nil {
		return
	}
	z.packages = map[string][]string{}
	for name := range z.files {
		i := strings.LastIndexByte(name, '/')
		if i < 0 || strings.HasSuffix(name, "-info") { // package-info, module-info
			continue
		}
		pkg := strings.ReplaceAll(name[:i], "/", ".")
		z.packages[pkg] = append(z.packages[pkg], strings.ReplaceAll(name, "/", "."))
	}
}

// Package implements workspace.ExternalPackages: the top-level classes of
// the class's package.
func (z *SrcZip) Package(class string) (pkg, origin string, classes []string) {
	pkg = z.packageOf(class)
	if pkg == "" {
		return "", "", nil
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	return pkg, "the JDK", append([]string(nil), z.packages[pkg]...)
}

// Class implements workspace.External.
func (z *SrcZip) Class(name string) (*workspace.ExternalClass, error) {
	name = strings.ReplaceAll(name, "$", ".")
	z.mu.Lock()
	defer z.mu.Unlock()
	if c, ok := z.classes[name]; ok {
		return c, nil
	}
	top := z.topLevel(name)
	if top == "" || z.parsed[top] {
		return nil, nil
	}
	z.parsed[top] = true
	if err := z.parse(top); err != nil {
		return nil, err
	}
	return z.classes[name], nil
}

// topLevel finds the file path of the top-level class of a canonical name.
func (z *SrcZip) topLevel(name string) string {
	p := strings.ReplaceAll(name, ".", "/")
	for {
		if _, ok := z.files[p]; ok {
			return p
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return ""
		}
		p = p[:i]
	}
}

func (z *SrcZip) parse(top string) error {
	zf := z.files[top]
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("read %s from %s: %w", zf.Name, z.path, err)
	}
	src, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return fmt.Errorf("read %s from %s: %w", zf.Name, z.path, err)
	}
	f, err := javasrc.Parse(zf.Name, src)
	if err != nil {
		return fmt.Errorf("parse %s: %w", zf.Name, err)
	}
	byType := map[*javasrc.Type]*workspace.ExternalClass{}
	for _, t := range f.Types {
		if t.Local || t.Anonymous {
			continue
		}
		c := &workspace.ExternalClass{Name: t.BinaryName, Complete: true, Origin: z.path, SourceArchive: z.path, SourceEntry: zf.Name}
		for _, s := range t.Supers {
			if r := z.resolve(f, t, s); r != "" {
				c.Supers = append(c.Supers, r)
			} else {
				c.Complete = false
			}
		}
		if len(t.Supers) == 0 && t.Kind == javasrc.KindClass && t.QualifiedName != "java.lang.Object" {
			c.Supers = append(c.Supers, "java.lang.Object")
		}
		byType[t] = c
		z.classes[t.QualifiedName] = c
	}
	for _, m := range f.Methods {
		c := byType[m.Type]
		if c == nil || m.IsConstructor {
			continue
		}
		params := make([]string, len(m.Params))
		names := make([]string, len(m.Params))
		varargs := false
		for i, p := range m.Params {
			params[i], names[i], varargs = p.Erased, p.Name, p.Varargs
		}
		c.Methods = append(c.Methods, workspace.ExternalMethod{Name: m.Name, Params: params, Static: m.Static, Abstract: m.Abstract,
			Return: m.ReturnType, Varargs: varargs, ParamNames: names})
	}
	return nil
}

// resolve turns a supertype as written in file f inside t into a canonical
// name, or "" when it cannot be found.
func (z *SrcZip) resolve(f *javasrc.File, t *javasrc.Type, name string) string {
	if strings.Contains(name, ".") && z.topLevel(name) != "" {
		return name // qualified: java.io.Serializable, java.util.Map.Entry
	}
	first, rest, _ := strings.Cut(name, ".")
	suffix := ""
	if rest != "" {
		suffix = "." + rest
	}
	for cur := t; cur != nil; cur = cur.Outer {
		if tt := f.TypeByName(cur.QualifiedName + "." + first); tt != nil {
			return tt.QualifiedName + suffix
		}
	}
	if tt := f.TypeByName(f.Package + "." + first); tt != nil {
		return tt.QualifiedName + suffix
	}
	for _, imp := range f.Imports {
		if !imp.Static && !imp.Wildcard && (imp.Path == first || strings.HasSuffix(imp.Path, "."+first)) {
			return imp.Path + suffix
		}
	}
	var cands []string
	if f.Package != "" {
		cands = append(cands, f.Package+"."+first)
	}
	for _, imp := range f.Imports {
		if imp.Wildcard && !imp.Static {
			cands = append(cands, imp.Path+"."+first)
		}
	}
	cands = append(cands, "java.lang."+first, first)
	for _, c := range cands {
		if _, ok := z.files[strings.ReplaceAll(c, ".", "/")]; ok {
			return c + suffix
		}
	}
	return ""
}
