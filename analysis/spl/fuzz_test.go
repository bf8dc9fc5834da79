package spl

import "testing"

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
