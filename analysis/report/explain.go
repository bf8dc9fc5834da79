package report

import (
	"fmt"
	"io"
	"strings"
)

// Explain is perfls explain's result: a slow-down of one method followed
// from its alert (a change point of the stored results, or two revisions)
// to the first bad commit and what grew in its profile there.
type Explain struct {
	Method string `json:"method"`
	// Change is the change point the explanation started from; nil when
	// the revisions were named.
	Change *RegressionChange `json:"change,omitempty"`
	Good   string            `json:"good,omitempty"` // full hashes
	Bad    string            `json:"bad,omitempty"`
	// Commits is the first-parent line after Good up to Bad; Bisect the
	// search among them when there were several.
	Commits int     `json:"commits,omitempty"`
	Bisect  *Bisect `json:"bisect,omitempty"`
	// FirstBad is the first commit at which the method is slower, Parent
	// the commit before it, Diff their comparison with both profiles.
	FirstBad string `json:"first_bad,omitempty"`
	Subject  string `json:"subject,omitempty"`
	Parent   string `json:"parent,omitempty"`
	Diff     *Diff  `json:"diff,omitempty"`
	// Reason says why the explanation stopped short, when it did.
	Reason  string  `json:"reason,omitempty"`
	Seconds float64 `json:"seconds"`
}

// ExitStatus is perfls explain's: 0 when a first bad commit was named, 1
// when no slow-down was found to explain.
func (x *Explain) ExitStatus() int {
	if x.FirstBad == "" {
		return 1
	}
	return 0
}

// Cause is the sentence naming what grew: the first finding of the
// method's slower workload's profile comparison, else why there is none.
func (x *Explain) Cause() string {
	if x.FirstBad == "" {
		return ""
	}
	if x.Diff == nil {
		return "not compared with its parent"
	}
	slower := false
	for _, c := range x.Diff.Changes {
		if c.Verdict != Slower {
			continue
		}
		slower = true
		if p := c.Profile; p != nil && len(p.Findings) > 0 {
			f := p.Findings[0]
			return fmt.Sprintf("%s: %s (%s)", f.Kind, f.Message, f.Location)
		}
		if p := c.Profile; p != nil && !p.Comparable {
			return "the profiles cannot be compared: " + p.Reason
		}
	}
	if !slower {
		return "measured beside its parent, no workload of the method is slower there (the bisection's step was near its level; measure again with more forks)"
	}
	return "the profiles of the two commits show no callee or line whose share grew: the slow-down is spread over the method's own code"
}

// WriteText writes where the slow-down came from, the bisection, the
// comparison with the parent and the cause.
func (x *Explain) WriteText(w io.Writer) {
	fmt.Fprintf(w, "perfls explain %s\n", x.Method)
	if c := x.Change; c != nil {
		fmt.Fprintf(w, "alert: %s %+.0f %% at %.12s (stored results; last before it %.12s; p = %.2g)\n", c.Metric, 100*c.Magnitude, c.Commit, c.Previous, c.PValue)
	}
	if x.Reason != "" && x.FirstBad == "" {
		if x.Bisect != nil {
			x.Bisect.WriteText(w)
		}
		fmt.Fprintf(w, "not explained: %s (%.1fs)\n", x.Reason, x.Seconds)
		return
	}
	switch {
	case x.Bisect != nil:
		fmt.Fprintf(w, "bisect over %d commits after %.12s:\n", x.Commits, x.Good)
		for _, s := range x.Bisect.Steps {
			fmt.Fprintf(w, "  %-4s %.12s", s.Verdict, s.Commit)
			if len(s.Slower) > 0 {
				fmt.Fprintf(w, "  slower: %s", strings.Join(s.Slower, ", "))
			}
			fmt.Fprintln(w)
		}
	case x.Commits == 1:
		fmt.Fprintf(w, "one commit after %.12s: no bisection needed\n", x.Good)
	}
	fmt.Fprintf(w, "first bad commit: %.12s %s\n", x.FirstBad, x.Subject)
	if x.Diff != nil {
		fmt.Fprintf(w, "against its parent %.12s:\n", x.Parent)
		for _, c := range x.Diff.Changes {
			fmt.Fprintf(w, "  %s\n", diffLine(c))
			if p := c.Profile; p != nil {
				for _, f := range p.Findings {
					fmt.Fprintf(w, "    what changed: %s: %s (%s)\n", f.Kind, f.Message, f.Location)
				}
			}
		}
	}
	fmt.Fprintf(w, "cause: %s\n(%.1fs)\n", x.Cause(), x.Seconds)
}

// WriteMarkdown writes the explanation as a pull-request comment.
func (x *Explain) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "### perfls explain: `%s`\n\n", x.Method)
	if c := x.Change; c != nil {
		fmt.Fprintf(w, "Alert: %s %+.0f %% at `%.12s` in the stored results (p = %.2g).\n\n", c.Metric, 100*c.Magnitude, c.Commit, c.PValue)
	}
	if x.FirstBad == "" {
		fmt.Fprintf(w, "Not explained: %s.\n", x.Reason)
		return
	}
	fmt.Fprintf(w, "**First bad commit:** `%.12s` %s\n\n", x.FirstBad, mdEscape(x.Subject))
	if x.Diff != nil && len(x.Diff.Changes) > 0 {
		fmt.Fprintf(w, "| workload | parent `%.12s` | first bad | ratio [95 %%] | verdict |\n|---|---|---|---|---|\n", x.Parent)
		for _, c := range x.Diff.Changes {
			base, head := "–", "–"
			if c.Base != nil {
				base = Duration(float64(c.Base.MeanNs)) + "/op"
			}
			if c.Head != nil {
				head = Duration(float64(c.Head.MeanNs)) + "/op"
			}
			fmt.Fprintf(w, "| `%s(%s)` | %s | %s | %s [%s, %s] | %s |\n", c.Workload, c.Args, base, head,
				sig3(float64(c.Ratio)), sig3(float64(c.Low)), sig3(float64(c.High)), c.Verdict)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "**Cause:** %s\n", mdEscape(x.Cause()))
	if x.Bisect != nil {
		fmt.Fprintf(w, "\n<details><summary>Bisection: %d steps over %d commits</summary>\n\n", len(x.Bisect.Steps), x.Commits)
		for _, s := range x.Bisect.Steps {
			fmt.Fprintf(w, "- %s `%.12s`\n", s.Verdict, s.Commit)
		}
		fmt.Fprintln(w, "\n</details>")
	}
	fmt.Fprintf(w, "\n<sub>perfls explain, %.0f s</sub>\n", x.Seconds)
}

// mdEscape keeps a commit subject or message from breaking the table or
// the emphasis around it.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "'", "<", "&lt;").Replace(s)
}
