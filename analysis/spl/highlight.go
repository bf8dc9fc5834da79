package spl

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// Highlighting: what each token of SPL text is, for an editor's semantic
// tokens. The lexer says what a token looks like (a number, an operator);
// the AST says what a name denotes (a method, a generator, a variable).

// HighlightKind is the role of a token in SPL text.
type HighlightKind uint8

const (
	HlKeyword   HighlightKind = iota + 1 // for, in, and, or, implies, SELF, THIS, metric names
	HlOperator                           // < <= == = & | ==> := * + - /
	HlNumber                             // 10, 1.5e3
	HlString                             // 'a', "b"
	HlRevision                           // @HEAD, @v1.2
	HlMethod                             // a measured method's name (also an alias of one)
	HlGenerator                          // a workload generator's name (also an alias of one)
	HlVariable                           // a quantified variable
	HlParameter                          // a name in a lambda that no quantifier declares (SPL Tools configuration)
	HlNamespace                          // a package segment or a project name
	HlClass                              // a class name
	HlType                               // a parameter type in "#m(int, String)"
)

// Highlight is one token of SPL text with its role. Declaration marks the
// token that introduces a name: a quantifier's variable, an alias's name.
type Highlight struct {
	Span        Span
	Kind        HighlightKind
	Declaration bool
}

// Highlights classifies the tokens of a formula string or a .spl file, in
// source order, non-overlapping. Tokens without a role (punctuation,
// characters SPL does not use) are left out. Text with syntax errors is
// highlighted as far as it parsed; the rest by the look of its tokens.
func Highlights(src string) []Highlight {
	p := newParser(src)
	u := p.unit()
	h := newHighlighter(p.toks)
	for _, a := range u.Aliases {
		h.alias(a)
	}
	for _, f := range u.Formulas {
		h.formula(f)
	}
	return h.finish()
}

// HighlightsAlias classifies an element of @SPL(methods={…}) (method true)
// or @SPL(generators={…}): "name=entity".
func HighlightsAlias(src string, method bool) []Highlight {
	p := newParser(src)
	a := p.declaration(method)
	h := newHighlighter(p.toks)
	if a != nil {
		h.alias(a)
	}
	return h.finish()
}

// HighlightsGenerator classifies a lone generator entity such as the value
// of @Workload("pkg.Gen#make").
func HighlightsGenerator(src string) []Highlight {
	g, _ := ParseGenerator(src)
	p := newParser(src) // ParseGenerator keeps its tokens to itself; lexing twice is cheap
	h := newHighlighter(p.toks)
	h.generator(g)
	return h.finish()
}

type highlighter struct {
	toks  []token
	kinds []HighlightKind // per token; 0: by the look of the token
	decl  []bool
	vars  map[string]bool // variables of the formula being walked
}

func newHighlighter(toks []token) *highlighter {
	return &highlighter{toks: toks, kinds: make([]HighlightKind, len(toks)), decl: make([]bool, len(toks))}
}

// index is the first token starting at or after offset.
func (h *highlighter) index(offset int) int {
	return sort.Search(len(h.toks), func(i int) bool { return h.toks[i].start >= offset })
}

// within calls f with the index of each token inside sp.
func (h *highlighter) within(sp Span, f func(i int)) {
	for i := h.index(sp.Start); i < len(h.toks) && h.toks[i].kind != tEOF && h.toks[i].end <= sp.End; i++ {
		f(i)
	}
}

func (h *highlighter) set(sp Span, k HighlightKind, decl bool) {
	if sp.End <= sp.Start {
		return
	}
	if i := h.index(sp.Start); i < len(h.toks) && h.toks[i].start == sp.Start && h.toks[i].end == sp.End {
		h.kinds[i], h.decl[i] = k, decl
	}
}

func (h *highlighter) alias(a *Alias) {
	kind := HlMethod
	if a.Kind == AliasGenerator {
		kind = HlGenerator
	}
	h.set(a.NameSpan, kind, true)
	switch {
	case a.Kind == AliasGenerator:
		h.generator(a.Generator)
	default:
		h.method(a.Method)
	}
	h.generator(a.BoundGenerator)
	h.generator(a.BoundFactory)
}

func (h *highlighter) formula(f *Formula) {
	h.vars = map[string]bool{}
	for _, q := range f.Quantifiers {
		for _, v := range q.Vars {
			h.vars[v.Name] = true
			h.set(v.Span, HlVariable, true)
		}
	}
	for _, c := range Comparisons(f.Body) {
		for _, t := range []*Term{c.Left, c.Right} {
			h.term(t)
		}
		if c.Lambda != nil {
			for _, fs := range [][]Factor{c.Lambda.Left, c.Lambda.Right} {
				for _, x := range fs {
					if x.Ident != "" {
						h.set(x.Span, h.varKind(x.Ident), false)
					}
				}
			}
		}
	}
}

func (h *highlighter) varKind(name string) HighlightKind {
	if h.vars[name] {
		return HlVariable
	}
	return HlParameter
}

func (h *highlighter) term(t *Term) {
	if t == nil {
		return
	}
	h.set(t.MetricSpan, HlKeyword, false)
	h.method(t.Method)
	h.generator(t.Generator)
	h.generator(t.Factory)
	for _, a := range t.Args {
		h.within(a.Span, func(i int) {
			if h.toks[i].kind == tIdent {
				h.kinds[i] = h.varKind(h.toks[i].text)
			}
		})
	}
}

// path classifies the tokens of an entity up to its member: an optional
// "project@rev:" prefix, then IDENT ("." IDENT)*. It returns the indices of
// the path's names and the index after them.
func (h *highlighter) path(i, end int, project bool) (names []int, next int) {
	if project && i < end && h.toks[i].kind == tIdent {
		h.kinds[i] = HlNamespace
		i++
	}
	for i < end && (h.toks[i].kind == tAt || h.toks[i].kind == tColon) {
		i++
	}
	for i < end && h.toks[i].kind == tIdent {
		names = append(names, i)
		i++
		if i+1 < end && h.toks[i].kind == tDot && h.toks[i+1].kind == tIdent {
			i++
			continue
		}
		break
	}
	return names, i
}

// qualifier colours the names before an entity's member: capitalised ones
// as classes (outer classes too), the rest as packages.
func (h *highlighter) qualifier(names []int) {
	for _, i := range names {
		r, _ := utf8.DecodeRuneInString(h.toks[i].text)
		if unicode.IsUpper(r) {
			h.kinds[i] = HlClass
		} else {
			h.kinds[i] = HlNamespace
		}
	}
}

// bounds returns the token range [i, end) of sp.
func (h *highlighter) bounds(sp Span) (int, int) {
	i := h.index(sp.Start)
	end := i
	for end < len(h.toks) && h.toks[end].kind != tEOF && h.toks[end].end <= sp.End {
		end++
	}
	return i, end
}

// entity returns the path names of the entity at sp (project: it has a
// project prefix), the token after them and the end of its tokens.
func (h *highlighter) entity(sp Span, project string) (names []int, next, end int) {
	if sp.End <= sp.Start {
		return nil, 0, 0
	}
	i, end := h.bounds(sp)
	names, next = h.path(i, end, project != "")
	return names, next, end
}

func (h *highlighter) method(m *MethodRef) {
	if m == nil {
		return
	}
	names, next, end := h.entity(m.Span, m.Project)
	if len(names) == 0 {
		return
	}
	switch {
	case m.Self:
		h.kinds[names[0]] = HlKeyword
	case m.Name != "":
		h.kinds[names[0]] = HlMethod
	default:
		if k := findKind(h.toks, next, end, tHash); k >= 0 && k+1 < end && h.toks[k+1].kind == tIdent && !m.Dotted {
			h.qualifier(names)
			h.kinds[k+1] = HlMethod
			next = k + 2
		} else {
			h.qualifier(names[:len(names)-1])
			h.kinds[names[len(names)-1]] = HlMethod
		}
	}
	// What follows the method's name: parameter types, a revision.
	for ; next < end; next++ {
		if h.toks[next].kind == tIdent {
			h.kinds[next] = HlType
		}
	}
}

// findKind is the index of the first token of kind k in toks[i:end], or -1.
func findKind(toks []token, i, end int, k tokKind) int {
	for ; i < end; i++ {
		if toks[i].kind == k {
			return i
		}
	}
	return -1
}

func (h *highlighter) generator(g *GeneratorRef) {
	if g == nil {
		return
	}
	names, next, end := h.entity(g.Span, g.Project)
	if len(names) == 0 {
		return
	}
	last := names[len(names)-1]
	switch {
	case g.Name != "":
		h.kinds[last] = HlGenerator
	case g.Method != "" && !g.MaybeClass:
		h.qualifier(names)
		if k := findKind(h.toks, next, end, tHash); k >= 0 && k+1 < end && h.toks[k+1].kind == tIdent {
			h.kinds[k+1] = HlGenerator
		}
	case g.MaybeClass:
		h.qualifier(names[:len(names)-1])
		h.kinds[last] = HlGenerator
	default: // a class instantiated: "pkg.Gen()"
		h.qualifier(names)
	}
}

// finish classifies the remaining tokens by their look and returns the
// highlights in source order.
func (h *highlighter) finish() []Highlight {
	out := make([]Highlight, 0, len(h.toks))
	for i, t := range h.toks {
		k := h.kinds[i]
		if k == 0 {
			k = lookOf(t)
		}
		if k == 0 && t.kind == tIdent {
			// Text that did not parse: a name just inside "[" is a
			// workload, a name just before it the measured method.
			switch {
			case i > 0 && h.toks[i-1].kind == tLBrack:
				k = HlGenerator
			case i+1 < len(h.toks) && h.toks[i+1].kind == tLBrack:
				k = HlMethod
			}
		}
		if k == 0 || t.end <= t.start {
			continue
		}
		out = append(out, Highlight{Span: t.span(), Kind: k, Declaration: h.decl[i]})
	}
	return out
}

// lookOf is the role a token has whatever its place: keywords, literals,
// revisions and operators.
func lookOf(t token) HighlightKind {
	switch t.kind {
	case tIdent:
		switch t.text {
		case "for", "in", "and", "or", "implies", "SELF", "THIS":
			return HlKeyword
		}
	case tInt, tReal:
		return HlNumber
	case tString, tDString:
		return HlString
	case tAt:
		return HlRevision
	case tAssign, tStar, tMinus, tPlus, tSlash, tEq, tEqEq, tLT, tGT, tLE, tGE,
		tAnd, tOr, tImply, tAndAnd, tOrOr, tArrow, tNotEq:
		return HlOperator
	}
	return 0
}
