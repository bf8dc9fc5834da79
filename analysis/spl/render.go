package spl

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The String methods render canonical source text that parses back to the
// same AST (spans aside). Canonical choices: logical operators are written
// "and", "or", "==>"; a revision without a project is written as the
// thesis suffix "pkg.Class#m@rev"; numbers are written in shortest form.

// String renders a value as SPL source: 100, 1.5, "big.xml".
func (v Value) String() string {
	switch v.Kind {
	case Int:
		return strconv.FormatInt(v.Int, 10)
	case Float:
		s := formatNumber(v.Float)
		if !strings.ContainsAny(s, ".eEnN") { // keep it a REAL when parsed back
			s += ".0"
		}
		return s
	case String:
		return quoteSPL(v.Str, '"')
	}
	return "?"
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// quoteSPL quotes s with the escapes the lexer understands.
func quoteSPL(s string, q rune) string {
	var b strings.Builder
	b.WriteRune(q)
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b.WriteByte(s[i]) // an invalid byte stays as it was read
				continue
			}
		}
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r == q:
				b.WriteRune('\\')
				b.WriteRune(r)
			case r < 0x20 || r == 0x7f:
				b.WriteString(`\` + strconv.FormatInt(int64(r)+01000, 8)[1:]) // three octal digits
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteRune(q)
	return b.String()
}

func (m *MethodRef) String() string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	writeLocation(&b, m.Project, m.Revision)
	switch {
	case m.Self || m.Name != "":
		b.WriteString(m.Name)
	default:
		b.WriteString(m.Class)
		if m.CtorArg != nil {
			b.WriteString("(" + quoteSPL(*m.CtorArg, '\'') + ")")
		}
		if m.Dotted && m.CtorArg == nil {
			b.WriteByte('.')
		} else {
			b.WriteByte('#')
		}
		b.WriteString(m.Method)
	}
	if m.Params != nil {
		b.WriteString("(" + strings.Join(m.Params, ", ") + ")")
	}
	if m.Project == "" && m.Revision != "" {
		b.WriteString("@" + m.Revision)
	}
	return b.String()
}

func writeLocation(b *strings.Builder, project, revision string) {
	if project == "" {
		return
	}
	b.WriteString(project)
	if revision != "" {
		b.WriteString("@" + revision)
	}
	b.WriteByte(':')
}

func (g *GeneratorRef) String() string {
	if g == nil {
		return ""
	}
	var b strings.Builder
	// A class-shaped generator keeps the prefix "@rev:": as a suffix,
	// "@rev:proj.Class" would read back as the thesis "proj.Class@rev"
	// (class proj, method Class).
	prefixRev := g.Project == "" && g.Revision != "" && g.Name == "" && !g.MaybeClass
	if prefixRev {
		b.WriteString("@" + g.Revision + ":")
	}
	writeLocation(&b, g.Project, g.Revision)
	switch {
	case g.Name != "":
		b.WriteString(g.Name)
	case g.MaybeClass:
		b.WriteString(g.Class + "." + g.Method)
	default:
		b.WriteString(g.Class)
		if g.CtorGiven {
			b.WriteByte('(')
			if g.CtorArg != nil {
				b.WriteString(quoteSPL(*g.CtorArg, '\''))
			}
			b.WriteByte(')')
		}
		if g.Method != "" {
			b.WriteString("#" + g.Method)
			if g.MethodArg != nil {
				b.WriteString("(" + quoteSPL(*g.MethodArg, '\'') + ")")
			}
		}
	}
	if g.Project == "" && g.Revision != "" && !prefixRev {
		b.WriteString("@" + g.Revision)
	}
	return b.String()
}

func (t *Term) String() string { return renderTerm(t, nil) }

// renderTerm renders t; sub, when non-nil, replaces variable arguments.
func renderTerm(t *Term, sub func(name string) (Value, bool)) string {
	if t == nil {
		return ""
	}
	var b strings.Builder
	if t.Scale != nil {
		b.WriteString(formatNumber(*t.Scale) + " * ")
	}
	if t.Metric != "" {
		b.WriteString(t.Metric + "(" + t.Method.String() + ")")
	} else {
		b.WriteString(t.Method.String())
	}
	if t.Generator != nil {
		b.WriteString("[" + t.Generator.String())
		if t.Factory != nil {
			b.WriteString(", " + t.Factory.String())
		}
		b.WriteString("]")
	}
	if t.ArgsGiven {
		parts := make([]string, len(t.Args))
		for i, a := range t.Args {
			switch {
			case a.Calc != nil:
				parts[i] = a.Calc.String(sub)
			case a.Value != nil:
				parts[i] = a.Value.String()
			case sub != nil:
				if v, ok := sub(a.Var); ok {
					parts[i] = v.String()
					break
				}
				parts[i] = a.Var
			default:
				parts[i] = a.Var
			}
		}
		b.WriteString("(" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}

func factorsString(fs []Factor) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		if f.Number != nil {
			parts[i] = formatNumber(*f.Number)
		} else {
			parts[i] = f.Ident
		}
	}
	return strings.Join(parts, "*")
}

// signString renders the sign with its lambda and interval, e.g. "<=(2, 3)".
func (c *Comparison) signString() string {
	s := c.Op.String()
	var parts []string
	if c.Lambda != nil {
		parts = append(parts, factorsString(c.Lambda.Left), factorsString(c.Lambda.Right))
	}
	if c.Interval != nil && c.Op == EQI {
		parts = append(parts, formatNumber(*c.Interval))
	}
	if len(parts) > 0 {
		s += "(" + strings.Join(parts, ", ") + ")"
	}
	return s
}

func (c *Comparison) String() string {
	return renderComparison(c, nil)
}

func renderComparison(c *Comparison, sub func(string) (Value, bool)) string {
	return renderTerm(c.Left, sub) + " " + c.signString() + " " + renderTerm(c.Right, sub)
}

func precedence(e Expr) int {
	if l, ok := e.(*Logic); ok {
		return int(2 - l.Op) // And 2, Or 1, Implies 0
	}
	return 3
}

func (l *Logic) String() string {
	var b strings.Builder
	writeExpr(&b, l)
	return b.String()
}

func (p *Paren) String() string {
	var b strings.Builder
	writeExpr(&b, p)
	return b.String()
}

// writeExpr renders into one builder: concatenating per node would be
// quadratic on long "a & b & c …" chains.
func writeExpr(b *strings.Builder, e Expr) {
	switch n := e.(type) {
	case *Logic:
		me := precedence(n)
		paren := func(x Expr, need bool) {
			if need {
				b.WriteByte('(')
				writeExpr(b, x)
				b.WriteByte(')')
			} else {
				writeExpr(b, x)
			}
		}
		paren(n.X, precedence(n.X) < me)
		b.WriteString(" " + n.Op.String() + " ")
		paren(n.Y, precedence(n.Y) <= me) // left-associative: an equal-rank right operand needs parentheses
	case *Paren:
		b.WriteByte('(')
		writeExpr(b, n.X)
		b.WriteByte(')')
	case nil:
	default:
		b.WriteString(e.String())
	}
}

func (q *Quantifier) String() string {
	if q.Zipped {
		names := make([]string, len(q.Vars))
		for i, v := range q.Vars {
			names[i] = v.Name
		}
		tuples := make([]string, len(q.Values))
		for i, vs := range q.Values {
			tuples[i] = "(" + valuesString(vs) + ")"
		}
		return "for ((" + strings.Join(names, ", ") + "){" + strings.Join(tuples, ", ") + "})"
	}
	parts := make([]string, len(q.Vars))
	for i, v := range q.Vars {
		var vs []Value
		if i < len(q.Values) {
			vs = q.Values[i]
		}
		parts[i] = v.Name + " in {" + valuesString(vs) + "}"
	}
	return "for " + strings.Join(parts, ", ")
}

func valuesString(vs []Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, ", ")
}

func (f *Formula) String() string {
	var parts []string
	for _, q := range f.Quantifiers {
		parts = append(parts, q.String())
	}
	if f.Body != nil {
		parts = append(parts, f.Body.String())
	}
	return strings.Join(parts, " ")
}

func (a *Alias) String() string {
	var s string
	if a.Kind == AliasGenerator {
		s = a.Generator.String()
	} else {
		s = a.Method.String()
	}
	if a.BoundGenerator != nil {
		s += "[" + a.BoundGenerator.String()
		if a.BoundFactory != nil {
			s += ", " + a.BoundFactory.String()
		}
		s += "]"
	}
	return a.Name + " := " + s
}

// Render renders c with this instance's variable values substituted into
// the arguments: SELF[gen](1000) <= quickstart.Search#linearSearch[gen](1000).
func (in Instance) Render(c *Comparison) string {
	return renderComparison(c, in.Lookup)
}
