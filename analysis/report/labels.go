package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/verdict"
)

// The one rule for confidence levels, in every output (CLI, HTML report,
// hover, JSON): perfls's intervals are at 1 − α, 95 % at the default
// α = 0.05. An interval of a mean (time, allocation, a demand) is the
// two-sided Student-t interval over the forks' means; a ratio's [low, high]
// comes from the test that decided, and each bound is a one-sided 1 − α
// bound. A check that may decide again after adding forks (up to L looks)
// tests each look at α/L, so the interval of one look is 1 − 2α/L wide
// (96.7 % for 3 looks) and each bound still holds at 1 − α over all looks.
// docs/statistics.md, "Ratio intervals", says why.

// LooksPhrase says what a look is, wherever looks are counted.
const LooksPhrase = "a look decides again after adding forks"

// FormatAlpha prints a significance level to three significant digits:
// "0.05", "0.0167" (never 0.016666666666666666).
func FormatAlpha(a float64) string { return strconv.FormatFloat(a, 'g', 3, 64) }

// Percent prints a confidence level: "95 %", "96.7 %".
func Percent(level float64) string { return strconv.FormatFloat(100*level, 'g', 3, 64) + " %" }

// BoundLevel is the confidence of each bound of ev's ratio interval over all
// the looks of its check (1 − α); 0 when the interval is not the test's.
func BoundLevel(ev verdict.Evidence) float64 {
	if ev.RatioLevel <= 0 || ev.RatioLevel >= 1 {
		return 0
	}
	return 1 - (1-ev.RatioLevel)/2*float64(max(ev.Looks, 1))
}

// ratioLevelLabel is the level shown beside a ratio's interval: "95 %
// bounds" for the test's interval, "95 %" for the descriptive interval of
// untested data, "exact" when the ratio is.
func ratioLevelLabel(ev verdict.Evidence) string {
	switch {
	case ev.RatioLevel >= 1:
		return "exact"
	case ev.RatioLevel <= 0:
		return Percent(0.95) // stats.RatioCI at 0.95, as verdict records it
	}
	return Percent(BoundLevel(ev)) + " bounds"
}

// EvidenceAlpha is the level a comparison was tested at: "α = 0.05", or
// with looks "α = 0.0167 per look: 0.05 over 3 looks, a look deciding
// again after adding forks" (the hover has no summary that would say it).
func EvidenceAlpha(ev verdict.Evidence) string {
	if ev.Looks > 1 {
		return fmt.Sprintf("α = %s per look: %s over %d looks, a look deciding again after adding forks", FormatAlpha(ev.Alpha), FormatAlpha(ev.Alpha*float64(ev.Looks)), ev.Looks)
	}
	return "α = " + FormatAlpha(ev.Alpha)
}

// IntervalsNote says once per output what its intervals mean, e.g.
// "intervals: 95 %; a ratio's [low, high] are one-sided 95 % bounds over up
// to 3 looks (a look decides again after adding forks), 96.7 % per look;
// docs/statistics.md".
func IntervalsNote(alpha float64, looks int) string {
	s := fmt.Sprintf("intervals: %s; a ratio's [low, high] are one-sided %s bounds", Percent(1-alpha), Percent(1-alpha))
	if looks > 1 {
		s += fmt.Sprintf(" over up to %d looks (%s), %s per look", looks, LooksPhrase, Percent(1-2*alpha/float64(looks)))
	}
	return s + "; docs/statistics.md"
}

// LooksText is the level of a check: "α = 0.05" or "α = 0.05 over up to 3
// looks, 0.0167 each"; IntervalsNote, printed beside it, says what a look
// is.
func LooksText(alpha float64, looks int) string {
	s := "α = " + FormatAlpha(alpha)
	if looks > 1 {
		s += fmt.Sprintf(" over up to %d looks, %s each", looks, FormatAlpha(alpha/float64(looks)))
	}
	return s
}

// FamilyNote says how a check of tests violation tests shared α, with the
// number of false violations to expect if every formula held: "" for one
// test or none. Under Holm the chance of any is at most α; one by one,
// tests × α are expected.
func FamilyNote(family string, alpha float64, tests int, level float64) string {
	if tests < 2 {
		return ""
	}
	expected := fmt.Sprintf("%.2g", float64(tests)*alpha)
	if family == "none" {
		return fmt.Sprintf("Each of the %d comparisons was tested alone at α = %s: if every formula held, about %s of them would be reported violated by chance (--family holm bounds the chance of any at α).",
			tests, FormatAlpha(alpha), expected)
	}
	return fmt.Sprintf("False alarms: at most a %s chance of any among the %d comparisons (Holm; a violation needed p < %.3g); tested one by one, %s would be expected if every formula held.",
		percentText(alpha), tests, level, expected)
}

func percentText(p float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*p), "0"), ".") + " %"
}

// ClampNote says how an interval of a quantity that cannot be negative
// (time, allocation, GC time and count, CPU share) is shown when its
// Student-t lower bound falls below 0: the bound is shown as 0. JSON keeps
// the interval as computed (docs/measurement.md).
const ClampNote = "t-interval clamped at 0"

// NonNegative is lo raised to 0 for display, and whether it was.
func NonNegative(lo float64) (float64, bool) {
	if lo < 0 {
		return 0, true
	}
	return lo, false
}

// Span renders the interval [lo, hi] of a non-negative quantity as
// "1.19 µs … 1.23 µs", or "0 ns … 308 ns, t-interval clamped at 0" when the
// lower bound fell below 0.
func Span(lo, hi float64, unit string) string {
	if _, clamped := NonNegative(lo); clamped {
		zero := "0"
		if unit != "" {
			zero += " " + unit
		}
		return zero + " … " + Figure(hi, unit) + ", " + ClampNote
	}
	return Figure(lo, unit) + " … " + Figure(hi, unit)
}
