package workspace

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
)

// fakeJDK is an External with a few classes.
type fakeJDK map[string]*ExternalClass

func (j fakeJDK) Covers(c string) bool {
	return strings.HasPrefix(c, "java.") || strings.HasPrefix(c, "javax.")
}

func (j fakeJDK) Class(name string) (*ExternalClass, error) {
	if name == "java.broken.X" {
		return nil, fmt.Errorf("read java/broken/X.java: corrupt")
	}
	return j[strings.ReplaceAll(name, "$", ".")], nil
}

var jdk = fakeJDK{
	"java.lang.Object": {Name: "java.lang.Object", Complete: true, Methods: []ExternalMethod{{Name: "hashCode", Params: []string{}}}},
	"java.util.Arrays": {Name: "java.util.Arrays", Complete: true, Supers: []string{"java.lang.Object"}, Methods: []ExternalMethod{
		{Name: "sort", Params: []string{"int[]"}, Static: true},
		{Name: "sort", Params: []string{"long[]"}, Static: true},
		{Name: "fill", Params: []string{"int[]", "int"}, Static: true},
	}},
	"java.util.AbstractList": {Name: "java.util.AbstractList", Complete: true, Supers: []string{"java.lang.Object"}, Methods: []ExternalMethod{{Name: "indexOf", Params: []string{"Object"}}}},
	"java.util.ArrayList":    {Name: "java.util.ArrayList", Complete: true, Supers: []string{"java.util.AbstractList"}, Methods: []ExternalMethod{{Name: "contains", Params: []string{"Object"}}}},
	"java.util.Map.Entry":    {Name: "java.util.Map$Entry", Complete: true, Methods: []ExternalMethod{{Name: "getKey", Abstract: true}}},
	"java.util.Vague":        {Name: "java.util.Vague", Complete: false},
}

const checkMain = `package demo;

import java.util.ArrayList;
import other.Lib;

public abstract class Main {
    public static Iterable<Object[]> gen(int n) { return null; }
    public static Iterable<Object[]> sgen(String s, double d) { return null; }
    public static Iterable<Object[]> vgen(int n, String... rest) { return null; }
    public Iterable<Object[]> inst(int n) { return null; }
    public static void voidGen(int n) { }
    public static void loop(SPLController spl, int n) { }
    public static int over(int a) { return 0; }
    public static int over(long a) { return 0; }
    public static int plain(int[] a) { return 0; }
    public abstract int todo(int[] a);

    @SPL("%s")
    public static int m(int[] a) { return 0; }
}
`

const checkBase = `package demo;
public class Base { public int inherited(int x) { return 0; } }
`

const checkSub = `package demo;
public class Sub extends Base { public static int own() { return 0; } }
`

const checkExtLib = `package demo;
public class ExtLib extends org.unknown.Thing { }
`

func TestCheckReferences(t *testing.T) {
	cases := []struct {
		name, formula string
		code, msg     string // "" code: no diagnostic expected
		at            string // text the range covers
	}{
		{"workspace ok", `for n in {1} SELF[gen](n) <= demo.Main#plain[gen](n)`, "", "", ""},
		{"unknown alias", `SELF[gen](1) <= nope[gen](1)`, CodeUnknownAlias, `unknown alias or method "nope"`, "nope"},
		{"unknown generator", `SELF[nogen](1) <= plain[gen](1)`, CodeUnknownAlias, `unknown generator "nogen"`, "nogen"},
		{"unknown method", `SELF[gen](1) <= demo.Main#plane[gen](1)`, CodeUnknownMethod, `demo.Main has no method "plane"; did you mean plain?`, "demo.Main#plane"},
		{"unknown workspace class", `SELF[gen](1) <= demo.Nope#x[gen](1)`, CodeUnknownClass, `package demo of the workspace has no such class`, "demo.Nope#x"},
		{"unknown simple class", `SELF[gen](1) <= Nope#x[gen](1)`, CodeUnknownClass, `write its qualified name`, "Nope#x"},
		{"library class unchecked", `SELF[gen](1) <= org.lib.Foo#x[gen](1)`, "", "", ""},
		{"imported library class unchecked", `SELF[gen](1) <= Lib#x[gen](1)`, "", "", ""},
		{"ambiguous overload", `SELF[gen](1) <= over[gen](1)`, CodeAmbiguousOverload, `demo.Main.over is overloaded; name the parameter types, e.g. demo.Main#over(int); candidates: over(int); over(long)`, "over"},
		{"chosen overload", `SELF[gen](1) <= over(long)[gen](1)`, "", "", ""},
		{"no overload", `SELF[gen](1) <= demo.Main#over(String)[gen](1)`, CodeNoOverload, `no overload over(String); candidates: over(int); over(long)`, "demo.Main#over(String)"},
		{"inherited workspace method", `SELF[gen](1) <= demo.Sub#inherited[gen](1)`, "", "", ""},
		{"missing in workspace hierarchy", `SELF[gen](1) <= demo.Sub#nothing[gen](1)`, CodeUnknownMethod, `demo.Sub has no method "nothing"`, "demo.Sub#nothing"},
		{"unknown supertype: unchecked", `SELF[gen](1) <= demo.ExtLib#whatever[gen](1)`, "", "", ""},
		{"jdk ok", `SELF[gen](1) <= java.util.Arrays#sort(int[])[gen](1)`, "", "", ""},
		{"jdk imported and inherited", `SELF[gen](1) <= ArrayList#indexOf[gen](1) and SELF[gen](1) <= ArrayList#hashCode[gen](1)`, "", "", ""},
		{"jdk unknown class", `SELF[gen](1) <= java.util.Arrayz#sort[gen](1)`, CodeUnknownClass, `unknown class java.util.Arrayz: the JDK has no such class`, "java.util.Arrayz#sort"},
		{"jdk unknown method", `SELF[gen](1) <= java.util.Arrays#sortt[gen](1)`, CodeUnknownMethod, `java.util.Arrays has no method "sortt"; did you mean sort?`, "java.util.Arrays#sortt"},
		{"jdk overload", `SELF[gen](1) <= java.util.Arrays#sort[gen](1)`, CodeAmbiguousOverload, `candidates: sort(int[]); sort(long[])`, "java.util.Arrays#sort"},
		{"jdk nested class", `SELF[gen](1) <= java.util.Map.Entry#getKey[gen](1)`, "", "", ""},
		{"jdk incomplete hierarchy", `SELF[gen](1) <= java.util.Vague#x[gen](1)`, "", "", ""},
		{"jdk read error", `SELF[gen](1) <= java.broken.X#x[gen](1)`, CodeUnsupported, `cannot check java.broken.X: read java/broken/X.java: corrupt`, "java.broken.X#x"},
		{"java.lang default", `SELF[gen](1) <= Object#hashCode[gen](1)`, "", "", ""},
		{"generator arity", `SELF[gen](1, 2) <= plain[gen](1, 2)`, CodeGeneratorArity, `generator demo.Main.gen(int) takes 1 argument(s) but 2 given`, "1, 2"},
		{"generator arg type literal", `SELF[gen]("x") <= plain[gen](1)`, CodeGeneratorArgType, `argument "x" is a string but parameter "n" of generator demo.Main.gen(int) is int`, `"x"`},
		{"generator arg type variable", `for d in {1.5, 2} SELF[gen](d) <= plain[gen](1)`, CodeGeneratorArgType, `argument d is a decimal number but parameter "n"`, "d"},
		{"generator string and double", `for ((s, d){("a", "b"), (1, 2e3)}) SELF[sgen](s, d) <= plain[sgen](s, d)`, "", "", ""},
		// Numbers reach Java as longs: a fraction, or a value beyond the
		// parameter's type, is refused where it is passed, never truncated
		// or wrapped.
		{"generator double takes whole numbers", `for ((s, d){("a", "b"), (1, 2.5)}) SELF[sgen](s, d) <= plain[sgen](s, "x")`, CodeGeneratorArgType,
			`argument d = 2.5 for parameter "d" of generator demo.Main.sgen(String, double): 2.5 is not a whole number: perfls passes whole numbers to Java`, "d"},
		{"generator int literal beyond int", `SELF[gen](3000000000) <= plain[gen](1)`, CodeGeneratorArgType,
			`argument 3000000000 for parameter "n" of generator demo.Main.gen(int): 3000000000 does not fit in a Java int (-2147483648 to 2147483647)`, "3000000000"},
		{"generator int variable beyond int", `for n in {1, 2147483648} SELF[gen](n) <= plain[gen](1)`, CodeGeneratorArgType,
			`argument n = 2147483648 for parameter "n" of generator demo.Main.gen(int): 2147483648 does not fit in a Java int`, "n"},
		{"generator int product beyond int", `for n in {1, 65536} SELF[gen](n * n) <= plain[gen](1)`, CodeGeneratorArgType,
			`argument n * n = 4294967296 (at n=65536) for parameter "n" of generator demo.Main.gen(int): 4294967296 does not fit in a Java int`, "n * n"},
		{"generator int quotient not whole", `for n in {4, 5} SELF[gen](n / 2) <= plain[gen](1)`, CodeGeneratorArgType,
			`argument n / 2 = 2.5 (at n=5) for parameter "n" of generator demo.Main.gen(int): 2.5 is not a whole number`, "n / 2"},
		{"generator double beyond its whole numbers", `for ((s, d){("a"), (1e30)}) SELF[sgen](s, d) <= plain[sgen](s, 1)`, CodeGeneratorArgType,
			`argument d = 1e+30 for parameter "d" of generator demo.Main.sgen(String, double): 1e+30 does not fit in a Java long`, "d"},
		{"generator product beyond a long", `for n in {4611686018427387904} SELF[sgen]("a", 2 * n) <= plain[sgen]("a", 1)`, "arithmetic",
			`2 * 4611686018427387904 does not fit in a Java long`, "2 * n"},
		{"generator varargs", `SELF[vgen](1) <= plain[vgen](1, "a", "b")`, "", "", ""},
		{"generator varargs type", `SELF[vgen](1, 2) <= plain[gen](1)`, CodeGeneratorArgType, `argument 2 is an integer but parameter "rest"`, "2"},
		{"generator not static", `SELF[inst](1) <= plain[gen](1)`, CodeGeneratorShape, `generator demo.Main.inst(int) is not static`, "inst"},
		{"generator returns void", `SELF[voidGen](1) <= plain[gen](1)`, CodeGeneratorShape, `returns void: a generator returns Iterable<Object[]>`, "voidGen"},
		{"loop as workload", `SELF[loop](1) <= plain[loop](1)`, "", "", ""},
		{"loop as workload arity", `SELF[loop](1, 2) <= plain[gen](1)`, CodeGeneratorArity, `workload loop demo.Main.loop(SPLController, int) takes 1 argument(s) but 2 given`, "1, 2"},
		{"loop as workload arg type", `SELF[loop]("x") <= plain[gen](1)`, CodeGeneratorArgType, `argument "x" is a string but parameter`, `"x"`},
		{"loop with generator", `SELF[gen](1) <= loop[gen](1)`, CodeWorkloadLoop, `it runs its own workload, so remove [gen]`, "gen"},
		{"loop ok", `SELF[gen](1) <= loop(2)`, "", "", ""},
		{"loop arity", `SELF[gen](1) <= loop(2, 3)`, CodeGeneratorArity, `workload loop demo.Main.loop(SPLController, int) takes 1 argument(s) but 2 given`, "2, 3"},
		{"self abstract", `todo[gen](1) <= SELF[gen](1)`, CodeSelfAbstract, ``, ""},
		{"abstract other", `SELF[gen](1) <= todo[gen](1)`, "", "", ""},
		{"alias", `p := demo.Main.plain
w := gen
SELF[w](1) <= p[w](1)`, "", "", ""},
		{"alias to unknown", `p := demo.Main.plian
SELF[gen](1) <= p[gen](1)`, CodeUnknownMethod, `alias "p": demo.Main has no method "plian"; did you mean plain?`, "p"},
		{"revision", `SELF[gen](1) <= demo.Main#plain@v2[gen](1)`, "", "", ""},
		{"revision of a project", `SELF[gen](1) <= other@v2:demo.Main#plain[gen](1)`, CodeUnsupported, `project "other"`, "other@v2:demo.Main#plain"},
		{"evaluation dialect", `last < ver2`, "evaluation-dialect", `operands (last, ver2) name data sources`, "last < ver2"},
		{"evaluation dialect with &&", `last < ver2 && ver2 < ver3`, "evaluation-dialect", `instead of && || =>`, "last < ver2 && ver2 < ver3"},
		{"evaluation dialect with prefix", `pkg.Bench.run:last > 1.5`, "evaluation-dialect", `instead of && || =>`, "pkg.Bench.run:last > 1.5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(checkMain, strings.NewReplacer("\n", `\n`, `"`, `\"`).Replace(tc.formula))
			// SELF on an abstract method: annotate todo instead.
			if tc.code == CodeSelfAbstract {
				src = strings.Replace(src, "    @SPL(", "    public abstract int todo2(int[] a);\n    @SPL(", 1)
				src = strings.Replace(src, "public static int m(int[] a) { return 0; }", "public abstract int m(int[] a);", 1)
			}
			files := []*javasrc.File{
				parse(t, "/p/demo/Main.java", src), parse(t, "/p/demo/Base.java", checkBase),
				parse(t, "/p/demo/Sub.java", checkSub), parse(t, "/p/demo/ExtLib.java", checkExtLib),
			}
			formulas, syn := JavaFormulas(files[0])
			diags := NewIndex(files).Lint(formulas, LintOptions{External: jdk})
			all := append(syn, diags...)
			for _, d := range all {
				if d.Severity == Error && d.Code != tc.code {
					t.Errorf("unexpected %s", d)
				}
			}
			if tc.code == "" {
				for _, d := range all {
					if d.Severity != Hint {
						t.Errorf("want no diagnostic, got %s [%s]", d, d.Code)
					}
				}
				return
			}
			found := false
			for _, d := range all {
				if d.Code != tc.code || !strings.Contains(d.Message, tc.msg) {
					continue
				}
				found = true
				if tc.at != "" {
					if got := strings.ReplaceAll(src[d.Span.Start:d.Span.End], `\"`, `"`); got != tc.at {
						t.Errorf("range covers %q, want %q", got, tc.at)
					}
				}
			}
			if !found {
				t.Errorf("want %s %q; got:", tc.code, tc.msg)
				for _, d := range all {
					t.Logf("  %s [%s]", d, d.Code)
				}
			}
		})
	}
}

// A formula in a .spl file has no SELF and no class to look names up in.
func TestCheckSPLFile(t *testing.T) {
	text := "w := demo.Main.gen\nSELF[w](1) <= demo.Main#plain[w](1)\nx[w](1) <= demo.Main#plain[y](1)\n"
	formulas, syn := SPLFile("/p/f.spl", text)
	files := []*javasrc.File{parse(t, "/p/demo/Main.java", fmt.Sprintf(checkMain, "x"))}
	diags := append(syn, NewIndex(files).Lint(formulas, LintOptions{})...)
	want := []struct{ code, at string }{
		{CodeSelfOutside, "SELF"},
		{CodeUnknownAlias, "x"},
		{CodeUnknownAlias, "y"},
	}
	var errs []Diagnostic
	for _, d := range diags {
		if d.Severity == Error {
			errs = append(errs, d)
		}
	}
	if len(errs) != len(want) {
		t.Fatalf("got %v, want %v", errs, want)
	}
	for i, w := range want {
		if errs[i].Code != w.code || text[errs[i].Span.Start:errs[i].Span.End] != w.at {
			t.Errorf("#%d: got %s [%s] at %q, want %s at %q", i, errs[i], errs[i].Code, text[errs[i].Span.Start:errs[i].Span.End], w.code, w.at)
		}
	}
}

// Every reference lint could not check is told of, with the classes that
// were missing; those it checked are not.
func TestCheckUnchecked(t *testing.T) {
	formulas := []string{
		`SELF[gen](1) <= demo.ExtLib#whatever[gen](1)`,      // a supertype outside: unchecked
		`SELF[gen](1) <= demo.ExtLib#whatever(int)[gen](1)`, // the same, with parameter types
		`SELF[demo.ExtLib#g](1) <= plain[gen](1)`,           // a generator through it
		`SELF[gen](1) <= org.elsewhere.Thing#x[gen](1)`,     // a class no lookup covers
		`SELF[gen](1) <= java.util.ArrayList#nope[gen](1)`,  // the JDK's: checked, an error
		`SELF[gen](1) <= demo.Sub#inherited[gen](1)`,        // the workspace's: checked
		`SELF[gen](1) <= java.util.Vague#x[gen](1)`,         // a JDK class whose supertypes its source did not resolve
	}
	src := fmt.Sprintf(checkMain, strings.Join(formulas, `", "`))
	src = strings.Replace(src, `@SPL("`, `@SPL({"`, 1)
	src = strings.Replace(src, `")
    public static int m`, `"})
    public static int m`, 1)
	files := []*javasrc.File{
		parse(t, "/p/demo/Main.java", src), parse(t, "/p/demo/Base.java", checkBase),
		parse(t, "/p/demo/Sub.java", checkSub), parse(t, "/p/demo/ExtLib.java", checkExtLib),
	}
	fs, syn := JavaFormulas(files[0])
	if len(fs) != len(formulas) || len(syn) > 0 {
		t.Fatalf("%d formulas, %v", len(fs), syn)
	}
	var got []string
	diags := NewIndex(files).Lint(fs, LintOptions{External: jdk, Unchecked: func(u Unchecked) {
		got = append(got, fmt.Sprintf("%s %s %v", filepath.Base(u.Path), u.Ref, u.Missing))
	}})
	want := []string{
		"Main.java demo.ExtLib#whatever [org.unknown.Thing]",
		"Main.java demo.ExtLib#whatever [org.unknown.Thing]",
		"Main.java demo.ExtLib#g [org.unknown.Thing]",
		"Main.java org.elsewhere.Thing#x [org.elsewhere.Thing]",
		"Main.java java.util.Vague#x []",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("unchecked:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(diags) != 1 || diags[0].Code != CodeUnknownMethod {
		t.Errorf("want only ArrayList's unknown method, got %v", diags)
	}

	// Without a JDK a supertype left open by wildcard imports is named as
	// each import would make it.
	wild := parse(t, "/p/demo/Wild.java", "package demo;\nimport java.util.*;\nimport org.acme.*;\npublic class Wild extends AbstractList { }\n")
	fs, _ = JavaFormulas(parse(t, "/p/demo/Main.java", fmt.Sprintf(checkMain, `SELF[gen](1) <= demo.Wild#sizee[gen](1)`)))
	got = nil
	NewIndex([]*javasrc.File{wild}).Lint(fs, LintOptions{Unchecked: func(u Unchecked) { got = append(got, fmt.Sprintf("%s %v", u.Ref, u.Missing)) }})
	if want := "demo.Wild#sizee [java.util.AbstractList org.acme.AbstractList java.lang.AbstractList]"; len(got) != 1 || got[0] != want {
		t.Errorf("wildcard: %q, want %q", got, want)
	}
}

// With a partial index (an editor before its index is built), classes it
// does not hold are not reported.
func TestCheckPartialIndex(t *testing.T) {
	src := fmt.Sprintf(checkMain, `SELF[gen](1) <= demo.Other#x[gen](1) and SELF[gen](1) <= Other#y[gen](1) and SELF[gen](1) <= nope[gen](1)`)
	f := parse(t, "/p/demo/Main.java", src)
	formulas, _ := JavaFormulas(f)
	diags := NewIndex([]*javasrc.File{f}).Lint(formulas, LintOptions{Partial: true})
	if len(diags) != 1 || diags[0].Code != CodeUnknownAlias {
		t.Errorf("want only the unknown alias, got %v", diags)
	}
}

// An overlay (open buffers over the files on disk) answers from its own
// files first and hides the disk version of the files it replaces.
func TestIndexWith(t *testing.T) {
	disk := NewIndex([]*javasrc.File{
		parse(t, "/p/demo/Base.java", checkBase),
		parse(t, "/p/demo/Old.java", "package demo;\nclass Old { static void gone() {} }\n"),
	})
	edited := parse(t, "/p/demo/Old.java", "package demo;\nclass New { static void fresh() {} }\n")
	ix := disk.With([]*javasrc.File{edited})
	if ix.Type("demo.Old") != nil {
		t.Error("the replaced file's type is still visible")
	}
	if nt := ix.Type("demo.New"); nt == nil || len(ix.Methods(nt, "fresh")) != 1 {
		t.Error("the overlay's type is missing")
	}
	if bt := ix.Type("demo.Base"); bt == nil || len(ix.Methods(bt, "inherited")) != 1 || ix.fileOf(bt).Path != "/p/demo/Base.java" {
		t.Error("the base's other types are missing")
	}
	if disk.Type("demo.Old") == nil {
		t.Error("With modified its receiver")
	}
}
