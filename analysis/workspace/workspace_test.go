package workspace

import (
	"strconv"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
)

func parse(t *testing.T, path, src string) *javasrc.File {
	t.Helper()
	f, err := javasrc.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const searchSrc = `package demo;

import dev.perfls.SPL;
import other.Helpers;

public class Search {
    @SPL("for n in {10, 20} SELF[gen](n) <= demo.Search#linear[gen](n) and SELF[gen](n) <= 0.5 * Util#twice[demo.Search#gen](n)")
    public static int binary(int[] a, int key) { return 0; }

    public static int linear(int[] a, int key) { return 0; }

    @SPL({"lin := demo.Search.linear", "w := gen", "lin[w](5) <= Helpers#fast[w](5)"})
    public static void aliases() {}

    @SPL(methods = {"l=demo.Search#linear"}, generators = {"g=demo.Search#gen"}, formula = {"for (i{1,2}) l[g](i) <=(2, 1) SELF[g](i)"})
    public static int original(int[] a, int key) { return 0; }

    @SPL("SELF[gen](1) <= over[gen](1)")
    public static void ambiguous() {}
    public static void over(int a) {}
    public static void over(long a) {}

    @SPL("SELF[gen](1) <= java.util.Arrays#sort(int[])[gen](1) and SELF[gen](1) <= demo.Search#linear@v1[gen](1)")
    public static void external(int[] a) {}

    @SPL("SELF[gen](1) <= linear[gen](1")
    public static void broken(int[] a) {}

    public static Iterable<Object[]> gen(int n) { return null; }
}
`

const utilSrc = `package demo;
class Util {
    static int twice(int[] a, int key) { return 0; }
}
`

const helpersSrc = `package other;
public class Helpers {
    public static int fast(int[] a, int key) { return 0; }
}
`

func TestPlanResolvesEveryReferenceForm(t *testing.T) {
	files := []*javasrc.File{
		parse(t, "/p/demo/Search.java", searchSrc),
		parse(t, "/p/demo/Util.java", utilSrc),
		parse(t, "/p/other/Helpers.java", helpersSrc),
	}
	var formulas []*Formula
	var diags []Diagnostic
	for _, f := range files {
		fs, ds := JavaFormulas(f)
		formulas = append(formulas, fs...)
		diags = append(diags, ds...)
	}
	if len(diags) != 1 || diags[0].Severity != Error || diags[0].Range.Start.Line != 25 {
		t.Errorf("want one syntax error on line 26 (the broken formula), got %v", diags)
	}
	plan := PlanCheck(NewIndex(files), formulas)

	got := map[string][]string{} // method → rendered comparisons with operands
	for _, in := range plan.Instances {
		for _, c := range in.Comparisons {
			line := in.Label() + ": " + c.Text + " => " + describe(c.Left) + " vs " + describe(c.Right)
			got[in.Formula.Method.Name] = append(got[in.Formula.Method.Name], line)
		}
	}
	want := map[string][]string{
		"binary": {
			"n=10: SELF[gen](10) <= demo.Search#linear[gen](10) => demo.Search#binary(int[],int)[demo.Search#gen(int)](10)×1 vs demo.Search#linear(int[],int)[demo.Search#gen(int)](10)×1",
			"n=10: SELF[gen](10) <= 0.5 * Util#twice[demo.Search#gen](10) => demo.Search#binary(int[],int)[demo.Search#gen(int)](10)×1 vs demo.Util#twice(int[],int)[demo.Search#gen(int)](10)×0.5",
			"n=20: SELF[gen](20) <= demo.Search#linear[gen](20) => demo.Search#binary(int[],int)[demo.Search#gen(int)](20)×1 vs demo.Search#linear(int[],int)[demo.Search#gen(int)](20)×1",
			"n=20: SELF[gen](20) <= 0.5 * Util#twice[demo.Search#gen](20) => demo.Search#binary(int[],int)[demo.Search#gen(int)](20)×1 vs demo.Util#twice(int[],int)[demo.Search#gen(int)](20)×0.5",
		},
		"aliases": {
			": lin[w](5) <= Helpers#fast[w](5) => demo.Search#linear(int[],int)[demo.Search#gen(int)](5)×1 vs other.Helpers#fast(int[],int)[demo.Search#gen(int)](5)×1",
		},
		"original": {
			"i=1: l[g](1) <=(2, 1) SELF[g](1) => demo.Search#linear(int[],int)[demo.Search#gen(int)](1)×2 vs demo.Search#original(int[],int)[demo.Search#gen(int)](1)×1",
			"i=2: l[g](2) <=(2, 1) SELF[g](2) => demo.Search#linear(int[],int)[demo.Search#gen(int)](2)×2 vs demo.Search#original(int[],int)[demo.Search#gen(int)](2)×1",
		},
		"ambiguous": {
			": SELF[gen](1) <= over[gen](1) => demo.Search#ambiguous()[demo.Search#gen(int)](1)×1 vs error: demo.Search.over is overloaded; name the parameter types",
		},
		"external": {
			": SELF[gen](1) <= java.util.Arrays#sort(int[])[gen](1) => demo.Search#external(int[])[demo.Search#gen(int)](1)×1 vs java.util.Arrays#sort(int[])[demo.Search#gen(int)](1)×1",
			": SELF[gen](1) <= demo.Search#linear@v1[gen](1) => demo.Search#external(int[])[demo.Search#gen(int)](1)×1 vs demo.Search#linear@v1[demo.Search#gen(int)@v1](1)×1",
		},
	}
	for m, lines := range want {
		if len(got[m]) != len(lines) {
			t.Errorf("%s: %d comparisons, want %d:\n%s", m, len(got[m]), len(lines), strings.Join(got[m], "\n"))
			continue
		}
		for i := range lines {
			if !strings.HasPrefix(got[m][i], lines[i]) {
				t.Errorf("%s #%d:\n got %s\nwant %s", m, i, got[m][i], lines[i])
			}
		}
	}
	if _, ok := got["broken"]; ok {
		t.Errorf("a formula with a syntax error was planned: %v", got["broken"])
	}
	// Each distinct measurement is requested once.
	seen := map[string]bool{}
	for _, r := range plan.Requests {
		if seen[r.Key()] {
			t.Errorf("duplicate request %s", r.Key())
		}
		seen[r.Key()] = true
	}
	if !seen["demo.Search#linear(int[],int)[demo.Search#gen(int)](10)"] {
		t.Errorf("requests: %v", seen)
	}
}

func describe(o Operand) string {
	if o.Err != nil {
		return "error: " + o.Err.Error()
	}
	return o.Request.Key() + "×" + strconv.FormatFloat(o.Scale, 'g', -1, 64)
}

func TestSemanticDiagnosticsReachTheDocument(t *testing.T) {
	src := "package p;\nclass A {\n    @SPL(\"for n in {1, 2} SELF[g](k) <= other[g](n)\")\n    static void m(int x) {}\n}\n"
	f := parse(t, "/p/A.java", src)
	formulas, diags := JavaFormulas(f)
	if len(diags) != 1 || diags[0].Code != "undeclared-variable" {
		t.Fatalf("diagnostics %v, want one undeclared-variable", diags)
	}
	col := strings.Index(strings.Split(src, "\n")[2], "k)")
	if r := diags[0].Range; r.Start.Line != 2 || r.Start.Character != col || r.End.Character != col+1 {
		t.Errorf("range %+v, want 2:%d–%d", r, col, col+1)
	}
	if len(formulas) != 1 || !formulas[0].Broken {
		t.Errorf("a formula with an undeclared variable must not be measured: %+v", formulas)
	}
}

func TestInterpretationElement(t *testing.T) {
	src := "package p;\nclass A {\n    @SPL(value = \"SELF[g](1) <= other[g](1)\", interpretation = \"rnak\")\n    static void m() {}\n    @SPL(value = \"SELF[g](1) <= other[g](1)\", interpretation = \"rank\")\n    static void n() {}\n}\n"
	formulas, diags := JavaFormulas(parse(t, "/p/A.java", src))
	if len(diags) != 1 || diags[0].Code != "unknown-interpretation" || diags[0].Range.Start.Line != 2 || !strings.Contains(diags[0].Message, "quick, parametric, nonparametric or rank") {
		t.Errorf("diagnostics %v", diags)
	}
	if len(formulas) != 2 || formulas[0].Interpretation != "" || formulas[1].Interpretation != "rank" {
		t.Errorf("interpretations %q, %q", formulas[0].Interpretation, formulas[1].Interpretation)
	}
}

// A check plans no argument Java cannot receive as it is written: an
// argument that is not a whole number or does not fit a long fails its
// operand (the generator at a revision is not linted against a
// declaration), never truncated or wrapped.
func TestPlanRefusesArgumentsJavaCannotTake(t *testing.T) {
	src := "package p;\nclass A {\n" +
		"    @SPL(\"for n in {10, 12} SELF[gen](n) <= p.A#m@v1[gen](n / 4)\")\n    static void m(int[] a) {}\n" +
		"    @SPL(\"for n in {1e30} SELF[gen](n) <= p.A#m@v1[gen](1)\")\n    static void big(int[] a) {}\n" +
		"    static Iterable<Object[]> gen(double n) { return null; }\n}\n"
	f := parse(t, "/p/A.java", src)
	formulas, diags := JavaFormulas(f)
	if len(diags) != 0 {
		t.Fatalf("diagnostics %v", diags)
	}
	plan := PlanCheck(NewIndex([]*javasrc.File{f}), formulas)
	var got []string
	for _, in := range plan.Instances {
		for _, c := range in.Comparisons {
			got = append(got, in.Label()+": "+describe(c.Left)+" vs "+describe(c.Right))
		}
	}
	want := []string{
		"n=10: p.A#m(int[])[p.A#gen(double)](10)×1 vs error: argument 1 (n / 4) of p.A#m@v1: 2.5 is not a whole number: perfls passes whole numbers to Java",
		"n=12: p.A#m(int[])[p.A#gen(double)](12)×1 vs p.A#m@v1[p.A#gen(double)@v1](3)×1",
		"n=1e+30: error: argument 1 (n) of SELF: 1e+30 does not fit in a Java long (-9223372036854775808 to 9223372036854775807) vs p.A#m@v1[p.A#gen(double)@v1](1)×1",
	}
	if len(got) != len(want) {
		t.Fatalf("plan:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("#%d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}
