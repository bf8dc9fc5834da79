package workspace

import (
	"os"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
)

// Conformance: a Java file using every annotation form is read, parsed and
// checked without a single diagnostic; each formula is found.
func TestConformanceEveryAnnotationForm(t *testing.T) {
	const path = "testdata/conformance/src/conf/Forms.java"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := javasrc.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	formulas, diags := JavaFormulas(f)
	diags = append(diags, NewIndex([]*javasrc.File{f}).Lint(formulas, LintOptions{External: jdk})...)
	for _, d := range diags {
		t.Errorf("unexpected %s [%s]", d, d.Code)
	}
	perMethod := map[string]int{}
	for _, fo := range formulas {
		perMethod[fo.Method.Name]++
	}
	want := map[string]int{"single": 1, "array": 1, "concatenated": 1, "original": 1, "textBlock": 1, "jdk": 1, "loop2": 1, "repeated": 2}
	for m, n := range want {
		if perMethod[m] != n {
			t.Errorf("%s: %d formulas, want %d (all: %v)", m, perMethod[m], n, perMethod)
		}
	}
}

// Conformance: the thesis listings (seed 004) through the whole pipeline.
// They name third-party classes (org.jdom2, ArrayList without import), so
// only what is certain is reported: Listing 5's scalar placement.
func TestConformanceSeedListings(t *testing.T) {
	listings := []struct {
		name, text string
		codes      []string
	}{
		{"listing-4", `m1 := org.jdom2.input.SAXBuilder.build@6a49ef6
m2 := org.jdom2.input.SAXBuilder.build@HEAD
w := org.jdom2.test.Generators.xmlFiles
for f in {"tiny1.xml", "tiny2.xml", "big.xml"} m1[w](f) >= m2[w](f)`, nil},
		{"listing-5", `history := org.jdom2.Verifier.checkElementName@JDOM-2.0.0
current := org.jdom2.Verifier.checkElementName
copy := org.jdom2.test.Util.copyString
w := org.jdom2.test.Generators.names
for l in {5, 10, 50, 100, 500, 1000}
  10 * current[w](l) <= copy[w](l) and current[w](l) <= 1.05 * history[w](l)`, []string{"scale-placement"}},
		{"section-3.1", `for i in {10, 20, 30} org.demo.Sorter#sort[org.demo.Data#getData](i) <= java.util.Arrays#sort(int[])[org.demo.Data#getData](i)`, nil},
	}
	for _, l := range listings {
		t.Run(l.name, func(t *testing.T) {
			formulas, diags := SPLFile(l.name+".spl", l.text)
			diags = append(diags, NewIndex(nil).Lint(formulas, LintOptions{External: jdk})...)
			var got []string
			for _, d := range diags {
				if d.Severity != Hint {
					got = append(got, d.Code)
				}
			}
			if strings.Join(dedupe(got), ",") != strings.Join(l.codes, ",") {
				t.Errorf("codes %v, want %v: %v", got, l.codes, diags)
			}
		})
	}
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
