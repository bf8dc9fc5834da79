package javasrc

import (
	"flag"
	"os"
	"testing"
)

// TestMain shortens the minimization of new fuzz inputs. Go minimizes an
// interesting input by trying O(n²) candidates, so with the default limit
// (60s) the first interesting input found can use up a whole
// -fuzztime=60s run. An explicit -fuzzminimizetime still wins.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if !given {
		if err := flag.Set("test.fuzzminimizetime", "5s"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// maxFuzzInput bounds the inputs worth fuzzing: the logic under test is
// local, and large inputs only slow down execution and minimization.
const maxFuzzInput = 2 << 10

func FuzzParse(f *testing.F) {
	for _, name := range []string{"Names.java", "Strings.java"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		methodsSrc,
		`package p;
class G {
    static final String S = "java.util.Arrays#sort";
    interface L { int MAX = 1 << 20; String A = "m=" + G.S; }
    @SPL({"for n in {1} SELF(n) <= " + S + "(n)", "SELF = SELF"})
    @SPLs({@SPL(formula = {"b"}, methods = L.A, generators = {"g=x.Y#z"})})
    @Workloads({@Workload("a.B#c"), @Workload(value = "a.B.d(int)")})
    @SeeAlso({"a.B#c"})
    @Generator(name = "n", description = "d" + "e")
    static Iterable<Object[]> g(@Param(value = "Size", min = 0, max = L.MAX) int n,
        @ParamNum(description = "x", min = -1, max = 1e3, step = 0.5) long s, @ParamDesc("k") String k) { return null; }
}
`,
		formulaFile(`    @SPL("x é 😀 " + "m[w](n) <= $bad")`, `    @SPL(PRE + "\t\u00e9" + """`, `        a\`, `        """)`),
		"class A {\n  @SPL(\n  void f() {}\n",
		"class A { @SPL(\"a\\uuu0041\" + 'c' + 1 + A.B) void f(int a[], String... s) { new Object() { void g() {} }; } }",
		"class A {\n  void f() {\n    if (x) {\n  }\n  @SPL(\"\"\"\n    a\n    \"\"\") void g() {}\n}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > maxFuzzInput {
			t.Skip()
		}
		before := sealedFallbacks.Load()
		file, err := Parse("Fuzz.java", src)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if sealedFallbacks.Load() != before {
			t.Fatalf("extraction read the syntax tree after releasing it")
		}
		if file.Src != string(src) {
			t.Fatalf("Src differs from input")
		}
		checkInvariants(t, file, false)
		// The same text as a large file: split in parts, bodies left out.
		old := splitMinBytes
		splitMinBytes = 0
		large, err := Parse("Fuzz.java", src)
		splitMinBytes = old
		if err != nil {
			t.Fatalf("Parse as a large file: %v", err)
		}
		checkInvariants(t, large, false)
	})
}
