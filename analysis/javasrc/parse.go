package javasrc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/perfls/perfls/analysis/textpos"
)

// Parsers are not safe for concurrent use; each Parse takes one from a
// small free list (a sync.Pool would drop them at every GC, and creating a
// parser costs milliseconds). Parsers used with a cancellable context are
// never reused: the binding's cancellation watcher may set the parser's
// cancel flag after the parse has finished, which would abort that parser's
// next parse.
var freeParsers = make(chan *sitter.Parser, 4)

func newParser() *sitter.Parser {
	p := sitter.NewParser()
	p.SetLanguage(language())
	return p
}

func getParser() *sitter.Parser {
	select {
	case p := <-freeParsers:
		return p
	default:
		return newParser()
	}
}

func putParser(p *sitter.Parser) {
	select {
	case freeParsers <- p:
	default:
		p.Close()
	}
}

// sealedFallbacks counts the extractions done again because the first
// read the tree after releasing it (for tests).
var sealedFallbacks atomic.Int64

// Parse builds the model of one Java file. It is safe to call from many
// goroutines at once, never panics, and tolerates syntax errors: whatever
// tree-sitter recovers is extracted and the ERROR/MISSING nodes are listed in
// File.SyntaxErrors. A non-nil error means the file could not be analysed at
// all; File is then still non-nil with Path, Src and Mapper set.
func Parse(path string, src []byte) (*File, error) {
	return ParseContext(context.Background(), path, src)
}

// ParseContext is Parse with cancellation of the tree-sitter parse.
func ParseContext(ctx context.Context, path string, src []byte) (f *File, err error) {
	text := string(src)
	base := &File{Path: path, Src: text, Mapper: textpos.NewMapper(text)}
	defer func() {
		if r := recover(); r != nil {
			f = base
			err = fmt.Errorf("javasrc: internal error analysing %s: %v\n%s", path, r, debug.Stack())
		}
	}()
	if why := Examine(int64(len(src)), src); why != nil {
		base.Skipped = why
		return base, nil
	}
	if plan, ok := planSplit(src); ok {
		f, _, ok, err := parseSplit(ctx, base, src, plan, false)
		if err != nil {
			return base, err
		}
		if ok {
			return f, nil
		}
	}
	var p *sitter.Parser
	pooled := ctx.Done() == nil
	if pooled {
		p = getParser()
	} else {
		p = newParser()
		defer p.Close()
	}
	release := func() {
		if pooled {
			putParser(p)
			pooled = false
		}
	}
	defer release()
	parse := func(s string) (*sitter.Tree, error) {
		t, err := p.ParseCtx(ctx, nil, []byte(s))
		if err == nil && t == nil {
			err = fmt.Errorf("javasrc: tree-sitter returned no tree")
		}
		if err != nil {
			p.Reset()
			return nil, err
		}
		return t, nil
	}

	tree, err := parse(text)
	if err != nil {
		return base, err
	}
	f, _, err = extract(base, tree, parse, false, true)
	if errors.Is(err, errSealed) {
		// Something needed the tree after it was released: extract again
		// from a tree kept to the end (not expected to happen).
		sealedFallbacks.Add(1)
		if tree, err = parse(text); err != nil {
			return base, err
		}
		defer tree.Close()
		f, _, err = extract(base, tree, parse, false, false)
	}
	release()
	return f, err
}

// extract builds the model of base.Src from its tree. When the tree has
// errors that a repaired copy of the text parses with fewer, the copy's
// tree (from parse) is used instead; tree stays the caller's to close.
// With save, it also returns what a Doc needs to re-extract one method
// after a later edit. With own, extract takes tree over: it closes it as
// soon as the declarations are collected, on another goroutine, while the
// rest of the model is built from the copied nodes (freeing a large tree
// takes milliseconds).
func extract(base *File, tree *sitter.Tree, parse func(string) (*sitter.Tree, error), save, own bool) (*File, *docState, error) {
	text := base.Src
	b := newBuilder(text, save)
	use := tree
	var closeLater []*sitter.Tree // trees extract must close
	if own {
		closeLater = append(closeLater, tree)
	}
	if root := tree.RootNode(); root.HasError() {
		if plan := planRepair(text); len(plan) > 0 {
			fixed := applyInsertions(text, plan)
			if t2, err := parse(fixed); err == nil {
				if errorCost(t2.RootNode()) < errorCost(root) {
					use = t2
					b.src, b.om, b.repairs = fixed, newOffsetMap(plan), plan
				}
				if use != t2 {
					t2.Close()
				} else {
					closeLater = append(closeLater, t2)
				}
			}
		}
	}
	root, err := flatten(use.RootNode(), true)
	if err != nil {
		for _, t := range closeLater {
			t.Close()
		}
		return base, nil, err
	}
	return b.buildModel(base, root, []*ftree{root.t}, closeLater, own)
}

// buildModel builds the model of base.Src from root, whose nodes come from
// the flattened trees fts, and closes the tree-sitter trees closeLater.
// With early, they are closed as soon as the declarations are collected,
// on another goroutine, while the rest of the model is built from the
// copied nodes (freeing a large tree takes milliseconds); otherwise when
// the model is done.
func (b *builder) buildModel(base *File, root *fnode, fts []*ftree, closeLater []*sitter.Tree, early bool) (*File, *docState, error) {
	var closed chan struct{}
	defer func() {
		if closed != nil {
			<-closed // the goroutine below is done with the trees
		}
		for _, t := range closeLater {
			t.Close()
		}
	}()
	out := *base
	b.f = &out
	if early {
		b.collected = func() {
			for _, ft := range fts {
				ft.sealed = true
			}
			closed = make(chan struct{})
			trees := closeLater
			closeLater = nil
			go func() {
				defer close(closed)
				for _, t := range trees {
					t.Close()
				}
			}()
		}
	}
	b.build(root)
	for _, ft := range fts {
		if ft.err != nil {
			return base, nil, ft.err
		}
	}
	return b.f, b.state, nil
}

// builder turns one tree into a File. It lives for one Parse call.
type builder struct {
	src     string // the parsed text: the document, or its repaired copy
	om      *offsetMap
	repairs []insertion
	f       *File

	localIdx map[string]int // javac's per (enclosing class, name) counter
	pend     map[*Type]map[string]*pconst
	pendList []*pconst

	// numRef is set when an expression referred to a constant that is not
	// a String (evaluated on first use, so its problems depend on which
	// method used it first).
	numRef bool
	// fast marks the re-extraction of one method (member.go): pend holds
	// the constants saved by the last full extraction, and a reference to
	// a non-String constant sets abort.
	fast, abort bool
	// shared marks a builder that runs beside another (methods): it must
	// not evaluate a constant, which would change state both read, and
	// sets abort instead.
	shared bool
	save   bool      // keep state for a Doc
	state  *docState // set by build when save is set
	// collected, when set, is called once the declarations are collected:
	// nothing reads the tree-sitter tree after that.
	collected func()
}

func newBuilder(src string, save bool) *builder {
	return &builder{src: src, localIdx: map[string]int{}, pend: map[*Type]map[string]*pconst{}, save: save}
}

// pconst is a constant field (static final String or primitive) whose
// initializer is evaluated on demand.
type pconst struct {
	name     string
	declType string // "String", "int", "long", "double", ...
	owner    *Type
	value    *fnode
	state    int // 0 new, 1 evaluating, 2 done, 3 not constant
	val      cval
}

type itemKind int

const (
	itemType itemKind = iota // sorts first at equal start
	itemAnon
	itemMethod
	itemField
)

type item struct {
	kind   itemKind
	n      *fnode
	parent *fnode // anonymous class: the 'new' expression or enum constant
	start  int    // document offset
}

type methodItem struct {
	n     *fnode
	owner *Type
}

func (b *builder) build(root *fnode) {
	b.header(root)

	// 1. Collect declarations.
	c := &collector{b: b}
	c.walk(root)
	if b.collected != nil {
		b.collected()
	}
	items := c.items
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].start != items[j].start {
			return items[i].start < items[j].start
		}
		return items[i].kind < items[j].kind
	})

	// 2. Sweep in source order keeping the chain of enclosing types.
	methods := b.sweep(items)

	// 3. Constants, now that every type is known.
	b.stringConstants()

	// 4. Methods and their annotations.
	numRefs := b.methods(methods)

	// 5. Syntax errors.
	b.syntaxErrors(root)
	for _, in := range b.repairs {
		b.f.SyntaxErrors = append(b.f.SyntaxErrors, textpos.Span{Start: in.at, End: in.at})
		b.f.SyntaxMessages = append(b.f.SyntaxMessages, in.msg)
	}
	b.sortSyntaxErrors()
	sort.SliceStable(b.f.Problems, func(i, j int) bool { return b.f.Problems[i].Span.Start < b.f.Problems[j].Span.Start })

	if b.save && len(b.repairs) == 0 {
		b.state = &docState{numRef: numRefs}
		for _, pc := range b.pendList {
			b.state.consts = append(b.state.consts, savedConst{owner: pc.owner, name: pc.name, declType: pc.declType, state: pc.state, val: pc.val})
		}
	}

	// Drop every reference to tree nodes.
	for _, pc := range b.pendList {
		pc.value = nil
	}
	b.pend, b.pendList = nil, nil
}

// sweep builds the types and fields of items, in source order, keeping the
// chain of enclosing types; it returns the methods with their owners, to be
// built once every type is known.
func (b *builder) sweep(items []item) []methodItem {
	var stack []*Type
	var methods []methodItem
	for _, it := range items {
		for len(stack) > 0 && stack[len(stack)-1].Span.End <= it.start {
			stack = stack[:len(stack)-1]
		}
		var owner *Type
		if len(stack) > 0 {
			owner = stack[len(stack)-1]
		}
		switch it.kind {
		case itemType, itemAnon:
			t := b.newType(it, owner)
			if t == nil {
				continue
			}
			b.f.Types = append(b.f.Types, t)
			stack = append(stack, t)
		case itemMethod:
			methods = append(methods, methodItem{it.n, owner})
		case itemField:
			b.field(it.n, owner)
		}
	}
	return methods
}

// stringConstants evaluates the pending String constants into their
// owners' Constants.
func (b *builder) stringConstants() {
	for _, pc := range b.pendList {
		if pc.declType != "String" {
			continue
		}
		v, err := b.constValue(pc)
		if err != nil || v.k != vStr {
			continue
		}
		if pc.owner.Constants == nil {
			pc.owner.Constants = map[string]*StringValue{}
		}
		pc.owner.Constants[pc.name] = newStringValue(v.s, b.span(pc.value))
	}
}

// parallelMethods is the number of methods from which step 4 of build
// runs on two goroutines.
var parallelMethods = 200

// methodRedos counts the parallel builds of methods done again (for tests).
var methodRedos atomic.Int64

// methods builds the methods of mis, in order, into b.f.Methods and
// returns for each whether it referred to a non-String constant. Many
// methods are built on two goroutines, each half with its own problems;
// should either need a constant not yet evaluated, the work is done again
// on one.
func (b *builder) methods(mis []methodItem) []bool {
	if len(mis) >= parallelMethods && runtime.GOMAXPROCS(0) >= 2 && !b.fast {
		half := len(mis) / 2
		other := *b
		f := *b.f
		f.Methods, f.Problems = nil, nil
		other.f, other.shared = &f, true
		b.shared = true
		done := make(chan struct{})
		var refs2 []bool
		go func() {
			defer close(done)
			refs2 = other.methodsInOrder(mis[half:])
		}()
		problems := len(b.f.Problems)
		refs := b.methodsInOrder(mis[:half])
		<-done
		b.shared = false
		if !b.abort && !other.abort {
			b.f.Methods = append(b.f.Methods, other.f.Methods...)
			b.f.Problems = append(b.f.Problems, other.f.Problems...)
			return append(refs, refs2...)
		}
		b.abort = false
		b.f.Methods, b.f.Problems = nil, b.f.Problems[:problems]
		methodRedos.Add(1)
	}
	return b.methodsInOrder(mis)
}

func (b *builder) methodsInOrder(mis []methodItem) []bool {
	var numRefs []bool
	for _, mi := range mis {
		b.numRef = false
		if m := b.method(mi.n, mi.owner); m != nil {
			b.f.Methods = append(b.f.Methods, m)
			numRefs = append(numRefs, b.numRef)
		}
		if b.abort && b.shared {
			break
		}
	}
	return numRefs
}

func (b *builder) problem(sp textpos.Span, format string, args ...any) {
	b.f.Problems = append(b.f.Problems, Problem{Span: sp, Message: fmt.Sprintf(format, args...)})
}

// header reads the package and import declarations.
func (b *builder) header(root *fnode) {
	for _, c := range namedChildren(root) {
		switch kindOf(c) {
		case "package_declaration":
			for _, cc := range namedChildren(c) {
				if k := kindOf(cc); k == "scoped_identifier" || k == "identifier" {
					b.f.Package = b.dottedName(cc)
				}
			}
		case "import_declaration":
			imp := Import{Span: b.span(c)}
			for _, cc := range children(c) {
				switch cc.kind {
				case "static":
					imp.Static = true
				case "scoped_identifier", "identifier":
					imp.Path = b.dottedName(cc.n)
				case "asterisk":
					imp.Wildcard = true
				}
			}
			if imp.Path != "" {
				b.f.Imports = append(b.f.Imports, imp)
			}
		}
	}
}

var declKinds = map[string]string{
	"class_declaration":           KindClass,
	"interface_declaration":       KindInterface,
	"enum_declaration":            KindEnum,
	"record_declaration":          KindRecord,
	"annotation_type_declaration": KindAnnotation,
}

// newType creates the Type for a declaration or an anonymous class body.
func (b *builder) newType(it item, outer *Type) *Type {
	t := &Type{Outer: outer}
	local := false
	if it.kind == itemAnon {
		t.Kind = KindClass
		t.Anonymous = true
		t.Span = b.span(it.n)
		if it.parent != nil {
			if kindOf(it.parent) == "enum_constant" {
				if nn := it.parent.ChildByFieldName("name"); nn != nil {
					t.NameSpan = b.span(nn)
				}
				if outer != nil {
					t.Super = outer.Name
				}
			} else if tn := it.parent.ChildByFieldName("type"); tn != nil {
				t.NameSpan = b.span(tn)
				t.Super = b.typeText(tn)
			}
		}
	} else {
		nameNode := it.n.ChildByFieldName("name")
		if nameNode == nil || nameNode.IsMissing() {
			return nil
		}
		t.Name = b.text(nameNode)
		t.NameSpan = b.span(nameNode)
		t.Kind = declKinds[kindOf(it.n)]
		t.Span = b.span(it.n)
		if p := it.n.Parent(); p != nil {
			switch kindOf(p) {
			case "class_body", "interface_body", "enum_body_declarations", "annotation_type_body", "program", "ERROR":
			default:
				local = true
			}
		}
		t.Local = local
		var env func(string) (string, bool)
		if outer != nil {
			env = outer.typeVar
		}
		if tp := it.n.ChildByFieldName("type_parameters"); tp != nil {
			t.typeParams = b.typeParams(tp, env)
		}
		if t.Kind == KindRecord {
			if ps := it.n.ChildByFieldName("parameters"); ps != nil {
				t.RecordComponents = b.params(ps, t.typeVar, nil)
			}
		}
		t.Supers = b.supers(it.n)
	}
	if t.Anonymous && t.Super != "" {
		t.Supers = []string{eraseType(t.Super, nil)}
	}

	switch {
	case (t.Anonymous || local) && outer != nil:
		key := outer.BinaryName + "\x00" + t.Name
		b.localIdx[key]++
		suffix := strconv.Itoa(b.localIdx[key]) + t.Name
		t.BinaryName = outer.BinaryName + "$" + suffix
		t.QualifiedName = outer.QualifiedName + "." + suffix
	case outer != nil:
		t.BinaryName = outer.BinaryName + "$" + t.Name
		t.QualifiedName = outer.QualifiedName + "." + t.Name
	default: // top level (or, in a broken file, a local class outside any type)
		name := t.Name
		if t.Anonymous {
			b.localIdx["\x00"]++
			name = strconv.Itoa(b.localIdx["\x00"])
		}
		if b.f.Package != "" {
			name = b.f.Package + "." + name
		}
		t.BinaryName, t.QualifiedName = name, name
	}
	return t
}

// typeVar resolves a type variable in scope of t (its own and its enclosing
// types' type parameters) to its erasure.
func (t *Type) typeVar(name string) (string, bool) {
	for ; t != nil; t = t.Outer {
		for _, p := range t.typeParams {
			if p.name == name {
				return p.erasure, true
			}
		}
	}
	return "", false
}

// typeParams reads <T extends A & B, U> and erases each variable to the
// erasure of its first bound.
func (b *builder) typeParams(n *fnode, outer func(string) (string, bool)) []typeParam {
	type rawParam struct {
		name  string
		bound *fnode
	}
	var raws []rawParam
	for _, c := range namedChildren(n) {
		if kindOf(c) != "type_parameter" {
			continue
		}
		var r rawParam
		for _, cc := range namedChildren(c) {
			switch kindOf(cc) {
			case "type_identifier", "identifier":
				if r.name == "" {
					r.name = b.text(cc)
				}
			case "type_bound":
				for _, bt := range namedChildren(cc) {
					if k := kindOf(bt); k != "annotation" && k != "marker_annotation" {
						r.bound = bt
						break
					}
				}
			}
		}
		if r.name != "" {
			raws = append(raws, r)
		}
	}
	out := make([]typeParam, len(raws))
	busy := make([]bool, len(raws))
	var tv func(string) (string, bool)
	tv = func(name string) (string, bool) {
		for i, r := range raws {
			if r.name != name {
				continue
			}
			if out[i].erasure != "" {
				return out[i].erasure, true
			}
			if r.bound == nil || busy[i] {
				return "Object", true
			}
			busy[i] = true
			e := b.erasure(r.bound, tv)
			busy[i] = false
			out[i] = typeParam{name: name, erasure: e}
			return e, true
		}
		if outer != nil {
			return outer(name)
		}
		return "", false
	}
	for i, r := range raws {
		e, _ := tv(r.name)
		out[i] = typeParam{name: r.name, erasure: e}
	}
	return out
}

// field records the constant candidates of a field declaration.
func (b *builder) field(n *fnode, owner *Type) {
	if owner == nil {
		return
	}
	static, final := false, false
	var typ *fnode
	var decls []*fnode
	for _, c := range children(n) {
		switch {
		case c.kind == "modifiers":
			for _, m := range children(c.n) {
				switch m.kind {
				case "static":
					static = true
				case "final":
					final = true
				}
			}
		case c.field == "type":
			typ = c.n
		case c.field == "declarator":
			decls = append(decls, c.n)
		}
	}
	implicit := kindOf(n) == "constant_declaration" || owner.Kind == KindInterface || owner.Kind == KindAnnotation
	if typ == nil || !(implicit || static && final) {
		return
	}
	declType := b.typeText(typ)
	switch declType {
	case "java.lang.String":
		declType = "String"
	case "String", "int", "long", "short", "byte", "char", "double", "float", "boolean":
	default:
		return
	}
	for _, d := range decls {
		var name, value *fnode
		dims := false
		for _, c := range children(d) {
			switch c.field {
			case "name":
				name = c.n
			case "value":
				value = c.n
			case "dimensions":
				dims = true
			}
		}
		if name == nil || value == nil || dims {
			continue
		}
		pc := &pconst{name: b.text(name), declType: declType, owner: owner, value: value}
		if b.pend[owner] == nil {
			b.pend[owner] = map[string]*pconst{}
		}
		if _, dup := b.pend[owner][pc.name]; !dup {
			b.pend[owner][pc.name] = pc
			b.pendList = append(b.pendList, pc)
		}
	}
}

// syntaxErrors lists ERROR and MISSING nodes, descending only into subtrees
// that contain errors.
func (b *builder) syntaxErrors(n *fnode) {
	if n == nil || !n.HasError() {
		return
	}
	if n.IsMissing() {
		k := kindOf(n)
		s := b.om.orig(int(n.StartByte()))
		msg := "missing " + k
		if !n.IsNamed() {
			msg = "missing " + strconv.Quote(k)
		}
		b.f.SyntaxErrors = append(b.f.SyntaxErrors, textpos.Span{Start: s, End: s})
		b.f.SyntaxMessages = append(b.f.SyntaxMessages, msg)
		return
	}
	if n.IsError() {
		if isMultiUEscape(b.text(n)) {
			// Valid Java (\uuu0041) that the grammar does not accept.
			return
		}
		sp := b.span(n)
		msg := "syntax error"
		if t := b.text(n); len(t) <= 40 && !containsNewline(t) && t != "" {
			msg = "syntax error: unexpected " + strconv.Quote(t)
		}
		b.f.SyntaxErrors = append(b.f.SyntaxErrors, sp)
		b.f.SyntaxMessages = append(b.f.SyntaxMessages, msg)
		return
	}
	for _, ch := range n.allKids() {
		b.syntaxErrors(ch)
	}
}

func (b *builder) sortSyntaxErrors() {
	idx := make([]int, len(b.f.SyntaxErrors))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return b.f.SyntaxErrors[idx[i]].Start < b.f.SyntaxErrors[idx[j]].Start })
	spans := make([]textpos.Span, len(idx))
	msgs := make([]string, len(idx))
	for i, k := range idx {
		spans[i], msgs[i] = b.f.SyntaxErrors[k], b.f.SyntaxMessages[k]
	}
	b.f.SyntaxErrors, b.f.SyntaxMessages = spans, msgs
}

// isMultiUEscape reports whether t starts with a Unicode escape written
// with several u's.
func isMultiUEscape(t string) bool {
	if len(t) < 7 || t[0] != '\\' || t[1] != 'u' || t[2] != 'u' {
		return false
	}
	i := 2
	for i < len(t) && t[i] == 'u' {
		i++
	}
	return i+4 <= len(t) && isHex(t[i]) && isHex(t[i+1]) && isHex(t[i+2]) && isHex(t[i+3])
}

func containsNewline(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			return true
		}
	}
	return false
}

// supers returns the erased supertypes named in a declaration's extends
// and implements clauses.
func (b *builder) supers(n *fnode) []string {
	var out []string
	for _, c := range children(n) {
		switch c.kind {
		case "superclass", "super_interfaces", "extends_interfaces":
			var walk func(*fnode)
			walk = func(x *fnode) {
				for _, cc := range namedChildren(x) {
					switch kindOf(cc) {
					case "type_list":
						walk(cc)
					case "type_identifier", "scoped_type_identifier", "generic_type":
						out = append(out, eraseType(b.typeText(cc), nil))
					}
				}
			}
			walk(c.n)
		}
	}
	return out
}
