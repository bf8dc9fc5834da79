package editor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/verdict"
)

// Hint is an inlay hint: a label shown at a position (LSP 3.17's
// InlayHint; internal/lsp317 declares the wire type).
type Hint struct {
	Position    textpos.Position
	Label       string
	Tooltip     string // Markdown, "" for none
	PaddingLeft bool
}

// Figure is the latest measured figure of a method.
type Figure struct {
	Mean float64 // in Unit
	Unit string  // a metric's unit: "ns" for times, "B", "count", "ratio"
	// Relative is the interval's half-width over the mean (0.02 for
	// ± 2 %); 0 or NaN when there is none (one fork).
	Relative float64
	// Stale: measured on another version of the method's source.
	Stale bool
	// On names the workload and arguments, e.g. "lookups(100000)", when
	// the method was measured on several: a figure alone would not say
	// which it is. "" for a method measured on one.
	On string
}

// staleMark ends the label of a figure or outcome measured on source that
// changed since.
const staleMark = " (stale)"

// FigureLabel renders a figure as "≈ 1.43 µs ± 2 %"; "≈ 1.43 µs" without
// an interval, "on gen(1000)" appended when the method has several
// workloads, "(stale)" when stale.
func FigureLabel(fig Figure) string {
	s := "≈ " + report.Figure(fig.Mean, fig.Unit)
	if r := fig.Relative * 100; r > 0 && !math.IsInf(r, 0) {
		prec := 0
		if r < 1 {
			prec = 1 // "± 0.4 %": rounding to "± 0 %" would claim an exact figure
		}
		s += " ± " + strconv.FormatFloat(r, 'f', prec, 64) + " %"
	}
	if fig.On != "" {
		s += " on " + fig.On
	}
	if fig.Stale {
		s += staleMark
	}
	return s
}

// OutcomeLabel renders a formula instance's outcome for the end of its
// annotation line: "✓ satisfied", "✗ violated", "? undecided", "! failed"
// (an error left it undecided), with "(stale)" when the source changed
// since it was decided. instances > 1 counts the instances with that
// outcome: "✗ violated (2 of 3)".
func OutcomeLabel(o verdict.Outcome, failed, stale bool, count, instances int) string {
	var s string
	switch {
	case failed:
		s = "! failed"
	case o == verdict.Satisfied:
		s = "✓ satisfied"
	case o == verdict.Violated:
		s = "✗ violated"
	default:
		s = "? undecided"
	}
	if instances > 1 {
		s += fmt.Sprintf(" (%d of %d)", count, instances)
	}
	if stale {
		s += staleMark
	}
	return s
}

// MethodHint places a label after m's parameter list ("void find(int n)
// ≈ 1.43 µs ± 2 %"); false when the list's end is not found (a file with
// syntax errors).
func MethodHint(f *javasrc.File, m *javasrc.Method, label string) (Hint, bool) {
	end := closeParen(f.Src, m.NameSpan.End)
	if end < 0 {
		return Hint{}, false
	}
	return Hint{Position: f.Mapper.Position(end), Label: label, PaddingLeft: true}, true
}

// closeParen returns the offset just after the ")" that closes the first
// "(" at or after i, skipping comments and string and character literals
// (a parameter's annotation may hold parentheses); -1 when there is none.
func closeParen(src string, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch c := src[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return -1
			}
		case c == '"' || c == '\'':
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return -1
			}
			i += j + 3
		case c == '{' || c == ';':
			return -1 // the body or the end: no parameter list here
		}
	}
	return -1
}

// FormulaHint places a formula's label at the end of the line where its
// annotation string ends, after any code or comment there.
func FormulaHint(f *javasrc.File, v *javasrc.StringValue, label string) Hint {
	end := v.Span.End
	if i := strings.IndexByte(f.Src[min(end, len(f.Src)):], '\n'); i >= 0 {
		end += i
	} else {
		end = len(f.Src)
	}
	if end > 0 && end <= len(f.Src) && f.Src[end-1] == '\r' {
		end--
	}
	return Hint{Position: f.Mapper.Position(end), Label: label, PaddingLeft: true}
}

// HintsInRange keeps the hints inside r (the editor's visible lines).
func HintsInRange(hs []Hint, r textpos.Range) []Hint {
	var out []Hint
	for _, h := range hs {
		p := h.Position
		if (p.Line > r.Start.Line || p.Line == r.Start.Line && p.Character >= r.Start.Character) &&
			(p.Line < r.End.Line || p.Line == r.End.Line && p.Character <= r.End.Character) {
			out = append(out, h)
		}
	}
	return out
}
