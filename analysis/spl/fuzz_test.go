package spl

import (
	"math/big"
	"testing"
)

// fuzzSeeds are extra seeds beyond the table inputs; findings of earlier
// fuzzing runs are kept here as regression inputs.
var fuzzSeeds = []string{
	"",
	"for",
	"for (",
	"for ((",
	"for ((a",
	"for ((a,b){(",
	"x := ",
	"x := y[",
	"@",
	"@:",
	"a@b:c",
	"SELF[g]\n(",
	"'",
	"\"\\",
	"'\\7",
	"#",
	" #",
	"a #b",
	"((((",
	"))))",
	"a[g] =( b[g]",
	"a[g] =(1, b[g]",
	"a[g] <=(1*",
	"1 * 2 * a[g] <= b",
	"a[b[c[d]]] <= e",
	"for n in {1} for n in {2} a[g](n) <= b[g](n)",
	"w := a[b, c, d]",
	"\xff\xfe <= \x00",
	"for x in {'\\377', \"\xff\"} a[g](x) <= b[g](x)",
	"cpu(",
	"cpu((",
	"cpu(SELF",
	"cpu(SELF)[",
	"cpu(cpu(SELF))[g] <= x[g]",
	"2 * gc_time(a@v1:p.C#m(int))[g](1) = process_cpu(b)[g](1)",
	"cpu(\nSELF)[g] <= x[g]",
	// Arithmetic at the edge of a Java long (also in errorCases).
	"SELF[g](-9223372036854775807 - 1 - 1) <= x[g]",
	"for n in {-9223372036854775807} SELF[g](n * -1 / -1 * 2) <= x[g](n)",
	"for (n{9223372036854775807} m{-1}) SELF[g](n / m, (n + m) * m, n * n / n) <= x[g](n, m)",
	"for ((a, b){(1, 4611686018427387904), (4611686018427387904, 1)}) SELF[g](a * b * 2) <= x[g](a, b)",
	"for n in {1e308, -1e308, 4.9e-324} SELF[g](n * n, n / n, n + n, 1 / n) <= x[g](n)",
}

func FuzzParse(f *testing.F) {
	for _, tc := range validInputs {
		f.Add(tc.src)
	}
	for _, tc := range errorCases {
		f.Add(tc.src)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		u, ds := ParseAndLint(src)
		checkSpans(t, src, ds)
		checkUnit(t, src, u)
		for _, fo := range u.Formulas {
			if instanceCount(fo) <= 1000 {
				ins, ds := Expand(fo)
				checkSpans(t, src, ds)
				for _, in := range ins {
					for _, c := range Comparisons(in.Body) {
						_ = in.Render(c)
						_, _ = in.ArgValues(c.Left)
						checkExact(t, src, in, c.Left)
					}
				}
			}
		}
		// The other entry points see the same text.
		a, ds := ParseMethodAlias(src)
		checkSpans(t, src, ds)
		if a != nil && a.Method == nil {
			t.Fatalf("method alias without method")
		}
		a, ds = ParseGeneratorAlias(src)
		checkSpans(t, src, ds)
		if a != nil && a.Generator == nil {
			t.Fatalf("generator alias without generator")
		}
		_, ds = ParseMethod(src)
		checkSpans(t, src, ds)
		_, ds = ParseGenerator(src)
		checkSpans(t, src, ds)

		// Text without syntax errors renders to text that parses back to
		// the same rendering.
		if _, syn := Parse(src); len(errorsOnly(syn)) == 0 {
			r1 := renderUnit(u)
			u2, syn2 := Parse(r1)
			if len(errorsOnly(syn2)) != 0 && len(u.Formulas)+len(u.Aliases) > 0 {
				t.Fatalf("rendering of %q does not parse: %q%s", src, r1, fmtDiags(syn2))
			}
			if r2 := renderUnit(u2); len(u.Formulas)+len(u.Aliases) > 0 && r2 != r1 {
				t.Fatalf("rendering of %q not stable:\n%q\n%q", src, r1, r2)
			}
		}
	})
}

func instanceCount(f *Formula) int {
	n := 1
	for _, q := range f.Quantifiers {
		k := 0
		for _, vs := range q.Values {
			k = max(k, len(vs))
		}
		if !q.Zipped {
			for range q.Vars {
				n *= max(k, 1)
			}
		} else {
			n *= max(k, 1)
		}
		if n > 1000 {
			return n
		}
	}
	return n
}

// checkUnit asserts the AST invariants: spans inside the text, complete
// comparisons and terms.
func checkUnit(t *testing.T, src string, u *Unit) {
	t.Helper()
	in := func(what string, s Span) {
		if s.Start < 0 || s.End > len(src) || s.Start > s.End {
			t.Fatalf("%s span %v outside [0,%d] in %q", what, s, len(src), src)
		}
	}
	for _, a := range u.Aliases {
		in("alias", a.Span)
		in("alias name", a.NameSpan)
		if a.Method == nil && a.Generator == nil {
			t.Fatalf("alias %q without entity in %q", a.Name, src)
		}
		if a.Method != nil {
			in("alias method", a.Method.Span)
		}
		if a.Generator != nil {
			in("alias generator", a.Generator.Span)
		}
	}
	for _, f := range u.Formulas {
		in("formula", f.Span)
		for _, q := range f.Quantifiers {
			in("quantifier", q.Span)
			for _, v := range q.Vars {
				in("variable", v.Span)
			}
			for _, vs := range q.Values {
				for _, v := range vs {
					in("value", v.Span)
				}
			}
		}
		var walk func(e Expr)
		walk = func(e Expr) {
			switch n := e.(type) {
			case *Logic:
				if n.X == nil || n.Y == nil {
					t.Fatalf("incomplete logic in %q", src)
				}
				in("operator", n.OpSpan)
				walk(n.X)
				walk(n.Y)
			case *Paren:
				if n.X == nil {
					t.Fatalf("empty paren in %q", src)
				}
				in("paren", n.Span)
				walk(n.X)
			case *Comparison:
				in("comparison", n.Span)
				in("sign", n.OpSpan)
				for _, tm := range []*Term{n.Left, n.Right} {
					if tm == nil || tm.Method == nil {
						t.Fatalf("incomplete comparison in %q", src)
					}
					in("term", tm.Span)
					in("method", tm.Method.Span)
					if tm.Method.Name == "" && tm.Method.Method == "" {
						t.Fatalf("method without a name in %q", src)
					}
					if tm.Generator != nil {
						in("generator", tm.Generator.Span)
					}
					for _, a := range tm.Args {
						in("arg", a.Span)
					}
				}
				_ = n.String()
			case nil:
			default:
				t.Fatalf("unknown node %T", e)
			}
		}
		walk(f.Body)
		_ = f.String()
	}
}

// checkExact asserts that integer arithmetic in t's arguments is exact:
// an integer result equals the result computed without bounds, and an
// evaluation error comes with a span inside the text. Nothing wraps.
func checkExact(t *testing.T, src string, in Instance, term *Term) {
	t.Helper()
	for _, a := range term.Args {
		if a.Calc == nil {
			continue
		}
		v, err := in.calc(a.Calc)
		if ee, ok := err.(*EvalError); ok && (ee.At.Start < 0 || ee.At.End > len(src) || ee.At.Start > ee.At.End) {
			t.Fatalf("evaluation error span %v outside %q", ee.At, src)
		}
		if err != nil || v.Kind != Int {
			continue
		}
		if want, ok := exact(in, a.Calc); ok && (!want.IsInt() || want.Num().Cmp(big.NewInt(v.Int)) != 0) {
			t.Fatalf("%s in %q: %d, exactly %s", a.Calc.String(nil), src, v.Int, want.RatString())
		}
	}
}

// exact evaluates integer arithmetic without bounds; false when a float,
// a string or a division by zero is involved.
func exact(in Instance, c *Calc) (*big.Rat, bool) {
	switch {
	case c.Op == 0:
		v := c.Value
		if v == nil {
			b, ok := in.Lookup(c.Var)
			if !ok {
				return nil, false
			}
			v = &b
		}
		if v.Kind != Int {
			return nil, false
		}
		return new(big.Rat).SetInt64(v.Int), true
	}
	x, ok := exact(in, c.X)
	if !ok {
		return nil, false
	}
	y, ok := exact(in, c.Y)
	if !ok {
		return nil, false
	}
	switch c.Op {
	case '+':
		return x.Add(x, y), true
	case '-':
		return x.Sub(x, y), true
	case '*':
		return x.Mul(x, y), true
	}
	if y.Sign() == 0 {
		return nil, false
	}
	return x.Quo(x, y), true
}
