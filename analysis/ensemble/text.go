package ensemble

import (
	"fmt"
	"io"
	"strings"
)

// shownRules is how many violated rules the text report prints per counter
// (JSON has all of them).
const shownRules = 3

// shownCorrelated is how many correlated counters it prints per counter.
const shownCorrelated = 4

// ExitStatus is perfls ensemble's: 1 when a counter is flagged (and not
// marked as an environment difference), else 0.
func (r *Report) ExitStatus() int {
	if len(r.Regressions()) > 0 {
		return 1
	}
	return 0
}

// WriteText prints the report for a terminal: the flagged counters ranked
// with their strongest violated rules, the undecided counters, the models
// with their weights, and the notes.
func (r *Report) WriteText(w io.Writer) {
	undecided := ""
	if len(r.Undecided) > 0 {
		undecided = fmt.Sprintf(", %d undecided", len(r.Undecided))
	}
	switch env := len(r.Flagged) - len(r.Regressions()); {
	case len(r.Flagged) == 0:
		fmt.Fprintf(w, "%s: no counter flagged by %s%s (%d intervals, %d counters, %d prior runs)\n", r.Run, r.Method, undecided, r.Intervals, len(r.Counters), len(r.Models))
	case env > 0:
		fmt.Fprintf(w, "%s: %d counters flagged by %s, %d of them where the environment differs%s (%d intervals, %d prior runs)\n", r.Run, len(r.Flagged), r.Method, env, undecided, r.Intervals, len(r.Models))
	default:
		fmt.Fprintf(w, "%s: %d counters flagged by %s%s (%d intervals, %d prior runs)\n", r.Run, len(r.Flagged), r.Method, undecided, r.Intervals, len(r.Models))
	}
	for _, f := range r.Flagged {
		change := ""
		if f.Change != nil {
			change = fmt.Sprintf(", mean %+.1f %%", 100**f.Change)
		}
		if f.Range != nil {
			fmt.Fprintf(w, "  %-24s by the historical range (the vote's score %.2f, %d models), severity %.2f%s, intervals %s\n", f.Counter, f.Score, f.Votes, f.Severity, change, spans(f.Intervals))
			fmt.Fprintf(w, "      not reported by the rules; by the historical range: %s\n", f.Range.text())
		} else {
			fmt.Fprintf(w, "  %-24s score %.2f (%d models), severity %.2f%s, intervals %s\n", f.Counter, f.Score, f.Votes, f.Severity, change, spans(f.Intervals))
		}
		if f.EnvironmentDiffers {
			fmt.Fprintf(w, "      environment differs: %s\n", r.sameEnvironmentText(f))
		}
		if c := f.Correlated; len(c) > shownCorrelated {
			fmt.Fprintf(w, "      correlated: %s … (%d more)\n", strings.Join(c[:shownCorrelated], ", "), len(c)-shownCorrelated)
		} else if len(c) > 0 {
			fmt.Fprintf(w, "      correlated: %s\n", strings.Join(c, ", "))
		}
		for i, v := range f.Rules {
			if i == shownRules {
				fmt.Fprintf(w, "      … %d more violated rules (--format json lists them)\n", len(f.Rules)-shownRules)
				break
			}
			fmt.Fprintf(w, "      [%s] %s  confidence %.2f → %.2f, Δ %.2f\n", v.Model, v.Rule, v.ConfidenceHistory, v.ConfidenceNew, v.Delta)
		}
	}
	if len(r.Undecided) > 0 {
		fmt.Fprintf(w, "undecided (the models that test a rule on them weigh too little for %s to report them, whatever they find):\n", r.Method)
		for _, u := range r.Undecided {
			fmt.Fprintf(w, "  %-24s %d of %d models test it (weight %.2f), %d flag it", u.Counter, u.Testing, r.testableModels(), u.Weight, u.Votes)
			if u.Change != nil {
				fmt.Fprintf(w, "; mean %+.1f %%", 100**u.Change)
			}
			if u.Above > 0 {
				fmt.Fprintf(w, ", above every earlier value in %d of %d intervals", u.Above, r.Intervals)
			}
			if u.Below > 0 {
				fmt.Fprintf(w, ", below every earlier value in %d of %d intervals", u.Below, r.Intervals)
			}
			fmt.Fprintln(w)
		}
	}
	var passed []Decided
	for _, d := range r.Decided {
		if d.Verdict == RangeNotFlagged {
			passed = append(passed, d)
		}
	}
	if len(passed) > 0 {
		fmt.Fprintln(w, "not flagged by the historical range (out of every rule's reach):")
		for _, d := range passed {
			fmt.Fprintf(w, "  %-24s %s\n", d.Counter, d.Evidence().text())
		}
	}
	fmt.Fprintln(w, "models:")
	for _, m := range r.Models {
		same := ""
		if m.SameEnvironment {
			same = ": the same environment"
		}
		fmt.Fprintf(w, "  %-20s weight %.2f (shares %v%s), %d rules, flags %d counters\n", m.Run, m.Weight, m.Matching, same, m.Rules, len(m.Flagged))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

// sameEnvironmentText says why a flag is an environment difference.
func (r *Report) sameEnvironmentText(f Flag) string {
	if f.Range != nil && r.HasSameEnvironment() {
		return "the earlier results in this environment do not tell it apart"
	}
	if r.HasSameEnvironment() {
		return "the models of earlier runs in this environment test it and do not flag it"
	}
	return "no earlier run was measured in this environment"
}

// text is the evidence in one line: the new forks' medians against the
// range of the earlier ones, the change of the mean and the test's p.
func (e *RangeEvidence) text() string {
	where := "within"
	if e.Outside != "" {
		where = e.Outside
	}
	s := fmt.Sprintf("fork medians %.4g–%.4g, %s the range %.4g–%.4g of %d forks of %d earlier results (%s)", e.NewLow, e.NewHigh, where, e.Low, e.High, e.Forks, e.Results, e.Against)
	if e.Change != nil {
		s += fmt.Sprintf(", mean %+.1f %%", 100**e.Change)
	}
	return s + fmt.Sprintf(", fork means p = %.2g (parametric test, %.1f df)", e.P, e.DF)
}

// testableModels is how many models the vote counts: 1 for the single model.
func (r *Report) testableModels() int {
	if r.Method == Single {
		return 1
	}
	return len(r.Models)
}

// spans prints sorted interval indexes as ranges: 3-7,12.
func spans(iv []int) string {
	s := ""
	for i := 0; i < len(iv); {
		j := i
		for j+1 < len(iv) && iv[j+1] == iv[j]+1 {
			j++
		}
		if s != "" {
			s += ","
		}
		if j > i {
			s += fmt.Sprintf("%d-%d", iv[i], iv[j])
		} else {
			s += fmt.Sprint(iv[i])
		}
		i = j + 1
	}
	return s
}
