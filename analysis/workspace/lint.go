package workspace

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
)

// Diagnostic codes of the reference linter (Index.Lint).
const (
	CodeUnknownAlias      = "unknown-alias"       // bare name that is neither an alias nor a method of the class
	CodeUnknownClass      = "unknown-class"       // class not in the workspace (or the JDK)
	CodeUnknownMethod     = "unknown-method"      // class has no method of that name
	CodeNoOverload        = "no-overload"         // no overload with the written parameter types
	CodeAmbiguousOverload = "ambiguous-overload"  // overloaded and no parameter types written
	CodeGeneratorArity    = "generator-arity"     // argument count differs from the declaration
	CodeGeneratorArgType  = "generator-arg-type"  // argument kind does not fit the parameter type
	CodeGeneratorShape    = "generator-signature" // not static, or does not return a sequence
	CodeWorkloadLoop      = "workload-loop"       // SPLController workload loop used wrongly
	CodeSelfAbstract      = "self-abstract"       // SELF names an abstract method
	CodeSelfOutside       = "self-outside-method" // SELF in a .spl file
	CodeUnsupported       = "unsupported"         // valid SPL perfls cannot measure yet
)

// ExternalMethod is a method of a class outside the workspace.
type ExternalMethod struct {
	Name     string
	Params   []string // erased parameter types as written in the declaration
	Static   bool
	Abstract bool
	// Return is the (erased) return type, "" when unknown; Varargs marks a
	// last parameter declared with "..."; ParamNames are the parameters'
	// names when the class file or source keeps them, else nil.
	Return     string
	Varargs    bool
	ParamNames []string
}

// ExternalClass is a class outside the workspace with its declared
// methods (constructors excluded).
type ExternalClass struct {
	Name    string // binary name
	Methods []ExternalMethod
	// Supers are the binary names of the direct supertypes; Complete is
	// false when some could not be resolved, so a method missing here may
	// still be inherited.
	Supers   []string
	Complete bool
	// Origin is the file the class was read from: a jar, a class folder or
	// the JDK's src.zip. SourceArchive and SourceEntry, when set, name the
	// zip entry holding its source (a -sources.jar beside the jar, the
	// src.zip), which may turn out to be missing.
	Origin        string
	SourceArchive string
	SourceEntry   string
}

// External looks up classes outside the workspace, such as the JDK's. The
// caller supplies it; implementations may read files and must be safe for
// concurrent use.
type External interface {
	// Covers reports whether the lookup knows every class of the package
	// that class (a binary or canonical name) would be in, so that a miss
	// is an error, e.g. true for java.* and javax.* for a JDK lookup.
	Covers(class string) bool
	// Class returns the class with a binary (a.B$C) or canonical (a.B.C)
	// name, or nil when there is none.
	Class(name string) (*ExternalClass, error)
}

// LintOptions configure Index.Lint.
type LintOptions struct {
	// External resolves references outside the workspace: the JDK's
	// (java.*, javax.*) and the classpath's (Externals combines them); nil
	// leaves them unchecked.
	External External
	// Partial tells that the index does not hold every file of the
	// workspace yet (an editor before its index is built): classes missing
	// from it are then not reported.
	Partial bool
	// Unchecked, when not nil, is told of each reference lint could not
	// check for want of a class: one the reference names, or a supertype
	// of it, is neither in the index nor covered by External, so a
	// misspelt method cannot be told from an inherited one. It is called
	// from Lint's goroutine; formulas LintReusing takes from its memo are
	// not checked, so not told of again.
	Unchecked func(Unchecked)
}

// Unchecked is a reference lint could not check.
type Unchecked struct {
	Path string // the formula's file
	Ref  string // as written: "a.B#m"
	// Missing are the classes that could not be seen (binary or canonical
	// names as resolved; for a name the file's wildcard imports leave
	// open, one per import); empty when a class from External has
	// supertypes its source does not resolve.
	Missing []string
}

// Lint resolves the method and generator references of formulas against
// the index (and opt.External) and reports what would keep them from being
// measured: unknown aliases, classes and methods, ambiguous overloads,
// generator arguments that do not fit the generator's declaration, misused
// workload loops, SELF on an abstract method, and formulas written in the
// spl-evaluation-java dialect. Formulas with syntax errors are skipped.
// Diagnostics are sorted by position; ranges
// cover the reference's text in the formula.
func (ix *Index) Lint(formulas []*Formula, opt LintOptions) []Diagnostic {
	diags, _ := ix.LintReusing(formulas, opt, nil)
	return diags
}

type checker struct {
	ix    *Index
	opt   LintOptions
	f     *Formula
	diags []Diagnostic
	// selfDone: SELF was resolved once; its problems are reported once
	// per formula.
	selfDone bool
	selfOK   bool
	// via is the alias being resolved, named in messages.
	via string
	// lookups remembers lookup's results for the formulas of one Lint.
	lookups map[lookupKey]*lookupResult
}

type lookupKey struct{ cls, name string }

type lookupResult struct {
	ms              []candidate // shared: never modified
	complete, known bool
	missing         []string // classes whose absence made it incomplete
	err             error
}

func (c *checker) add(sp spl.Span, sev Severity, code, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if c.via != "" {
		msg = fmt.Sprintf("alias %q: %s", c.via, msg)
	}
	c.diags = append(c.diags, c.f.diagnostic(sp, sev, code, msg))
}

func (c *checker) formula() {
	if c.evaluationDialect() {
		return
	}
	for _, t := range spl.Terms(c.f.Parsed.Body) {
		c.term(t)
	}
}

// evaluationDialect recognises spl-evaluation-java formulas such as
// "last < ver2 && ver2 < ver3": every operand a bare name that is neither
// an alias nor a method of the annotated class, without workload or
// arguments.
func (c *checker) evaluationDialect() bool {
	var names []string
	seen := map[string]bool{}
	for _, t := range spl.Terms(c.f.Parsed.Body) {
		m := t.Method
		if m.Self || m.Name == "" || t.Generator != nil || t.ArgsGiven || t.Scale != nil ||
			findAlias(c.f.Aliases, m.Name) != nil || c.classHasMethod(m.Name) {
			return false
		}
		if !seen[m.Name] {
			seen[m.Name] = true
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return false
	}
	c.add(c.f.Parsed.Body.ExprSpan(), Error, spl.CodeEvaluationDialect,
		"this is the spl-evaluation-java dialect, where operands (%s) name data sources or revisions; perfls SPL compares measured methods on a workload: write e.g. SELF[gen](n) < pkg.Class#method[gen](n), with & | ==> (or and, or, implies) instead of && || =>",
		strings.Join(names, ", "))
	return true
}

func (c *checker) classHasMethod(name string) bool {
	if c.f.Method == nil {
		return false
	}
	for cur := c.f.Method.Type; cur != nil; cur = cur.Outer {
		if len(c.ix.Methods(cur, name)) > 0 {
			return true
		}
	}
	return false
}

// candidate is one method declaration a reference may denote.
type candidate struct {
	owner    string // qualified name of the declaring class
	name     string
	params   []string
	static   bool
	abstract bool
	decl     *javasrc.Method // nil outside the workspace
}

func (k candidate) signature() string {
	ps := make([]string, len(k.params))
	for i, p := range k.params {
		ps[i] = simpleType(p)
	}
	return k.name + "(" + strings.Join(ps, ", ") + ")"
}

func (c *checker) term(t *spl.Term) {
	gen := t.Generator
	var genSite spl.Span
	if gen != nil {
		genSite = gen.Span
	} else if t.Method.Class == "" && !t.Method.Self {
		// "a := ArrayList.contains[gen]" binds a workload to the alias; its
		// text may be in another string, so report at the term.
		if a := findAlias(c.f.Aliases, t.Method.Name); a != nil && a.BoundGenerator != nil {
			gen, genSite = a.BoundGenerator, t.Method.Span
		}
	}
	m, ok := c.method(t.Method, t.Method.Span, "", 0)
	c.via = ""
	var g *candidate
	genOK := false
	if gen != nil {
		g, genOK = c.generator(gen, genSite, len(t.Args), 0)
		c.via = ""
	}
	if ok && m != nil && m.decl != nil && isLoop(m.decl) {
		if gen != nil {
			c.add(genSite, Error, CodeWorkloadLoop,
				"%s is a workload loop (its first parameter is SPLController): it runs its own workload, so remove [%s] and pass its arguments directly, e.g. %s(…)",
				m.signature(), gen, t.Method)
			return
		}
		c.arguments(t, m, m.decl.Params[1:], "workload loop")
		return
	}
	if gen == nil {
		if ok && m != nil && m.decl != nil && t.ArgsGiven {
			c.arguments(t, m, m.decl.Params, "method")
		}
		return
	}
	if genOK && g != nil && g.decl != nil {
		if isLoop(g.decl) {
			// m[loop](args): the loop drives m itself (docs/revisions.md);
			// its arguments follow the SPLController.
			c.arguments(t, g, g.decl.Params[1:], "workload loop")
			return
		}
		c.generatorShape(genSite, g)
		c.arguments(t, g, g.decl.Params, "generator")
	}
}

// isLoop tells a workload loop: void w(SPLController spl, …).
func isLoop(m *javasrc.Method) bool {
	return len(m.Params) > 0 && simpleType(m.Params[0].Erased) == "SPLController"
}

// method resolves a method reference; ok is false when a diagnostic was
// reported. A nil candidate with ok means "cannot be checked here".
//
// Problems are reported at site, the reference in the formula: an alias
// may be declared in another string of the annotation, whose positions
// this formula cannot map. via names the alias followed, if any.
func (c *checker) method(ref *spl.MethodRef, site spl.Span, via string, depth int) (*candidate, bool) {
	c.via = via
	if depth > maxAliasDepth {
		c.add(site, Error, CodeUnknownAlias, "alias chain through %q is too long or circular", ref.Name)
		return nil, false
	}
	if !c.versioning(site, ref.Project, ref.Revision) {
		return nil, false
	}
	if AtRevision(ref.Revision) {
		// The method as it is in another commit: its tree is not here; a
		// check materialises it and says what is missing there.
		return nil, true
	}
	switch {
	case ref.Self:
		if c.f.Method == nil {
			c.add(site, Error, CodeSelfOutside, "%s only has a meaning in an @SPL annotation on a method; in a .spl file name the method, e.g. pkg.Class#method", ref.Name)
			return nil, false
		}
		m := c.f.Method
		if c.selfDone && !c.selfOK {
			return nil, false
		}
		c.selfDone = true
		if m.Abstract {
			c.add(site, Error, CodeSelfAbstract,
				"%s is the abstract method %s.%s, which has no body to measure: put the formula on an implementation, or name one instead, e.g. pkg.Impl#%s",
				ref.Name, m.Type.QualifiedName, m.Signature(), m.Name)
			return nil, false
		}
		c.selfOK = true
		return workspaceCandidate(m), true
	case ref.Class == "" && ref.Name != "":
		if a := findAlias(c.f.Aliases, ref.Name); a != nil && a.Method != nil {
			return c.method(a.Method, site, a.Name, depth+1)
		}
		if c.f.Method == nil || c.f.Method.Type == nil {
			c.add(site, Error, CodeUnknownAlias, "unknown alias %q: declare it with `%s := pkg.Class#method`", ref.Name, ref.Name)
			return nil, false
		}
		for cur := c.f.Method.Type; cur != nil; cur = cur.Outer {
			if ms, _ := c.members(cur.BinaryName, ref.Name); len(ms) > 0 {
				return c.pick(site, cur.QualifiedName, ref.Name, ms, ref.Params, true, "method")
			}
		}
		c.add(site, Error, CodeUnknownAlias,
			"unknown alias or method %q: no alias has this name and %s has no method %q; declare it with `%s := pkg.Class#method` or write pkg.Class#%s",
			ref.Name, c.f.Method.Type.QualifiedName, ref.Name, ref.Name, ref.Name)
		return nil, false
	}
	if ref.CtorArg != nil {
		c.add(site, Warning, CodeUnsupported, "receivers built from a constructor string (%s) are not supported yet; use a static method or pass the receiver as the generator's first argument", ref)
		return nil, false
	}
	return c.classMember(site, ref.Class, ref.Method, ref.Params, "method")
}

func workspaceCandidate(m *javasrc.Method) *candidate {
	params := make([]string, len(m.Params))
	for i, p := range m.Params {
		params[i] = p.Erased
	}
	owner := ""
	if m.Type != nil {
		owner = m.Type.QualifiedName
	}
	return &candidate{owner: owner, name: m.Name, params: params, static: m.Static, abstract: m.Abstract, decl: m}
}

// classMember resolves class#name written in the formula.
func (c *checker) classMember(sp spl.Span, class, name string, params []string, what string) (*candidate, bool) {
	cls := c.className(class)
	r := c.lookup(cls, name)
	if r.err != nil {
		c.add(sp, Information, CodeUnsupported, "cannot check %s: %v", class, r.err)
		return nil, true
	}
	if !r.known {
		c.unknownClass(sp, class, name, cls)
		return nil, false
	}
	if len(r.ms) == 0 {
		if !r.complete {
			c.unchecked(class, name, r.missing) // maybe inherited from a class we cannot see
			return nil, true
		}
		c.add(sp, Error, CodeUnknownMethod, "%s has no %s %q%s", displayName(cls), what, name, c.suggest(cls, name))
		return nil, false
	}
	m, ok := c.pick(sp, displayName(cls), name, r.ms, params, r.complete, what)
	if m == nil && ok {
		c.unchecked(class, name, r.missing) // no overload fits, but one may be inherited
	}
	return m, ok
}

// unchecked tells opt.Unchecked of a reference lint could not check.
func (c *checker) unchecked(class, name string, missing []string) {
	if c.opt.Unchecked != nil {
		c.opt.Unchecked(Unchecked{Path: c.f.Path, Ref: class + "#" + name, Missing: missing})
	}
}

// className resolves a class as written in the formula, through the
// workspace and then opt.External (wildcard imports of a jar's package).
func (c *checker) className(written string) string {
	var scope *javasrc.Type
	if c.f.Method != nil {
		scope = c.f.Method.Type
	}
	if c.opt.External == nil {
		return c.ix.resolveClassIn(c.f.File, scope, written)
	}
	return c.ix.ClassName(c.f.File, scope, written, c.opt.External)
}

func displayName(binary string) string { return strings.ReplaceAll(binary, "$", ".") }

// unknownClass reports a class that resolves nowhere, when that is
// certain; otherwise the reference to member of it is unchecked.
func (c *checker) unknownClass(sp spl.Span, written, member, resolved string) {
	ext := c.opt.External
	switch {
	case ext != nil && ext.Covers(resolved):
		c.add(sp, Error, CodeUnknownClass, "unknown class %s: %s", written, missingClass(ext, resolved))
	case c.opt.Partial:
	case !strings.Contains(resolved, "."):
		c.add(sp, Error, CodeUnknownClass,
			"unknown class %s: it is not in this package nor imported; write its qualified name, e.g. pkg.%s#method, or import it", written, written)
	case c.ix.hasPackage(packageOf(resolved)):
		c.add(sp, Error, CodeUnknownClass, "unknown class %s: package %s of the workspace has no such class", written, packageOf(resolved))
	default:
		c.unchecked(written, member, []string{resolved})
	}
}

func packageOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

// lookup collects the methods named name of class cls (a binary name or a
// name as written) and its supertypes. known is false when cls is found
// nowhere; complete is false when a supertype could not be seen, and
// missing names it.
func (c *checker) lookup(cls, name string) *lookupResult {
	k := lookupKey{cls, name}
	if r := c.lookups[k]; r != nil {
		return r
	}
	r := &lookupResult{}
	r.ms, r.complete, r.known, r.missing, r.err = c.lookupUncached(cls, name)
	if c.lookups != nil {
		c.lookups[k] = r
	}
	return r
}

func (c *checker) lookupUncached(cls, name string) (ms []candidate, complete, known bool, missing []string, err error) {
	complete = true
	seen := map[string]bool{}
	// files of the supertypes left unqualified (no lookup knows them), for
	// what their names may stand for
	bare := map[string]*javasrc.File{}
	queue := []string{cls}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if t := c.ix.Type(cur); t != nil {
			known = true
			for _, m := range c.ix.Methods(t, name) {
				ms = append(ms, *workspaceCandidate(m))
			}
			file := c.ix.fileOf(t)
			for _, s := range t.Supers {
				r := ""
				if c.opt.External != nil {
					r = c.ix.ClassName(file, t, s, c.opt.External) // a jar's class through a wildcard import
				} else {
					r = c.ix.resolveClassIn(file, t, s)
				}
				if !strings.Contains(r, ".") && bare[r] == nil {
					bare[r] = file
				}
				queue = append(queue, r)
			}
			if len(t.Supers) == 0 && t.Kind == javasrc.KindClass {
				queue = append(queue, "java.lang.Object")
			}
			continue
		}
		ext := c.opt.External
		if cur == "java.lang.Object" && (ext == nil || !ext.Covers(cur)) {
			known = known || cur == cls
			for _, m := range objectMethods {
				if m.Name == name {
					ms = append(ms, candidate{owner: "java.lang.Object", name: m.Name, params: m.Params})
				}
			}
			continue
		}
		if ext == nil || !ext.Covers(cur) {
			if cur != cls {
				complete = false
				missing = append(missing, wildcardCandidates(bare[cur], cur)...)
			}
			continue
		}
		ec, e := ext.Class(cur)
		if e != nil {
			return nil, false, known, nil, e
		}
		if ec == nil {
			if cur != cls {
				complete = false
				missing = append(missing, cur)
			}
			continue
		}
		known = true
		for _, m := range ec.Methods {
			if m.Name == name {
				ms = append(ms, candidate{owner: displayName(ec.Name), name: m.Name, params: m.Params, static: m.Static, abstract: m.Abstract})
			}
		}
		complete = complete && ec.Complete
		queue = append(queue, ec.Supers...)
	}
	return ms, complete, known, missing, nil
}

// wildcardCandidates are the classes an unqualified name left unresolved
// in file may be: one per wildcard import ("java.util.AbstractList" for
// AbstractList under import java.util.*), and java.lang's, which every
// file imports.
func wildcardCandidates(file *javasrc.File, name string) []string {
	if file == nil || strings.Contains(name, ".") {
		return []string{name}
	}
	var out []string
	for _, imp := range file.Imports {
		if imp.Wildcard && !imp.Static {
			out = append(out, imp.Path+"."+name)
		}
	}
	return append(out, "java.lang."+name)
}

// objectMethods are java.lang.Object's, which every class inherits, for
// when no External knows them.
var objectMethods = []ExternalMethod{
	{Name: "equals", Params: []string{"Object"}}, {Name: "hashCode", Params: []string{}},
	{Name: "toString", Params: []string{}}, {Name: "getClass", Params: []string{}},
	{Name: "clone", Params: []string{}}, {Name: "finalize", Params: []string{}},
	{Name: "notify", Params: []string{}}, {Name: "notifyAll", Params: []string{}},
	{Name: "wait", Params: []string{}}, {Name: "wait", Params: []string{"long"}},
	{Name: "wait", Params: []string{"long", "int"}},
}

// members returns the workspace methods of one type named name.
func (c *checker) members(binary, name string) ([]candidate, bool) {
	t := c.ix.Type(binary)
	if t == nil {
		return nil, false
	}
	var out []candidate
	for _, m := range c.ix.Methods(t, name) {
		out = append(out, *workspaceCandidate(m))
	}
	return out, true
}

// pick chooses the overload params (nil: not written) denotes.
func (c *checker) pick(sp spl.Span, owner, name string, ms []candidate, params []string, complete bool, what string) (*candidate, bool) {
	// An override and the method it overrides are one choice.
	var uniq []candidate
	sigs := map[string]bool{}
	for _, m := range ms {
		if !sigs[m.signature()] {
			sigs[m.signature()] = true
			uniq = append(uniq, m)
		}
	}
	if params != nil {
		for i := range uniq {
			if sameParamList(uniq[i].params, params) {
				return &uniq[i], true
			}
		}
		if !complete {
			return nil, true
		}
		c.add(sp, Error, CodeNoOverload, "%s has no overload %s(%s); candidates: %s", owner, name, strings.Join(params, ", "), candidateList(uniq))
		return nil, false
	}
	if len(uniq) == 1 {
		return &uniq[0], true
	}
	c.add(sp, Error, CodeAmbiguousOverload, "%s %s.%s is overloaded; name the parameter types, e.g. %s#%s; candidates: %s",
		what, owner, name, owner, uniq[0].signature(), candidateList(uniq))
	return nil, false
}

func candidateList(ms []candidate) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.signature()
	}
	sort.Strings(s)
	return strings.Join(s, "; ")
}

func sameParamList(have, want []string) bool {
	if len(have) != len(want) {
		return false
	}
	for i := range have {
		if simpleType(have[i]) != simpleType(want[i]) {
			return false
		}
	}
	return true
}

// suggest offers the closest method names of cls, for typos.
func (c *checker) suggest(cls, name string) string {
	names := c.ix.SimilarMethods(cls, name, c.opt.External)
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (c *checker) versioning(sp spl.Span, project, revision string) bool {
	if err := unsupportedVersioning(project, revision); err != nil {
		c.add(sp, Warning, CodeUnsupported, "%v", err)
		return false
	}
	return true
}

// generator resolves a generator reference (following aliases); nargs
// picks among overloads. sp is the use site.
func (c *checker) generator(ref *spl.GeneratorRef, sp spl.Span, nargs, depth int) (*candidate, bool) {
	if depth == 0 {
		c.via = ""
	}
	if depth > maxAliasDepth {
		c.add(sp, Error, CodeUnknownAlias, "alias chain through %q is too long or circular", ref.Name)
		return nil, false
	}
	if !c.versioning(sp, ref.Project, ref.Revision) {
		return nil, false
	}
	if AtRevision(ref.Revision) {
		return nil, true // checked against its commit's tree by a check
	}
	if ref.Class == "" {
		if a := findAlias(c.f.GeneratorAliases, ref.Name); a != nil {
			c.via = a.Name
			switch {
			case a.Generator != nil:
				return c.generator(a.Generator, sp, nargs, depth+1)
			case a.Method != nil && !a.Method.Self:
				if a.Method.Class == "" {
					return c.generator(&spl.GeneratorRef{Name: a.Method.Name}, sp, nargs, depth+1)
				}
				return c.generator(&spl.GeneratorRef{Class: a.Method.Class, Method: a.Method.Method, Project: a.Method.Project, Revision: a.Method.Revision}, sp, nargs, depth+1)
			}
		}
		if c.f.Method == nil || c.f.Method.Type == nil {
			c.add(sp, Error, CodeUnknownAlias, "unknown generator alias %q: declare it with `%s := pkg.Class.generator`", ref.Name, ref.Name)
			return nil, false
		}
		for cur := c.f.Method.Type; cur != nil; cur = cur.Outer {
			if ms, _ := c.members(cur.BinaryName, ref.Name); len(ms) > 0 {
				return c.pickGenerator(sp, cur.QualifiedName, ref.Name, ms, nargs)
			}
		}
		c.add(sp, Error, CodeUnknownAlias,
			"unknown generator %q: no alias has this name and %s has no method %q; declare it with `%s := pkg.Class.generator` or write pkg.Class#%s",
			ref.Name, c.f.Method.Type.QualifiedName, ref.Name, ref.Name, ref.Name)
		return nil, false
	}
	if ref.CtorArg != nil || ref.MethodArg != nil || ref.CtorGiven || ref.Method == "" {
		c.add(sp, Warning, CodeUnsupported, "generator objects built from constructor strings are not supported yet; use a static method returning Iterable<Object[]>")
		return nil, false
	}
	if ref.MaybeClass {
		// "a.b.C": method C of class a.b, or (SPL Tools) the class a.b.C.
		if c.ix.Type(c.ix.resolveClass(c.f, ref.Class)) == nil && c.ix.Type(c.ix.resolveClass(c.f, ref.Class+"."+ref.Method)) != nil {
			c.add(sp, Warning, CodeUnsupported, "generator objects (the class %s.%s as an Iterable) are not supported yet; use a static method returning Iterable<Object[]>", ref.Class, ref.Method)
			return nil, false
		}
	}
	cls := c.className(ref.Class)
	r := c.lookup(cls, ref.Method)
	if r.err != nil {
		c.add(sp, Information, CodeUnsupported, "cannot check %s: %v", ref.Class, r.err)
		return nil, true
	}
	if !r.known {
		c.unknownClass(sp, ref.Class, ref.Method, cls)
		return nil, false
	}
	if len(r.ms) == 0 {
		if !r.complete {
			c.unchecked(ref.Class, ref.Method, r.missing)
			return nil, true
		}
		c.add(sp, Error, CodeUnknownMethod, "%s has no generator method %q%s", displayName(cls), ref.Method, c.suggest(cls, ref.Method))
		return nil, false
	}
	return c.pickGenerator(sp, displayName(cls), ref.Method, r.ms, nargs)
}

// pickGenerator chooses among generator overloads by argument count.
func (c *checker) pickGenerator(sp spl.Span, owner, name string, ms []candidate, nargs int) (*candidate, bool) {
	if len(ms) == 1 {
		return &ms[0], true
	}
	var fit []candidate
	for _, m := range ms {
		if len(m.params) == nargs {
			fit = append(fit, m)
		}
	}
	if len(fit) == 1 {
		return &fit[0], true
	}
	c.add(sp, Error, CodeAmbiguousOverload, "generator %s.%s is overloaded and %d argument(s) do not tell which is meant; candidates: %s; give the overloads distinct names",
		owner, name, nargs, candidateList(ms))
	return nil, false
}

// generatorShape checks a workspace generator's declaration.
func (c *checker) generatorShape(site spl.Span, g *candidate) {
	d := g.decl
	switch {
	case !d.Static:
		c.add(site, Error, CodeGeneratorShape, "generator %s.%s is not static: make it `static Iterable<Object[]> %s`", g.owner, g.signature(), g.signature())
	case isPrimitiveOrVoid(d.ReturnType):
		c.add(site, Error, CodeGeneratorShape, "generator %s.%s returns %s: a generator returns Iterable<Object[]>, one Object[] of arguments per call", g.owner, g.signature(), d.ReturnType)
	}
}

func isPrimitiveOrVoid(t string) bool {
	switch t {
	case "void", "int", "long", "short", "byte", "char", "boolean", "double", "float", "String", "java.lang.String":
		return true
	}
	return false
}

// arguments checks the term's arguments against params, the parameters
// of the generator, of the workload loop (after SPLController) or of the
// method called directly.
func (c *checker) arguments(t *spl.Term, k *candidate, params []javasrc.Param, what string) {
	if len(params) > 0 && params[0].Erased != "" && isLoop(k.decl) && what != "workload loop" {
		return // reported as a misused workload loop
	}
	n := len(params)
	varargs := n > 0 && params[n-1].Varargs
	argsSpan := t.Span
	if len(t.Args) > 0 {
		argsSpan = spl.Span{Start: t.Args[0].Span.Start, End: t.Args[len(t.Args)-1].Span.End}
	}
	if len(t.Args) != n && !(varargs && len(t.Args) >= n-1) {
		want := fmt.Sprintf("%d", n)
		if varargs {
			want = fmt.Sprintf("at least %d", n-1)
		}
		c.add(argsSpan, Error, CodeGeneratorArity, "%s %s.%s takes %s argument(s) but %d given", what, k.owner, k.signature(), want, len(t.Args))
		return
	}
	for i, a := range t.Args {
		p := params[min(i, n-1)]
		typ := p.Erased
		if varargs && i >= n-1 {
			typ = strings.TrimSuffix(typ, "[]")
		}
		kind, ok := c.argKind(a)
		if ok && !fits(kind, typ) {
			c.add(a.Span, Error, CodeGeneratorArgType, "argument %s is %s but parameter %q of %s %s.%s is %s", argText(a), kindName(kind), p.Name, what, k.owner, k.signature(), typ)
			continue
		}
		if value, problem := c.argRange(a, typ); problem != nil {
			c.add(a.Span, Error, CodeGeneratorArgType, "argument %s for parameter %q of %s %s.%s: %v", value, p.Name, what, k.owner, k.signature(), problem)
		}
	}
}

// argRange finds the first value a takes (over the formula's bindings)
// that perfls cannot pass as a parameter of type typ — a fraction, a
// number beyond the type — and returns the argument with that value and
// the problem, nil when there is none. Nothing is truncated or wrapped.
func (c *checker) argRange(a spl.Arg, typ string) (value string, problem error) {
	lo, hi, ok := javaRange(typ)
	if !ok {
		return "", nil
	}
	spl.EachArgValue(c.f.Parsed, a, func(v spl.Value, in spl.Instance, err error) bool {
		if err != nil || v.Kind == spl.String {
			return err == nil // arithmetic without a value is spl.Lint's, a string fits'
		}
		n, err := v.Long()
		if err == nil && (n < lo || n > hi) {
			err = fmt.Errorf("%s does not fit in a Java %s (%d to %d)", v, simpleType(typ), lo, hi)
		}
		if err == nil {
			return true
		}
		value, problem = argText(a), err
		if a.Value == nil {
			value += " = " + v.String()
		}
		if l := in.Label(); a.Calc != nil && l != "" {
			value += " (at " + l + ")"
		}
		return false
	})
	return value, problem
}

// javaRange is the range of whole numbers perfls can pass as the parameter
// type typ (see measure's argValue: a double or float takes the integers
// it holds exactly); false for a type that takes no number or that perfls
// builds otherwise.
func javaRange(typ string) (lo, hi int64, ok bool) {
	switch simpleType(typ) {
	case "int", "Integer":
		return math.MinInt32, math.MaxInt32, true
	case "long", "Long", "Number", "Object", "Serializable", "Comparable":
		return math.MinInt64, math.MaxInt64, true
	case "short", "Short":
		return math.MinInt16, math.MaxInt16, true
	case "byte", "Byte":
		return math.MinInt8, math.MaxInt8, true
	case "double", "Double":
		return -(1 << 53), 1 << 53, true
	case "float", "Float":
		return -(1 << 24), 1 << 24, true
	}
	return 0, 0, false
}

func argText(a spl.Arg) string {
	switch {
	case a.Calc != nil:
		return a.Calc.String(nil)
	case a.Value != nil:
		return a.Value.String()
	}
	return a.Var
}

func kindName(k spl.ValueKind) string {
	switch k {
	case spl.Int:
		return "an integer"
	case spl.Float:
		return "a decimal number"
	}
	return "a string"
}

// argKind is the kind of a literal, or of all the values of a variable.
func (c *checker) argKind(a spl.Arg) (spl.ValueKind, bool) {
	if a.Value != nil {
		return a.Value.Kind, true
	}
	for _, q := range c.f.Parsed.Quantifiers {
		for k, v := range q.Vars {
			if v.Name != a.Var {
				continue
			}
			var vals []spl.Value
			if k < len(q.Values) {
				vals = q.Values[k] // for a zipped sequence too: one tuple per variable
			}
			if len(vals) == 0 {
				return 0, false
			}
			kind := vals[0].Kind
			for _, v := range vals[1:] {
				switch {
				case v.Kind == kind:
				case v.Kind != spl.String && kind != spl.String:
					kind = spl.Float
				default:
					return 0, false // mixed; reported by spl.Check
				}
			}
			return kind, true
		}
	}
	return 0, false
}

// fits tells whether a value of kind can be passed to a parameter of the
// erased type typ (the harness converts numbers to the parameter type).
func fits(kind spl.ValueKind, typ string) bool {
	switch simpleType(typ) {
	case "Object", "Serializable", "Comparable":
		return true
	case "int", "long", "short", "byte", "Integer", "Long", "Short", "Byte", "BigInteger":
		return kind == spl.Int
	case "double", "float", "Double", "Float", "Number", "BigDecimal":
		return kind != spl.String
	case "String", "CharSequence":
		return kind == spl.String
	}
	return true // a type the harness may know how to build; not checked
}
