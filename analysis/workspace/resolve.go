package workspace

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
)

// Index finds the workspace's types by qualified or binary name.
type Index struct {
	types map[string]*javasrc.Type // by QualifiedName and BinaryName
	// methods of each type, in source order
	methods map[*javasrc.Type][]*javasrc.Method
	files   map[*javasrc.Type]*javasrc.File
	// packages holds every package that declares a workspace type.
	packages map[string]bool

	// base, when set, holds the files this index does not replace: an
	// overlay (With) answers from its own files first, then from base,
	// skipping base's types of the paths in hidden.
	base   *Index
	hidden map[string]bool

	// byName indexes methods (constructors excluded) by type and name,
	// built once lookups passed byNameAfter: formulas look methods up by
	// name, and a type may have thousands. The first few look through the
	// type's methods instead: an editor's overlay index, new at each
	// keystroke, is asked a few times when one formula is checked again,
	// and indexing 4,000 methods cost more than the check.
	lookups    atomic.Int32
	byNameOnce sync.Once
	byName     map[typeMember][]*javasrc.Method
}

// byNameAfter is the number of Methods lookups an Index answers by
// scanning a type's methods before it indexes them all by name.
const byNameAfter = 8

type typeMember struct {
	t    *javasrc.Type
	name string
}

// With returns an index of ix's files and files, where files replace those
// of ix with the same Path (open editor buffers over the files on disk).
// ix is not modified; building the overlay costs only files.
func (ix *Index) With(files []*javasrc.File) *Index {
	o := NewIndex(files)
	o.base = ix
	o.hidden = map[string]bool{}
	for _, f := range files {
		o.hidden[f.Path] = true
	}
	return o
}

// fileOf returns the file that declares t.
func (ix *Index) fileOf(t *javasrc.Type) *javasrc.File {
	if f := ix.files[t]; f != nil || ix.base == nil {
		return f
	}
	return ix.base.fileOf(t)
}

// methodsOf returns every method of t in source order.
func (ix *Index) methodsOf(t *javasrc.Type) []*javasrc.Method {
	if _, own := ix.files[t]; own || ix.base == nil {
		return ix.methods[t]
	}
	return ix.base.methodsOf(t)
}

// hasPackage tells whether a workspace type is declared in package p.
func (ix *Index) hasPackage(p string) bool {
	return ix.packages[p] || (ix.base != nil && ix.base.hasPackage(p))
}

// NewIndex indexes the types and methods of files.
func NewIndex(files []*javasrc.File) *Index {
	ix := &Index{
		types:    map[string]*javasrc.Type{},
		methods:  map[*javasrc.Type][]*javasrc.Method{},
		files:    map[*javasrc.Type]*javasrc.File{},
		packages: map[string]bool{},
	}
	for _, f := range files {
		if len(f.Types) > 0 {
			ix.packages[f.Package] = true
		}
		for _, t := range f.Types {
			ix.types[t.QualifiedName] = t
			ix.types[t.BinaryName] = t
			ix.files[t] = f
		}
		for _, m := range f.Methods {
			ix.methods[m.Type] = append(ix.methods[m.Type], m)
		}
	}
	return ix
}

// Type returns the type with a qualified (a.B.C) or binary (a.B$C) name.
func (ix *Index) Type(name string) *javasrc.Type {
	if t := ix.types[name]; t != nil || ix.base == nil {
		return t
	}
	t := ix.base.Type(name)
	if t != nil && ix.hidden[ix.base.fileOf(t).Path] {
		return nil
	}
	return t
}

// Methods returns the methods of t named name, in source order.
func (ix *Index) Methods(t *javasrc.Type, name string) []*javasrc.Method {
	if _, own := ix.files[t]; !own && ix.base != nil {
		return ix.base.Methods(t, name)
	}
	if ix.lookups.Add(1) <= byNameAfter {
		var out []*javasrc.Method
		for _, m := range ix.methods[t] {
			if !m.IsConstructor && m.Name == name {
				out = append(out, m)
			}
		}
		return out
	}
	ix.byNameOnce.Do(func() {
		ix.byName = map[typeMember][]*javasrc.Method{}
		for t, ms := range ix.methods {
			for _, m := range ms {
				if !m.IsConstructor {
					k := typeMember{t, m.Name}
					ix.byName[k] = append(ix.byName[k], m)
				}
			}
		}
	})
	return append([]*javasrc.Method(nil), ix.byName[typeMember{t, name}]...)
}

// Target names a method to measure or a generator to call, as precisely as
// the source allows; the measurement layer resolves it against the compiled
// classes (overloads, inherited and JDK methods).
type Target struct {
	Class  string   // binary name when the class is in the workspace, else as written
	Method string   // method name
	Params []string // parameter types; nil when unknown (the resolver picks the only overload)
	// Decl is the workspace declaration, when the method is in the workspace.
	Decl *javasrc.Method
	// Revision, when set (AtRevision), is the commit whose tree holds the
	// method ("v1.0", "HEAD~2"), and RevisionSpan its "@rev" in the formula
	// that named it (an alias's may be in another string). Decl is then nil.
	Revision     string
	RevisionSpan spl.Span
}

// String renders the target as `pkg.Class#m(int[],int)`.
func (t Target) String() string {
	s := t.Class + "#" + t.Method
	if t.Params != nil {
		s += "(" + strings.Join(t.Params, ",") + ")"
	}
	if t.Revision != "" {
		s += "@" + t.Revision
	}
	return s
}

func targetOf(m *javasrc.Method) Target {
	params := make([]string, len(m.Params))
	for i, p := range m.Params {
		params[i] = p.Erased
	}
	return Target{Class: m.Type.BinaryName, Method: m.Name, Params: params, Decl: m}
}

// maxAliasDepth bounds alias chains (a := b, b := a) so resolution ends.
const maxAliasDepth = 16

// ResolveMethod resolves a measured method reference of formula f.
func (ix *Index) ResolveMethod(f *Formula, ref *spl.MethodRef) (Target, error) {
	return ix.resolveMethod(f, ref, 0)
}

func (ix *Index) resolveMethod(f *Formula, ref *spl.MethodRef, depth int) (Target, error) {
	if depth > maxAliasDepth {
		return Target{}, fmt.Errorf("alias chain through %q is too long or circular", ref.Name)
	}
	if err := unsupportedVersioning(ref.Project, ref.Revision); err != nil {
		return Target{}, err
	}
	if ref.CtorArg != nil {
		return Target{}, fmt.Errorf("receivers built from a constructor string (%s) are not supported yet; use a static method or pass the receiver as the generator's first argument", ref)
	}
	if AtRevision(ref.Revision) && (ref.Class != "" || findAlias(f.Aliases, ref.Name) == nil) {
		return ix.resolveAtRevision(f, ref)
	}
	switch {
	case ref.Self:
		if f.Method == nil {
			return Target{}, fmt.Errorf("SELF/THIS only has a meaning in an @SPL annotation on a method")
		}
		return targetOf(f.Method), nil
	case ref.Class == "" && ref.Name != "":
		if a := findAlias(f.Aliases, ref.Name); a != nil && a.Method != nil {
			return ix.resolveMethod(f, a.Method, depth+1)
		}
		if f.Method == nil {
			return Target{}, fmt.Errorf("unknown alias %q: declare it with `%s := pkg.Class#method`", ref.Name, ref.Name)
		}
		return ix.memberOf(f.Method.Type, ref.Name, ref.Params, "method or alias")
	}
	cls := ix.resolveClass(f, ref.Class)
	if t := ix.Type(cls); t != nil {
		return ix.memberOf(t, ref.Method, ref.Params, "method")
	}
	return Target{Class: cls, Method: ref.Method, Params: ref.Params}, nil
}

// ResolveGenerator resolves the workload generator of a term: a static
// method returning Iterable<Object[]>.
func (ix *Index) ResolveGenerator(f *Formula, ref *spl.GeneratorRef) (Target, error) {
	if ref == nil {
		return Target{}, fmt.Errorf("no workload: write the generator in brackets, e.g. SELF[gen](n)")
	}
	if err := unsupportedVersioning(ref.Project, ref.Revision); err != nil {
		return Target{}, err
	}
	if ref.CtorArg != nil || ref.MethodArg != nil || (ref.Class != "" && ref.Method == "") {
		return Target{}, fmt.Errorf("generator objects built from constructor strings are not supported yet; use a static method returning Iterable<Object[]>")
	}
	if AtRevision(ref.Revision) && ref.Class != "" {
		return Target{Class: ix.resolveClass(f, ref.Class), Method: ref.Method, Revision: ref.Revision, RevisionSpan: ref.RevisionSpan}, nil
	}
	if ref.Class == "" {
		if a := findAlias(f.GeneratorAliases, ref.Name); a != nil {
			switch {
			case a.Generator != nil:
				return ix.ResolveGenerator(f, a.Generator)
			case a.Method != nil && !a.Method.Self:
				// A thesis alias (`w := pkg.Class.gen`) parses as a method
				// entity; as a generator it names the generator method.
				if a.Method.Class == "" {
					return ix.ResolveGenerator(f, &spl.GeneratorRef{Name: a.Method.Name, Span: a.Method.Span})
				}
				return ix.ResolveGenerator(f, &spl.GeneratorRef{Class: a.Method.Class, Method: a.Method.Method, Project: a.Method.Project, Revision: a.Method.Revision, Span: a.Method.Span})
			}
		}
		if f.Method == nil {
			return Target{}, fmt.Errorf("unknown generator alias %q: declare it with `%s := pkg.Class.generator`", ref.Name, ref.Name)
		}
		return ix.memberOf(f.Method.Type, ref.Name, nil, "generator method or alias")
	}
	cls := ix.resolveClass(f, ref.Class)
	if t := ix.Type(cls); t != nil {
		return ix.memberOf(t, ref.Method, nil, "generator method")
	}
	return Target{Class: cls, Method: ref.Method}, nil
}

func unsupportedVersioning(project, revision string) error {
	if project != "" && project != "THIS" {
		return fmt.Errorf("project %q: only the current project (THIS) can be measured for now", project)
	}
	return nil
}

// AtRevision tells a revision that names a commit's tree rather than the
// working tree: every revision but none and HEAD, which (as in the thesis's
// "current := m@HEAD") is the code as it is now, edits included.
func AtRevision(rev string) bool { return rev != "" && rev != "HEAD" }

// resolveAtRevision is a method reference at another commit: its class as
// the formula's imports name it, its parameter types as written (SELF's as
// they are now); the engine finds it in the commit's tree (Member).
func (ix *Index) resolveAtRevision(f *Formula, ref *spl.MethodRef) (Target, error) {
	t := Target{Revision: ref.Revision, RevisionSpan: ref.RevisionSpan, Method: ref.Method, Params: ref.Params}
	switch {
	case ref.Self:
		if f.Method == nil {
			return Target{}, fmt.Errorf("SELF/THIS only has a meaning in an @SPL annotation on a method")
		}
		self := targetOf(f.Method)
		t.Class, t.Method, t.Params = self.Class, self.Method, self.Params
	case ref.Class == "":
		if f.Method == nil || f.Method.Type == nil {
			return Target{}, fmt.Errorf("unknown alias %q: declare it with `%s := pkg.Class#method`", ref.Name, ref.Name)
		}
		t.Class, t.Method = f.Method.Type.BinaryName, ref.Name
	default:
		t.Class = ix.resolveClass(f, ref.Class)
	}
	return t, nil
}

// Member finds class#method (parameter types params, nil: the only
// overload) among the index's declarations: a reference at a revision,
// against that commit's tree. The error says what is missing.
func (ix *Index) Member(class, method string, params []string) (Target, error) {
	t := ix.Type(class)
	if t == nil {
		return Target{}, fmt.Errorf("class %s does not exist", class)
	}
	return ix.memberOf(t, method, params, "method")
}

func findAlias(as []*spl.Alias, name string) *spl.Alias {
	for _, a := range as {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// memberOf finds method name in t (or an enclosing type, as Java would).
func (ix *Index) memberOf(t *javasrc.Type, name string, params []string, what string) (Target, error) {
	for cur := t; cur != nil; cur = cur.Outer {
		ms := ix.Methods(cur, name)
		if len(ms) == 0 {
			continue
		}
		if params != nil {
			for _, m := range ms {
				if sameParams(m, params) {
					return targetOf(m), nil
				}
			}
			return Target{}, fmt.Errorf("%s has no overload %s(%s); candidates: %s", cur.QualifiedName, name, strings.Join(params, ", "), signatures(ms))
		}
		if len(ms) == 1 {
			return targetOf(ms[0]), nil
		}
		return Target{}, fmt.Errorf("%s.%s is overloaded; name the parameter types, e.g. %s#%s(%s); candidates: %s",
			cur.QualifiedName, name, cur.QualifiedName, name, strings.Join(targetOf(ms[0]).Params, ","), signatures(ms))
	}
	return Target{}, fmt.Errorf("unknown %s %q in %s", what, name, t.QualifiedName)
}

func signatures(ms []*javasrc.Method) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Name+"("+strings.Join(targetOf(m).Params, ", ")+")")
	}
	return strings.Join(s, "; ")
}

// sameParams compares erased parameter types by simple name, so that
// `java.lang.String` in a formula matches `String` in the source.
func sameParams(m *javasrc.Method, params []string) bool {
	if len(m.Params) != len(params) {
		return false
	}
	for i, p := range m.Params {
		if simpleType(p.Erased) != simpleType(params[i]) {
			return false
		}
	}
	return true
}

func simpleType(t string) string {
	t = strings.ReplaceAll(t, " ", "")
	if i := strings.Index(t, "<"); i >= 0 {
		if j := strings.LastIndex(t, ">"); j > i {
			t = t[:i] + t[j+1:]
		}
	}
	t = strings.ReplaceAll(t, "...", "[]")
	base := strings.TrimRight(t, "[]")
	dims := t[len(base):]
	if i := strings.LastIndexAny(base, ".$"); i >= 0 {
		base = base[i+1:]
	}
	return base + dims
}

// resolveClass turns a class as written in a formula into a workspace name
// when it denotes a workspace type: qualified, nested in or beside the
// annotated type, in the same package, or imported. Anything else is
// returned as written for the JVM-side resolver (e.g. java.util.Arrays).
func (ix *Index) resolveClass(f *Formula, name string) string {
	var scope *javasrc.Type
	if f.Method != nil {
		scope = f.Method.Type
	}
	return ix.resolveClassIn(f.File, scope, name)
}

// resolveClassIn resolves a class name as written in file (may be nil)
// inside type scope (may be nil).
func (ix *Index) resolveClassIn(file *javasrc.File, scope *javasrc.Type, name string) string {
	if t := ix.Type(name); t != nil {
		return t.BinaryName
	}
	var candidates []string
	for cur := scope; cur != nil; cur = cur.Outer {
		candidates = append(candidates, cur.QualifiedName+"."+name)
	}
	f := struct{ File *javasrc.File }{file}
	if f.File != nil {
		first, rest, _ := strings.Cut(name, ".")
		for _, imp := range f.File.Imports {
			switch {
			case imp.Static:
			case imp.Wildcard:
				candidates = append(candidates, imp.Path+"."+name)
			case imp.Path == first || strings.HasSuffix(imp.Path, "."+first):
				if rest != "" {
					candidates = append(candidates, imp.Path+"."+rest)
				} else {
					candidates = append(candidates, imp.Path)
				}
			}
		}
		if f.File.Package != "" {
			candidates = append(candidates, f.File.Package+"."+name)
		}
	}
	for _, c := range candidates {
		if t := ix.Type(c); t != nil {
			return t.BinaryName
		}
	}
	if f.File != nil && !strings.Contains(name, ".") {
		for _, imp := range f.File.Imports {
			if !imp.Static && !imp.Wildcard && strings.HasSuffix(imp.Path, "."+name) {
				return imp.Path
			}
		}
		if isJavaLang(name) {
			return "java.lang." + name
		}
	}
	return name
}

func isJavaLang(name string) bool {
	switch name {
	case "Math", "StrictMath", "String", "StringBuilder", "Integer", "Long", "Double", "Float",
		"Short", "Byte", "Character", "Boolean", "System", "Object", "Thread":
		return true
	}
	return false
}
