package javasrc

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfls/perfls/analysis/textpos"
)

func mustParse(t testing.TB, src string) *File {
	t.Helper()
	f, err := Parse("Test.java", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func methodBySig(t *testing.T, f *File, typeBinary, sig string) *Method {
	t.Helper()
	for _, m := range f.Methods {
		if m.Type != nil && m.Type.BinaryName == typeBinary && m.Signature() == sig {
			return m
		}
	}
	var have []string
	for _, m := range f.Methods {
		if m.Type != nil {
			have = append(have, m.Type.BinaryName+"."+m.Signature())
		}
	}
	t.Fatalf("no method %s.%s; have %v", typeBinary, sig, have)
	return nil
}

func texts(vs []*StringValue) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.Text)
	}
	return out
}

// utf16Col computes the expected LSP column independently of textpos.
func utf16Col(line string) int { return len(utf16.Encode([]rune(line))) }

func TestBinaryNamesMatchJavac(t *testing.T) {
	// testdata/Names.java was compiled with javac 17; these are the class
	// files it produced, in the order perfls lists the types.
	f := mustParse(t, readTestdata(t, "Names.java"))
	want := []string{
		"p.Names", "p.Names$1", "p.Names$Member", "p.Names$Member$1", "p.Names$Member$1Loc",
		"p.Names$Member$2", "p.Names$Member$2$InAnon", "p.Names$2", "p.Names$3", "p.Names$3$1",
		"p.Names$3$1L2", "p.Names$1Local", "p.Names$1Local$Deep", "p.Names$1Local$1", "p.Names$1Other",
		"p.Names$2Local", "p.Names$1InLambda", "p.Names$4", "p.Names$E", "p.Names$E$1",
		"p.Names$E$2", "p.Names$E$3", "p.Names$I", "p.Names$I$1", "p.Names$R", "p.Names$R$1",
		"p.Names$Foo", "p.Names$5",
	}
	var got []string
	for _, ty := range f.Types {
		got = append(got, ty.BinaryName)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("binary names\n got %v\nwant %v", got, want)
	}
	if len(f.SyntaxErrors) != 0 {
		t.Errorf("unexpected syntax errors %v %v", f.SyntaxErrors, f.SyntaxMessages)
	}

	byBin := map[string]*Type{}
	for _, ty := range f.Types {
		byBin[ty.BinaryName] = ty
	}
	checks := []struct {
		bin, name, qual, kind, outer, super string
		local, anon                         bool
	}{
		{"p.Names", "Names", "p.Names", KindClass, "", "", false, false},
		{"p.Names$1", "", "p.Names.1", KindClass, "p.Names", "Runnable", false, true},
		{"p.Names$Member", "Member", "p.Names.Member", KindClass, "p.Names", "", false, false},
		{"p.Names$Member$1Loc", "Loc", "p.Names.Member.1Loc", KindClass, "p.Names$Member", "", true, false},
		{"p.Names$3", "", "p.Names.3", KindClass, "p.Names", "Foo", false, true},
		{"p.Names$1Local$Deep", "Deep", "p.Names.1Local.Deep", KindClass, "p.Names$1Local", "", false, false},
		{"p.Names$E", "E", "p.Names.E", KindEnum, "p.Names", "", false, false},
		{"p.Names$E$1", "", "p.Names.E.1", KindClass, "p.Names$E", "E", false, true},
		{"p.Names$I", "I", "p.Names.I", KindInterface, "p.Names", "", false, false},
		{"p.Names$R", "R", "p.Names.R", KindRecord, "p.Names", "", false, false},
	}
	for _, c := range checks {
		ty := byBin[c.bin]
		if ty == nil {
			t.Errorf("missing %s", c.bin)
			continue
		}
		outer := ""
		if ty.Outer != nil {
			outer = ty.Outer.BinaryName
		}
		if ty.Name != c.name || ty.QualifiedName != c.qual || ty.Kind != c.kind || outer != c.outer ||
			ty.Super != c.super || ty.Local != c.local || ty.Anonymous != c.anon {
			t.Errorf("%s: got name=%q qual=%q kind=%s outer=%q super=%q local=%v anon=%v", c.bin,
				ty.Name, ty.QualifiedName, ty.Kind, outer, ty.Super, ty.Local, ty.Anonymous)
		}
	}
	// Name spans point at the names.
	src := f.Src
	if ty := byBin["p.Names$Member"]; src[ty.NameSpan.Start:ty.NameSpan.End] != "Member" {
		t.Errorf("NameSpan of Member = %q", src[ty.NameSpan.Start:ty.NameSpan.End])
	}
	if ty := byBin["p.Names$1"]; src[ty.NameSpan.Start:ty.NameSpan.End] != "Runnable" || src[ty.Span.Start] != '{' {
		t.Errorf("anonymous spans wrong: %v %v", ty.NameSpan, ty.Span)
	}
	// Methods inside anonymous classes belong to them.
	run := methodBySig(t, f, "p.Names$1", "run()")
	if run.Type.Outer.BinaryName != "p.Names" {
		t.Errorf("run's type outer = %s", run.Type.Outer.BinaryName)
	}
	methodBySig(t, f, "p.Names$3", "inner()")
	methodBySig(t, f, "p.Names$E$1", "f()")
	methodBySig(t, f, "p.Names$1Local", "q()")
	methodBySig(t, f, "p.Names$E", "<init>(Object)")
	if m := methodBySig(t, f, "p.Names$R", "<init>(int)"); !m.IsCompact || !m.IsConstructor {
		t.Errorf("compact constructor flags: %+v", m)
	}
	if ty := f.TypeByName("p.Names.Member"); ty == nil || ty.BinaryName != "p.Names$Member" {
		t.Errorf("TypeByName = %v", ty)
	}
	if f.TypeAt(run.Span.Start) != run.Type {
		t.Errorf("TypeAt(run) = %v", f.TypeAt(run.Span.Start))
	}
}

const methodsSrc = `package com.example.perf;

import java.util.List;
import java.util.Map;
import static java.lang.Math.*;

public class Sorter<T extends Comparable<? super T>> {
    public Sorter() {}
    Sorter(final int capacity, @Deprecated String... names) {}
    public static <E extends Number & Comparable<E>> void sort(E[] items, int from, int to) {}
    public void fill(int a[], long[] b[], final @SuppressWarnings("x") List<Map.Entry<String, Integer>> entries) {}
    protected T first(List<? extends T> list, T fallback) { return fallback; }
    static int[] counts(java.util.Map<String, int[]> m)[] { return null; }
    <K, V extends K> V get(K key, Map<K, V> map) { return null; }
    void receiver(Sorter<T> this, int /* comment */ x, java.lang.@Deprecated String s) {}
    interface Visitor<R> {
        R visit(Object node);
        default void reset() {}
        static Visitor<Void> noop() { return null; }
    }
    record Range(int lo, int hi) {
        Range {
            if (lo > hi) throw new IllegalArgumentException();
        }
        Range(int single) { this(single, single); }
        int size() { return hi - lo; }
    }
    @interface Marker { String value() default ""; int[] sizes(); }
}
`

func TestMethodsAndParams(t *testing.T) {
	f := mustParse(t, methodsSrc)
	if f.Package != "com.example.perf" {
		t.Errorf("package %q", f.Package)
	}
	wantImports := []Import{
		{Path: "java.util.List"}, {Path: "java.util.Map"}, {Path: "java.lang.Math", Static: true, Wildcard: true},
	}
	for i := range f.Imports {
		f.Imports[i].Span = textpos.Span{}
	}
	if !reflect.DeepEqual(f.Imports, wantImports) {
		t.Errorf("imports %+v", f.Imports)
	}
	if len(f.SyntaxErrors) != 0 {
		t.Errorf("syntax errors %v %v", f.SyntaxErrors, f.SyntaxMessages)
	}

	type p struct{ name, typ, erased string }
	cases := []struct {
		typ, sig, ret string
		static, ctor  bool
		params        []p
	}{
		{"com.example.perf.Sorter", "<init>()", "", false, true, nil},
		{"com.example.perf.Sorter", "<init>(int,String[])", "", false, true, []p{{"capacity", "int", "int"}, {"names", "String...", "String[]"}}},
		{"com.example.perf.Sorter", "sort(Number[],int,int)", "void", true, false, []p{{"items", "E[]", "Number[]"}, {"from", "int", "int"}, {"to", "int", "int"}}},
		{"com.example.perf.Sorter", "fill(int[],long[][],List)", "void", false, false, []p{{"a", "int[]", "int[]"}, {"b", "long[][]", "long[][]"}, {"entries", "List<Map.Entry<String, Integer>>", "List"}}},
		{"com.example.perf.Sorter", "first(List,Comparable)", "T", false, false, []p{{"list", "List<? extends T>", "List"}, {"fallback", "T", "Comparable"}}},
		{"com.example.perf.Sorter", "counts(java.util.Map)", "int[][]", true, false, []p{{"m", "java.util.Map<String, int[]>", "java.util.Map"}}},
		{"com.example.perf.Sorter", "get(Object,Map)", "V", false, false, []p{{"key", "K", "Object"}, {"map", "Map<K, V>", "Map"}}},
		{"com.example.perf.Sorter", "receiver(int,java.lang.String)", "void", false, false, []p{{"x", "int", "int"}, {"s", "java.lang.@Deprecated String", "java.lang.String"}}},
		{"com.example.perf.Sorter$Visitor", "visit(Object)", "R", false, false, []p{{"node", "Object", "Object"}}},
		{"com.example.perf.Sorter$Visitor", "reset()", "void", false, false, nil},
		{"com.example.perf.Sorter$Visitor", "noop()", "Visitor<Void>", true, false, nil},
		{"com.example.perf.Sorter$Range", "<init>(int,int)", "", false, true, []p{{"lo", "int", "int"}, {"hi", "int", "int"}}},
		{"com.example.perf.Sorter$Range", "<init>(int)", "", false, true, []p{{"single", "int", "int"}}},
		{"com.example.perf.Sorter$Range", "size()", "int", false, false, nil},
		{"com.example.perf.Sorter$Marker", "value()", "String", false, false, nil},
		{"com.example.perf.Sorter$Marker", "sizes()", "int[]", false, false, nil},
	}
	if len(f.Methods) != len(cases) {
		t.Errorf("got %d methods, want %d", len(f.Methods), len(cases))
	}
	for _, c := range cases {
		m := methodBySig(t, f, c.typ, c.sig)
		if m.ReturnType != c.ret || m.Static != c.static || m.IsConstructor != c.ctor {
			t.Errorf("%s: ret=%q static=%v ctor=%v", c.sig, m.ReturnType, m.Static, m.IsConstructor)
		}
		var got []p
		for _, prm := range m.Params {
			got = append(got, p{prm.Name, prm.Type, prm.Erased})
			if f.Src[prm.NameSpan.Start:prm.NameSpan.End] != prm.Name {
				t.Errorf("%s: param NameSpan %v", c.sig, prm.NameSpan)
			}
		}
		if !reflect.DeepEqual(got, c.params) {
			t.Errorf("%s params\n got %v\nwant %v", c.sig, got, c.params)
		}
		nameWant := m.Name
		if m.IsConstructor {
			nameWant = m.Type.Name
		}
		if f.Src[m.NameSpan.Start:m.NameSpan.End] != nameWant {
			t.Errorf("%s NameSpan %q", c.sig, f.Src[m.NameSpan.Start:m.NameSpan.End])
		}
	}
	// Source order.
	for i := 1; i < len(f.Methods); i++ {
		if f.Methods[i-1].Span.Start >= f.Methods[i].Span.Start {
			t.Errorf("methods out of order at %d", i)
		}
	}
	varargs := methodBySig(t, f, "com.example.perf.Sorter", "<init>(int,String[])")
	if !varargs.Params[1].Varargs || varargs.Params[0].Varargs {
		t.Errorf("varargs flags %+v", varargs.Params)
	}
}

const annotationsSrc = `package dev.example;

import dev.perfls.*;

public class Annotated {
    static final String SORT = "java.util.Arrays#sort";
    static final String GEN = "dev.example.Gens#ints";
    interface Limits { String ALIAS = "m=" + Annotated.SORT; int MAX = 1 << 20; }

    @SPL("SELF <= m")
    @SPL({"for n in {10, 20} SELF(n) <= " + SORT + "(n)", "SELF = SELF"})
    public void thesis(int n) {}

    @cz.cuni.mff.spl.SPL(
        generators = {"generator=THIS@HEAD:main.Generator()"},
        methods = {"sort1=THIS@HEAD:main.Method#sort1", "sort2=" + "THIS@HEAD:main.Method#sort2"},
        formula = {"sort1[generator] = sort2[generator]"})
    @dev.perfls.SPL(value = "SELF < 2 * SELF")
    @SPL(formula = "single")
    public void original() {}

    @SPLs({@SPL("a"), @SPL(formula = {"b"}, methods = Limits.ALIAS)})
    @Workload("dev.example.Gens.ints(int)")
    @SeeAlso({"java.util.Arrays.sort(int[])", "java.util.Collections#sort"})
    public void contained() {}

    @Workloads({@Workload(GEN), @Workload(value = "dev.example.Gens#longs")})
    @SeeAlso("java.util.List#sort")
    @Deprecated
    public void workloads() {}

    @Generator("Random integers")
    public static Iterable<Object[]> ints(@Param(value = "Array size", min = 0, max = Limits.MAX) int size,
                                         @ParamNum(description = "Seed", min = -1, max = 1e3, step = 0.5) final long seed,
                                         @ParamDesc("Kind") String kind, Object plain) { return null; }

    @Generator(name = "longs", description = "Random " + "longs")
    public static Iterable<Object[]> longs(@dev.perfls.Param("n") int n) { return null; }

    public static Iterable<Object[]> undocumentedGenerator(@Param("n") int n) { return null; }

    @SPL(formula = {"ok", compute()}, bogus = "x")
    @Workload(42)
    public void bad() {}
}
`

func TestAnnotations(t *testing.T) {
	f := mustParse(t, annotationsSrc)
	if len(f.SyntaxErrors) != 0 {
		t.Errorf("syntax errors %v %v", f.SyntaxErrors, f.SyntaxMessages)
	}
	const ty = "dev.example.Annotated"

	thesis := methodBySig(t, f, ty, "thesis(int)")
	if len(thesis.SPL) != 2 {
		t.Fatalf("thesis: %d @SPL", len(thesis.SPL))
	}
	if got := texts(thesis.SPL[0].Formulas); !reflect.DeepEqual(got, []string{"SELF <= m"}) {
		t.Errorf("thesis[0] %q", got)
	}
	if got := texts(thesis.SPL[1].Formulas); !reflect.DeepEqual(got, []string{"for n in {10, 20} SELF(n) <= java.util.Arrays#sort(n)", "SELF = SELF"}) {
		t.Errorf("thesis[1] %q", got)
	}
	if s := thesis.SPL[0].Span; !strings.HasPrefix(f.Src[s.Start:s.End], `@SPL("SELF`) {
		t.Errorf("SPL span %q", f.Src[s.Start:s.End])
	}

	orig := methodBySig(t, f, ty, "original()")
	if len(orig.SPL) != 3 {
		t.Fatalf("original: %d @SPL", len(orig.SPL))
	}
	a := orig.SPL[0]
	if got := texts(a.GeneratorAliases); !reflect.DeepEqual(got, []string{"generator=THIS@HEAD:main.Generator()"}) {
		t.Errorf("generators %q", got)
	}
	if got := texts(a.MethodAliases); !reflect.DeepEqual(got, []string{"sort1=THIS@HEAD:main.Method#sort1", "sort2=THIS@HEAD:main.Method#sort2"}) {
		t.Errorf("methods %q", got)
	}
	if got := texts(a.Formulas); !reflect.DeepEqual(got, []string{"sort1[generator] = sort2[generator]"}) {
		t.Errorf("formula %q", got)
	}
	if got := texts(orig.SPL[1].Formulas); !reflect.DeepEqual(got, []string{"SELF < 2 * SELF"}) {
		t.Errorf("value= %q", got)
	}
	if got := texts(orig.SPL[2].Formulas); !reflect.DeepEqual(got, []string{"single"}) {
		t.Errorf("formula= %q", got)
	}

	cont := methodBySig(t, f, ty, "contained()")
	if len(cont.SPL) != 2 || texts(cont.SPL[0].Formulas)[0] != "a" || texts(cont.SPL[1].Formulas)[0] != "b" ||
		texts(cont.SPL[1].MethodAliases)[0] != "m=java.util.Arrays#sort" {
		t.Errorf("@SPLs: %+v", cont.SPL)
	}
	if got := texts(cont.Workloads); !reflect.DeepEqual(got, []string{"dev.example.Gens.ints(int)"}) {
		t.Errorf("workload %q", got)
	}
	if got := texts(cont.SeeAlso); !reflect.DeepEqual(got, []string{"java.util.Arrays.sort(int[])", "java.util.Collections#sort"}) {
		t.Errorf("seeAlso %q", got)
	}

	wl := methodBySig(t, f, ty, "workloads()")
	if got := texts(wl.Workloads); !reflect.DeepEqual(got, []string{"dev.example.Gens#ints", "dev.example.Gens#longs"}) {
		t.Errorf("workloads %q", got)
	}
	if got := texts(wl.SeeAlso); !reflect.DeepEqual(got, []string{"java.util.List#sort"}) {
		t.Errorf("seeAlso %q", got)
	}
	// The constant GEN's text maps into its declaration.
	if off := wl.Workloads[0].DocOffset(0); !strings.HasPrefix(f.Src[off:], `dev.example.Gens#ints";`) {
		t.Errorf("constant DocOffset -> %q", f.Src[off:off+10])
	}

	ints := methodBySig(t, f, ty, "ints(int,long,String,Object)")
	g := ints.Generator
	if g == nil || g.Description == nil || g.Description.Text != "Random integers" || g.Name != nil {
		t.Fatalf("generator %+v", g)
	}
	if len(g.Params) != 4 {
		t.Fatalf("generator params %+v", g.Params)
	}
	num := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	type pd struct {
		param, label   string
		min, max, step any
	}
	var got []pd
	for _, p := range g.Params {
		label := ""
		if p.Label != nil {
			label = p.Label.Text
		}
		got = append(got, pd{p.Param, label, num(p.Min), num(p.Max), num(p.Step)})
	}
	want := []pd{
		{"size", "Array size", 0.0, float64(1 << 20), nil},
		{"seed", "Seed", -1.0, 1000.0, 0.5},
		{"kind", "Kind", nil, nil, nil},
		{"plain", "", nil, nil, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("param docs\n got %v\nwant %v", got, want)
	}
	if !ints.Static || ints.ReturnType != "Iterable<Object[]>" {
		t.Errorf("ints static=%v ret=%q", ints.Static, ints.ReturnType)
	}

	longs := methodBySig(t, f, ty, "longs(int)")
	if g := longs.Generator; g == nil || g.Name.Text != "longs" || g.Description.Text != "Random longs" || g.Params[0].Label.Text != "n" {
		t.Errorf("longs generator %+v", longs.Generator)
	}
	if g := methodBySig(t, f, ty, "undocumentedGenerator(int)").Generator; g == nil || g.Span != (textpos.Span{}) || g.Params[0].Label.Text != "n" {
		t.Errorf("@Param alone should create a GeneratorDoc: %+v", g)
	}
	if methodBySig(t, f, ty, "thesis(int)").Generator != nil {
		t.Errorf("thesis has no generator doc")
	}

	bad := methodBySig(t, f, ty, "bad()")
	if got := texts(bad.SPL[0].Formulas); !reflect.DeepEqual(got, []string{"ok"}) {
		t.Errorf("bad formulas %q", got)
	}
	var msgs []string
	for _, p := range f.Problems {
		msgs = append(msgs, f.Src[p.Span.Start:p.Span.End]+" => "+p.Message)
	}
	wantMsgs := []string{
		"compute() => @SPL formula must be a compile-time string constant: method invocation is not a constant expression",
		`bogus = "x" => unknown @SPL element "bogus" (expected formula, methods, generators or interpretation)`,
		"42 => @Workload value must be a compile-time string constant: the value is not a string",
	}
	if !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("problems\n got %q\nwant %q", msgs, wantMsgs)
	}

	// Constants.
	ann := f.TypeByName("dev.example.Annotated")
	if ann.Constants["SORT"].Text != "java.util.Arrays#sort" || ann.Constants["GEN"] == nil {
		t.Errorf("constants %v", ann.Constants)
	}
	lim := f.TypeByName("dev.example.Annotated.Limits")
	if lim.Constants["ALIAS"].Text != "m=java.util.Arrays#sort" || lim.Constants["MAX"] != nil {
		t.Errorf("interface constants %v", lim.Constants)
	}
}

func TestStringConstantsMatchJava(t *testing.T) {
	// testdata/Strings.java: the expected values are the UTF-8 bytes the
	// JDK prints for each constant (see the main method there).
	f := mustParse(t, readTestdata(t, "Strings.java"))
	want := map[string]string{
		"C1":  "6109620a635c642265276608670d680c69206a",
		"C2":  "000a41c3bf53344142c3a9f09f9880",
		"C3":  "5c7530303431",
		"C4":  "5c",
		"C5":  "68656c6c6f0a2020776f726c64200a74616209686572650a636f6e7420696e7565640a",
		"C6":  "610a62",
		"C7":  "2020780a790a",
		"C8":  "22222271756f7465642222220a656d707479206c696e65206e6578740a0a656e64",
		"C9":  "6e3d31306374727565332d3531363130",
		"C10": "33783132",
		"C11": "76713130323441",
	}
	consts := f.Types[0].Constants
	for name, hx := range want {
		v := consts[name]
		if v == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if got := hex.EncodeToString([]byte(v.Text)); got != hx {
			t.Errorf("%s = %q (%s), want %s", name, v.Text, got, hx)
		}
	}
	if len(f.SyntaxErrors) != 0 || len(f.Problems) != 0 {
		t.Errorf("errors %v %v problems %v", f.SyntaxErrors, f.SyntaxMessages, f.Problems)
	}
}

// formulaFile wraps annotation lines into a class.
func formulaFile(lines ...string) string {
	return "package p;\n\nclass F {\n    static final String PRE = \"for n in {1, 2} \";\n" +
		strings.Join(lines, "\n") + "\n    void m() {}\n}\n"
}

func TestStringValueTable(t *testing.T) {
	cases := []struct {
		name, ann, want string
	}{
		{"plain", `@SPL("SELF <= x")`, "SELF <= x"},
		{"escapes", `@SPL("a\tb\n\"c\"\\\'\s\b\f\r")`, "a\tb\n\"c\"\\' \b\f\r"},
		{"octal", `@SPL("\0\7\12\101\377\400")`, "\x00\x07\nAÿ 0"},
		{"unicode", `@SPL("\u00e9\uuu0041\uD83D\uDE00\u005c\u005c")`, "éA😀\\"},
		{"lone surrogate", `@SPL("\uD83D!")`, "\uFFFD!"},
		{"concat", `@SPL("a" + "b" + ("c" + "d") + "e")`, "abcde"},
		{"multiline concat", "@SPL(\"a \" +\n        \"b\")", "a b"},
		{"constant", `@SPL(PRE + "SELF(n) < x")`, "for n in {1, 2} SELF(n) < x"},
		{"qualified constant", `@SPL(F.PRE + "!")`, "for n in {1, 2} !"},
		{"numbers", `@SPL("n" + 1 + 'c' + true + (2 + 3) + 0x10)`, "n1ctrue516"},
		{"text block", "@SPL(\"\"\"\n        SELF <= x\n          and y  \n        \"\"\")", "SELF <= x\n  and y\n"},
		{"text block no trailing newline", "@SPL(\"\"\"\n        a \\\n        b\"\"\")", "a b"},
		{"text block crlf", "@SPL(\"\"\"\r\n        a\r\n        b\"\"\")", "a\nb"},
		{"empty", `@SPL("")`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := mustParse(t, formulaFile("    "+c.ann))
			m := f.Methods[0]
			if len(m.SPL) != 1 || len(m.SPL[0].Formulas) != 1 {
				t.Fatalf("SPL %+v problems %v syntax %v", m.SPL, f.Problems, f.SyntaxMessages)
			}
			v := m.SPL[0].Formulas[0]
			if v.Text != c.want {
				t.Errorf("Text = %q, want %q", v.Text, c.want)
			}
			if c.name != "octal" && len(f.Problems) != 0 {
				t.Errorf("problems %v", f.Problems)
			}
			for i := 0; i <= len(v.Text); i++ {
				if o := v.DocOffset(i); o < 0 || o > len(f.Src) {
					t.Errorf("DocOffset(%d) = %d out of range", i, o)
				}
			}
		})
	}
}

func TestPositionsAfterNonASCIIAndJoins(t *testing.T) {
	src := formulaFile(
		`    @SPL("x é 😀 " + "m[w](n) <= $bad")`,
		`    @SPL("for n in {1} " +`,
		`         "SELF(n) é😀 <= " + "$x")`,
		`    @SPL("""`,
		`        SELF <= é $tb`,
		`        """)`,
		`    @SPL("\t\u00e9$esc")`,
		`    @SPL(PRE + "$after")`,
	)
	f := mustParse(t, src)
	if len(f.SyntaxErrors) != 0 || len(f.Problems) != 0 {
		t.Fatalf("errors %v problems %v", f.SyntaxMessages, f.Problems)
	}
	lines := strings.Split(src, "\n")
	m := f.Methods[0]
	if len(m.SPL) != 5 {
		t.Fatalf("%d SPL", len(m.SPL))
	}
	cases := []struct {
		formula  *StringValue
		marker   string // the formula byte to locate
		line     int
		lineText string // text of that line before the marker
	}{
		{m.SPL[0].Formulas[0], "$bad", 4, `    @SPL("x é 😀 " + "m[w](n) <= `},
		{m.SPL[1].Formulas[0], "$x", 6, `         "SELF(n) é😀 <= " + "`},
		{m.SPL[2].Formulas[0], "$tb", 8, `        SELF <= é `},
		{m.SPL[3].Formulas[0], "$esc", 10, `    @SPL("\t\u00e9`},
		{m.SPL[4].Formulas[0], "$after", 11, `    @SPL(PRE + "`},
	}
	for _, c := range cases {
		k := strings.Index(c.formula.Text, c.marker)
		if k < 0 {
			t.Fatalf("%q not in %q", c.marker, c.formula.Text)
		}
		if !strings.HasPrefix(lines[c.line], c.lineText) {
			t.Fatalf("test setup: line %d is %q", c.line, lines[c.line])
		}
		want := textpos.Position{Line: c.line, Character: utf16Col(c.lineText)}
		if got := f.Mapper.Position(c.formula.DocOffset(k)); got != want {
			t.Errorf("%s: position %+v, want %+v", c.marker, got, want)
		}
		// The whole marker maps to a span covering exactly it.
		sp := c.formula.DocSpan(textpos.Span{Start: k, End: k + len(c.marker)})
		if got := f.Src[sp.Start:sp.End]; got != c.marker {
			t.Errorf("%s: DocSpan covers %q", c.marker, got)
		}
	}
	// Hand-checked columns for the first case: 4 spaces, @SPL(" = 6, "x é " = 4,
	// 😀 = 2 UTF-16 units, then ` " + "m[w](n) <= ` = 17.
	if got := f.Mapper.Position(m.SPL[0].Formulas[0].DocOffset(strings.Index(m.SPL[0].Formulas[0].Text, "$"))); got != (textpos.Position{Line: 4, Character: 33}) {
		t.Errorf("hand-checked position %+v", got)
	}

	// Escapes map to their start; the byte after the last maps after it.
	esc := m.SPL[3].Formulas[0] // "\t\u00e9$esc"
	escStart := strings.Index(src, `"\t\u00e9$esc"`) + 1
	if got := esc.DocOffset(0); got != escStart {
		t.Errorf("\\t at %d, want %d", got, escStart)
	}
	if got, got2 := esc.DocOffset(1), esc.DocOffset(2); got != escStart+2 || got2 != escStart+2 {
		t.Errorf("é bytes at %d,%d, want %d", got, got2, escStart+2)
	}
	if got := esc.DocOffset(len(esc.Text)); f.Src[got] != '"' {
		t.Errorf("end maps to %q", f.Src[got:])
	}
	if sp := esc.DocSpan(textpos.Span{Start: 1, End: 3}); f.Src[sp.Start:sp.End] != `\u00e9` {
		t.Errorf("DocSpan(é) = %q", f.Src[sp.Start:sp.End])
	}

	// Bytes from the constant map into the constant's literal; a span that
	// mixes constant and local text maps to the use site.
	after := m.SPL[4].Formulas[0]
	preLit := strings.Index(src, `"for n in {1, 2} "`) + 1
	if got := after.DocOffset(0); got != preLit || !after.FromConstant(0) || after.FromConstant(len(after.Text)-1) {
		t.Errorf("constant byte 0 at %d (want %d), FromConstant=%v", got, preLit, after.FromConstant(0))
	}
	if sp := after.DocSpan(textpos.Span{Start: 0, End: 3}); f.Src[sp.Start:sp.End] != "for" {
		t.Errorf("span inside constant = %q", f.Src[sp.Start:sp.End])
	}
	mixed := after.DocSpan(textpos.Span{Start: 4, End: len(after.Text)})
	if got := f.Src[mixed.Start:mixed.End]; got != `PRE + "$after` {
		t.Errorf("mixed span = %q", got)
	}
	// A span across a '+' join covers the join.
	j := m.SPL[1].Formulas[0]
	js := j.DocSpan(textpos.Span{Start: strings.Index(j.Text, "{1}"), End: strings.Index(j.Text, "SELF") + 4})
	if got := f.Src[js.Start:js.End]; got != "{1} \" +\n         \"SELF" {
		t.Errorf("join span = %q", got)
	}
}

func TestMethodAt(t *testing.T) {
	src := `class A {
    void outer() {
        Runnable r = new Runnable() {
            public void run() { int inRun = 1; }
        };
        int inOuter = 2;
    }
    int field = 3;
}
`
	f := mustParse(t, src)
	at := func(s string) string {
		m := f.MethodAt(strings.Index(src, s))
		if m == nil {
			return "<nil>"
		}
		return m.Type.BinaryName + "." + m.Name
	}
	for s, want := range map[string]string{
		"inRun": "A$1.run", "inOuter": "A.outer", "field": "<nil>", "Runnable r": "A.outer", "void outer": "A.outer",
	} {
		if got := at(s); got != want {
			t.Errorf("MethodAt(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestConstantResolution(t *testing.T) {
	src := `package p;
class Outer {
    static final String A = "a";
    static final String B = A + "b";          // refers to an earlier constant
    static final String C = Inner.D + "c";     // refers to a later, nested one
    static final String LOOP1 = LOOP2, LOOP2 = LOOP1;
    static final String CALL = String.valueOf(1);
    static final int N = 10;
    final String notStatic = "x";
    static String notFinal = "y";
    static class Inner {
        static final String D = "d";
        @SPL(A + B + C + D + Outer.A + p.Outer.Inner.D + N)
        void inner() {}
        @SPL(LOOP1)
        void loop() {}
        @SPL(CALL + notStatic + Missing.X)
        void bad() {}
    }
}
`
	f := mustParse(t, src)
	outer := f.TypeByName("p.Outer")
	got := map[string]string{}
	for k, v := range outer.Constants {
		got[k] = v.Text
	}
	want := map[string]string{"A": "a", "B": "ab", "C": "dc"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("constants %v, want %v", got, want)
	}
	inner := methodBySig(t, f, "p.Outer$Inner", "inner()")
	if v := inner.SPL[0].Formulas; len(v) != 1 || v[0].Text != "aabdcdad10" {
		t.Errorf("inner formula %q", texts(v))
	}
	// Each byte of "aabdcdad10" maps to the literal it came from.
	v := inner.SPL[0].Formulas[0]
	// A number formatted from a numeric constant maps to the reference.
	for i, want := range []string{`"a"`, `"a"`, `"b"`, `"d"`, `"c"`, `"d"`, `"a"`, `"d"`, `N)`, `N)`} {
		o := v.DocOffset(i)
		lit := f.Src[o-1 : o+len(want)-1]
		if want == "N)" {
			lit = f.Src[o : o+2]
		}
		if lit != want {
			t.Errorf("byte %d maps to %q, want %q", i, lit, want)
		}
	}
	if loop := methodBySig(t, f, "p.Outer$Inner", "loop()"); len(loop.SPL[0].Formulas) != 0 {
		t.Errorf("cyclic constant accepted: %q", texts(loop.SPL[0].Formulas))
	}
	if len(f.Problems) != 2 {
		t.Fatalf("problems %v", f.Problems)
	}
	for i, want := range []string{"cannot resolve LOOP1", "CALL is not a compile-time constant"} {
		if !strings.Contains(f.Problems[i].Message, strings.TrimPrefix(want, "cannot resolve ")) {
			t.Errorf("problem %d = %q, want it to mention %q", i, f.Problems[i].Message, want)
		}
	}
}

func TestParseContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, err := ParseContext(ctx, "A.java", []byte(genJava(2000)))
	if err == nil {
		t.Skip("parse finished before noticing the cancellation")
	}
	if f == nil || f.Mapper == nil || f.Src == "" {
		t.Errorf("cancelled parse should still return the text: %+v", f)
	}
	// The pool is unaffected: a normal parse works.
	if g := mustParse(t, "class A { void f() {} }"); len(g.Methods) != 1 {
		t.Errorf("parse after cancel: %d methods", len(g.Methods))
	}
	// A context that is cancellable but not cancelled parses normally.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	g, err := ParseContext(ctx2, "A.java", []byte("class A { void f() {} }"))
	if err != nil || len(g.Methods) != 1 {
		t.Errorf("ParseContext: %v %+v", err, g)
	}
}

func TestCRLFAndTabs(t *testing.T) {
	src := "class A {\r\n\t@SPL(\"é\" +\r\n\t\t\"\t😀 $x\")\r\n\t@SPL\r\n\tvoid f() {}\r\n}\r\n"
	f := mustParse(t, src)
	if len(f.SyntaxErrors) != 0 || len(f.Methods) != 1 || len(f.Methods[0].SPL) != 2 {
		t.Fatalf("errors %v methods %d", f.SyntaxMessages, len(f.Methods))
	}
	v := f.Methods[0].SPL[0].Formulas[0]
	if v.Text != "é\t😀 $x" {
		t.Fatalf("text %q", v.Text)
	}
	// Line 2 is `\t\t"\t😀 $x")`: 2 tabs, quote, tab, 😀 (2 units), space.
	if got := f.Mapper.Position(v.DocOffset(strings.Index(v.Text, "$"))); got != (textpos.Position{Line: 2, Character: 7}) {
		t.Errorf("position %+v", got)
	}
	if len(f.Methods[0].SPL[1].Formulas) != 0 {
		t.Errorf("marker @SPL has formulas")
	}
}

// TestLongConcatenation: a constant joined from ~2,000 literals (as
// in the JDK's GB18030.java) keeps every piece, in order, with each byte
// mapped back to its literal; the join grows one buffer in place.
func TestLongConcatenation(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("class C {\n  static final String T =\n")
	var want strings.Builder
	const n = 1900 // below maxEvalDepth
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "    \"%04d\" +\n", i)
		fmt.Fprintf(&want, "%04d", i)
	}
	sb.WriteString("    \"end\";\n  @SPL(T) void m() {}\n}\n")
	want.WriteString("end")
	src := sb.String()
	f := mustParse(t, src)
	if len(f.Methods) != 1 || len(f.Methods[0].SPL) != 1 || len(f.Methods[0].SPL[0].Formulas) != 1 {
		t.Fatalf("model: %+v", f.Methods)
	}
	v := f.Methods[0].SPL[0].Formulas[0]
	if v.Text != want.String() {
		t.Fatalf("value has %d bytes, want %d", len(v.Text), want.Len())
	}
	// The byte of piece 1234 comes from its literal in the constant.
	i := strings.Index(want.String(), "1234")
	if at := v.DocOffset(i); src[at:at+4] != "1234" {
		t.Errorf("byte %d maps to %q", i, src[at:at+4])
	}
}
