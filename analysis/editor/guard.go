package editor

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
)

// Guards: formulas written from figures (issue 38, "actions from
// figures"). A measurement guard holds today with a stated tolerance; a
// profile guard would have caught the finding. SPL has no constant
// bounds ("alloc(SELF)[w](n) <= 2048" does not parse: both sides are
// measured terms), so every guard compares the method with itself at HEAD
// or with a sibling measured beside it.

// GuardTitle begins the title of the action offered on a measured method.
const GuardTitle = "Add an @SPL guard from this measurement"

// Measured is one measured figure of a method, as a guard reads it.
type Measured struct {
	Method   string // the method's simple name, as a formula of its class spells it
	Workload string // the generator, as the formula spells it ("sizes", "p.C#gen")
	Args     string // the generator's arguments, "100" or "10, 3"
	MeanNs   float64
	// CILowNs, CIHighNs: the 95 % interval of the mean; equal to MeanNs
	// (or 0) when there is none (one fork).
	CILowNs, CIHighNs float64
}

// Guard is a formula to insert and the title that offers it.
type Guard struct {
	Formula string
	Title   string
}

// headTolerance is the slowdown a HEAD guard allows at least (issue 38's
// example, "SELF[w](n) <= 1.2 * SELF@HEAD[w](n)"); a noisier measurement
// widens it (see tolerance).
const headTolerance = 1.2

// margin widens a measured ratio's upper bound so that a guard written
// today is not undecided or violated on the next run by the noise the
// measurement itself showed: the bound is the interval's, times 1.1, then
// rounded up to two significant digits. It derives from the measurement's
// interval, not from a constant tuned to one machine.
const margin = 1.1

// tolerance is the factor of a guard from a ratio whose 95 % upper bound
// is upper: upper × margin rounded up to two significant digits.
func tolerance(upper float64) float64 { return roundUp2(upper * margin) }

// roundUp2 rounds x > 0 up to two significant digits (1.166 → 1.2,
// 13.01 → 14).
func roundUp2(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return x
	}
	e := math.Pow(10, math.Floor(math.Log10(x))-1)
	// Subtract a hair so that an exact 1.2 stays 1.2 despite the binary
	// representation.
	return math.Ceil(x/e-1e-9) * e
}

// factor renders a tolerance for a formula to two significant digits,
// without an exponent SPL would not read: "1.2", "0.73", "140".
func factor(k float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(k, 'g', 2, 64), 64)
	if err != nil {
		r = k
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// upper is the ratio a/b's conservative 95 % upper bound from the two
// intervals (a's high over b's low); the means' ratio when an interval is
// missing.
func upper(a, b Measured) float64 {
	hi, lo := a.CIHighNs, b.CILowNs
	if !(hi >= a.MeanNs) || !(lo > 0) || lo > b.MeanNs {
		hi, lo = a.MeanNs, b.MeanNs
	}
	return hi / lo
}

func (m Measured) term(method string) string {
	return fmt.Sprintf("%s[%s](%s)", method, m.Workload, m.Args)
}

// HeadGuard guards m against slowing down relative to HEAD: at least the
// 20 % of headTolerance, more when m's own interval is wider (the same
// code measured twice may differ by its interval's high over its low).
func HeadGuard(m Measured) Guard {
	k := headTolerance
	if m.CILowNs > 0 && m.CIHighNs > m.CILowNs {
		k = max(k, tolerance(m.CIHighNs/m.CILowNs))
	}
	return Guard{
		Formula: fmt.Sprintf("%s <= %s * %s", m.term("SELF"), factor(k), m.term("SELF@HEAD")),
		Title:   fmt.Sprintf("%s (≤ %s × HEAD on %s(%s), measured %s)", GuardTitle, factor(k), shortName(m.Workload), m.Args, measuredText(m)),
	}
}

// SiblingGuard bounds m by a sibling measured on the same workload and
// arguments: m ≤ k × sibling, k from the ratio's upper bound; false when
// the two were not measured alike.
func SiblingGuard(m, sib Measured) (Guard, bool) {
	if m.Workload != sib.Workload || m.Args != sib.Args || !(m.MeanNs > 0) || !(sib.MeanNs > 0) || m.Method == sib.Method {
		return Guard{}, false
	}
	k := tolerance(upper(m, sib))
	return Guard{
		Formula: fmt.Sprintf("%s <= %s * %s", m.term("SELF"), factor(k), sib.term(sib.Method)),
		Title:   fmt.Sprintf("%s (≤ %s × %s, measured %.3g×)", GuardTitle, factor(k), sib.Method, m.MeanNs/sib.MeanNs),
	}, true
}

// BestSiblingGuard is the tightest sibling guard of m among siblings (the
// smallest factor; by name on a tie); false when none was measured alike.
func BestSiblingGuard(m Measured, siblings []Measured) (Guard, bool) {
	sort.SliceStable(siblings, func(i, j int) bool { return siblings[i].Method < siblings[j].Method })
	var best Guard
	bestK, found := math.Inf(1), false
	for _, s := range siblings {
		g, ok := SiblingGuard(m, s)
		if ok && tolerance(upper(m, s)) < bestK {
			best, bestK, found = g, tolerance(upper(m, s)), true
		}
	}
	return best, found
}

func measuredText(m Measured) string {
	s := report.Duration(m.MeanNs)
	if m.MeanNs > 0 && m.CIHighNs > m.CILowNs {
		s += fmt.Sprintf(" ± %.2g %%", 100*(m.CIHighNs-m.CILowNs)/2/m.MeanNs)
	}
	return s
}

func shortName(w string) string {
	if i := strings.LastIndexAny(w, "#."); i >= 0 {
		return w[i+1:]
	}
	return w
}

// ProfileFinding is what a "Guard this" reads of a profile finding.
type ProfileFinding struct {
	Kind     string // analysis/profile's finding kinds: "excessive-allocation", "ramp"
	Workload string // as the formula spells it
	Args     string
	// BytesPerOp is the measured allocation per operation
	// (excessive-allocation's evidence bytes_per_op); ChurnBytesPerOp the
	// small objects' part of it (object_bytes_per_op).
	BytesPerOp, ChurnBytesPerOp float64
	// GrowthOverRun is a ramp's growth of the cost per call over the
	// profile's calls (growth_over_run: 0.35 for +35 %).
	GrowthOverRun float64
}

// GuardThisTitle begins the title of the action offered on a finding.
const GuardThisTitle = "Guard this"

// FindingGuard is the formula that would have caught a profile finding,
// had it stood before the change that brought it: the method against
// itself at HEAD, in its allocation for excessive allocation, in its time
// for a ramp, with the figure it was made from in the title. false for
// other kinds, or when the figures do not allow a bound that catches the
// finding.
func FindingGuard(f ProfileFinding) (Guard, bool) {
	term := func(method string) string { return fmt.Sprintf("%s[%s](%s)", method, f.Workload, f.Args) }
	alloc := func(method string) string { return fmt.Sprintf("alloc(%s)[%s](%s)", method, f.Workload, f.Args) }
	switch f.Kind {
	case "excessive-allocation":
		if !(f.BytesPerOp > 0) || !(f.ChurnBytesPerOp > 0) || f.ChurnBytesPerOp > f.BytesPerOp {
			return Guard{}, false
		}
		// Allocation is counted, not timed: its run-to-run spread is
		// small, so the 20 % of a time guard is wide enough, and it still
		// catches churn that is most of the bytes (as the finding's is).
		k := headTolerance
		if f.BytesPerOp/(f.BytesPerOp-f.ChurnBytesPerOp) <= k {
			return Guard{}, false // this churn would pass the guard: it would not have caught it
		}
		return Guard{
			Formula: fmt.Sprintf("%s <= %s * %s", alloc("SELF"), factor(k), alloc("SELF@HEAD")),
			Title: fmt.Sprintf("%s: alloc ≤ %s × HEAD on %s(%s) (profiled %s/op, %s/op of it small objects)",
				GuardThisTitle, factor(k), shortName(f.Workload), f.Args, bytesText(f.BytesPerOp), bytesText(f.ChurnBytesPerOp)),
		}, true
	case "ramp":
		if !(f.GrowthOverRun > 0) {
			return Guard{}, false
		}
		// A linear ramp raises the run's mean by half its growth over the
		// run; the guard allows half of that (rounded down to two
		// digits), so the same ramp brought in again fails it, but no
		// less than 10 %: "<=" counts as satisfied within 5 %, and a
		// tighter guard would fail on noise.
		k := math.Floor(min(headTolerance, 1+f.GrowthOverRun/4)*10) / 10
		if k < 1.1 {
			return Guard{}, false
		}
		return Guard{
			Formula: fmt.Sprintf("%s <= %s * %s", term("SELF"), factor(k), term("SELF@HEAD")),
			Title: fmt.Sprintf("%s: ≤ %s × HEAD on %s(%s) (ramp: +%.0f %% per call over the profile)",
				GuardThisTitle, factor(k), shortName(f.Workload), f.Args, 100*f.GrowthOverRun),
		}, true
	}
	return Guard{}, false
}

func bytesText(b float64) string { return report.Bytes(int64(math.Round(b))) }

// InsertFormula returns the edits adding formula to m: into its @SPL's
// formulas when it has one (braces added around a single value), else a
// new @SPL line above the declaration. false when m's @SPL has no
// formulas element to extend (only methods= or generators=).
func InsertFormula(f *javasrc.File, m *javasrc.Method, formula string) ([]TextEdit, bool) {
	lit := strconv.Quote(formula) // Go's quoting of these ASCII formulas is Java's
	if len(m.SPL) == 0 {
		start := m.Span.Start
		line := strings.LastIndexByte(f.Src[:start], '\n') + 1
		indent := f.Src[line:start]
		if strings.TrimLeft(indent, " \t") != "" {
			indent, line = "", start // the declaration does not begin its line
		}
		at := textpos.Span{Start: line, End: line}
		text := indent + "@SPL(" + lit + ")\n"
		if line == start {
			text = "@SPL(" + lit + ") "
		}
		return []TextEdit{{Location: location(f, at), NewText: text}}, true
	}
	a := m.SPL[len(m.SPL)-1]
	if len(a.Formulas) == 0 {
		return nil, false
	}
	first, last := a.Formulas[0].Span, a.Formulas[len(a.Formulas)-1].Span
	// Braced when "{" opens the formulas' element; a "{" earlier may be
	// another element's (methods = {…}, value = "…").
	braced := strings.HasSuffix(strings.TrimRight(f.Src[a.Span.Start:first.Start], " \t\r\n"), "{")
	end := textpos.Span{Start: last.End, End: last.End}
	if braced {
		return []TextEdit{{Location: location(f, end), NewText: ", " + lit}}, true
	}
	open := textpos.Span{Start: first.Start, End: first.Start}
	return []TextEdit{{Location: location(f, open), NewText: "{"}, {Location: location(f, end), NewText: ", " + lit + "}"}}, true
}

// ApplyEdits applies edits of one document (byte spans, not
// overlapping) to src.
func ApplyEdits(src string, edits []TextEdit) string {
	es := append([]TextEdit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Span.Start > es[j].Span.Start })
	for _, e := range es {
		src = src[:e.Span.Start] + e.NewText + src[e.Span.End:]
	}
	return src
}

// LintInserted lints f with edits applied, in memory, against the
// workspace index with the edited file over it, and returns the errors
// and warnings on the inserted formula (nil: it lints clean). err when
// the edited text does not parse as Java.
func (w Workspace) LintInserted(f *javasrc.File, edits []TextEdit, formula string, opt workspace.LintOptions) ([]workspace.Diagnostic, error) {
	edited, err := javasrc.Parse(f.Path, []byte(ApplyEdits(f.Src, edits)))
	if err != nil {
		return nil, fmt.Errorf("parse %s with the guard inserted: %w", f.Path, err)
	}
	formulas, syntax := workspace.JavaFormulas(edited)
	var mine []*workspace.Formula
	for _, fm := range formulas {
		if fm.Value != nil && fm.Value.Text == formula {
			mine = append(mine, fm)
		}
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("the guard %q is not among the formulas of %s once inserted", formula, f.Path)
	}
	ix := workspace.NewIndex([]*javasrc.File{edited})
	if w.Index != nil {
		ix = w.Index.With([]*javasrc.File{edited})
	}
	var out []workspace.Diagnostic
	for _, d := range append(syntax, ix.Lint(formulas, opt)...) {
		if d.Severity != workspace.Error && d.Severity != workspace.Warning {
			continue
		}
		for _, fm := range mine {
			if d.Span.Start >= fm.Value.Span.Start && d.Span.Start <= fm.Value.Span.End {
				out = append(out, d)
				break
			}
		}
	}
	return out, nil
}
