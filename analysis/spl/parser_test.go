package spl

import (
	"reflect"
	"strings"
	"testing"
)

// validInputs parse and check without errors or warnings; want is the
// canonical rendering of all aliases and formulas, one per line.
var validInputs = []struct {
	name, src, want string
}{
	// Issue example.
	{"issue", `for n in {100, 10000} SELF[gen](n) <= pkg.Class#m[gen](n)`,
		`for n in {100, 10000} SELF[gen](n) <= pkg.Class#m[gen](n)`},
	// SPL Tools test strings (anchors-perf §1.3).
	{"tools-lambda-products", `SELF[Generator1()] <= (1*2e+4*CPU, THREADS*28.12*3*4*BFLM) SELF[Generator1()]`,
		`SELF[Generator1()] <=(1*20000*CPU, THREADS*28.12*3*4*BFLM) SELF[Generator1()]`},
	{"tools-lambda-real", `for (j {100}) SELF[instanceGen1](j) <=(3,10e-3) other[instanceGen1](j)`,
		`for j in {100} SELF[instanceGen1](j) <=(3, 0.01) other[instanceGen1](j)`},
	{"tools-param-types", `SELF[Generator1()] <= pckg.AClass#method(java.lang.String stringName, java.lang.String, int idx, double[][][], java.lang.Integer[] arr)[Generator1()]`,
		`SELF[Generator1()] <= pckg.AClass#method(java.lang.String, java.lang.String, int, double[][][], java.lang.Integer[])[Generator1()]`},
	// Real-world @SPL formulas (anchors-perf §1.2).
	{"tools-eqi", `sort1[generator] = sort2[generator]`, `sort1[generator] = sort2[generator]`},
	{"tools-two-vars", `for (i{1} j{10}) mth[gen1](i,j) = mth[gen1](i,j)`,
		`for i in {1} for j in {10} mth[gen1](i, j) = mth[gen1](i, j)`},
	{"tools-int-args", `SELF[genString](2,2) <= hello4[genString](2,2)`, `SELF[genString](2, 2) <= hello4[genString](2, 2)`},
	// Original grammar: every sign, logic and precedence, intervals.
	{"signs", `a[g] < b[g] & a[g] > b[g] & a[g] <= b[g] & a[g] >= b[g] & a[g] == b[g] & a[g] = b[g]`,
		`a[g] < b[g] and a[g] > b[g] and a[g] <= b[g] and a[g] >= b[g] and a[g] == b[g] and a[g] = b[g]`},
	{"logic-precedence", `a[g] < b[g] | c[g] < d[g] & e[g] < f[g] ==> x[g] < y[g]`,
		`a[g] < b[g] or c[g] < d[g] and e[g] < f[g] ==> x[g] < y[g]`},
	{"parens", `(a[g] < b[g] | c[g] < d[g]) & e[g] < f[g]`, `(a[g] < b[g] or c[g] < d[g]) and e[g] < f[g]`},
	{"interval-only", `a[g] =(0.1) b[g]`, `a[g] =(0.1) b[g]`},
	{"interval-lambda", `a[g] =(2, 3) b[g]`, `a[g] =(2, 3) b[g]`},
	{"interval-lambda-delta", `a[g] =(2*x, 3, 0.1) b[g]`, `a[g] =(2*x, 3, 0.1) b[g]`},
	{"interval-ident-first", `a[g] =(CPU*2, 3) b[g]`, `a[g] =(CPU*2, 3) b[g]`},
	{"eq-lambda", `a[g] ==(1, 2) b[g]`, `a[g] ==(1, 2) b[g]`},
	{"zipped", `for ((a,b){(1,2),(2,4)}) x[g](a,b) <= y[g](b)`, `for ((a, b){(1, 2), (2, 4)}) x[g](a, b) <= y[g](b)`},
	{"block-mixed", `for (i{1,2} (a,b){(1,2),(2,4)} j{10}) x[g](i,a,b,j) <= y[g](i)`,
		`for i in {1, 2} for ((a, b){(1, 2), (2, 4)}) for j in {10} x[g](i, a, b, j) <= y[g](i)`},
	{"method-forms", `proj@rev:pkg.Class#m[g] <= @rev:pkg.C#m(int)[g] & p:a.B#c[g] <= pkg.C('ctor')#m()[g]`,
		`proj@rev:pkg.Class#m[g] <= pkg.C#m(int)@rev[g] and p:a.B#c[g] <= pkg.C('ctor')#m()[g]`},
	{"generator-forms", `SELF[pkg.Gen('s')#make('t')] <= SELF[pkg.Gen('s')] & SELF[Gen#make('x')] <= SELF[project:pkg.Class] & SELF[@rev:proj.Class] <= SELF[THIS@HEAD:main.Generator()] & SELF[Gen('p')] <= SELF[Gen()#m()]`,
		`SELF[pkg.Gen('s')#make('t')] <= SELF[pkg.Gen('s')] and SELF[Gen#make('x')] <= SELF[project:pkg.Class] and SELF[@rev:proj.Class] <= SELF[THIS@HEAD:main.Generator()] and SELF[Gen('p')] <= SELF[Gen()#m]`},
	{"string-escapes", `SELF[Gen('a\'b\\c\n\101')] <= x[g]`, `SELF[Gen('a\'b\\c\nA')] <= x[g]`},
	// Thesis dialect.
	// Thesis Listing 3.1: two Java string literals concatenated, so "}" and
	// "SELF" touch.
	{"thesis-3.1", "for i in { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 }" + "SELF[getData](i) <= java.util.Arrays#sort[getData](i)",
		"for i in {10, 20, 30, 40, 50, 60, 70, 80, 90, 100} SELF[getData](i) <= java.util.Arrays#sort[getData](i)"},
	{"listing-3", `THIS = HashMap.get()`, `THIS = HashMap.get()`},
	{"listing-4", `m1 := org.jdom2.input.SAXBuilder.build@6a49ef6
m2 := org.jdom2.input.SAXBuilder.build@4e27535
w := saxBuilderTest
# f denotes the workload parameter
# here the workload parameter is an XML file
# passed as second argument to saxBuilderTest
for f in { "tiny1.xml", "tiny2.xml", "big.xml" }
m1[w](f) >= m2[w](f)`,
		`m1 := org.jdom2.input.SAXBuilder.build@6a49ef6
m2 := org.jdom2.input.SAXBuilder.build@4e27535
w := saxBuilderTest
for f in {"tiny1.xml", "tiny2.xml", "big.xml"} m1[w](f) >= m2[w](f)`},
	{"listing-5", `history := org.jdom2.Verifier.checkElementName@JDOM-2.0.0
current := org.jdom2.Verifier.checkElementName@HEAD
copy := copyString
w := elementNameTest
# l denotes the workload parameter
# here the workload parameter is the length
# of the element name that is being checked
for l in { 5, 10, 50, 100, 500, 1000 }
10 * current[w](l) <= copy[w](l) and
current[w](l) <= 1.05 * history[w](l)`,
		`history := org.jdom2.Verifier.checkElementName@JDOM-2.0.0
current := org.jdom2.Verifier.checkElementName@HEAD
copy := copyString
w := elementNameTest
for l in {5, 10, 50, 100, 500, 1000} 10 * current[w](l) <= copy[w](l) and current[w](l) <= 1.05 * history[w](l)`},
	{"listing-9", `arrayList := ArrayList.contains[randomSearch,
factoryArrayList]
linkedList := LinkedList.contains[randomSearch,
factoryLinkedList]
for i in { 10, 100, 500, 1000 }
linkedList(i) >= arrayList(i)`,
		`arrayList := ArrayList.contains[randomSearch, factoryArrayList]
linkedList := LinkedList.contains[randomSearch, factoryLinkedList]
for i in {10, 100, 500, 1000} linkedList(i) >= arrayList(i)`},
	{"thesis-keywords", `SELF[w] <= a[w] and a[w] <= b[w] or b[w] <= c[w] implies SELF[w] <= c[w]`,
		`SELF[w] <= a[w] and a[w] <= b[w] or b[w] <= c[w] ==> SELF[w] <= c[w]`},
	{"several-for", "for i in {1, 2}\nfor j in {3}\nSELF[w](i, j) <= x[w](j, i)", `for i in {1, 2} for j in {3} SELF[w](i, j) <= x[w](j, i)`},
	{"for-comma", `for i in {1, 2}, j in {3} SELF[w](i, j) <= x[w](i, j)`, `for i in {1, 2} for j in {3} SELF[w](i, j) <= x[w](i, j)`},
	{"for-braceless", `for n in 100, 200, 500, 1000 SELF(n) < java.util.Arrays#sort(n)`,
		`for n in {100, 200, 500, 1000} SELF(n) < java.util.Arrays#sort(n)`},
	{"scale-right", `for n in {1} SELF[w](n) <= x[w](n) * 1.5`, `for n in {1} SELF[w](n) <= 1.5 * x[w](n)`},
	{"scale-both-sides", `2 * SELF[w] <= 3 * x[w]`, `2 * SELF[w] <= 3 * x[w]`},
	{"gen-dotted-and-hash", `SELF[pkg.Class.gen] <= SELF[pkg.Class#gen]`, `SELF[pkg.Class.gen] <= SELF[pkg.Class#gen]`},
	{"args-literals", `for f in {"a.xml"} SELF[w](f, 10, -3, 1.5, "x\"y", 'z') <= x[w](f)`,
		`for f in {"a.xml"} SELF[w](f, 10, -3, 1.5, "x\"y", "z") <= x[w](f)`},
	{"self-revision", `SELF[w] <= SELF@v1.0[w]`, `SELF[w] <= SELF@v1.0[w]`},
	{"dotted-revision-params", `SELF[w] <= pkg.C.m@abc123(int)[w]`, `SELF[w] <= pkg.C.m(int)@abc123[w]`},
	{"factory-term", `for i in {1} SELF[gen, factory](i) <= x[gen, factory](i)`, `for i in {1} SELF[gen, factory](i) <= x[gen, factory](i)`},
	{"annotation-concat", "for i in {10,20}" + "SELF[getData](i) <= 1.05 * java.util.Arrays#sort[getData](i)",
		"for i in {10, 20} SELF[getData](i) <= 1.05 * java.util.Arrays#sort[getData](i)"},
	{"trailing-comment", "SELF[w] <= x[w] # faster than x\n# done", `SELF[w] <= x[w]`},
	{"spaced-hash-is-separator", `SELF[w] <= pkg.Class #m[w]`, `SELF[w] <= pkg.Class#m[w]`},
	{"two-formulas", "SELF[w] <= x[w]\nSELF[w] <= y[w]", "SELF[w] <= x[w]\nSELF[w] <= y[w]"},
	{"unicode-ident", `SELF[größe] <= Ärger#über[größe]`, `SELF[größe] <= Ärger#über[größe]`},
	{"dollar-ident", `SELF[w] <= pkg.Outer$Inner#m[w]`, `SELF[w] <= pkg.Outer$Inner#m[w]`},
	{"mixed-dialects", `for (i{1,2}) for s in {"a"} SELF[g](i, s) <= x[g](i, s) and y[g](i) >= 1.05 * z[pkg.G('c')#make('d')](i) | THIS = HashMap.get()`,
		`for i in {1, 2} for s in {"a"} SELF[g](i, s) <= x[g](i, s) and y[g](i) >= 1.05 * z[pkg.G('c')#make('d')](i) or THIS = HashMap.get()`},
	{"crlf", "w := gen\r\nfor n in {1}\r\nSELF[w](n) <= x[w](n)\r\n", "w := gen\nfor n in {1} SELF[w](n) <= x[w](n)"},
	{"metric-thesis", `for n in {10} cpu(SELF)[w](n) <= 1.1 * cpu(pkg.C.m)[w](n)`, `for n in {10} cpu(SELF)[w](n) <= 1.1 * cpu(pkg.C.m)[w](n)`},
	{"metric-original", `for (n{10}) alloc(SELF)[w](n) <= alloc(pkg.C#m(int[]))[w](n)`, `for n in {10} alloc(SELF)[w](n) <= alloc(pkg.C#m(int[]))[w](n)`},
	{"metric-or-method", `for n in {10} SELF[w](n) <= cpu(n) & alloc(int)[w] <= wall(x)[w] & cpu_share(SELF)[w] >= cpu_share(x)[w]`,
		`for n in {10} SELF[w](n) <= cpu(n) and alloc(int)[w] <= wall(x)[w] and cpu_share(SELF)[w] >= cpu_share(x)[w]`},
}

func renderUnit(u *Unit) string {
	var lines []string
	for _, a := range u.Aliases {
		lines = append(lines, a.String())
	}
	for _, f := range u.Formulas {
		lines = append(lines, f.String())
	}
	return strings.Join(lines, "\n")
}

func TestParseValid(t *testing.T) {
	for _, tc := range validInputs {
		t.Run(tc.name, func(t *testing.T) {
			u := mustParse(t, tc.src)
			if got := renderUnit(u); got != tc.want {
				t.Errorf("render:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestRoundTrip: the canonical rendering parses back to the same rendering
// and the same structure (spans aside).
func TestRoundTrip(t *testing.T) {
	for _, tc := range validInputs {
		t.Run(tc.name, func(t *testing.T) {
			u1 := mustParse(t, tc.src)
			r1 := renderUnit(u1)
			u2 := mustParse(t, r1)
			if r2 := renderUnit(u2); r2 != r1 {
				t.Fatalf("not stable:\n 1st %s\n 2nd %s", r1, r2)
			}
			if len(u1.Formulas) != len(u2.Formulas) || len(u1.Aliases) != len(u2.Aliases) {
				t.Fatalf("item counts differ")
			}
			for i := range u1.Formulas {
				c1, c2 := Comparisons(u1.Formulas[i].Body), Comparisons(u2.Formulas[i].Body)
				if len(c1) != len(c2) {
					t.Fatalf("comparison counts differ")
				}
				for k := range c1 {
					for _, pair := range [][2]*Term{{c1[k].Left, c2[k].Left}, {c1[k].Right, c2[k].Right}} {
						if a, b := mNoSpan(pair[0].Method), mNoSpan(pair[1].Method); !reflect.DeepEqual(a, b) {
							t.Errorf("method differs: %+v vs %+v", a, b)
						}
						if a, b := gNoSpan(pair[0].Generator), gNoSpan(pair[1].Generator); !reflect.DeepEqual(a, b) {
							t.Errorf("generator differs: %+v vs %+v", a, b)
						}
					}
				}
			}
		})
	}
}

func TestOriginalToolTestStrings(t *testing.T) {
	t.Run("lambda products", func(t *testing.T) {
		c := onlyComparison(t, `SELF[Generator1()] <= (1*2e+4*CPU, THREADS*28.12*3*4*BFLM) SELF[Generator1()]`)
		if c.Op != LE || c.Lambda == nil {
			t.Fatalf("op %v lambda %v", c.Op, c.Lambda)
		}
		l := c.Lambda
		if len(l.Left) != 3 || *l.Left[0].Number != 1 || *l.Left[1].Number != 2e4 || l.Left[2].Ident != "CPU" {
			t.Errorf("left lambda %+v", l.Left)
		}
		if len(l.Right) != 5 || l.Right[0].Ident != "THREADS" || *l.Right[1].Number != 28.12 || l.Right[4].Ident != "BFLM" {
			t.Errorf("right lambda %+v", l.Right)
		}
		g := gNoSpan(c.Left.Generator)
		if !reflect.DeepEqual(g, GeneratorRef{Class: "Generator1", CtorGiven: true}) {
			t.Errorf("generator %+v", g)
		}
		if !c.Left.Method.Self || c.Left.ArgsGiven {
			t.Errorf("left term %+v", c.Left)
		}
	})
	t.Run("lambda with real", func(t *testing.T) {
		u := mustParse(t, `for (j {100}) SELF[instanceGen1](j) <=(3,10e-3) other[instanceGen1](j)`)
		f := onlyFormula(t, u)
		if len(f.Quantifiers) != 1 || f.Quantifiers[0].Vars[0].Name != "j" || f.Quantifiers[0].Values[0][0].Int != 100 {
			t.Fatalf("quantifiers %+v", f.Quantifiers)
		}
		c := Comparisons(f.Body)[0]
		if *c.Lambda.Left[0].Number != 3 || *c.Lambda.Right[0].Number != 10e-3 {
			t.Errorf("lambda %+v", c.Lambda)
		}
		if c.Right.Method.Name != "other" || c.Right.Generator.Name != "instanceGen1" || c.Right.Args[0].Var != "j" {
			t.Errorf("right %+v", c.Right)
		}
	})
	t.Run("parameter types", func(t *testing.T) {
		c := onlyComparison(t, `SELF[Generator1()] <= pckg.AClass#method(java.lang.String stringName, java.lang.String, int idx, double[][][], java.lang.Integer[] arr)[Generator1()]`)
		want := MethodRef{Class: "pckg.AClass", Method: "method",
			Params: []string{"java.lang.String", "java.lang.String", "int", "double[][][]", "java.lang.Integer[]"}}
		if got := mNoSpan(c.Right.Method); !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
	})
	t.Run("method declaration with constructor string", func(t *testing.T) {
		m, ds := ParseMethod(`cz.cuni.mff.d3s.spl.tools.basictests.classes.IntegerSumCalculator('ignored')#calculateSumOfIntegers()`)
		if len(ds) != 0 {
			t.Fatalf("diags:%s", fmtDiags(ds))
		}
		want := MethodRef{Class: "cz.cuni.mff.d3s.spl.tools.basictests.classes.IntegerSumCalculator", CtorArg: strp("ignored"),
			Method: "calculateSumOfIntegers", Params: []string{}}
		if got := mNoSpan(m); !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
		// The same text is a valid generator too.
		g, ds := ParseGenerator(`cz.cuni.mff.d3s.spl.tools.basictests.classes.IntegerSumCalculator('ignored')#calculateSumOfIntegers()`)
		if len(ds) != 0 || g.Method != "calculateSumOfIntegers" || *g.CtorArg != "ignored" || !g.CtorGiven || g.MethodArg != nil {
			t.Errorf("generator %+v %s", g, fmtDiags(ds))
		}
	})
	t.Run("generator with revision prefix", func(t *testing.T) {
		src := `@first:cz.cuni.mff.d3s.spl.tools.basictests.generators.IntegerGeneratorStaticFactory#factory('100')`
		g, ds := ParseGenerator(src)
		if len(ds) != 0 {
			t.Fatalf("diags:%s", fmtDiags(ds))
		}
		want := GeneratorRef{Revision: "first", Class: "cz.cuni.mff.d3s.spl.tools.basictests.generators.IntegerGeneratorStaticFactory",
			Method: "factory", MethodArg: strp("100")}
		if got := gNoSpan(g); !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
		if g.Span != (Span{0, len(src)}) {
			t.Errorf("span %v", g.Span)
		}
	})
}

func TestAliasEntryPoints(t *testing.T) {
	methods := []struct {
		src  string
		name string
		want MethodRef
	}{
		{"sort1=THIS@HEAD:main.Method#sort1", "sort1", MethodRef{Project: "THIS", Revision: "HEAD", Class: "main.Method", Method: "sort1"}},
		{"mth=THIS:main.Method#sortLong", "mth", MethodRef{Project: "THIS", Class: "main.Method", Method: "sortLong"}},
		{"hello4 = individual_project.HelloWorld#hello4(String)", "hello4",
			MethodRef{Class: "individual_project.HelloWorld", Method: "hello4", Params: []string{"String"}}},
		{"a=@rev:pkg.C#m(int[] xs, long)", "a", MethodRef{Revision: "rev", Class: "pkg.C", Method: "m", Params: []string{"int[]", "long"}}},
		{"b = Local#m", "b", MethodRef{Class: "Local", Method: "m"}},
		{"c := pkg.C.m", "c", MethodRef{Class: "pkg.C", Method: "m", Dotted: true}},
	}
	for _, tc := range methods {
		a, ds := ParseMethodAlias(tc.src)
		if len(ds) != 0 || a == nil {
			t.Errorf("%q: %v%s", tc.src, a, fmtDiags(ds))
			continue
		}
		if a.Name != tc.name || a.Kind != AliasMethod || a.Generator != nil || a.NameSpan != spanOf(t, tc.src, tc.name, 0) {
			t.Errorf("%q: alias %+v", tc.src, a)
		}
		if got := mNoSpan(a.Method); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.src, got, tc.want)
		}
		if a.Span != (Span{0, len(tc.src)}) {
			t.Errorf("%q: span %v", tc.src, a.Span)
		}
	}
	gens := []struct {
		src  string
		want GeneratorRef
	}{
		{"generator=THIS@HEAD:main.Generator()", GeneratorRef{Project: "THIS", Revision: "HEAD", Class: "main.Generator", CtorGiven: true}},
		{"gen1=SPL:spl.LongUniform('-10;10')#generate()", GeneratorRef{Project: "SPL", Class: "spl.LongUniform", CtorGiven: true, CtorArg: strp("-10;10"), Method: "generate"}},
		{"genString = cs.cuni.mff.spl.StringGenerator()#generate()", GeneratorRef{Class: "cs.cuni.mff.spl.StringGenerator", CtorGiven: true, Method: "generate"}},
		{"g=pkg.Gen('s')#make('t')", GeneratorRef{Class: "pkg.Gen", CtorGiven: true, CtorArg: strp("s"), Method: "make", MethodArg: strp("t")}},
		{"g=pkg.Gen('s')", GeneratorRef{Class: "pkg.Gen", CtorGiven: true, CtorArg: strp("s")}},
		{"g=Gen#make('x')", GeneratorRef{Class: "Gen", Method: "make", MethodArg: strp("x")}},
		{"g=project:pkg.Class", GeneratorRef{Project: "project", Class: "pkg.Class"}},
		{"g=@rev:proj.Class", GeneratorRef{Revision: "rev", Class: "proj.Class"}},
		{"g=other", GeneratorRef{Name: "other"}},
		{"g=pkg.Class.gen", GeneratorRef{Class: "pkg.Class", Method: "gen", MaybeClass: true}},
		{"g=Gen('')", GeneratorRef{Class: "Gen", CtorGiven: true, CtorArg: strp("")}},
	}
	for _, tc := range gens {
		a, ds := ParseGeneratorAlias(tc.src)
		if len(ds) != 0 || a == nil {
			t.Errorf("%q: %v%s", tc.src, a, fmtDiags(ds))
			continue
		}
		if a.Name != "g" && a.Name != "generator" && a.Name != "gen1" && a.Name != "genString" {
			t.Errorf("%q: name %q", tc.src, a.Name)
		}
		if a.Kind != AliasGenerator || a.Method != nil {
			t.Errorf("%q: kind %v method %v", tc.src, a.Kind, a.Method)
		}
		if got := gNoSpan(a.Generator); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.src, got, tc.want)
		}
	}
}

func TestAliasEntryPointErrors(t *testing.T) {
	cases := []struct {
		src, code, msg string
		span           func(src string) Span
		method         bool
	}{
		{"", CodeEmpty, "empty", func(string) Span { return Span{0, 0} }, true},
		{"=pkg.C#m", CodeUnexpectedToken, `expected an alias name followed by "=" but found "="`, func(s string) Span { return Span{0, 1} }, true},
		{"a pkg.C#m", CodeUnexpectedToken, `expected "=" after the alias name "a" but found "pkg"`, func(s string) Span { return Span{2, 5} }, true},
		{"a=", CodeUnexpectedEnd, `expected a method such as pkg.Class#method after "a=" but found end of input`, eofSpan, true},
		{"a=pkg.C#m extra", CodeUnexpectedToken, `expected the end of the alias declaration but found "extra"`, func(s string) Span { return Span{10, 15} }, true},
		{"a=pkg.C#m(int", CodeUnclosed, `expected ")" to close the parameter types of "pkg.C#m(" but found end of input`, eofSpan, true},
		{"g=pkg.Gen('s'", CodeUnclosed, `expected ")" to close the constructor argument`, eofSpan, false},
		{"g=pkg.Gen#", CodeUnexpectedEnd, `expected a generator method name after "#" but found end of input`, eofSpan, false},
		{"g=@HEAD pkg.Gen", CodeUnexpectedToken, `expected ":" and a class name after "@HEAD" but found "pkg"`, func(s string) Span { return Span{8, 11} }, false},
	}
	for _, tc := range cases {
		var ds []Diagnostic
		if tc.method {
			_, ds = ParseMethodAlias(tc.src)
		} else {
			_, ds = ParseGeneratorAlias(tc.src)
		}
		checkSpans(t, tc.src, ds)
		if len(ds) == 0 {
			t.Errorf("%q: no diagnostics", tc.src)
			continue
		}
		d := ds[0]
		if d.Code != tc.code || !strings.Contains(d.Message, tc.msg) || d.Span != tc.span(tc.src) || d.Severity != Error {
			t.Errorf("%q: got %v %s %q, want %v %s %q", tc.src, d.Span, d.Code, d.Message, tc.span(tc.src), tc.code, tc.msg)
		}
	}
}

func TestMethodEntityForms(t *testing.T) {
	cases := []struct {
		src  string
		want MethodRef
	}{
		{"SELF", MethodRef{Self: true, Name: "SELF"}},
		{"THIS", MethodRef{Self: true, Name: "THIS"}},
		{"THIS@HEAD", MethodRef{Self: true, Name: "THIS", Revision: "HEAD"}},
		{"alias", MethodRef{Name: "alias"}},
		{"pkg.Class#m", MethodRef{Class: "pkg.Class", Method: "m"}},
		{"Class#m", MethodRef{Class: "Class", Method: "m"}},
		{"HashMap.get()", MethodRef{Class: "HashMap", Method: "get", Dotted: true, Params: []string{}}},
		{"org.jdom2.Verifier.checkElementName@JDOM-2.0.0", MethodRef{Class: "org.jdom2.Verifier", Method: "checkElementName", Dotted: true, Revision: "JDOM-2.0.0"}},
		{"org.jdom2.input.SAXBuilder.build@6a49ef6", MethodRef{Class: "org.jdom2.input.SAXBuilder", Method: "build", Dotted: true, Revision: "6a49ef6"}},
		{"pkg.C#m@4e27535", MethodRef{Class: "pkg.C", Method: "m", Revision: "4e27535"}},
		{"project:pkg.Class#m", MethodRef{Project: "project", Class: "pkg.Class", Method: "m"}},
		{"project@rev:pkg.Class#m", MethodRef{Project: "project", Revision: "rev", Class: "pkg.Class", Method: "m"}},
		{"@rev:pkg.Class#m", MethodRef{Revision: "rev", Class: "pkg.Class", Method: "m"}},
		{"pkg.Class('c\\'s')#m(int)", MethodRef{Class: "pkg.Class", CtorArg: strp("c's"), Method: "m", Params: []string{"int"}}},
		{"pkg.Class()#m", MethodRef{Class: "pkg.Class", Method: "m"}},
		{"pkg.Class.gen(int)", MethodRef{Class: "pkg.Class", Method: "gen", Dotted: true, Params: []string{"int"}}},
		{"a.b.C#m(java.util.List list, T[][] t)", MethodRef{Class: "a.b.C", Method: "m", Params: []string{"java.util.List", "T[][]"}}},
		{"pkg.Class#and", MethodRef{Class: "pkg.Class", Method: "and"}},
	}
	for _, tc := range cases {
		m, ds := ParseMethod(tc.src)
		if len(ds) != 0 {
			t.Errorf("%q:%s", tc.src, fmtDiags(ds))
			continue
		}
		if got := mNoSpan(m); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.src, got, tc.want)
		}
		if m.Span != (Span{0, len(tc.src)}) {
			t.Errorf("%q: span %v", tc.src, m.Span)
		}
		// Rendering parses back to the same entity.
		m2, ds := ParseMethod(m.String())
		if len(ds) != 0 || !reflect.DeepEqual(mNoSpan(m2), tc.want) {
			t.Errorf("%q: rendering %q does not round-trip:%s", tc.src, m.String(), fmtDiags(ds))
		}
	}
}

// TestTermParenthesesRule pins how "(…)" after a method in a term is read:
// parameter types or generator arguments.
func TestTermParenthesesRule(t *testing.T) {
	cases := []struct {
		src        string
		params     []string
		argsGiven  bool
		args       int
		undeclared bool
	}{
		{"THIS = HashMap.get()", nil, true, 0, false},
		{"for i in {1} linkedList(i) >= arrayList(i)", nil, true, 1, false},
		{"SELF = HashMap.get(Object)", []string{"Object"}, false, 0, false},
		{"SELF = HashMap.get(int)", []string{"int"}, false, 0, false},
		{"SELF = x.m(java.lang.String s)", []string{"java.lang.String"}, false, 0, false},
		{"SELF[g] = x.m()[g]", []string{}, false, 0, false},
		{"SELF[g] = x.m(size)[g]", []string{"size"}, false, 0, false},
		{"SELF = x.m(10, k)", nil, true, 2, true},
		{"SELF = x.m(k)", nil, true, 1, true},
		{"SELF = x.m(\"f\")", nil, true, 1, false},
	}
	for _, tc := range cases {
		u, ds := ParseAndLint(tc.src)
		if len(errorsOnly(ds)) > 0 != tc.undeclared {
			t.Errorf("%q:%s", tc.src, fmtDiags(ds))
		}
		if tc.undeclared && (len(ds) == 0 || ds[0].Code != CodeUndeclaredVariable) {
			t.Errorf("%q: want undeclared-variable:%s", tc.src, fmtDiags(ds))
		}
		r := Comparisons(u.Formulas[0].Body)[0].Right
		if !reflect.DeepEqual(r.Method.Params, tc.params) || r.ArgsGiven != tc.argsGiven || len(r.Args) != tc.args {
			t.Errorf("%q: params %#v argsGiven %v args %v", tc.src, r.Method.Params, r.ArgsGiven, r.Args)
		}
	}
}

func TestThesisAliasViews(t *testing.T) {
	src := `w := saxBuilderTest
m1 := org.jdom2.input.SAXBuilder.build@6a49ef6
g := pkg.Gen('s')#make('t')
x := main.Generator()
me := SELF
typed := pkg.C#m(int)
bound := ArrayList.contains[randomSearch, factoryArrayList]
SELF[w] <= m1[g] & typed[x] <= me[w] & bound <= SELF[w]`
	u := mustParse(t, src)
	if len(u.Aliases) != 7 {
		t.Fatalf("aliases: %d", len(u.Aliases))
	}
	byName := map[string]*Alias{}
	for _, a := range u.Aliases {
		byName[a.Name] = a
	}
	if a := byName["w"]; a.Kind != AliasEither || a.Method.Name != "saxBuilderTest" || a.Generator.Name != "saxBuilderTest" {
		t.Errorf("w: %+v", a)
	}
	if a := byName["m1"]; a.Kind != AliasEither || a.Method.Method != "build" || a.Generator.Method != "build" || !a.Generator.MaybeClass || a.Generator.Revision != "6a49ef6" {
		t.Errorf("m1: %+v gen %+v", a, a.Generator)
	}
	if a := byName["g"]; a.Kind != AliasGenerator || a.Method != nil || a.Generator.Method != "make" || *a.Generator.MethodArg != "t" {
		t.Errorf("g: %+v", a)
	}
	if a := byName["x"]; a.Kind != AliasEither || a.Generator.Class != "main.Generator" || !a.Generator.CtorGiven || a.Generator.Method != "" {
		t.Errorf("x: %+v gen %+v", a, a.Generator)
	}
	if a := byName["me"]; a.Kind != AliasMethod || a.Generator != nil || !a.Method.Self {
		t.Errorf("me: %+v", a)
	}
	if a := byName["typed"]; a.Kind != AliasMethod || a.Generator != nil {
		t.Errorf("typed: %+v", a)
	}
	if a := byName["bound"]; a.Kind != AliasMethod || a.BoundGenerator.Name != "randomSearch" || a.BoundFactory.Name != "factoryArrayList" {
		t.Errorf("bound: %+v", a)
	}
	if a := byName["bound"]; a.Span != spanOf(t, src, "bound := ArrayList.contains[randomSearch, factoryArrayList]", 0) {
		t.Errorf("bound span %v", a.Span)
	}
}

func TestNumbers(t *testing.T) {
	u := mustParse(t, `for (n{7} x{1}) a[g](n, x) =(1.5*2e+4*10e-3*1E2, 3, 0.05) b[g](n, x)`)
	c := Comparisons(u.Formulas[0].Body)[0]
	want := []float64{1.5, 2e4, 10e-3, 1e2}
	for i, f := range c.Lambda.Left {
		if *f.Number != want[i] {
			t.Errorf("factor %d = %v, want %v", i, *f.Number, want[i])
		}
	}
	if *c.Interval != 0.05 {
		t.Errorf("interval %v", *c.Interval)
	}
	// "1." is INT then ".", ".5" is "." then INT: neither is a number.
	toks, _ := lex("1. .5 1.5 2e 2e+ 2e+4 07")
	got := ""
	for _, tk := range toks {
		got += tk.text + "|"
	}
	if got != "1|.|.|5|1.5|2|e|2|e|+|2e+4|07||" {
		t.Errorf("tokens %s", got)
	}
	// Quantifier values: ints, floats, negatives, strings.
	u = mustParse(t, `for v in {1, 2.5, -3, 4e1} SELF[g](v) <= x[g](v)`)
	vals := u.Formulas[0].Quantifiers[0].Values[0]
	if vals[0].Kind != Int || vals[0].Int != 1 || vals[1].Kind != Float || vals[1].Float != 2.5 ||
		vals[2].Kind != Int || vals[2].Int != -3 || vals[3].Kind != Float || vals[3].Float != 40 {
		t.Errorf("values %+v", vals)
	}
	if vals[2].Span != (Span{18, 20}) {
		t.Errorf("negative value span %v", vals[2].Span)
	}
}

func TestStringsAndEscapes(t *testing.T) {
	src := `for f in {"tab\tq\"\\", 'o\101\7x', "ünï"} SELF[g](f) <= x[g](f)`
	u := mustParse(t, src)
	vals := u.Formulas[0].Quantifiers[0].Values[0]
	want := []string{"tab\tq\"\\", "oA\ax", "ünï"}
	for i, v := range vals {
		if v.Kind != String || v.Str != want[i] {
			t.Errorf("value %d = %q, want %q", i, v.Str, want[i])
		}
	}
	if vals[0].Span != spanOf(t, src, `"tab\tq\"\\"`, 0) {
		t.Errorf("span %v", vals[0].Span)
	}
	if s := vals[0].String(); s != `"tab\tq\"\\"` {
		t.Errorf("String() = %s", s)
	}
	if s := (Value{Kind: String, Str: "a\x01b"}).String(); s != `"a\001b"` {
		t.Errorf("control char rendering %s", s)
	}
}

func TestCommentRule(t *testing.T) {
	cases := []struct {
		src  string
		want string // rendering of the unit
	}{
		{"# comment\nSELF[w] <= x[w]", "SELF[w] <= x[w]"},
		{"   #comment right after blanks at line start\nSELF[w] <= x[w]", "SELF[w] <= x[w]"},
		{"#no-space-at-line-start\nSELF[w] <= x[w]", "SELF[w] <= x[w]"},
		{"SELF[w] <= x[w] # trailing", "SELF[w] <= x[w]"},
		{"SELF[w] <= x[w]\t#\ttab", "SELF[w] <= x[w]"},
		{"SELF[w] <= x[w] #", "SELF[w] <= x[w]"},
		{"SELF[w] <= x[w] ## twice", "SELF[w] <= x[w]"},
		{"SELF[w] <= pkg.C#m[w]", "SELF[w] <= pkg.C#m[w]"},
		{"SELF[w] <= pkg.C #m[w]", "SELF[w] <= pkg.C#m[w]"},
		{"SELF[pkg.G #make('x')] <= x[w]", "SELF[pkg.G#make('x')] <= x[w]"},
		{"SELF[w] <= x[w] # a # b\n# c\nSELF[w] <= y[w] # d", "SELF[w] <= x[w]\nSELF[w] <= y[w]"},
	}
	for _, tc := range cases {
		if got := renderUnit(mustParse(t, tc.src)); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	// "#" glued to a name after a blank is the separator, so this is an error
	// ("#todo" is read as method separator + name), not a comment.
	_, ds := Parse("SELF[w] <= x[w] #todo")
	if len(ds) == 0 || ds[0].Code != CodeUnexpectedToken {
		t.Errorf("want an error for a glued #todo:%s", fmtDiags(ds))
	}
}

func TestLogicStructure(t *testing.T) {
	u := mustParse(t, `a[g] < b[g] | c[g] < d[g] & e[g] < f[g] ==> x[g] < y[g] ==> p[g] < q[g]`)
	body := u.Formulas[0].Body
	// ((a | (c & e)) ==> x) ==> p
	top, ok := body.(*Logic)
	if !ok || top.Op != Implies {
		t.Fatalf("top %T", body)
	}
	l1, ok := top.X.(*Logic)
	if !ok || l1.Op != Implies {
		t.Fatalf("implication must be left-associative: %s", body)
	}
	or, ok := l1.X.(*Logic)
	if !ok || or.Op != Or {
		t.Fatalf("or: %T", l1.X)
	}
	and, ok := or.Y.(*Logic)
	if !ok || and.Op != And {
		t.Fatalf("and binds tighter than or: %T", or.Y)
	}
	src := `a[g] < b[g] | c[g] < d[g] & e[g] < f[g] ==> x[g] < y[g] ==> p[g] < q[g]`
	if top.OpSpan != spanOf(t, src, "==>", 1) || and.OpSpan != spanOf(t, src, "&", 0) {
		t.Errorf("op spans %v %v", top.OpSpan, and.OpSpan)
	}
	if got := body.ExprSpan(); got != (Span{0, len(src)}) {
		t.Errorf("body span %v", got)
	}
	var names []string
	for _, c := range Comparisons(body) {
		names = append(names, c.Left.Method.Name)
	}
	if strings.Join(names, "") != "acexp" {
		t.Errorf("comparison order %v", names)
	}
	// Parentheses are kept.
	u = mustParse(t, `(a[g] < b[g] | c[g] < d[g]) & e[g] < f[g]`)
	and2 := u.Formulas[0].Body.(*Logic)
	if p, ok := and2.X.(*Paren); !ok || p.Span != (Span{0, 27}) {
		t.Errorf("paren: %#v", and2.X)
	}
	// A right operand of equal rank needs parentheses when rendered.
	l := &Logic{Op: And, X: Comparisons(and2)[0], Y: &Logic{Op: And, X: Comparisons(and2)[1], Y: Comparisons(and2)[2]}}
	if got := l.String(); got != "a[g] < b[g] and (c[g] < d[g] and e[g] < f[g])" {
		t.Errorf("render %s", got)
	}
}

func TestTermSpans(t *testing.T) {
	src := `for n in {100, 10000} 1.5 * SELF[gen](n) <= pkg.Class#m[gen](n) * 2`
	u := mustParse(t, src)
	f := u.Formulas[0]
	if f.Span != (Span{0, len(src)}) {
		t.Errorf("formula span %v", f.Span)
	}
	q := f.Quantifiers[0]
	if q.Vars[0].Span != spanOf(t, src, "n", 0) || q.Span != spanOf(t, src, "for n in {100, 10000}", 0) ||
		q.ValueSpans[0] != spanOf(t, src, "{100, 10000}", 0) || q.Values[0][1].Span != spanOf(t, src, "10000", 0) {
		t.Errorf("quantifier spans %+v", q)
	}
	c := Comparisons(f.Body)[0]
	if c.Left.Span != spanOf(t, src, "1.5 * SELF[gen](n)", 0) || c.Left.ScaleSpan != spanOf(t, src, "1.5 *", 0) {
		t.Errorf("left spans %v %v", c.Left.Span, c.Left.ScaleSpan)
	}
	if c.Left.Method.Span != spanOf(t, src, "SELF", 0) || c.Left.Generator.Span != spanOf(t, src, "gen", 0) ||
		c.Left.Args[0].Span != (Span{spanOf(t, src, "(n)", 0).Start + 1, spanOf(t, src, "(n)", 0).Start + 2}) {
		t.Errorf("left parts %v %v %v", c.Left.Method.Span, c.Left.Generator.Span, c.Left.Args[0].Span)
	}
	if c.Right.Span != spanOf(t, src, "pkg.Class#m[gen](n) * 2", 0) || c.Right.ScaleSpan != spanOf(t, src, "* 2", 0) || *c.Right.Scale != 2 {
		t.Errorf("right spans %v %v", c.Right.Span, c.Right.ScaleSpan)
	}
	if c.OpSpan != spanOf(t, src, "<=", 0) || c.Span != (Span{22, len(src)}) {
		t.Errorf("comparison spans %v %v", c.OpSpan, c.Span)
	}
}

func TestItemsAndLines(t *testing.T) {
	// A formula may span lines; a new item starts on a new line only.
	src := "w := gen\nfor n in {1}\nSELF[w](n) <=\n  x[w](n)\nand\nSELF[w](n) <= y[w](n)\nSELF[w] <= z[w]"
	u := mustParse(t, src)
	if len(u.Aliases) != 1 || len(u.Formulas) != 2 {
		t.Fatalf("items: %d aliases %d formulas", len(u.Aliases), len(u.Formulas))
	}
	if len(Comparisons(u.Formulas[0].Body)) != 2 {
		t.Errorf("first formula: %s", u.Formulas[0])
	}
	// "(" on the next line does not continue the entity of an alias.
	u = mustParse(t, "w := gen\n(SELF[w] <= x[w])")
	if len(u.Aliases) != 1 || u.Aliases[0].Method.Params != nil || len(u.Formulas) != 1 {
		t.Errorf("alias swallowed the next line: %s", renderUnit(u))
	}
	// Two items on one line are an error.
	_, ds := Parse("w := gen SELF[w] <= x[w]")
	if len(ds) != 1 || ds[0].Code != CodeUnexpectedToken || ds[0].Span != (Span{9, 13}) ||
		ds[0].Message != `expected the end of the alias declaration (a formula starts on a new line) but found "SELF"` {
		t.Errorf("diags:%s", fmtDiags(ds))
	}
}
