package htmlreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
)

// forks draws k forks of n samples around mean with a relative spread.
func forks(r *rand.Rand, k, n int, mean, spread float64) [][]float64 {
	out := make([][]float64, k)
	for i := range out {
		shift := 1 + spread*(r.Float64()-0.5)
		for range n {
			out[i] = append(out[i], mean*shift*(1+spread*r.NormFloat64()/4))
		}
	}
	return out
}

func comparison(text string, o verdict.Outcome, l, r Side) Comparison {
	ev := verdict.Evidence{
		Left:  verdict.SideEvidence{MeanNs: 20, MedianNs: 19, Forks: len(l.Forks), Samples: 30 * len(l.Forks), Scale: l.Scale},
		Right: verdict.SideEvidence{MeanNs: 1200, MedianNs: 1100, Forks: len(r.Forks), Samples: 30 * len(r.Forks), Scale: r.Scale},
		Ratio: 0.0167, RatioLow: 0.015, RatioHigh: 0.018, Interpretation: "quick", Tolerance: 0.05,
		Test: "Welch t-test", StatName: "t", T: -38.5, DF: 89, P: 1, Alpha: 0.05,
	}
	return Comparison{Result: verdict.ComparisonResult{Text: text, Outcome: o, Evidence: ev}, Left: l, Right: r}
}

// sample is a report with the hazards the page must survive: markup in
// names and messages, a scaled side, a side without data, an undecided
// comparison, a cost curve with a fit and one without.
func sample() *Report {
	r := rand.New(rand.NewPCG(1, 2))
	fit, err := stats.FitCostModels([]stats.CostPoint{{N: 100, Y: 10}, {N: 100, Y: 11}, {N: 1000, Y: 100}, {N: 1000, Y: 104}, {N: 10000, Y: 1010}, {N: 10000, Y: 990}})
	if err != nil {
		panic(err)
	}
	return &Report{
		Project: "/tmp/p<roj>", Command: "perfls check --html 'out dir' .",
		Generated: time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC), Elapsed: 12 * time.Second, Alpha: 0.05,
		Environment: []Field{{Name: "JVM", Value: "OpenJDK 17 <b>bold</b>"}},
		Notices:     []string{"cache & co <notice>"},
		Diagnostics: []string{`A.java:3:5: error: unknown method "x<y>"`},
		Methods: []Method{{
			Name: "p.A#m<script>alert(1)</script>(int[])", File: "src/A.java",
			Instances: []Instance{
				{Line: 3, Label: "n=10", Formula: "for n in {10} SELF[w](n) <= p.A#other[w](n)", Outcome: verdict.Satisfied,
					Comparisons: []Comparison{comparison("SELF[w](10) <= p.A#other[w](10)", verdict.Satisfied,
						Side{Label: "p.A#m[w](10)", Forks: forks(r, 3, 30, 20, 0.2)},
						Side{Label: "p.A#other[w](10)", Forks: forks(r, 3, 30, 1200, 0.2)})}},
				{Line: 4, Formula: "SELF[w](1) <= 0.5 * p.A#x[w](1) && SELF[w](1) < p.A#gone[w](1)", Outcome: verdict.Undecided,
					Comparisons: []Comparison{
						comparison("SELF[w](1) <= 0.5 * p.A#x[w](1)", verdict.Violated,
							Side{Label: "p.A#m[w](1)", Forks: forks(r, 5, 30, 100, 0.1)},
							Side{Label: "p.A#x[w](1)", Scale: 0.5, Forks: forks(r, 5, 30, 150, 0.1)}),
						{Result: verdict.ComparisonResult{Text: "SELF[w](1) < p.A#gone[w](1)", Outcome: verdict.Undecided, Reason: "measurement failed: <Boom> & \"quoted\""},
							Left: Side{Label: "p.A#m[w](1)", Forks: forks(r, 1, 30, 100, 0.1)}, Right: Side{Label: "unresolved: no method gone"}},
					}},
			},
		}},
		Costs: []Cost{
			{Subject: "p.A#m[w]", Fit: &fit, Demands: []model.Dependency{{Metric: model.CPU, Text: "≈ 0.1·n ns"}}, Callees: []string{"pairs(): cpu ≈ 0.9·n² ns, 94 % of m() at n = 10000"}, Points: []CostPoint{{N: 100, ForkMeans: []float64{10, 11}}, {N: 1000, ForkMeans: []float64{100, 104}}, {N: 10000, ForkMeans: []float64{1010, 990}}}},
			{Subject: "p.A#one<point>[w]", Points: []CostPoint{{N: 5, ForkMeans: []float64{42}}}},
			{Subject: "p.A#two[w]", Fit: &fit, Points: []CostPoint{{N: 1e4, ForkMeans: []float64{20, 21}}, {N: 1e5, ForkMeans: []float64{200, 210}}}},
		},
	}
}

func TestRenderEscapesUserText(t *testing.T) {
	page, err := Render(sample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, raw := range []string{"<script>", "<b>bold</b>", "<notice>", "<roj>", "<Boom>", `"x<y>"`, "one<point>"} {
		if strings.Contains(s, raw) {
			t.Errorf("page contains unescaped %q", raw)
		}
	}
	if !strings.Contains(s, "Demands per operation; cpu ≈ 0.1·n ns") {
		t.Error("page lacks the demands' dependencies")
	}
	if !strings.Contains(s, "<li>pairs(): cpu ≈ 0.9·n² ns, 94 % of m() at n = 10000</li>") {
		t.Error("page lacks the callees of the stored model")
	}
	for _, escaped := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;bold&lt;/b&gt;", "cache &amp; co &lt;notice&gt;", "&lt;Boom&gt; &amp; &#34;quoted&#34;", "one&lt;point&gt;"} {
		if !strings.Contains(s, escaped) {
			t.Errorf("page lacks %q", escaped)
		}
	}
	if strings.Contains(s, "<script") || strings.Contains(s, "http://") && !strings.Contains(s, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("the page must not carry scripts or fetch anything")
	}
}

// TestRenderShowsEveryComparison checks the summary counts, one section per
// comparison with its evidence, a plot or a reason why not, and the cost
// curves.
func TestRenderShowsEveryComparison(t *testing.T) {
	r := sample()
	page, err := Render(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if got := strings.Count(s, `<section class="comparison"`); got != 3 {
		t.Errorf("%d comparison sections, want 3", got)
	}
	for _, want := range []string{"1 satisfied", "0 violated", "1 undecided", "3 comparisons",
		"ratio L/R", "0.0167 [0.015, 0.018] (95 %)", "p-value", "1.000 (α = 0.05)", "quick, tolerance 5 %",
		"600 ns/op (0.5 × 1.20 µs/op)", "measurement failed", "Best fit: n",
		"2 values: no model (a cost model needs 3 or more argument values)."} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if got := strings.Count(s, `<section class="cost"`); got != 3 {
		t.Errorf("%d cost sections, want 3", got)
	}
	// The comparison whose right side is unresolved still gets a plot of
	// the side that was measured.
	if n := strings.Count(s, "<svg"); n != 6 {
		t.Errorf("%d SVG plots, want 6 (3 comparisons, 3 cost curves)", n)
	}
	if strings.Count(s, "Best fit") != 1 {
		t.Error("a model named from fewer than 3 argument values")
	}
	if !regexp.MustCompile(`id="summary"`).MatchString(s) {
		t.Error("no summary")
	}
}

// TestRenderIsWellFormed parses the page as XML (it is written as XHTML-
// compatible markup apart from the doctype) and every inline SVG on its own.
func TestRenderIsWellFormed(t *testing.T) {
	page, err := Render(sample())
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimPrefix(string(page), "<!DOCTYPE html>\n")
	if err := wellFormed(body); err != nil {
		t.Errorf("page: %v", err)
	}
	re := regexp.MustCompile(`(?s)<svg.*?</svg>`)
	svgs := re.FindAllString(string(page), -1)
	if len(svgs) == 0 {
		t.Fatal("no SVG in the page")
	}
	for i, svg := range svgs {
		if err := wellFormed(svg); err != nil {
			t.Errorf("svg %d: %v", i, err)
		}
		if !strings.Contains(svg, `xmlns="http://www.w3.org/2000/svg"`) || !strings.Contains(svg, "<path") {
			t.Errorf("svg %d: not a drawn SVG document: %.200s", i, svg)
		}
	}
}

// wellFormed reports the first XML error of doc; HTML void elements are
// closed for the check.
func wellFormed(doc string) error {
	doc = regexp.MustCompile(`<(meta|br)([^>]*)>`).ReplaceAllString(doc, "<$1$2/>")
	d := xml.NewDecoder(strings.NewReader(doc))
	d.Strict = true
	d.Entity = map[string]string{"nbsp": " "}
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestPlotsOfDegenerateData(t *testing.T) {
	// Zero and negative times cannot go on a log axis; one sample per fork
	// and an empty side must not break the page.
	c := comparison("a <= b", verdict.Undecided,
		Side{Label: "a", Forks: [][]float64{{0, 1, 2}, {-1, 3}}},
		Side{Label: "b", Forks: [][]float64{{5}}})
	svg, err := ComparisonSVG(c)
	if err != nil {
		t.Fatalf("ComparisonSVG: %v", err)
	}
	if err := wellFormed(string(svg)); err != nil {
		t.Error(err)
	}
	if _, err := ComparisonSVG(comparison("x", verdict.Undecided, Side{}, Side{})); err != nil {
		t.Errorf("empty sides: %v", err)
	}
	if _, err := CostSVG(Cost{Subject: "x"}); err == nil {
		t.Error("a cost curve without points must be an error")
	}
	page, err := Render(&Report{Methods: []Method{{Name: "m", Instances: []Instance{{Comparisons: []Comparison{c}}}}}})
	if err != nil || !bytes.Contains(page, []byte(`class="comparison"`)) {
		t.Errorf("render: %v", err)
	}
}

// BenchmarkRenderQuickstart renders a page the size of the quickstart
// example's: 3 methods, 6 instances of one comparison each, 3 forks × 30
// samples per side, 4 cost curves of 2 arguments × 3 forks.
func BenchmarkRenderQuickstart(b *testing.B) {
	rnd := rand.New(rand.NewPCG(3, 4))
	r := &Report{Project: "examples/quickstart", Command: "perfls check --html out examples/quickstart", Alpha: 0.05}
	for m := range 3 {
		meth := Method{Name: fmt.Sprintf("quickstart.C#m%d(int[],int)", m), File: "src/C.java"}
		for _, n := range []int{10000, 100000} {
			c := comparison(fmt.Sprintf("SELF[w](%d) <= quickstart.C#o[w](%d)", n, n), verdict.Satisfied,
				Side{Label: "quickstart.C#m[w]", Forks: forks(rnd, 3, 30, 20, 0.2)},
				Side{Label: "quickstart.C#o[w]", Forks: forks(rnd, 3, 30, 1300, 0.2)})
			meth.Instances = append(meth.Instances, Instance{Line: 15, Label: fmt.Sprintf("n=%d", n), Formula: "for n in {10000, 100000} SELF[w](n) <= quickstart.C#o[w](n)", Outcome: verdict.Satisfied, Comparisons: []Comparison{c}})
		}
		r.Methods = append(r.Methods, meth)
	}
	for i := range 4 {
		pts := []stats.CostPoint{{N: 1e4, Y: 20}, {N: 1e4, Y: 21}, {N: 1e4, Y: 19}, {N: 1e5, Y: 28}, {N: 1e5, Y: 27}, {N: 1e5, Y: 30}}
		fit, err := stats.FitCostModels(pts)
		if err != nil {
			b.Fatal(err)
		}
		r.Costs = append(r.Costs, Cost{Subject: fmt.Sprintf("quickstart.C#m%d[w]", i), Fit: &fit,
			Points: []CostPoint{{N: 1e4, ForkMeans: []float64{20, 21, 19}}, {N: 1e5, ForkMeans: []float64{28, 27, 30}}}})
	}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		page, err := Render(r)
		if err != nil {
			b.Fatal(err)
		}
		size = len(page)
	}
	b.ReportMetric(float64(size), "page-bytes")
}

// TestFailedIsRed: an instance an error left undecided is shown as failed
// (red, with the reason), apart from the undecided ones.
func TestFailedIsRed(t *testing.T) {
	c := &report.Check{Project: "/p", Alpha: 0.05, Methods: []verdict.MethodResult{{File: "/p/A.java", Class: "p.A", Method: "m",
		Instances: []verdict.InstanceResult{{Line: 6, Formula: "f", Outcome: verdict.Undecided, Failed: true,
			Comparisons: []verdict.ComparisonResult{{Text: "SELF[g](1) <= p.A#o[g](1)", Reason: "left side: NoClassDefFoundError: dep/Lib", Failed: true}}}}}}}
	page, err := Render(FromCheck(c))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<span class="badge failed">1 failed</span>`, `class="instance is-failed"`, `data-outcome="failed"`,
		"Failed: an error left the comparison undecided: left side: NoClassDefFoundError: dep/Lib.", "0 undecided"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// What needs attention comes first: a violated method before a satisfied
// one, whatever order the check found them in.
func TestFailuresFirst(t *testing.T) {
	inst := func(o verdict.Outcome) []verdict.InstanceResult {
		return []verdict.InstanceResult{{Line: 3, Formula: "f", Outcome: o, Comparisons: []verdict.ComparisonResult{{Text: "SELF <= x", Outcome: o}}}}
	}
	c := &report.Check{Project: "/p", Alpha: 0.05, Methods: []verdict.MethodResult{
		{File: "/p/A.java", Class: "p.A", Method: "fine", Instances: inst(verdict.Satisfied)},
		{File: "/p/A.java", Class: "p.A", Method: "slow", Instances: inst(verdict.Violated)},
	}}
	page, err := Render(FromCheck(c))
	if err != nil {
		t.Fatal(err)
	}
	fine, slow := strings.Index(string(page), "p.A#fine"), strings.Index(string(page), "p.A#slow")
	if fine < 0 || slow < 0 || slow > fine {
		t.Errorf("p.A#slow (violated) at %d, p.A#fine (satisfied) at %d: want the violated one first", slow, fine)
	}
}

// What a satisfied comparison means follows how it was decided: shown
// within the margin, a strict relation's significant difference, or not
// rejected under the classic semantics.
func TestMeaningFollowsTheSemantics(t *testing.T) {
	ev := verdict.Evidence{P: 0.19, Alpha: 0.05, Margin: 0.05, PHolds: 0.01, Semantics: "shown"}
	c := verdict.ComparisonResult{Outcome: verdict.Satisfied, Evidence: ev}
	if got := meaning(c); !strings.Contains(got, "show the relation holds within 5 %") {
		t.Errorf("shown: %q", got)
	}
	c.Evidence.Margin, c.Evidence.PHolds, c.Evidence.Semantics = 0, 0, "classic"
	if got := meaning(c); !strings.Contains(got, "no significant evidence against") || !strings.Contains(got, "classic semantics") {
		t.Errorf("classic: %q", got)
	}
	c.Evidence.P = 0.001
	if got := meaning(c); !strings.Contains(got, "show the difference") {
		t.Errorf("strict: %q", got)
	}
}

// Issue 40: the page's header said intervals are 95 % while a row read
// "(95 % CI)" beside a value "(96.7 %)", and α read 0.016666666666666666
// on every comparison. Now the header states the rule once (with what a look
// is) and every ratio reads "95 % bounds".
func TestPageLabelsAgree(t *testing.T) {
	a := 0.05 / 3
	c := &report.Check{Project: "/p", Alpha: 0.05, Looks: 3, Methods: []verdict.MethodResult{{File: "/p/A.java", Class: "p.A", Method: "m",
		Instances: []verdict.InstanceResult{{Line: 6, Formula: "f", Outcome: verdict.Satisfied,
			Comparisons: []verdict.ComparisonResult{{Text: "SELF[g](1) <= p.A#o[g](1)", Outcome: verdict.Satisfied, Evidence: verdict.Evidence{
				Left: verdict.SideEvidence{MeanNs: 33, Samples: 90, Forks: 3}, Right: verdict.SideEvidence{MeanNs: 100, Samples: 90, Forks: 3},
				Ratio: 0.33, RatioLow: 0.28, RatioHigh: 0.387, RatioLevel: 1 - 2*a, Looks: 3, Alpha: a, P: 0.999, PHolds: 0.001, Margin: 0.05}}}}}}}}
	page, err := Render(FromCheck(c))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{"0.33 [0.28, 0.387] (95 % bounds)", "0.999 (α = 0.0167 per look: 0.05 over 3 looks, a look deciding again after adding forks)",
		"α = 0.05 over up to 3 looks, 0.0167 each",
		"95 %; a ratio&#39;s [low, high] are one-sided 95 % bounds over up to 3 looks (a look decides again after adding forks), 96.7 % per look"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"0.016666", "(96.7 %)", "95 % CI"} {
		if strings.Contains(s, bad) {
			t.Errorf("page has %q", bad)
		}
	}
}
