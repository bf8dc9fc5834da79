package spl

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func labels(ins []Instance) string {
	var ls []string
	for _, in := range ins {
		ls = append(ls, in.Label())
	}
	return strings.Join(ls, " | ")
}

func expandOne(t *testing.T, src string) []Instance {
	t.Helper()
	f := onlyFormula(t, mustParse(t, src))
	ins, ds := Expand(f)
	if len(ds) != 0 {
		t.Fatalf("expand %q:%s", src, fmtDiags(ds))
	}
	for _, in := range ins {
		if in.Formula != f || in.Body != f.Body {
			t.Fatalf("instance does not point at its formula")
		}
	}
	return ins
}

func TestExpandOrder(t *testing.T) {
	cases := []struct{ src, want string }{
		{`SELF[g] <= x[g]`, ``},
		{`for (i{1,2} j{10,20,30}) x[g](i,j) <= y[g](i,j)`,
			`i=1, j=10 | i=1, j=20 | i=1, j=30 | i=2, j=10 | i=2, j=20 | i=2, j=30`},
		{"for j in {10, 20}\nfor i in {1, 2}\nx[g](i, j) <= y[g](i, j)",
			`j=10, i=1 | j=10, i=2 | j=20, i=1 | j=20, i=2`},
		{`for ((a,b){(1,2),(2,4)}) x[g](a,b) <= y[g](a,b)`, `a=1, b=2 | a=2, b=4`},
		{`for (i{1,2} (a,b){(1,2),(3,4)}) x[g](i,a,b) <= y[g](i,a,b)`,
			`i=1, a=1, b=3 | i=1, a=2, b=4 | i=2, a=1, b=3 | i=2, a=2, b=4`},
		{`for ((a,b,c){(1,2,3),(4,5,6),(7,8,9)} k{0}) x[g](a,b,c,k) <= y[g](a)`,
			`a=1, b=4, c=7, k=0 | a=2, b=5, c=8, k=0 | a=3, b=6, c=9, k=0`},
		{`for f in {"tiny1.xml", "big.xml"} m1[w](f) >= m2[w](f)`, `f="tiny1.xml" | f="big.xml"`},
		{`for x in {1.5, -2, 3e2} m1[w](x) >= m2[w](x)`, `x=1.5 | x=-2 | x=300.0`},
	}
	for _, tc := range cases {
		ins := expandOne(t, tc.src)
		if got := labels(ins); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
		if tc.want == "" && len(ins) != 1 {
			t.Errorf("%q: a formula without quantifiers has one instance, got %d", tc.src, len(ins))
		}
	}
}

func TestArgValuesAndRender(t *testing.T) {
	src := `for (n{1000, 2000} m{7}) SELF[gen](n, 5, m) <= quickstart.Search#linearSearch[gen](n) & SELF[gen]("lit", -1.5) <= x[gen]`
	ins := expandOne(t, src)
	if len(ins) != 2 {
		t.Fatalf("instances %d", len(ins))
	}
	cs := Comparisons(ins[1].Body)
	vals, err := ins[1].ArgValues(cs[0].Left)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 3 || vals[0].Int != 2000 || vals[1].Int != 5 || vals[2].Int != 7 || vals[0].Kind != Int {
		t.Errorf("values %+v", vals)
	}
	if vals[0].Span != spanOf(t, src, "2000", 0) || vals[1].Span != spanOf(t, src, "5", 0) {
		t.Errorf("bound values keep their declaration span: %v %v", vals[0].Span, vals[1].Span)
	}
	vals, err = ins[0].ArgValues(cs[1].Left)
	if err != nil || vals[0].Str != "lit" || vals[1].Float != -1.5 {
		t.Errorf("literals %+v %v", vals, err)
	}
	vals, err = ins[0].ArgValues(cs[1].Right)
	if err != nil || len(vals) != 0 {
		t.Errorf("no args: %v %v", vals, err)
	}
	if got := ins[0].Render(cs[0]); got != `SELF[gen](1000, 5, 7) <= quickstart.Search#linearSearch[gen](1000)` {
		t.Errorf("render %s", got)
	}
	if got := cs[0].String(); got != `SELF[gen](n, 5, m) <= quickstart.Search#linearSearch[gen](n)` {
		t.Errorf("string %s", got)
	}
	if got := ins[1].Label(); got != "n=2000, m=7" {
		t.Errorf("label %s", got)
	}
	if v, ok := ins[1].Lookup("m"); !ok || v.Int != 7 {
		t.Errorf("lookup %v %v", v, ok)
	}

	// An undeclared variable cannot be substituted.
	u, _ := Parse(`for n in {1} SELF[g](k) <= x[g](n)`)
	ins, _ = Expand(u.Formulas[0])
	if _, err := ins[0].ArgValues(Comparisons(ins[0].Body)[0].Left); err == nil || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("want error for k, got %v", err)
	}
	if got := ins[0].Render(Comparisons(ins[0].Body)[0]); got != "SELF[g](k) <= x[g](1)" {
		t.Errorf("render keeps unknown names: %s", got)
	}
	// Strings render quoted.
	ins = expandOne(t, `for f in {"big.xml"} m1[w](f) >= m2[w](f)`)
	if got := ins[0].Render(Comparisons(ins[0].Body)[0]); got != `m1[w]("big.xml") >= m2[w]("big.xml")` {
		t.Errorf("render %s", got)
	}
}

func TestMultiplier(t *testing.T) {
	ins := expandOne(t, `for (t{4}) SELF[g](t) <=(2*t*CPU, 3) x[g](t)`)
	c := Comparisons(ins[0].Body)[0]
	m, err := ins[0].Multiplier(c.Lambda.Left, map[string]float64{"CPU": 1.5})
	if err != nil || m != 12 {
		t.Errorf("left multiplier %v %v", m, err)
	}
	if _, err := ins[0].Multiplier(c.Lambda.Left, nil); err == nil {
		t.Errorf("unknown parameter CPU must be an error")
	}
	if m, err := ins[0].Multiplier(c.Lambda.Right, nil); err != nil || m != 3 {
		t.Errorf("right multiplier %v %v", m, err)
	}
}

func TestExpandProblems(t *testing.T) {
	if ins, ds := Expand(nil); ins != nil || ds != nil {
		t.Errorf("nil formula")
	}
	// Tuples of different lengths: cut to the shortest, reported.
	u, _ := Parse(`for ((a,b){(1,2,3),(4,5)}) x[g](a,b) <= y[g](a,b)`)
	ins, ds := Expand(u.Formulas[0])
	if labels(ins) != "a=1, b=4 | a=2, b=5" || len(ds) != 1 || ds[0].Code != CodeArityMismatch {
		t.Errorf("%s:%s", labels(ins), fmtDiags(ds))
	}
	// More variables than tuples: the variable stays unbound.
	u, _ = Parse(`for ((a,b){(1,2)}) x[g](a) <= y[g](a)`)
	ins, ds = Expand(u.Formulas[0])
	if labels(ins) != "a=1 | a=2" || len(ds) != 1 || ds[0].Span != (Span{8, 9}) {
		t.Errorf("%s:%s", labels(ins), fmtDiags(ds))
	}
	// A variable without values (after a syntax error) gives no instances.
	u, _ = Parse(`for n in {} x[g](n) <= y[g](n)`)
	ins, ds = Expand(u.Formulas[0])
	if len(ins) != 0 || len(ds) != 1 || ds[0].Code != CodeMissingValue {
		t.Errorf("%d instances:%s", len(ins), fmtDiags(ds))
	}
	// Too many instances.
	var b strings.Builder
	b.WriteString("for (")
	for i := 0; i < 6; i++ {
		b.WriteString("v" + string(rune('a'+i)) + "{1,2,3,4,5,6,7,8,9,10} ")
	}
	b.WriteString(") x[g](va,vb,vc,vd,ve,vf) <= y[g]")
	u, ds = Parse(b.String())
	if len(ds) != 0 {
		t.Fatalf("syntax errors:%s", fmtDiags(ds))
	}
	ins, ds = Expand(u.Formulas[0])
	if ins != nil || len(ds) != 1 || ds[0].Code != CodeTooManyInstances {
		t.Errorf("%d instances:%s", len(ins), fmtDiags(ds))
	}
	// Exactly at the limit is fine.
	u = mustParse(t, strings.Replace(b.String(), "vf{1,2,3,4,5,6,7,8,9,10}", "vf{1}", 1))
	if ins, ds = Expand(u.Formulas[0]); len(ins) != maxInstances || len(ds) != 0 {
		t.Errorf("%d instances:%s", len(ins), fmtDiags(ds))
	}
	if got := ins[len(ins)-1].Label(); got != "va=10, vb=10, vc=10, vd=10, ve=10, vf=1" {
		t.Errorf("last label %s", got)
	}
}

// Arithmetic in arguments (thesis style "(10 * n)"): precedence,
// parentheses, integers kept where exact, rendering with the values.
func TestArithmeticArguments(t *testing.T) {
	ins := expandOne(t, "for n in {10, 15} SELF[g](10 * n, (n + 1) / 2, n / 4, n - -1) <= x[g](n)")
	if len(ins) != 2 {
		t.Fatalf("%d instances", len(ins))
	}
	c := Comparisons(ins[0].Body)[0]
	if got := c.Left.String(); got != "SELF[g](10 * n, (n + 1) / 2, n / 4, n - -1)" {
		t.Errorf("formula text %q", got)
	}
	for i, want := range []string{"100 11/2 2.5 11", "150 8 3.75 16"} {
		vals, err := ins[i].ArgValues(c.Left)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for j, v := range vals {
			s := v.String()
			if j == 1 && v.Kind == Float {
				s = "11/2" // (10 + 1) / 2 is not an integer: a float
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("instance %d: %q, want %q", i, strings.Join(got, " "), want)
		}
	}
	if got := ins[1].Render(c); !strings.Contains(got, "SELF[g](10 * 15, (15 + 1) / 2, 15 / 4, 15 - -1)") {
		t.Errorf("render %q", got)
	}
	if _, err := expandOne(t, "for s in {\"a\"} SELF[g](s * 2) <= x[g](1)")[0].ArgValues(Comparisons(expandOne(t, "for s in {\"a\"} SELF[g](s * 2) <= x[g](1)")[0].Body)[0].Left); err == nil || !strings.Contains(err.Error(), "is a string") {
		t.Errorf("string in arithmetic: %v", err)
	}
	if _, ds := ParseAndLint("for n in {1} SELF[g](2 * m) <= x[g](n)"); len(ds) != 1 || ds[0].Code != CodeUndeclaredVariable {
		t.Errorf("undeclared variable in arithmetic:%s", fmtDiags(ds))
	}
	for _, bad := range []string{"SELF[g](2 *) <= x[g]", "SELF[g]((1 + 2) <= x[g]", "SELF[g](1 / 0 +) <= x[g]"} {
		if _, ds := Parse(bad); len(ds) == 0 {
			t.Errorf("%q parsed without a diagnostic", bad)
		}
	}
}

// Long is a value as a generator receives it: whole numbers up to a Java
// long; a fraction, a number beyond a long and a string are errors, never
// truncated or wrapped.
func TestValueLong(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want int64
		err  string
	}{
		{Value{Kind: Int, Int: math.MinInt64}, math.MinInt64, ""},
		{Value{Kind: Float, Float: 1e6}, 1000000, ""},
		{Value{Kind: Float, Float: -9223372036854775808}, math.MinInt64, ""},
		{Value{Kind: Float, Float: 9223372036854775808}, 0, "does not fit in a Java long"},
		{Value{Kind: Float, Float: 1e30}, 0, "1e+30 does not fit in a Java long"},
		{Value{Kind: Float, Float: -1e30}, 0, "does not fit in a Java long"},
		{Value{Kind: Float, Float: 2.5}, 0, "2.5 is not a whole number"},
		{Value{Kind: Float, Float: math.Inf(1)}, 0, "not a finite number"},
		{Value{Kind: String, Str: "a"}, 0, "is a string"},
	} {
		got, err := tc.v.Long()
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) || got != tc.want {
			t.Errorf("%v.Long() = %d, %v; want %d, %q", tc.v, got, err, tc.want, tc.err)
		}
	}
}

// Arithmetic that overflows a long is an *EvalError at the operation, at
// check time as at lint time; a zipped sequence's variables are
// evaluated together, not crossed; at most maxArgEvaluations bindings.
func TestArgumentOverflow(t *testing.T) {
	src := "for n in {4611686018427387904} SELF[g](1 + 2 * n) <= x[g](n)"
	parsed, _ := Parse(src) // Lint reports it too (errorCases)
	ins, _ := Expand(parsed.Formulas[0])
	_, err := ins[0].ArgValues(Comparisons(ins[0].Body)[0].Left)
	var ee *EvalError
	if !errors.As(err, &ee) || ee.At != spanOf(t, src, "2 * n", 0) || !strings.Contains(err.Error(), "argument 1 + 2 * n of SELF: 2 * 4611686018427387904 does not fit in a Java long") {
		t.Errorf("check time: %v", err)
	}
	if _, ds := ParseAndLint("for ((a, b){(1, 4611686018427387904), (4611686018427387904, 1)}) SELF[g](a * b) <= x[g](a, b)"); len(errorsOnly(ds)) != 0 {
		t.Errorf("a sequence's tuples were crossed:%s", fmtDiags(ds))
	}
	var b strings.Builder
	b.WriteString("for n in {")
	for i := range 200 {
		fmt.Fprintf(&b, "%d, ", i)
	}
	b.WriteString("200}, m in {")
	for i := range 200 {
		fmt.Fprintf(&b, "%d, ", i+1)
	}
	b.WriteString("9223372036854775807} SELF[g](n * m) <= x[g](n, m)")
	u, _ := Parse(b.String())
	seen := 0
	EachArgValue(u.Formulas[0], Comparisons(u.Formulas[0].Body)[0].Left.Args[0], func(Value, Instance, error) bool { seen++; return true })
	if seen != maxArgEvaluations {
		t.Errorf("%d evaluations of 201 × 201 bindings, want the cap %d", seen, maxArgEvaluations)
	}
}
