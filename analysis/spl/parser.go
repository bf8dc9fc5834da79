package spl

import (
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"
)

const (
	maxErrorsPerItem = 20  // syntax errors reported per formula or alias
	maxDepth         = 200 // nesting of parenthesised sub-formulas
)

// MaxTextBytes bounds the text the parser reads: a formula string, or a
// whole .spl file. Longer text is not parsed and gets one CodeTooLarge
// error. Parsing costs about a hundred bytes of memory per byte of text
// (tokens, then values), so without a bound one pasted 10 MB formula
// takes a language server past a gigabyte. A megabyte still holds a
// set larger than the 100,000 instances a formula may have, which Lint
// reports.
const MaxTextBytes = 1 << 20

// Parse parses an annotation formula string (either dialect) or the whole
// content of a .spl file: a sequence of "name := entity" aliases and
// formulas. Items end at a line end when the next line cannot continue
// them; a formula may span lines ("… and" / next line). It reports syntax
// errors only; call Lint (or use ParseAndLint) for semantic ones.
//
// Text with no tokens at all yields an "empty" error.
func Parse(src string) (*Unit, []Diagnostic) {
	p := newParser(src)
	u := p.unit()
	return u, p.finish()
}

// ParseAndLint is Parse followed by Lint, with all diagnostics in source
// order.
//
// When the text has syntax errors, the partial AST lacks whatever failed to
// parse, so "unused variable/alias" findings are left out: they would only
// echo the syntax error.
//
// Text in the evaluation-engine dialect ("bench:last < ver2 && ver2 < 1.5")
// yields one CodeEvaluationDialect error over the whole text, which says
// how to write it, and a unit without formulas.
func ParseAndLint(src string) (*Unit, []Diagnostic) {
	if sp, ok := evaluationDialect(src); ok {
		return &Unit{}, []Diagnostic{{Span: sp, Severity: Error, Code: CodeEvaluationDialect, Message: EvaluationDialectMessage}}
	}
	u, diags := Parse(src)
	syntaxErrors := false
	for _, d := range diags {
		syntaxErrors = syntaxErrors || d.Severity == Error
	}
	for _, d := range Lint(u) {
		if syntaxErrors && (d.Code == CodeUnusedVariable || d.Code == CodeUnusedAlias) {
			continue
		}
		diags = append(diags, d)
	}
	sortDiags(diags)
	return u, diags
}

// ParseMethodAlias parses one element of the original tool's
// @SPL(methods={…}) array: "name=methodEntity" ("name := …" is accepted too).
// The result has Kind AliasMethod; it is nil when no entity could be parsed.
func ParseMethodAlias(src string) (*Alias, []Diagnostic) {
	p := newParser(src)
	a := p.declaration(true)
	return a, p.finish()
}

// ParseGeneratorAlias parses one element of @SPL(generators={…}):
// "name=generatorEntity". The result has Kind AliasGenerator.
func ParseGeneratorAlias(src string) (*Alias, []Diagnostic) {
	p := newParser(src)
	a := p.declaration(false)
	return a, p.finish()
}

// ParseMethod parses a lone method entity, e.g. "pkg.Class#m(int)",
// "pkg.Class.m(int)" or "@rev:pkg.Class#m". A parenthesised list after the
// name is always the parameter type list.
func ParseMethod(src string) (*MethodRef, []Diagnostic) {
	p := newParser(src)
	var m *MethodRef
	if p.checkEmpty() {
		if m = p.methodEntity(ctxDecl); m == nil {
			p.expected("a method such as pkg.Class#method")
		}
		p.expectEnd("the method")
	}
	return m, p.finish()
}

// ParseGenerator parses a lone generator entity, e.g. "pkg.Gen('s')#make('t')".
func ParseGenerator(src string) (*GeneratorRef, []Diagnostic) {
	p := newParser(src)
	var g *GeneratorRef
	if p.checkEmpty() {
		if g = p.generatorEntity(); g == nil {
			p.expected("a generator such as pkg.Gen('s')#make('t') or pkg.Class#gen")
		}
		p.expectEnd("the generator")
	}
	return g, p.finish()
}

type parser struct {
	src        string
	toks       []token
	pos        int
	lexDiags   []Diagnostic
	diags      []Diagnostic
	itemStart  int  // token index where the current item began
	itemErrs   int  // syntax errors reported for the current item
	parenDepth int  // open "(" of sub-formulas
	abort      bool // nesting limit hit: skip the rest
	tooLarge   bool // the text was not lexed (MaxTextBytes)
	// vars are the variables declared by the formula being parsed; they tell
	// argument lists from parameter type lists in terms without "[…]".
	vars map[string]bool
	// revSpan is the span of the last "@rev" read (revisionOf).
	revSpan Span
}

func newParser(src string) *parser {
	if len(src) > MaxTextBytes {
		return &parser{src: src, toks: []token{{kind: tEOF}}, vars: map[string]bool{}, tooLarge: true,
			lexDiags: []Diagnostic{{Span: Span{0, 0}, Severity: Error, Code: CodeTooLarge,
				Message: fmt.Sprintf("%.1f MB of formula text: larger than the %d MiB limit, not parsed", float64(len(src))/1e6, MaxTextBytes>>20)}}}
	}
	toks, lexDiags := lex(src)
	return &parser{src: src, toks: toks, lexDiags: lexDiags, vars: map[string]bool{}}
}

func (p *parser) finish() []Diagnostic {
	all := append(p.lexDiags, p.diags...)
	sortDiags(all)
	return all
}

func sortDiags(d []Diagnostic) {
	sort.SliceStable(d, func(i, j int) bool { return d[i].Span.Start < d[j].Span.Start })
}

// ---- token access ----

func (p *parser) cur() token { return p.toks[p.pos] }

func (p *parser) peek(k int) token {
	if p.pos+k < len(p.toks) {
		return p.toks[p.pos+k]
	}
	return p.toks[len(p.toks)-1]
}

// next consumes and returns the current token; EOF is never consumed.
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

// prevEnd is the end offset of the last consumed token.
func (p *parser) prevEnd() int {
	if p.pos == 0 {
		return 0
	}
	return p.toks[p.pos-1].end
}

func isWord(t token, w string) bool { return t.kind == tIdent && t.text == w }

// isReservedHead reports words that cannot start a term: the logical
// keywords and "for". They stay usable after "." or "#".
func isReservedHead(t token) bool {
	return isWord(t, "and") || isWord(t, "or") || isWord(t, "implies") || isWord(t, "for")
}

func isLogicTok(t token) bool {
	switch t.kind {
	case tAnd, tOr, tImply, tAndAnd, tOrOr, tArrow:
		return true
	}
	return isWord(t, "and") || isWord(t, "or") || isWord(t, "implies")
}

func isNumber(t token) bool { return t.kind == tInt || t.kind == tReal }

// ---- diagnostics ----

func (p *parser) errAt(sp Span, code, msg string) {
	// One error per position: an inner rule and its caller often both notice
	// the same bad token.
	if n := len(p.diags); n > 0 && p.diags[n-1].Span.Start == sp.Start && p.diags[n-1].Severity == Error {
		return
	}
	p.itemErrs++
	if p.itemErrs > maxErrorsPerItem {
		if p.itemErrs == maxErrorsPerItem+1 {
			p.diags = append(p.diags, Diagnostic{Span: sp, Severity: Error, Code: CodeTooManyErrors,
				Message: fmt.Sprintf("too many errors (more than %d); further errors in this formula are not reported", maxErrorsPerItem)})
		}
		return
	}
	p.diags = append(p.diags, Diagnostic{Span: sp, Severity: Error, Code: code, Message: msg})
}

// afterBad reports whether the current token directly follows a token the
// lexer already complained about; errors there are mostly echoes.
func (p *parser) afterBad() bool { return p.pos > 0 && p.toks[p.pos-1].bad }

// describe renders a token for "but found …".
func describe(t token) string {
	if t.kind == tEOF {
		return "end of input"
	}
	return quote(t.text)
}

// quote shows source text in messages, shortened to keep messages readable.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// text returns the source covered by a span.
func (p *parser) text(sp Span) string {
	if sp.Start < 0 || sp.End > len(p.src) || sp.Start > sp.End {
		return ""
	}
	return p.src[sp.Start:sp.End]
}

// expected reports that the current token is not what the grammar needs.
func (p *parser) expected(what string) {
	if p.afterBad() {
		return
	}
	t := p.cur()
	switch t.kind {
	case tEOF:
		p.errAt(t.span(), CodeUnexpectedEnd, "expected "+what+" but found end of input")
	case tIllegal:
		p.errAt(t.span(), CodeInvalidCharacter, "invalid character "+quote(t.text)+": expected "+what)
	default:
		p.errAt(t.span(), CodeUnexpectedToken, "expected "+what+" but found "+describe(t))
	}
}

// unclosed reports a missing closing delimiter at the current token.
func (p *parser) unclosed(closer, of string) {
	if p.afterBad() {
		return
	}
	t := p.cur()
	p.errAt(t.span(), CodeUnclosed, "expected "+strconv.Quote(closer)+" to close "+of+" but found "+describe(t))
}

// ---- recovery ----

// syncExpr skips tokens up to a point where the formula can resume: a
// logical operator, a ")" closing an open sub-formula, a token on a new line
// (in .spl files a new item), or the end.
func (p *parser) syncExpr() {
	for {
		t := p.cur()
		if t.kind == tEOF || isLogicTok(t) || (t.kind == tRParen && p.parenDepth > 0) || (t.nl && p.pos > p.itemStart) {
			return
		}
		p.pos++
	}
}

// skipLine skips to the next token on a new line (or the end).
func (p *parser) skipLine() {
	for {
		p.pos++
		if p.pos >= len(p.toks)-1 {
			p.pos = len(p.toks) - 1
			return
		}
		if p.toks[p.pos].nl {
			return
		}
	}
}

// ---- units and items ----

func (p *parser) checkEmpty() bool {
	if p.tooLarge {
		return false // reported as too large, not as empty
	}
	if p.cur().kind == tEOF {
		p.diags = append(p.diags, Diagnostic{Span: Span{0, 0}, Severity: Error, Code: CodeEmpty,
			Message: "expected an SPL formula but the text is empty"})
		return false
	}
	return true
}

func (p *parser) unit() *Unit {
	u := &Unit{}
	if !p.checkEmpty() {
		return u
	}
	for p.cur().kind != tEOF && !p.abort {
		start := p.pos
		p.itemStart, p.itemErrs = p.pos, 0
		alias := p.cur().kind == tIdent && p.peek(1).kind == tAssign
		if alias {
			if a := p.thesisAlias(); a != nil {
				u.Aliases = append(u.Aliases, a)
			}
		} else if f := p.formula(); f != nil {
			u.Formulas = append(u.Formulas, f)
		}
		if t := p.cur(); t.kind != tEOF && !t.nl && !p.abort {
			switch {
			case t.kind == tRParen && !alias:
				p.errAt(t.span(), CodeUnexpectedToken, "unexpected \")\": there is no \"(\" to close")
			case alias:
				p.expected("the end of the alias declaration (a formula starts on a new line)")
			default:
				p.expected("a logical operator (\"and\", \"or\", \"&\", \"|\", \"==>\") or the end of the formula")
			}
			p.skipLine()
		}
		if p.pos == start { // cannot happen; keeps the loop finite regardless
			p.pos++
		}
	}
	return u
}

func (p *parser) formula() *Formula {
	f := &Formula{}
	first := p.cur()
	p.vars = map[string]bool{}
	for isWord(p.cur(), "for") && !p.abort {
		f.Quantifiers = append(f.Quantifiers, p.forClause()...)
	}
	after := ""
	if len(f.Quantifiers) > 0 {
		after = "the quantifier"
	}
	f.Body = p.binary(0, after)
	if f.Body == nil && len(f.Quantifiers) == 0 {
		return nil
	}
	f.Span = Span{first.start, p.prevEnd()}
	if f.Span.End < f.Span.Start {
		f.Span.End = f.Span.Start
	}
	return f
}

// ---- logic ----

// binary parses one precedence level: 0 implication, 1 disjunction,
// 2 conjunction, then primaries. Operators are left-associative.
func (p *parser) binary(level int, after string) Expr {
	if level > 2 {
		return p.primary(after)
	}
	x := p.binary(level+1, after)
	for !p.abort {
		t := p.cur()
		op, ok := p.logicOp(level, t)
		if !ok {
			break
		}
		p.next()
		y := p.binary(level+1, quote(t.text))
		switch {
		case x == nil:
			x = y
		case y != nil:
			x = &Logic{Op: op, X: x, Y: y, OpSpan: t.span()}
		}
	}
	return x
}

// logicOp matches an operator of the given level, reporting the spellings
// of the other SPL grammar ("&&", "||", "=>") while reading them anyway.
func (p *parser) logicOp(level int, t token) (LogicOp, bool) {
	switch level {
	case 0:
		if t.kind == tImply || isWord(t, "implies") {
			return Implies, true
		}
		if t.kind == tArrow {
			p.errAt(t.span(), CodeUnknownOperator, "unknown operator \"=>\": write \"==>\" (or \"implies\") for implication")
			return Implies, true
		}
	case 1:
		if t.kind == tOr || isWord(t, "or") {
			return Or, true
		}
		if t.kind == tOrOr {
			p.errAt(t.span(), CodeUnknownOperator, "unknown operator \"||\": write \"|\" (or \"or\") for disjunction")
			return Or, true
		}
	case 2:
		if t.kind == tAnd || isWord(t, "and") {
			return And, true
		}
		if t.kind == tAndAnd {
			p.errAt(t.span(), CodeUnknownOperator, "unknown operator \"&&\": write \"&\" (or \"and\") for conjunction")
			return And, true
		}
	}
	return 0, false
}

func (p *parser) primary(after string) Expr {
	if p.abort {
		return nil
	}
	t := p.cur()
	if t.kind != tLParen {
		return p.comparison(after)
	}
	if p.parenDepth >= maxDepth {
		p.errAt(t.span(), CodeTooDeep, fmt.Sprintf("formula nested more than %d parentheses deep; the rest is not parsed", maxDepth))
		p.abort = true
		p.pos = len(p.toks) - 1
		return nil
	}
	p.next()
	p.parenDepth++
	x := p.binary(0, "\"(\"")
	p.parenDepth--
	if p.abort {
		return nil
	}
	if p.cur().kind == tRParen {
		p.next()
	} else {
		p.unclosed(")", "\"(\"")
	}
	if x == nil {
		return nil
	}
	return &Paren{X: x, Span: Span{t.start, p.prevEnd()}}
}

// ---- comparisons ----

func (p *parser) comparison(after string) Expr {
	var what string
	if after == "" {
		what = "a comparison such as \"SELF[gen](n) <= pkg.Class#m[gen](n)\""
	} else {
		what = "a comparison after " + after
	}
	left := p.side(what)
	if left == nil {
		p.syncExpr()
		return nil
	}
	opTok := p.cur()
	op, ok, drop := p.sign(left)
	if !ok {
		p.syncExpr()
		return nil
	}
	opSpan := Span{opTok.start, p.prevEnd()}
	c := &Comparison{Left: left, Op: op, OpSpan: opSpan}
	if p.cur().kind == tLParen {
		if op == EQI {
			p.lambdaInterval(c)
		} else {
			p.lambda(c)
		}
	}
	right := p.side("a measured method after " + quote(p.text(opSpan)))
	if right == nil {
		p.syncExpr()
		return nil
	}
	if drop {
		return nil
	}
	c.Right = right
	c.Span = join(left.Span, right.Span)
	return c
}

// sign parses a comparison sign. Common mistakes are reported with a fix and
// read as the intended sign; drop is set for signs SPL cannot express.
func (p *parser) sign(left *Term) (op CmpOp, ok, drop bool) {
	t := p.cur()
	switch t.kind {
	case tLT:
		op = LT
	case tLE:
		op = LE
	case tGT:
		op = GT
	case tGE:
		op = GE
	case tEqEq:
		op = EQ
	case tEq:
		op = EQI
		if n := p.peek(1); n.start == t.end && (n.kind == tLT || n.kind == tLE) {
			p.next()
			p.errAt(Span{t.start, n.start + 1}, CodeUnknownOperator, "unknown comparison \"=<\": write \"<=\"")
			op = LE
			if n.kind == tLE { // "=<=" is read as "<=" too
				p.next()
				return LE, true, false
			}
		}
	case tArrow:
		p.errAt(t.span(), CodeUnknownOperator, "unknown comparison \"=>\": write \">=\"")
		op = GE
	case tNotEq:
		p.errAt(t.span(), CodeUnknownOperator, "SPL has no \"!=\" comparison: use \"<\" or \">\", or \"==\" / \"=\" for equality")
		p.next()
		return EQ, true, true
	case tIllegal:
		switch t.text {
		case "≤":
			p.errAt(t.span(), CodeUnknownOperator, "write \"<=\" instead of \"≤\"")
			op = LE
		case "≥":
			p.errAt(t.span(), CodeUnknownOperator, "write \">=\" instead of \"≥\"")
			op = GE
		default:
			p.expected(expectedSign(p, left))
			return 0, false, false
		}
	default:
		p.expected(expectedSign(p, left))
		return 0, false, false
	}
	p.next()
	return op, true, false
}

func expectedSign(p *parser, left *Term) string {
	return "a comparison operator (\"<\", \"<=\", \">\", \">=\", \"==\" or \"=\") after " + quote(p.text(left.Span))
}

// lambda parses the multipliers "(left, right)" after a sign.
func (p *parser) lambda(c *Comparison) {
	lp := p.next()
	of := "the multipliers after " + quote(p.text(c.OpSpan))
	l := &Lambda{}
	var ok bool
	if l.Left, ok = p.lambdaPart(of); !ok {
		p.skipParen()
		return
	}
	if p.cur().kind != tComma {
		p.expected("\",\" between the left and the right multiplier in " + of)
		p.skipParen()
		return
	}
	p.next()
	if l.Right, ok = p.lambdaPart(of); !ok {
		p.skipParen()
		return
	}
	p.closeParen(of, lp)
	l.Span = Span{lp.start, p.prevEnd()}
	c.Lambda = l
}

// lambdaInterval parses what may follow "=": "(δ)", "(l, r)" or "(l, r, δ)".
func (p *parser) lambdaInterval(c *Comparison) {
	lp := p.next()
	of := "the interval or multipliers after \"=\""
	first, ok := p.lambdaPart(of)
	if !ok {
		p.skipParen()
		return
	}
	if p.cur().kind == tRParen {
		p.next()
		if len(first) == 1 && first[0].Number != nil {
			d := *first[0].Number
			c.Interval = &d
			return
		}
		p.errAt(Span{lp.start, p.prevEnd()}, CodeUnexpectedToken,
			"expected a number as the equality interval in \"=(δ)\" but found "+quote(p.text(Span{lp.start + 1, p.prevEnd() - 1})))
		return
	}
	if p.cur().kind != tComma {
		p.expected("\",\" or \")\" in " + of)
		p.skipParen()
		return
	}
	p.next()
	right, ok := p.lambdaPart(of)
	if !ok {
		p.skipParen()
		return
	}
	l := &Lambda{Left: first, Right: right}
	if p.cur().kind == tComma {
		p.next()
		if t := p.cur(); isNumber(t) {
			p.next()
			d := numToken(t)
			c.Interval = &d
		} else {
			p.expected("a number as the equality interval after the multipliers")
			p.skipParen()
			return
		}
	}
	p.closeParen(of, lp)
	l.Span = Span{lp.start, p.prevEnd()}
	c.Lambda = l
}

func (p *parser) lambdaPart(of string) ([]Factor, bool) {
	var fs []Factor
	for {
		t := p.cur()
		switch {
		case isNumber(t):
			p.next()
			n := numToken(t)
			fs = append(fs, Factor{Number: &n, Span: t.span()})
		case t.kind == tIdent:
			p.next()
			fs = append(fs, Factor{Ident: t.text, Span: t.span()})
		default:
			p.expected("a number or a name in " + of)
			return nil, false
		}
		if p.cur().kind != tStar {
			return fs, true
		}
		p.next()
	}
}

func (p *parser) closeParen(of string, lp token) {
	if p.cur().kind == tRParen {
		p.next()
		return
	}
	p.unclosed(")", of)
}

// skipParen skips the rest of a broken "(…)" on the current line.
func (p *parser) skipParen() {
	for {
		t := p.cur()
		switch {
		case t.kind == tRParen:
			p.next()
			return
		case t.kind == tEOF || t.nl || isLogicTok(t) || t.kind == tIdent || t.kind == tAt:
			return
		}
		p.next()
	}
}

// ---- terms ----

// side parses "[number *] term [* number]".
func (p *parser) side(what string) *Term {
	t := p.cur()
	var scale *float64
	var scaleSpan Span
	if isNumber(t) {
		n := numToken(t)
		switch nt := p.peek(1); {
		case nt.kind == tStar:
			p.next()
			p.next()
			scale, scaleSpan = &n, Span{t.start, nt.end}
		case (nt.kind == tIdent || nt.kind == tAt) && !nt.nl:
			p.next()
			p.expected("\"*\" after the scale factor " + t.text)
			scale, scaleSpan = &n, t.span()
		default:
			p.expected(what)
			return nil
		}
	}
	term := p.term(what)
	if term == nil {
		return nil
	}
	if scale != nil {
		term.Scale, term.ScaleSpan = scale, scaleSpan
		term.Span.Start = t.start
	} else if p.cur().kind == tStar && isNumber(p.peek(1)) {
		star := p.next()
		nt := p.next()
		n := numToken(nt)
		term.Scale, term.ScaleSpan = &n, Span{star.start, nt.end}
		term.Span.End = nt.end
	}
	return term
}

func (p *parser) term(what string) *Term {
	head := p.cur()
	metric := p.isMetricHead()
	if metric {
		p.next()
		p.next()
	}
	m := p.methodEntity(ctxTerm)
	if m == nil {
		p.expected(what)
		return nil
	}
	t := &Term{Method: m, Span: m.Span}
	if metric {
		t.Metric, t.MetricSpan, t.Span.Start = head.text, head.span(), head.start
		if p.cur().kind == tRParen {
			p.next()
		} else {
			p.unclosed(")", "the metric "+quote(head.text+"("))
		}
		t.Span.End = p.prevEnd()
	}
	if p.cur().kind == tLBrack {
		g, f := p.genList(t.Span.Start)
		t.Generator, t.Factory = g, f
		t.Span.End = p.prevEnd()
	}
	if p.cur().kind == tLParen && !p.cur().nl {
		t.Args = p.args(t.Span.Start)
		t.ArgsGiven = true
		t.Span.End = p.prevEnd()
	}
	return t
}

// isMetricHead tells whether the current token starts a metric, "cpu(m)":
// a metric name (Metrics) and "(" on its line, unless what follows reads
// as the parameter types or arguments of a method of that name: ")", a
// Java primitive, a literal or a declared variable ("alloc(int)",
// "cpu(n)"). A method named like a metric is written Class#cpu then.
func (p *parser) isMetricHead() bool {
	t, lp, in := p.cur(), p.peek(1), p.peek(2)
	if t.kind != tIdent || Metrics[t.text] == "" || lp.kind != tLParen || lp.nl {
		return false
	}
	switch {
	case in.kind == tRParen, isNumber(in), in.kind == tString, in.kind == tDString, in.kind == tMinus:
		return false
	case in.kind == tIdent && (javaPrimitives[in.text] || p.vars[in.text]):
		return false
	}
	return true
}

// genList parses "[generator]" or "[generator, factory]"; start is where the
// owning entity began (for messages such as: the generator of "SELF[").
func (p *parser) genList(start int) (gen, factory *GeneratorRef) {
	lb := p.next()
	ctx := func() string { return quote(p.text(Span{start, lb.end})) } // only built for messages
	gen = p.generatorEntity()
	if gen == nil {
		p.expected("a generator (an alias, a method name or pkg.Class#gen) in " + ctx())
		for {
			t := p.cur()
			if t.kind == tRBrack {
				p.next()
				return nil, nil
			}
			if t.kind == tEOF || t.nl || isLogicTok(t) || isSign(t) || t.kind == tLParen || t.kind == tRParen {
				return nil, nil
			}
			p.next()
		}
	}
	if p.cur().kind == tComma {
		p.next()
		if factory = p.generatorEntity(); factory == nil {
			p.expected("an object factory after \",\" in " + ctx())
		}
	}
	if p.cur().kind == tRBrack {
		p.next()
	} else {
		p.unclosed("]", "the generator of "+ctx())
	}
	return gen, factory
}

func isSign(t token) bool {
	switch t.kind {
	case tLT, tLE, tGT, tGE, tEq, tEqEq, tArrow, tNotEq:
		return true
	}
	return false
}

// argOf makes an argument of arithmetic: a lone variable or number stays
// one, as before arithmetic existed.
func argOf(c *Calc) Arg {
	switch {
	case c.Op == 0 && c.Var != "" && !c.Paren:
		return Arg{Var: c.Var, Span: c.Span}
	case c.Op == 0 && c.Value != nil && !c.Paren:
		return Arg{Value: c.Value, Span: c.Span}
	}
	return Arg{Calc: c, Span: c.Span}
}

// calcSum parses arithmetic over variables and numbers: sums of products,
// parentheses, the usual precedence. nil when it finds nothing it can read
// (an unclosed parenthesis is reported here, the rest by the caller).
func (p *parser) calcSum(ctx func() string) *Calc {
	x := p.calcProduct(ctx)
	for x != nil && (p.cur().kind == tPlus || p.cur().kind == tMinus) {
		op := byte('+')
		if p.next().kind == tMinus {
			op = '-'
		}
		y := p.calcProduct(ctx)
		if y == nil {
			return nil
		}
		x = &Calc{Op: op, X: x, Y: y, Span: Span{x.Span.Start, y.Span.End}}
	}
	return x
}

func (p *parser) calcProduct(ctx func() string) *Calc {
	x := p.calcFactor(ctx)
	for x != nil && (p.cur().kind == tStar || p.cur().kind == tSlash) {
		op := byte('*')
		if p.next().kind == tSlash {
			op = '/'
		}
		y := p.calcFactor(ctx)
		if y == nil {
			return nil
		}
		x = &Calc{Op: op, X: x, Y: y, Span: Span{x.Span.Start, y.Span.End}}
	}
	return x
}

func (p *parser) calcFactor(ctx func() string) *Calc {
	t := p.cur()
	switch {
	case t.kind == tIdent:
		p.next()
		return &Calc{Var: t.text, Span: t.span()}
	case t.kind == tLParen:
		p.next()
		c := p.calcSum(ctx)
		if c == nil {
			return nil
		}
		if p.cur().kind != tRParen {
			p.unclosed(")", "the arithmetic in "+ctx())
			return nil
		}
		c.Paren = true
		c.Span = Span{t.start, p.next().end}
		return c
	case t.kind == tInt || t.kind == tReal || t.kind == tMinus:
		if v, ok := p.value(); ok {
			return &Calc{Value: &v, Span: v.Span}
		}
	}
	return nil // the caller says what it expected
}

// args parses the generator arguments "(n, 10, \"big.xml\")".
func (p *parser) args(start int) []Arg {
	lp := p.next()
	ctx := func() string { return quote(p.text(Span{start, lp.end})) }
	args := []Arg{}
	if p.cur().kind == tRParen {
		p.next()
		return args
	}
	for {
		if t := p.cur(); t.kind == tString || t.kind == tDString {
			v, _ := p.value()
			args = append(args, Arg{Value: &v, Span: v.Span})
		} else if c := p.calcSum(ctx); c != nil {
			args = append(args, argOf(c))
		} else {
			p.expected("an argument (a variable, a number, arithmetic such as 10 * n, or a string) in " + ctx())
			if p.cur().kind == tRParen {
				p.next()
			}
			return args
		}
		switch p.cur().kind {
		case tComma:
			p.next()
			continue
		case tRParen:
			p.next()
			return args
		}
		p.unclosed(")", "the arguments of "+ctx())
		return args
	}
}
