package spl

import (
	"strconv"
	"strings"
)

// Quantifiers: "for (i{1,2} (a,b){(1,2),(2,4)})" and "for n in {…}".

// forClause parses one "for" clause: the original "for (i{1,2} (a,b){…})"
// block or the thesis "for n in {…}" (also "for n in {…}, m in {…}" and the
// brace-less "for n in 1, 2, 3").
func (p *parser) forClause() []*Quantifier {
	forTok := p.next()
	if p.cur().kind == tLParen {
		return p.forBlock()
	}
	var qs []*Quantifier
	for {
		if p.cur().kind != tIdent || isReservedHead(p.cur()) {
			p.expected("a variable name or \"(\" after \"for\"")
			return qs
		}
		name := p.next()
		id := Ident{name.text, name.span()}
		q := &Quantifier{Vars: []Ident{id}}
		of := "the values of " + quote(name.text)
		switch {
		case isWord(p.cur(), "in"):
			p.next()
			if p.cur().kind == tLBrace {
				vals, sp := p.valueList(tRBrace, of)
				q.Values, q.ValueSpans = [][]Value{vals}, []Span{sp}
			} else {
				vals, sp := p.bareValues(of)
				if vals == nil {
					return qs
				}
				q.Values, q.ValueSpans = [][]Value{vals}, []Span{sp}
			}
		case p.cur().kind == tLBrace: // "for n{1,2}": the original form without the block parentheses
			vals, sp := p.valueList(tRBrace, of)
			q.Values, q.ValueSpans = [][]Value{vals}, []Span{sp}
		default:
			p.expected("\"in\" after \"for " + name.text + "\"")
			return qs
		}
		p.vars[name.text] = true
		q.Span = Span{forTok.start, p.prevEnd()}
		qs = append(qs, q)
		// "for a in {…}, b in {…}"
		if p.cur().kind == tComma && p.peek(1).kind == tIdent && isWord(p.peek(2), "in") {
			p.next()
			forTok = p.cur()
			continue
		}
		return qs
	}
}

// forBlock parses "( ( name{values} | (a, b){(…), (…)} )+ )".
func (p *parser) forBlock() []*Quantifier {
	p.next()
	var qs []*Quantifier
	for !p.abort {
		t := p.cur()
		switch {
		case t.kind == tRParen:
			if len(qs) == 0 {
				p.expected("a variable such as \"n{10, 100}\" in \"for (…)\"")
			}
			p.next()
			return qs
		case t.kind == tIdent && p.peek(1).kind == tLBrace:
			p.next()
			vals, sp := p.valueList(tRBrace, "the values of "+quote(t.text))
			p.vars[t.text] = true
			qs = append(qs, &Quantifier{Vars: []Ident{{t.text, t.span()}}, Values: [][]Value{vals},
				ValueSpans: []Span{sp}, Span: Span{t.start, p.prevEnd()}})
		case t.kind == tLParen:
			if q := p.sequence(); q != nil {
				qs = append(qs, q)
			}
		case t.kind == tEOF || t.kind == tIdent || t.kind == tAt:
			// The block was left open and the formula starts here.
			p.unclosed(")", "\"for (\"")
			return qs
		default:
			p.expected("a variable \"name{values}\" or a sequence \"(a, b){(…), (…)}\" in \"for (…)\"")
			p.next()
		}
	}
	return qs
}

// sequence parses a zipped sequence "(a, b){(1, 2), (2, 4)}": the k-th tuple
// holds the values of the k-th variable (SPL Tools semantics).
func (p *parser) sequence() *Quantifier {
	lp := p.next()
	q := &Quantifier{Zipped: true}
	for {
		t := p.cur()
		if t.kind != tIdent {
			p.expected("a variable name in the sequence \"(…)\"")
			if t.kind == tRParen {
				p.next()
			}
			break
		}
		p.next()
		q.Vars = append(q.Vars, Ident{t.text, t.span()})
		p.vars[t.text] = true
		if p.cur().kind == tComma {
			p.next()
			continue
		}
		if p.cur().kind == tRParen {
			p.next()
		} else {
			p.unclosed(")", "the variable sequence \"(\"")
		}
		break
	}
	names := make([]string, len(q.Vars))
	for i, v := range q.Vars {
		names[i] = v.Name
	}
	of := "the sequence (" + strings.Join(names, ", ") + ")"
	if p.cur().kind != tLBrace {
		p.expected("\"{\" with the value tuples of " + of)
		if len(q.Vars) == 0 {
			return nil
		}
		q.Span = Span{lp.start, p.prevEnd()}
		return q
	}
	p.next()
	for {
		if p.cur().kind != tLParen {
			p.expected("a value tuple \"(1, 2)\" in " + of)
			break
		}
		vals, sp := p.valueList(tRParen, "a value tuple of "+of)
		q.Values = append(q.Values, vals)
		q.ValueSpans = append(q.ValueSpans, sp)
		if p.cur().kind == tComma {
			p.next()
			continue
		}
		if p.cur().kind == tRBrace {
			p.next()
		} else {
			p.unclosed("}", "the value tuples of "+of)
		}
		break
	}
	q.Span = Span{lp.start, p.prevEnd()}
	return q
}

// valueList parses "{ v, … }" or "( v, … )" starting at the current opener.
func (p *parser) valueList(closer tokKind, of string) ([]Value, Span) {
	open := p.next()
	closeText := map[tokKind]string{tRBrace: "}", tRParen: ")"}[closer]
	// Sized by the commas ahead: appending grows a slice by a quarter at
	// a time, which for a set of a hundred thousand values allocates five
	// times its final size.
	vals := make([]Value, 0, p.commasBefore(closer)+1)
	if p.cur().kind == closer {
		p.expected("at least one value in " + of)
		p.next()
		return vals, Span{open.start, p.prevEnd()}
	}
	afterComma := false
	for {
		v, ok := p.value()
		if !ok {
			if afterComma {
				p.expected("a value after \",\" in " + of)
			} else {
				p.expected("a value (a number or a string) in " + of)
			}
			if p.cur().kind == closer {
				p.next()
			}
			break
		}
		vals = append(vals, v)
		if p.cur().kind == tComma {
			p.next()
			afterComma = true
			continue
		}
		if p.cur().kind == closer {
			p.next()
		} else {
			p.unclosed(closeText, of)
		}
		break
	}
	return vals, Span{open.start, p.prevEnd()}
}

// commasBefore counts the commas from the current token up to closer or
// to a token that cannot be in a value list.
func (p *parser) commasBefore(closer tokKind) int {
	n := 0
	for i := p.pos; i < len(p.toks); i++ {
		switch p.toks[i].kind {
		case tComma:
			n++
		case tInt, tReal, tMinus, tString:
		default:
			return n
		}
	}
	return n
}

// bareValues parses the brace-less list "1, 2, 3" (research-page sugar).
func (p *parser) bareValues(of string) ([]Value, Span) {
	start := p.cur().start
	var vals []Value
	for {
		v, ok := p.value()
		if !ok {
			if vals == nil {
				p.expected("\"{\" and " + of)
			} else {
				p.expected("a value after \",\" in " + of)
			}
			break
		}
		vals = append(vals, v)
		if p.cur().kind != tComma {
			break
		}
		p.next()
	}
	return vals, Span{start, p.prevEnd()}
}

// value parses a literal: INT, REAL (optionally negated) or a string.
func (p *parser) value() (Value, bool) {
	t := p.cur()
	switch t.kind {
	case tInt, tReal:
		p.next()
		return numValue(t, false, t.start), true
	case tMinus:
		if n := p.peek(1); isNumber(n) && n.start == t.end {
			p.next()
			p.next()
			return numValue(n, true, t.start), true
		}
	case tString, tDString:
		p.next()
		return Value{Kind: String, Str: t.val, Span: t.span()}, true
	}
	return Value{}, false
}

func numValue(t token, neg bool, start int) Value {
	sp := Span{start, t.end}
	if t.kind == tInt {
		n, _ := strconv.ParseInt(t.text, 10, 64) // overflow reported by the lexer
		if neg {
			n = -n
		}
		return Value{Kind: Int, Int: n, Float: float64(n), Span: sp}
	}
	f, _ := strconv.ParseFloat(t.text, 64)
	if neg {
		f = -f
	}
	return Value{Kind: Float, Float: f, Span: sp}
}

func numToken(t token) float64 {
	f, _ := strconv.ParseFloat(t.text, 64)
	return f
}
