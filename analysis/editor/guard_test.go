package editor

import (
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
)

func TestRoundUp2(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{1.2, 1.2}, {1.166, 1.2}, {1.201, 1.3}, {13.01, 14}, {0.0123, 0.013}, {99.5, 100},
	} {
		if got := roundUp2(c.in); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("roundUp2(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestFactor(t *testing.T) {
	for in, want := range map[float64]string{1.2000000000000002: "1.2", 0.73: "0.73", 140: "140", 1.3e3: "1300", 14: "14"} {
		if got := factor(in); got != want {
			t.Errorf("factor(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestMeasurementGuards(t *testing.T) {
	self := Measured{Method: "binarySearch", Workload: "sizes", Args: "100", MeanNs: 1430, CILowNs: 1400, CIHighNs: 1460}
	lin := Measured{Method: "linearSearch", Workload: "sizes", Args: "100", MeanNs: 1350, CILowNs: 1300, CIHighNs: 1400}
	noisy := Measured{Method: "x", Workload: "sizes", Args: "100", MeanNs: 1000, CILowNs: 800, CIHighNs: 1200}
	for _, c := range []struct {
		name                  string
		g                     Guard
		ok                    bool
		wantFormula, wantText string
	}{
		{"head", HeadGuard(self), true, "SELF[sizes](100) <= 1.2 * SELF@HEAD[sizes](100)", "(≤ 1.2 × HEAD on sizes(100), measured 1.43 µs ± 2.1 %)"},
		// 1200/800 × 1.1 = 1.65 → 1.7: the noise the measurement showed widens the 20 %.
		{"head-noisy", HeadGuard(noisy), true, "SELF[sizes](100) <= 1.7 * SELF@HEAD[sizes](100)", "(≤ 1.7 × HEAD"},
		// upper 1460/1300 = 1.123, × 1.1 = 1.235 → 1.3; measured 1430/1350 = 1.06.
		{"sibling", must(SiblingGuard(self, lin)), true, "SELF[sizes](100) <= 1.3 * linearSearch[sizes](100)", "(≤ 1.3 × linearSearch, measured 1.06×)"},
		{"best-sibling", must(BestSiblingGuard(self, []Measured{noisy, lin})), true, "SELF[sizes](100) <= 1.3 * linearSearch[sizes](100)", ""},
	} {
		if c.g.Formula != c.wantFormula || !strings.HasPrefix(c.g.Title, GuardTitle) || !strings.Contains(c.g.Title, c.wantText) {
			t.Errorf("%s: %q %q, want %q containing %q", c.name, c.g.Formula, c.g.Title, c.wantFormula, c.wantText)
		}
	}
	other := lin
	other.Args = "10"
	if _, ok := SiblingGuard(self, other); ok {
		t.Error("a sibling measured on other arguments gave a guard")
	}
	if _, ok := BestSiblingGuard(self, nil); ok {
		t.Error("no siblings gave a guard")
	}
}

func must(g Guard, ok bool) Guard {
	if !ok {
		return Guard{Formula: "(none)"}
	}
	return g
}

func TestFindingGuard(t *testing.T) {
	for _, c := range []struct {
		name        string
		f           ProfileFinding
		wantFormula string
		wantTitle   string
	}{
		{"alloc", ProfileFinding{Kind: "excessive-allocation", Workload: "sizes", Args: "100", BytesPerOp: 4096, ChurnBytesPerOp: 3800},
			"alloc(SELF)[sizes](100) <= 1.2 * alloc(SELF@HEAD)[sizes](100)", "Guard this: alloc ≤ 1.2 × HEAD on sizes(100) (profiled 4.0 KiB/op, 3.7 KiB/op of it small objects)"},
		// Churn of a tenth of the bytes would pass a 20 % guard: not offered.
		{"alloc-small-churn", ProfileFinding{Kind: "excessive-allocation", Workload: "sizes", Args: "100", BytesPerOp: 4096, ChurnBytesPerOp: 400}, "", ""},
		{"alloc-no-figure", ProfileFinding{Kind: "excessive-allocation", Workload: "sizes", Args: "100"}, "", ""},
		// +60 % over the run: k = 1 + 0.6/4 = 1.15.
		{"ramp", ProfileFinding{Kind: "ramp", Workload: "p.C#gen", Args: "10", GrowthOverRun: 0.6},
			"SELF[p.C#gen](10) <= 1.1 * SELF@HEAD[p.C#gen](10)", "Guard this: ≤ 1.1 × HEAD on gen(10) (ramp: +60 %"},
		{"ramp-big", ProfileFinding{Kind: "ramp", Workload: "gen", Args: "10", GrowthOverRun: 3},
			"SELF[gen](10) <= 1.2 * SELF@HEAD[gen](10)", "Guard this: ≤ 1.2 × HEAD on gen(10) (ramp: +300 %"},
		{"ramp-too-small", ProfileFinding{Kind: "ramp", Workload: "gen", Args: "10", GrowthOverRun: 0.1}, "", ""},
		{"other-kind", ProfileFinding{Kind: "one-lane-bridge", Workload: "gen", Args: "10"}, "", ""},
	} {
		g, ok := FindingGuard(c.f)
		if ok != (c.wantFormula != "") || g.Formula != c.wantFormula || !strings.HasPrefix(g.Title, c.wantTitle) {
			t.Errorf("%s: %v %q %q, want %q %q", c.name, ok, g.Formula, g.Title, c.wantFormula, c.wantTitle)
		}
	}
}

const guardSrc = `package p;
import dev.perfls.SPL;
class G {
    public static int bare(int[] a) { return 0; }
    @SPL("SELF[sizes](10) <= linearSearch[sizes](10)")
    static int single(int[] a) { return 0; }
    @SPL({"SELF[sizes](10) <= linearSearch[sizes](10)"})
    static int braced(int[] a) { return 0; }
    @SPL(methods = {"x=p.G#bare"}, value = "SELF[sizes](10) <= x[sizes](10)")
    static int named(int[] a) { return 0; }
    @SPL(methods = {"x=p.G#bare"})
    static int aliasesOnly(int[] a) { return 0; }
    static int linearSearch(int[] a) { return 0; }
    static Iterable<Object[]> sizes(int n) { return null; }
}
`

func TestInsertFormulaLints(t *testing.T) {
	f, err := javasrc.Parse("/w/p/G.java", []byte(guardSrc))
	if err != nil {
		t.Fatal(err)
	}
	method := func(name string) *javasrc.Method {
		for _, m := range f.Methods {
			if m.Name == name {
				return m
			}
		}
		t.Fatalf("no method %s", name)
		return nil
	}
	w := Workspace{Files: []*javasrc.File{f}, Index: workspace.NewIndex([]*javasrc.File{f})}
	good := "SELF[sizes](100) <= 1.3 * linearSearch[sizes](100)"
	for _, c := range []struct {
		method, formula, want string // want: the edited method's lines; "" not offered
		clean                 bool
	}{
		{"bare", good, "    @SPL(\"" + good + "\")\n    public static int bare(int[] a) { return 0; }", true},
		{"single", good, `    @SPL({"SELF[sizes](10) <= linearSearch[sizes](10)", "` + good + `"})`, true},
		{"braced", good, `    @SPL({"SELF[sizes](10) <= linearSearch[sizes](10)", "` + good + `"})`, true},
		{"named", good, `value = {"SELF[sizes](10) <= x[sizes](10)", "` + good + `"})`, true},
		{"aliasesOnly", good, "", false},
		{"bare", "alloc(SELF)[sizes](100) <= 1.2 * alloc(SELF@HEAD)[sizes](100)", "@SPL(\"alloc(SELF)", true},
		{"bare", "SELF[sizes](100) <= 1.2 * SELF@HEAD[sizes](100)", "@SPL(\"SELF", true},
		// A misspelt sibling does not lint clean: not to be offered.
		{"bare", "SELF[sizes](100) <= 1.3 * linearSerch[sizes](100)", "@SPL(", false},
	} {
		edits, ok := InsertFormula(f, method(c.method), c.formula)
		if ok != (c.want != "") {
			t.Errorf("%s: offered %v", c.method, ok)
			continue
		}
		if !ok {
			continue
		}
		if got := ApplyEdits(f.Src, edits); !strings.Contains(got, c.want) {
			t.Errorf("%s: edited text lacks %q:\n%s", c.method, c.want, got)
		}
		diags, err := w.LintInserted(f, edits, c.formula, workspace.LintOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.method, err)
		}
		if (len(diags) == 0) != c.clean {
			t.Errorf("%s %q: lint %v, want clean %v", c.method, c.formula, diags, c.clean)
		}
	}
}
