package javasrc

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/perfls/perfls/analysis/textpos"
)

// parseWhole parses src in one piece, whatever its size.
func parseWhole(t testing.TB, src string) *File {
	t.Helper()
	old := splitMinBytes
	splitMinBytes = 1 << 40
	defer func() { splitMinBytes = old }()
	return mustParse(t, src)
}

// parseAtCut parses src split at c; ok is false when it fell back.
func parseAtCut(t testing.TB, src string, c cut) (*File, bool) {
	t.Helper()
	base := &File{Path: "Test.java", Src: src, Mapper: textpos.NewMapper(src)}
	f, _, ok, err := parseSplit(context.Background(), base, []byte(src), planFor(newPointer([]byte(src)), len(src), c), false)
	if err != nil {
		t.Fatalf("parseSplit at %d: %v", c.at, err)
	}
	return f, ok
}

// sameModel fails the test when the two models differ.
func sameModel(t testing.TB, what string, got, want *File) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	if g, w := signatures(got), signatures(want); g != w {
		t.Fatalf("%s: methods differ:\n%s\nwant\n%s", what, g, w)
	}
	if len(got.Types) != len(want.Types) {
		t.Fatalf("%s: %d types, want %d", what, len(got.Types), len(want.Types))
	}
	for i := range got.Types {
		if !reflect.DeepEqual(got.Types[i], want.Types[i]) {
			t.Fatalf("%s: type %d differs:\n%+v\nwant\n%+v", what, i, *got.Types[i], *want.Types[i])
		}
	}
	for i := range got.Methods {
		if !reflect.DeepEqual(got.Methods[i], want.Methods[i]) {
			t.Fatalf("%s: method %d differs:\n%+v\nwant\n%+v", what, i, *got.Methods[i], *want.Methods[i])
		}
	}
	gv, wv := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := 0; i < gv.NumField(); i++ {
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			t.Fatalf("%s: field %s differs:\n%+v\nwant\n%+v", what, gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
	t.Fatalf("%s: models differ (problems %v / %v, syntax errors %v / %v)", what, got.Problems, want.Problems, got.SyntaxErrors, want.SyntaxErrors)
}

// splitSources exercise the cut finder: members whose initializers hold
// braces, literals and comments with braces, enums, records, interfaces
// and several top-level types.
var splitSources = map[string]string{
	"members": `package p;
import java.util.*;
/** { not a brace */
@SPL({"a"}) public class A<T> {
    static final String S = "}{";
    static final char C = '{', D = '}', Q = '\'';
    int[] arr = {1, 2}, more = {3};
    Runnable r = () -> { run(); };
    Object o = new Object() { public String toString() { return "}"; } };
    String tb = """
        { "json": } ""\"
        """;
    // }
    /* { */
    @SPL("SELF(n) <= " + S + "#m(n)")
    @Workload("p.A#gen(int)")
    <U> void m(int n) { if (n > 0) { m(n - 1); } }
    { System.out.println("init"); }
    static { }
    class Inner { void g() {} }
    int x = switch (1) { case 1 -> 2; default -> 3; };
    A() { this(1); }
    A(int k) { }
    enum E { X { void f() {} }, Y; void f() {} }
    record R(int a) { R { } static void s() {} }
    interface I { void i(); default void j() {} }
    @interface N { String value() default "{"; }
    static final String T = S + "x";
    @SPL(T) void last() { class Local {} new Object() {}; }
}
`,
	"initializers": `package s;
class S {
    static { register(new Object() { public String toString() { return "x" + 1; } }); }
    static final Runnable R = new Runnable() { public void run() { int y = 1; } };
    Runnable l = () -> { int z = 2; };
    @SPL("SELF = SELF") void m() throws java.io.IOException, RuntimeException { int q = 3; }
    { new Thread() { @Override public void run() { super.run(); } }.start(); }
    static void register(Object o) { o.hashCode(); }
}
`,
	"types": `package q;
class One { void a() {} @SPL("SELF = SELF") void b() {} }
interface Two { int c(); }
enum Three { A, B; void d() { new Runnable() { public void run() {} }; } }
record Four(int e) { static final String F = "q.One#a"; @SPL(F + " <= SELF") void f() {} }
@interface Five { int g() default 1; }
class Six { class Seven { class Eight { void h() {} } } void i() {} }
`,
}

// TestSplitMatchesWholeParse cuts each source at every place the scanner
// offers and expects exactly the model of the whole parse.
func TestSplitMatchesWholeParse(t *testing.T) {
	srcs := map[string]string{
		"Names.java":   readTestdata(t, "Names.java"),
		"Strings.java": readTestdata(t, "Strings.java"),
		"methods":      methodsSrc,
		"annotations":  annotationsSrc,
		"generated":    genJava(300),
	}
	for k, v := range splitSources {
		srcs[k] = v
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			want := parseWhole(t, src)
			cuts, ok := scanCuts([]byte(src))
			if !ok {
				t.Fatalf("the scanner could not follow the source")
			}
			// Strings.java has escapes tree-sitter marks as errors: it
			// is parsed whole.
			clean := name != "Strings.java"
			joined := 0
			for _, c := range cuts {
				got, ok := parseAtCut(t, src, c)
				if !ok {
					// An enum's members follow its constants' ';', which
					// the second half lacks: expected to fall back.
					inEnum := c.open >= 0 && strings.Contains(src[strings.LastIndexByte(src[:c.open], '\n')+1:c.open], "enum ")
					if clean && !inEnum {
						t.Errorf("cut at %d fell back to a whole parse: %q|%q", c.at, tail(src[:c.at], 30), head(src[c.at:], 30))
					}
					continue
				}
				joined++
				sameModel(t, fmt.Sprintf("cut at %d (%q|%q)", c.at, tail(src[:c.at], 20), head(src[c.at:], 20)), got, want)
			}
			if clean && joined == 0 {
				t.Fatalf("none of %d cuts joined", len(cuts))
			}
			t.Logf("%d cuts, %d joined", len(cuts), joined)
		})
	}
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestLargeFileIsSplit checks that Parse splits a large clean file, and
// parses a large broken one whole (its model then carries the errors).
func TestLargeFileIsSplit(t *testing.T) {
	src := genJava(5000)
	plan, ok := planSplit([]byte(src))
	if !ok {
		t.Skip("one CPU: no split") // GOMAXPROCS=1
	}
	if len(plan.parts) != 2 || plan.mid < len(src)/4 || plan.mid > 3*len(src)/4 {
		t.Fatalf("unbalanced cut at %d of %d", plan.mid, len(src))
	}
	got := mustParse(t, src)
	sameModel(t, "5,000 lines", got, parseWhole(t, src))

	// An unclosed method body in the second half.
	i := strings.LastIndex(src, "return copy;\n    }\n")
	broken := src[:i] + "return copy;\n" + src[i+len("return copy;\n    }\n"):]
	got = mustParse(t, broken)
	if len(got.SyntaxErrors) == 0 {
		t.Fatalf("broken file parsed without syntax errors")
	}
	sameModel(t, "broken", got, parseWhole(t, broken))
}

// TestNoCutInEnumBody: an enum's members follow its constants' ';', which
// the second half would lack, so its body is never cut.
func TestNoCutInEnumBody(t *testing.T) {
	src := "enum E {\n  A, B;\n  int x;\n  void f() {}\n  void g() {}\n}\nclass C {\n  int y;\n  void h() {}\n}\n"
	cuts, ok := scanCuts([]byte(src))
	if !ok {
		t.Fatal("scanner failed")
	}
	enumEnd := strings.Index(src, "}\nclass")
	for _, c := range cuts {
		if c.at <= enumEnd {
			t.Errorf("cut at %d, inside the enum (which ends at %d)", c.at, enumEnd)
		}
	}
	if len(cuts) == 0 {
		t.Errorf("no cut at all: the class after the enum should have some")
	}
}

// TestScanCutsRejects lists text the scanner must not cut.
func TestScanCutsRejects(t *testing.T) {
	for _, src := range []string{
		"class A { void f() { }",         // unclosed body
		"class A { String s = \"x; }",    // unterminated string
		"class A { /* ; } ",              // unterminated comment
		"class A { void f() { g()); } }", // unbalanced parentheses
		"class A } {",
	} {
		if cuts, ok := scanCuts([]byte(src)); ok && len(cuts) > 0 {
			t.Errorf("%q: cuts %v", src, cuts)
		}
	}
}

// FuzzSplit: whatever the text, a split parse that joins, and a parse with
// the method bodies left out that succeeds, give exactly the whole parse's
// model when that has no syntax error; the scanners never panic or loop.
func FuzzSplit(f *testing.F) {
	for _, s := range splitSources {
		f.Add([]byte(s))
	}
	f.Add([]byte(methodsSrc))
	f.Add([]byte(annotationsSrc))
	f.Add([]byte("class A { int a; } class B { int b; }"))
	f.Add([]byte("class A { int[] a = {1}; void f() {} /* } */ char c = '}'; }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > maxFuzzInput {
			t.Skip()
		}
		cuts, ok := scanCuts(src)
		if !ok {
			return
		}
		want := parseWhole(t, string(src))
		if got, _, ok := parseLazy(t, string(src)); ok && len(want.SyntaxErrors) == 0 {
			sameModel(t, "bodies left out", got, want)
		}
		for i, c := range cuts {
			if i == 8 {
				break
			}
			if c.at <= 0 || c.at > len(src) || (c.open >= 0 && (c.open >= c.at || c.close < c.at || c.close >= len(src))) {
				t.Fatalf("bad cut %+v of %d bytes", c, len(src))
			}
			if got, ok := parseAtCut(t, string(src), c); ok {
				sameModel(t, fmt.Sprintf("cut at %d", c.at), got, want)
			}
		}
	})
}

// TestParallelMethodsMatchSequential builds methods on two goroutines
// (even for small files) and expects the model built on one, including
// where a method refers to a numeric constant not yet evaluated (the
// parallel work is then done again).
func TestParallelMethodsMatchSequential(t *testing.T) {
	numeric := `package n;
class N {
    static final int LO = 1, HI = LO + 9;
    static final String G = "n.N#gen(int)";
    @Workload(G) void a() {}
    @Workload(G) void b() {}
    static Iterable<Object[]> gen(@Param(min = LO, max = HI) int n) { return null; }
    static Iterable<Object[]> gen2(@Param(min = 2, max = HI * 2) int n) { return null; }
    @SPL("SELF = SELF") void c() {}
}
`
	srcs := map[string]string{
		"Names.java": readTestdata(t, "Names.java"), "methods": methodsSrc, "annotations": annotationsSrc,
		"member": memberSrc, "numeric": numeric, "generated": genJava(300),
	}
	old := parallelMethods
	defer func() { parallelMethods = old }()
	for name, src := range srcs {
		parallelMethods = 1 << 30
		want := mustParse(t, src)
		parallelMethods = 2
		redos := methodRedos.Load()
		got := mustParse(t, src)
		sameModel(t, name, got, want)
		if name == "numeric" && methodRedos.Load() == redos {
			t.Errorf("the numeric constants did not make the parallel build start again")
		}
	}
}

// parseLazy parses src with its method bodies left out, in one part.
func parseLazy(t testing.TB, src string) (*File, []hole, bool) {
	t.Helper()
	holes := lazyHoles([]byte(src))
	pts := newPointer([]byte(src))
	plan := splitPlan{parts: [][]sitter.Range{withoutHoles([]sitter.Range{pts.rng(0, len(src))}, holes, pts)}, holes: holes}
	f, ok := parseWithPlan(t, src, plan)
	return f, holes, ok
}

// parseWithPlan parses src as planned; ok is false when it fell back.
func parseWithPlan(t testing.TB, src string, plan splitPlan) (*File, bool) {
	t.Helper()
	base := &File{Path: "Test.java", Src: src, Mapper: textpos.NewMapper(src)}
	f, _, ok, err := parseSplit(context.Background(), base, []byte(src), plan, false)
	if err != nil {
		t.Fatalf("parse as planned: %v", err)
	}
	return f, ok
}

// TestLazyBodiesMatchWholeParse leaves method bodies out and expects the
// whole parse's model, for every clean source; a body that may declare a
// type is parsed.
func TestLazyBodiesMatchWholeParse(t *testing.T) {
	srcs := map[string]string{
		"Names.java": readTestdata(t, "Names.java"), "methods": methodsSrc, "annotations": annotationsSrc,
		"member": memberSrc, "generated": genJava(300),
	}
	for k, v := range splitSources {
		srcs[k] = v
	}
	lazy := 0
	for name, src := range srcs {
		want := parseWhole(t, src)
		got, holes, ok := parseLazy(t, src)
		if len(holes) == 0 {
			continue // empty bodies, or bodies with classes
		}
		lazy++
		if !ok {
			t.Errorf("%s: %d holes, fell back to a whole parse", name, len(holes))
			continue
		}
		sameModel(t, name, got, want)
		for _, h := range holes {
			if mayDeclareType(src[h.from:h.to]) {
				t.Errorf("%s: left out a body that may declare a type: %q", name, src[h.from:h.to])
			}
		}
	}

	if lazy < len(srcs)/2 {
		t.Errorf("only %d of %d sources had bodies to leave out", lazy, len(srcs))
	}

	// The generated file: most of its bytes are bodies.
	src := genJava(5000)
	holes := lazyHoles([]byte(src))
	left := 0
	for _, h := range holes {
		left += h.to - h.from
	}
	if left < len(src)/3 {
		t.Errorf("only %d of %d bytes left out in %d holes", left, len(src), len(holes))
	}
	t.Logf("5,000 lines: %d of %d bytes left out in %d bodies", left, len(src), len(holes))
}

// TestLazyBodiesFallBack: holes that are not method bodies (an annotated
// enum constant's class body) make the parse whole; a syntax error inside
// a left-out body is not seen, one outside is.
func TestLazyBodiesFallBack(t *testing.T) {
	enum := "enum E {\n  @Deprecated A(1) { void f() {} },\n  B(2);\n  E(int x) {}\n  void g() { int y = 1; }\n}\n"
	if _, holes, ok := parseLazy(t, enum); ok || len(holes) == 0 {
		t.Errorf("annotated enum constant body: ok=%v with %d holes, want a fallback", ok, len(holes))
	}

	bodyErr := "class A {\n  void f() { int x = ; }\n  @SPL(\"SELF = SELF\") void g() {}\n}\n"
	got, _, ok := parseLazy(t, bodyErr)
	if !ok {
		t.Fatalf("error inside a body: fell back")
	}
	if len(got.SyntaxErrors) != 0 || len(got.Methods) != 2 {
		t.Errorf("error inside a left-out body: %d syntax errors, %d methods; want 0 and 2", len(got.SyntaxErrors), len(got.Methods))
	}
	if whole := parseWhole(t, bodyErr); len(whole.SyntaxErrors) == 0 {
		t.Errorf("the whole parse should see the error")
	}

	declErr := "class A {\n  void f() { int x = 1; }\n  int = 3;\n  void g() {}\n}\n"
	if _, _, ok := parseLazy(t, declErr); ok {
		t.Errorf("error outside bodies: the lazy parse should fall back")
	}
}

// TestDocBodyErrorMatchesParse: a large document whose tree has an error
// inside a method body is modelled as Parse models it (the body left
// out), and typing on from there stays equal to Parse.
func TestDocBodyErrorMatchesParse(t *testing.T) {
	old := splitMinBytes
	splitMinBytes = 0
	defer func() { splitMinBytes = old }()
	text := genJava(400)
	d := NewDoc("Test.java")
	defer d.Close()
	if _, err := d.Update([]byte(text)); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(text, "return copy;")
	j := strings.LastIndex(text, `SELF(n) <= 1.5`)
	for k, next := range []string{
		text[:i] + "int x = ; " + text[i:],                                        // an error inside a body
		text[:i] + "int x = 1; " + text[i:],                                       // fixed
		text[:i] + "int x = 1 " + text[i:],                                        // broken again
		text[:i] + "int x = 1 " + text[i:j] + "SELF(m)" + text[j+len("SELF(n)"):], // and an annotation edited
	} {
		got, err := d.Update([]byte(next))
		if err != nil {
			t.Fatal(err)
		}
		want := mustParse(t, next)
		if k == 0 && len(want.SyntaxErrors) != 0 {
			t.Fatalf("Parse lists the error inside a left-out body")
		}
		sameModel(t, fmt.Sprintf("version %d", k+2), got, want)
	}
}
