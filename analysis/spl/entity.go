package spl

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entities (methods and generators) of both dialects, and alias
// declarations.

type entCtx int

const (
	// ctxTerm: a formula term; "(…)" after the name may be arguments.
	ctxTerm entCtx = iota
	// ctxDecl: a declaration; "(…)" after the name is the parameter types.
	ctxDecl
)

// prefix parses the location prefixes shared by method and generator
// entities: "@rev:", "project@rev:", "project:". It returns false (having
// consumed nothing) when the current token cannot start an entity.
func (p *parser) prefix() (project, revision string, given, ok bool) {
	t := p.cur()
	switch {
	case t.kind == tAt:
		p.next()
		revision = p.revisionOf(t)
		if p.cur().kind == tColon {
			p.next()
		} else {
			p.expected("\":\" and a class name after " + quote(t.text))
		}
		return "", revision, true, true
	case t.kind == tIdent && !isReservedHead(t):
		if n := p.peek(1); n.kind == tAt && !n.nl && p.peek(2).kind == tColon {
			p.next()
			p.next()
			p.next()
			return t.text, p.revisionOf(n), true, true
		}
		if p.peek(1).kind == tColon {
			p.next()
			p.next()
			return t.text, "", true, true
		}
		return "", "", false, true
	}
	return "", "", false, false
}

func (p *parser) revisionOf(at token) string {
	p.revSpan = at.span()
	if at.val == "" {
		p.errAt(at.span(), CodeInvalidRevision, "expected a revision (HEAD, a commit hash or a tag) after \"@\"")
	}
	return at.val
}

// path parses IDENT ("." IDENT)*.
func (p *parser) path() ([]string, bool) {
	t := p.cur()
	if t.kind != tIdent {
		p.expected("a class name")
		return nil, false
	}
	p.next()
	names := []string{t.text}
	for p.cur().kind == tDot {
		p.next()
		if p.cur().kind != tIdent {
			p.expected("a name after \".\"")
			return names, false
		}
		names = append(names, p.next().text)
	}
	return names, true
}

// suffixRevision reads a thesis "@rev" suffix ("pkg.Class.m@HEAD").
func (p *parser) suffixRevision(rev *string) {
	t := p.cur()
	if t.kind != tAt || t.nl || p.peek(1).kind == tColon {
		return
	}
	p.next()
	r := p.revisionOf(t)
	if *rev != "" && r != "" {
		p.errAt(t.span(), CodeInvalidRevision, "revision given twice: "+quote(*rev)+" and "+quote(r))
		return
	}
	*rev = r
}

// methodEntity parses a method entity of either dialect. It returns nil
// without reporting when the current token cannot start one, and nil after
// reporting when the entity is broken beyond use.
func (p *parser) methodEntity(ctx entCtx) *MethodRef {
	start := p.cur()
	m := &MethodRef{}
	p.revSpan = Span{}
	project, revision, prefixed, ok := p.prefix()
	if !ok {
		return nil
	}
	m.Project, m.Revision = project, revision
	path, ok := p.path()
	if !ok {
		return nil
	}
	// Constructor argument of the receiver: "pkg.Class('s')#m" or
	// "pkg.Class()#m"; without the "#" the parentheses belong to the method.
	if t := p.cur(); t.kind == tLParen && !t.nl {
		a, b := p.peek(1), p.peek(2)
		if (a.kind == tString || a.kind == tDString) && b.kind == tRParen && p.peek(3).kind == tHash {
			p.next()
			p.next()
			p.next()
			s := a.val
			m.CtorArg = &s
		} else if a.kind == tRParen && b.kind == tHash {
			p.next()
			p.next()
		}
	}
	switch {
	case p.cur().kind == tHash:
		p.next()
		if p.cur().kind != tIdent {
			p.expected("a method name after \"#\"")
			return nil
		}
		m.Class, m.Method = strings.Join(path, "."), p.next().text
	case m.CtorArg != nil || (prefixed && len(path) == 1):
		p.expected("\"#\" and a method name after " + quote(p.text(Span{start.start, p.prevEnd()})))
		return nil
	case len(path) == 1:
		m.Name = path[0]
		m.Self = path[0] == "SELF" || path[0] == "THIS"
	default:
		m.Class, m.Method, m.Dotted = strings.Join(path[:len(path)-1], "."), path[len(path)-1], true
	}
	p.suffixRevision(&m.Revision)
	if t := p.cur(); t.kind == tLParen && !t.nl && (ctx == ctxDecl || p.looksLikeParams()) {
		p.params(m, start.start)
		p.suffixRevision(&m.Revision)
	}
	m.Span = Span{start.start, p.prevEnd()}
	if m.Revision != "" {
		m.RevisionSpan = p.revSpan
	}
	return m
}

var javaPrimitives = map[string]bool{
	"int": true, "long": true, "short": true, "byte": true, "char": true,
	"boolean": true, "float": true, "double": true,
}

// looksLikeParams decides, for a term, whether the "(…)" at the current
// token is the method's parameter type list (SPL Tools "#m(int)[gen]") or
// the generator arguments (thesis "linkedList(i)", "HashMap.get()"):
//   - followed by "[" or "@rev": parameter types;
//   - any literal or declared variable inside: arguments;
//   - any element shaped like a type (dotted, "[]", a parameter name, a
//     capitalised name or a Java primitive): parameter types;
//   - otherwise (empty, or lower-case names): arguments.
func (p *parser) looksLikeParams() bool {
	var elems [][]token
	var cur []token
	i := p.pos + 1 // p.toks[p.pos] is the "("
	for ; ; i++ {
		t := p.toks[i]
		if t.kind == tRParen {
			break
		}
		// Neither list can hold these; stopping early also keeps the scan
		// short, so parsing stays linear on hostile input.
		if t.kind == tEOF || t.nl || t.kind == tLParen || isLogicTok(t) || isSign(t) ||
			t.kind == tLBrace || t.kind == tRBrace || t.kind == tAssign {
			return false // unclosed or broken: let args() report it
		}
		if t.kind == tComma {
			elems = append(elems, cur)
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	if cur != nil {
		elems = append(elems, cur)
	}
	if n := p.toks[min(i+1, len(p.toks)-1)]; n.kind == tLBrack || (n.kind == tAt && !n.nl) {
		return true
	}
	typeLike := false
	for _, e := range elems {
		switch {
		case len(e) == 1 && (isNumber(e[0]) || e[0].kind == tString || e[0].kind == tDString):
			return false
		case len(e) == 2 && e[0].kind == tMinus && isNumber(e[1]):
			return false
		case len(e) == 1 && e[0].kind == tIdent:
			name := e[0].text
			r, _ := utf8.DecodeRuneInString(name)
			if p.vars[name] {
				return false
			}
			if javaPrimitives[name] || unicode.IsUpper(r) {
				typeLike = true
			}
		default:
			typeLike = true
		}
	}
	return typeLike
}

// params parses "(type [name], …)" with types "a.b.C[][]".
func (p *parser) params(m *MethodRef, start int) {
	lp := p.next()
	ctx := func() string { return quote(p.text(Span{start, lp.end})) }
	m.Params = []string{}
	if p.cur().kind == tRParen {
		p.next()
		return
	}
	for {
		if p.cur().kind != tIdent {
			p.expected("a parameter type in " + ctx())
			if p.cur().kind == tRParen {
				p.next()
			}
			return
		}
		names, ok := p.path()
		if !ok {
			return
		}
		typ := strings.Join(names, ".")
		for p.cur().kind == tLBrack && p.peek(1).kind == tRBrack {
			p.next()
			p.next()
			typ += "[]"
		}
		m.Params = append(m.Params, typ)
		if p.cur().kind == tIdent { // optional parameter name
			p.next()
		}
		switch p.cur().kind {
		case tComma:
			p.next()
			continue
		case tRParen:
			p.next()
			return
		}
		p.unclosed(")", "the parameter types of "+ctx())
		return
	}
}

// generatorEntity parses a generator entity of either dialect; nil without
// a report when the current token cannot start one.
func (p *parser) generatorEntity() *GeneratorRef {
	start := p.cur()
	g := &GeneratorRef{}
	p.revSpan = Span{}
	project, revision, prefixed, ok := p.prefix()
	if !ok {
		return nil
	}
	g.Project, g.Revision = project, revision
	path, ok := p.path()
	if !ok {
		return nil
	}
	g.CtorGiven, g.CtorArg = p.stringParam("the constructor argument")
	if p.cur().kind == tHash {
		p.next()
		if p.cur().kind != tIdent {
			p.expected("a generator method name after \"#\"")
			return nil
		}
		g.Method = p.next().text
		_, g.MethodArg = p.stringParam("the argument of " + quote(g.Method))
	}
	p.suffixRevision(&g.Revision)
	switch {
	case prefixed || g.CtorGiven || g.Method != "":
		g.Class = strings.Join(path, ".")
	case len(path) == 1:
		g.Name = path[0]
	default:
		g.Class, g.Method, g.MaybeClass = strings.Join(path[:len(path)-1], "."), path[len(path)-1], true
	}
	g.Span = Span{start.start, p.prevEnd()}
	if g.Revision != "" {
		g.RevisionSpan = p.revSpan
	}
	return g
}

// stringParam parses the SPL Tools "parameter": "()" or "('s')". Anything
// else after "(" is left for the caller.
func (p *parser) stringParam(what string) (given bool, arg *string) {
	t := p.cur()
	if t.kind != tLParen || t.nl {
		return false, nil
	}
	switch a := p.peek(1); a.kind {
	case tRParen:
		p.next()
		p.next()
		return true, nil
	case tString, tDString:
		p.next()
		p.next()
		s := a.val
		if p.cur().kind == tRParen {
			p.next()
		} else {
			p.unclosed(")", what)
		}
		return true, &s
	}
	return false, nil
}

// thesisAlias parses "name := entity [ "[" gen [, factory] "]" ]".
func (p *parser) thesisAlias() *Alias {
	name := p.next()
	p.next() // :=
	a := &Alias{Name: name.text, NameSpan: name.span()}
	if t := p.cur(); t.kind == tEOF || t.nl {
		// The entity must start on the line of ":=": the next line is a new item.
		found := "end of line"
		if t.kind == tEOF {
			found = "end of input"
		}
		end := p.prevEnd()
		p.errAt(Span{end, end}, CodeUnexpectedEnd, "expected a method or generator after "+quote(name.text+" :=")+" but found "+found)
		return nil
	}
	// The entity is parsed as a method; generator-only syntax such as
	// pkg.Gen('s')#make('t') fails that and is retried as a generator.
	mark, nd, ne := p.pos, len(p.diags), p.itemErrs
	m := p.methodEntity(ctxDecl)
	if m == nil || len(p.diags) > nd || !p.atItemEnd() {
		if m == nil && p.pos == mark {
			p.expected("a method or generator after " + quote(name.text+" :="))
			return nil
		}
		mp, md := p.pos, append([]Diagnostic(nil), p.diags[nd:]...)
		p.pos, p.diags, p.itemErrs = mark, p.diags[:nd], ne
		if g := p.generatorEntity(); g != nil && len(p.diags) == nd && p.atItemEnd() {
			a.Kind, a.Generator = AliasGenerator, g
			a.Span = Span{name.start, p.prevEnd()}
			return a
		}
		p.pos, p.diags, p.itemErrs = mp, append(p.diags[:nd], md...), ne+len(md)
		if m == nil {
			return nil
		}
	}
	a.Method = m
	if p.cur().kind == tLBrack {
		a.BoundGenerator, a.BoundFactory = p.genList(m.Span.Start)
		a.Kind = AliasMethod
	} else if a.Generator = m.AsGenerator(); a.Generator != nil {
		a.Kind = AliasEither
	} else {
		a.Kind = AliasMethod
	}
	a.Span = Span{name.start, p.prevEnd()}
	return a
}

// atItemEnd reports whether the current token ends a .spl item.
func (p *parser) atItemEnd() bool {
	t := p.cur()
	return t.kind == tEOF || t.nl
}

// declaration parses an original-tool alias element "name=entity".
func (p *parser) declaration(method bool) *Alias {
	if !p.checkEmpty() {
		return nil
	}
	name := p.cur()
	if name.kind != tIdent {
		p.expected("an alias name followed by \"=\"")
		return nil
	}
	p.next()
	if k := p.cur().kind; k == tEq || k == tAssign {
		p.next()
	} else {
		p.expected("\"=\" after the alias name " + quote(name.text))
		return nil
	}
	a := &Alias{Name: name.text, NameSpan: name.span()}
	if method {
		a.Kind = AliasMethod
		if a.Method = p.methodEntity(ctxDecl); a.Method == nil {
			p.expected("a method such as pkg.Class#method after " + quote(name.text+"="))
			return nil
		}
	} else {
		a.Kind = AliasGenerator
		if a.Generator = p.generatorEntity(); a.Generator == nil {
			p.expected("a generator such as pkg.Gen('s')#make('t') after " + quote(name.text+"="))
			return nil
		}
	}
	p.expectEnd("the alias declaration")
	a.Span = Span{name.start, p.prevEnd()}
	return a
}

func (p *parser) expectEnd(of string) {
	if p.cur().kind != tEOF {
		p.expected("the end of " + of)
	}
}
