package workspace

// Classes outside the workspace: the JDK and the project's classpath, as
// the editor and lint see them (External), combined, and looked up by
// member for hover, completion and definition.

import (
	"errors"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
)

// ExternalPackages is implemented by an External that can say what a
// package holds, for "unknown class" messages and their suggestions.
type ExternalPackages interface {
	// Package returns, for a class name Covers accepts, its package, where
	// the package comes from ("the JDK", a jar's file name) and the
	// canonical names of the package's classes. pkg is "" when unknown.
	Package(class string) (pkg, origin string, classes []string)
}

// ExternalNames is implemented by an External that can list its classes,
// for completion.
type ExternalNames interface {
	// ClassesWithPrefix returns the canonical names of the classes that
	// start with prefix, sorted, at most limit.
	ClassesWithPrefix(prefix string, limit int) []string
}

// Externals asks each External in turn, as the JVM loads classes: the
// JDK's first, then the classpath's in order. Nil elements are skipped.
type Externals []External

// Covers implements External: one of them covers class.
func (es Externals) Covers(class string) bool {
	for _, e := range es {
		if e != nil && e.Covers(class) {
			return true
		}
	}
	return false
}

// Class implements External: the first that has the class. An error is
// returned only when none has it.
func (es Externals) Class(name string) (*ExternalClass, error) {
	var errs []error
	for _, e := range es {
		if e == nil || !e.Covers(name) {
			continue
		}
		c, err := e.Class(name)
		if c != nil {
			return c, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return nil, errors.Join(errs...)
}

// Package implements ExternalPackages: the first covering one that can
// tell; classes of a package split over several are merged.
func (es Externals) Package(class string) (pkg, origin string, classes []string) {
	for _, e := range es {
		ep, ok := e.(ExternalPackages)
		if e == nil || !ok || !e.Covers(class) {
			continue
		}
		p, o, cs := ep.Package(class)
		if p == "" || (pkg != "" && p != pkg) {
			continue
		}
		if pkg == "" {
			pkg, origin = p, o
		}
		classes = append(classes, cs...)
	}
	return pkg, origin, classes
}

// ClassesWithPrefix implements ExternalNames: every one's that can list
// them, merged.
func (es Externals) ClassesWithPrefix(prefix string, limit int) []string {
	var out []string
	for _, e := range es {
		if en, ok := e.(ExternalNames); ok && e != nil {
			out = append(out, en.ClassesWithPrefix(prefix, limit)...)
		}
	}
	return SortedPrefix(out, "", limit)
}

// SortedPrefix returns the names of names that start with prefix, sorted,
// without repeats, at most limit (0: no limit).
func SortedPrefix(names []string, prefix string, limit int) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	out = compactStrings(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// ExternalMember is a method of a class outside the workspace with the
// class that declares it.
type ExternalMember struct {
	Class  *ExternalClass
	Method ExternalMethod
}

// Signature is "name(int, String)" with simple type names.
func (m ExternalMember) Signature() string {
	k := candidate{name: m.Method.Name, params: m.Method.Params}
	return k.signature()
}

// ExternalMembers returns the methods named name (every method when name
// is "") of class (binary or canonical name) and of its supertypes that ext
// knows, the class's own first and an override only once. The class itself
// is nil when ext does not know it.
func ExternalMembers(ext External, class, name string) (*ExternalClass, []ExternalMember, error) {
	if ext == nil || !ext.Covers(class) {
		return nil, nil, nil
	}
	top, err := ext.Class(class)
	if top == nil {
		return nil, nil, err
	}
	var out []ExternalMember
	sigs := map[string]bool{}
	seen := map[string]bool{}
	queue := []*ExternalClass{top}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		for _, m := range c.Methods {
			if name != "" && m.Name != name {
				continue
			}
			em := ExternalMember{Class: c, Method: m}
			if sig := em.Signature(); !sigs[sig] {
				sigs[sig] = true
				out = append(out, em)
			}
		}
		for _, s := range c.Supers {
			if ext.Covers(s) {
				if sc, _ := ext.Class(s); sc != nil {
					queue = append(queue, sc)
				}
			}
		}
	}
	return top, out, nil
}

// PickExternal chooses the member params (nil: not written) denotes: the
// overload with those parameter types, else the only one.
func PickExternal(ms []ExternalMember, params []string) (ExternalMember, bool) {
	if params == nil {
		if len(ms) == 1 {
			return ms[0], true
		}
		return ExternalMember{}, false
	}
	for _, m := range ms {
		if sameParamList(m.Method.Params, params) {
			return m, true
		}
	}
	return ExternalMember{}, false
}

// ClassName resolves a class as written in file (may be nil) inside type
// scope (may be nil) to a workspace type's binary name, else to a class ext
// knows through the file's imports, its package or java.lang, else returns
// it as the workspace resolution left it (qualified by a single-type
// import, or as written).
func (ix *Index) ClassName(file *javasrc.File, scope *javasrc.Type, name string, ext External) string {
	cls := ix.resolveClassIn(file, scope, name)
	if ext == nil || ix.Type(cls) != nil || externalClass(ext, cls) != nil {
		return cls
	}
	var cands []string
	if file != nil {
		for _, imp := range file.Imports {
			if imp.Wildcard && !imp.Static {
				cands = append(cands, imp.Path+"."+name)
			}
		}
		if file.Package != "" {
			cands = append(cands, file.Package+"."+name)
		}
	}
	if !strings.Contains(name, ".") {
		cands = append(cands, "java.lang."+name)
	}
	for _, c := range cands {
		if ec := externalClass(ext, c); ec != nil {
			return ec.Name
		}
	}
	return cls
}

func externalClass(ext External, name string) *ExternalClass {
	if !ext.Covers(name) {
		return nil
	}
	c, _ := ext.Class(name)
	return c
}

// missingClass describes why a class ext covers is missing: "the JDK has
// no such class", or its package and jar, with the closest class names.
func missingClass(ext External, class string) string {
	ep, ok := ext.(ExternalPackages)
	if !ok {
		return "the JDK has no such class"
	}
	pkg, origin, classes := ep.Package(class)
	msg := "the JDK has no such class"
	if origin != "the JDK" {
		msg = "package " + pkg + " on the classpath has no such class"
		if origin != "" {
			msg = "package " + pkg + " on the classpath (" + origin + ") has no such class"
		}
	}
	simple, ok := strings.CutPrefix(displayName(class), pkg+".")
	if !ok {
		return msg
	}
	var near []string
	for _, c := range classes {
		cs, ok := strings.CutPrefix(c, pkg+".")
		if ok && len(simple) >= 3 && editDistance(strings.ToLower(cs), strings.ToLower(simple)) <= max(1, (len(simple)+2)/3) {
			near = append(near, c)
		}
	}
	if len(near) == 0 {
		return msg
	}
	sort.Strings(near)
	if len(near) > 3 {
		near = near[:3]
	}
	return msg + "; did you mean " + strings.Join(compactStrings(near), " or ") + "?"
}

// MethodIn finds, in a parsed source file, the declaration of method name
// of class (binary or canonical name) with parameter types params (nil: the
// first of that name): a jar's method in its -sources.jar.
func MethodIn(f *javasrc.File, class, name string, params []string) *javasrc.Method {
	class = displayName(class)
	for _, m := range f.Methods {
		if m.Type != nil && displayName(m.Type.BinaryName) == class && m.Name == name && (params == nil || sameParams(m, params)) {
			return m
		}
	}
	return nil
}
