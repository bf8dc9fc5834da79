package editor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/internal/benchtime"
)

// bigJava is a 5,000-line class with 1,200 formulas on 600 methods (the
// figure issue 38 names): two formula strings per @SPL, each method a few
// lines of body, comment lines to make up the 5,000.
func bigJava() string {
	var b strings.Builder
	b.WriteString("package bench;\n\nimport dev.perfls.SPL;\n\npublic class Big {\n")
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&b, "    @SPL({\"for n in {10, 100, 1000} SELF[gen%d](n) <= 1.2 * SELF@HEAD[gen%d](n)\",\n", i, i)
		fmt.Fprintf(&b, "          \"for (i{1,2} j{3}) bench.Other#fast%d(int)[g](i * 2) <= cpu(m%d)[g](j)\"})\n", i, i)
		fmt.Fprintf(&b, "    public static int m%d(int n) {\n", i)
		b.WriteString("        int s = 0;\n")
		b.WriteString("        for (int k = 0; k < n; k++) { s += k; }\n")
		b.WriteString("        return s;\n    }\n\n")
	}
	for strings.Count(b.String(), "\n") < 4999 {
		b.WriteString("    // filler\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// BenchmarkSemanticTokens: full semantic tokens of the 5,000-line file from
// its source model (the server keeps the model of an open document).
// Issue 38's figure: ≤ 20 ms.
func BenchmarkSemanticTokens(b *testing.B) {
	src := bigJava()
	f := parseJava(b, "Big.java", src)
	formulas := 0
	for _, m := range f.Methods {
		for _, a := range m.SPL {
			formulas += len(a.Formulas)
		}
	}
	var n int
	benchtime.Run(b, func(int) { n = len(SemanticTokens(f)) / 5 })
	b.ReportMetric(float64(strings.Count(src, "\n")), "lines")
	b.ReportMetric(float64(formulas), "formulas")
	b.ReportMetric(float64(n), "tokens")
}

// BenchmarkSemanticTokensWarm: the same through a Highlighter that saw the
// document before, as after an edit that changed no formula.
func BenchmarkSemanticTokensWarm(b *testing.B) {
	f := parseJava(b, "Big.java", bigJava())
	h := new(Highlighter)
	h.Tokens(f)
	benchtime.Run(b, func(int) { Encode(h.Tokens(f)) })
}

// BenchmarkSemanticTokensWithParse adds building the source model, for a
// document whose model is not built yet.
func BenchmarkSemanticTokensWithParse(b *testing.B) {
	src := []byte(bigJava())
	benchtime.Run(b, func(int) {
		f, err := javasrc.Parse("Big.java", src)
		if err != nil {
			b.Fatal(err)
		}
		SemanticTokens(f)
	})
}

// BenchmarkInlayHints: the hints of the 5,000-line file (a figure per
// method, an outcome per formula), kept for 60 visible lines. Issue 38's
// figure: ≤ 5 ms for a visible range.
func BenchmarkInlayHints(b *testing.B) {
	f := parseJava(b, "Big.java", bigJava())
	visible := textpos.Range{Start: textpos.Position{Line: 2500}, End: textpos.Position{Line: 2560}}
	var n int
	benchtime.Run(b, func(int) {
		var hs []Hint
		for _, m := range f.Methods {
			if h, ok := MethodHint(f, m, FigureLabel(Figure{Mean: 1432, Unit: "ns", Relative: 0.02})); ok {
				hs = append(hs, h)
			}
			for _, a := range m.SPL {
				for _, v := range a.Formulas {
					hs = append(hs, FormulaHint(f, v, OutcomeLabel(verdict.Satisfied, false, false, 1, 1)))
				}
			}
		}
		n = len(HintsInRange(hs, visible))
	})
	b.ReportMetric(float64(n), "hints-visible")
}
