package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfls/perfls/analysis/profile"
)

// Result is a command's result as the command line shows it: its text
// (JSON is the value itself) and its exit status.
type Result interface {
	WriteText(w io.Writer)
	ExitStatus() int
}

// Diff is perfls diff's result: every measured method's figures in a base
// commit and in the head (the working tree or a commit), and whether it
// became slower. The engine fills it in (engine.Diff).
type Diff struct {
	Base     string `json:"base"`      // full commit hash
	BaseName string `json:"base_name"` // as the user named it, or how it was chosen
	Head     string `json:"head"`      // a full commit hash, or "worktree"
	// Changes are the methods whose code differs between the trees, per
	// workload and arguments, in source order.
	Changes []DiffChange `json:"changes"`
	// Unchanged are the workloads whose code (the method, its generator and
	// every project class they reach) is the same in both trees: not
	// measured.
	Unchanged []string `json:"unchanged"`
	Added     []string `json:"added"`    // workloads only in the head
	Removed   []string `json:"removed"`  // workloads only in the base
	Alpha     float64  `json:"alpha"`    // the significance level, over all looks
	Margin    float64  `json:"margin"`   // δ: "same" means the ratio lies within 1 ± δ
	Measured  int      `json:"measured"` // measurements taken (not answered from the cache), both trees
	// MeasuredHead is how many of them were the head's.
	MeasuredHead int      `json:"measured_head"`
	Cached       int      `json:"cached"` // measurements the cache answered
	Notices      []string `json:"notices,omitempty"`
}

// DiffChange compares one workload of one method in both trees.
type DiffChange struct {
	Method   string       `json:"method"`   // pkg.C#m(int[])
	Workload string       `json:"workload"` // the generator, pkg.C#gen(int)
	Args     string       `json:"args"`
	Base     *DiffFigures `json:"base,omitempty"`
	Head     *DiffFigures `json:"head,omitempty"`
	// Ratio is head / base of the mean time per operation, with its
	// confidence interval [Low, High].
	Ratio Float `json:"ratio"`
	Low   Float `json:"low"`
	High  Float `json:"high"`
	P     Float `json:"p"` // of the test that decided (slower: head ≤ base rejected; faster: head ≥ base rejected)
	// Verdict is slower, faster, same (equivalent within the margin) or
	// undecided; Failed marks an undecided one a measurement failure left so.
	Verdict string `json:"verdict"`
	Failed  bool   `json:"failed,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Profile, with diff --profile, is what changed in the profile of a
	// slower workload between the trees.
	Profile *DiffProfile `json:"profile,omitempty"`
}

// DiffProfile is what changed in a workload's profile from the base to
// the head (profile.Compare): callees whose share grew, a call subtree
// that grew; callees the base lacks are listed, never diagnosed.
type DiffProfile struct {
	Comparable    bool                    `json:"comparable"`
	Reason        string                  `json:"reason,omitempty"`
	Findings      []profile.Finding       `json:"findings"`
	NotComparable []profile.NotComparable `json:"not_comparable,omitempty"`
}

// DiffFigures are one tree's figures: the mean of the fork means with its
// 95 % confidence interval.
type DiffFigures struct {
	MeanNs  Float `json:"mean_ns_per_op"`
	LowNs   Float `json:"ci_low_ns"`
	HighNs  Float `json:"ci_high_ns"`
	Forks   int   `json:"forks"`
	Samples int   `json:"samples_per_fork"`
	Cached  bool  `json:"cached"`
}

// Diff verdicts.
const (
	Slower    = "slower"
	Faster    = "faster"
	Same      = "same"
	Undecided = "undecided"
	// EnvironmentDiffers is a slow-down against a base measured in another
	// environment (memory, heap, collector, processor, JVM build): a
	// shared store's result of another machine of the same class. It is
	// no regression (exit 0); measure the base here with --fresh.
	EnvironmentDiffers = "environment differs"
)

// Slower reports whether some workload became slower: perfls diff exits 1.
func (d *Diff) Slower() bool {
	for _, c := range d.Changes {
		if c.Verdict == Slower {
			return true
		}
	}
	return false
}

// ExitStatus is perfls diff's: 1 when a workload became slower, else 2
// when a measurement failure left one undecided, else 0.
func (d *Diff) ExitStatus() int {
	switch {
	case d.Slower():
		return 1
	case d.Failed():
		return 2
	}
	return 0
}

// Failed reports whether a measurement failure left a change undecided.
func (d *Diff) Failed() bool {
	for _, c := range d.Changes {
		if c.Failed {
			return true
		}
	}
	return false
}

// WriteText writes one line per change, then the unchanged, added and
// removed workloads, a summary and the notices.
func (d *Diff) WriteText(w io.Writer) {
	head := d.Head
	if head != "worktree" && len(head) > 12 {
		head = head[:12]
	}
	fmt.Fprintf(w, "perfls diff: base %.12s (%s), head %s\n", d.Base, d.BaseName, head)
	for _, c := range d.Changes {
		fmt.Fprintln(w, diffLine(c))
		if p := c.Profile; p != nil {
			if !p.Comparable {
				fmt.Fprintf(w, "          profiles not comparable: %s\n", p.Reason)
			}
			for _, f := range p.Findings {
				fmt.Fprintf(w, "          what changed: %s: %s (%s)\n", f.Kind, f.Message, f.Location)
			}
			for _, n := range p.NotComparable {
				fmt.Fprintf(w, "          new in the head: %s (%s)\n", n.Method, n.Reason)
			}
		}
	}
	for _, l := range []struct {
		name string
		xs   []string
	}{{"unchanged", d.Unchanged}, {"added", d.Added}, {"removed", d.Removed}} {
		if len(l.xs) > 0 {
			fmt.Fprintf(w, "%-9s %s\n", l.name, strings.Join(l.xs, ", "))
		}
	}
	n := map[string]int{}
	for _, c := range d.Changes {
		n[c.Verdict]++
	}
	env := ""
	if n[EnvironmentDiffers] > 0 {
		env = fmt.Sprintf(", %d environment differs", n[EnvironmentDiffers])
	}
	fmt.Fprintf(w, "%d slower, %d faster, %d same, %d undecided%s, %d unchanged (α = %.3g, same within ±%g%%; %d measured, %d from the cache)\n",
		n[Slower], n[Faster], n[Same], n[Undecided], env, len(d.Unchanged), d.Alpha, 100*d.Margin, d.Measured, d.Cached)
	for _, note := range d.Notices {
		fmt.Fprintf(w, "note: %s\n", note)
	}
}

// diffLine is one change as text: verdict, workload, figures and ratio.
func diffLine(c DiffChange) string {
	line := fmt.Sprintf("%-9s %s[%s](%s)", c.Verdict, c.Method, c.Workload, c.Args)
	if c.Base != nil && c.Head != nil && (c.Reason == "" || c.Verdict == EnvironmentDiffers) {
		line += fmt.Sprintf("  %s/op → %s/op  ratio %s [%s, %s]", Duration(float64(c.Base.MeanNs)), Duration(float64(c.Head.MeanNs)),
			sig3(float64(c.Ratio)), sig3(float64(c.Low)), sig3(float64(c.High)))
	}
	if c.Reason != "" {
		line += fmt.Sprintf("  (%s)", c.Reason)
	}
	return line
}

// Bisect is perfls bisect's result: the first commit on the first-parent
// line from Good to Bad at which the selected workloads are slower than at
// Good, and the steps that found it.
type Bisect struct {
	Good     string `json:"good"` // full hashes
	Bad      string `json:"bad"`
	FirstBad string `json:"first_bad"` // "" when Bad is not slower than Good
	Subject  string `json:"subject,omitempty"`
	// Candidates, when skipped commits (not building) hide the first bad
	// one, are the commits it may be, oldest first.
	Candidates []string     `json:"candidates,omitempty"`
	Steps      []BisectStep `json:"steps"`
	Commits    int          `json:"commits"` // on the line after Good, Bad included
	// Measured is the number of commits at which forks ran (Good
	// included); a commit whose code is Good's, or whose measurements the
	// cache holds (the same code at another commit), needs none.
	Measured int    `json:"measured"`
	Reason   string `json:"reason,omitempty"`
	// Mode says what makes a commit bad: "formula" (a formula instance that
	// holds at Good is violated there) or "slower" (a workload is slower
	// there than at Good).
	Mode string `json:"mode"`
	// Formulas are, in formula mode, the instances that hold at Good and
	// are violated at Bad: the ones the search follows.
	Formulas []string `json:"formulas,omitempty"`
	// AtGood, when no formula instance holds at Good, names each with its
	// outcome and evidence there; Fallback then says that the search
	// compares workloads instead ("slower" mode).
	AtGood   []string `json:"at_good,omitempty"`
	Fallback string   `json:"fallback,omitempty"`
	// Unfollowed are, in formula mode, the instances the search cannot
	// follow because they do not hold at Good (undecided or failed there),
	// each with why: a regression in them goes unseen.
	Unfollowed []string `json:"unfollowed,omitempty"`
	// Notices are what the user should know: e.g. the working tree's
	// set-up that each commit was built with.
	Notices []string `json:"notices,omitempty"`
}

// BisectStep is one commit judged: bad (some workload slower than at
// Good), good (none shown slower, even after more forks), or skip (it does
// not build or could not be measured).
type BisectStep struct {
	Commit  string   `json:"commit"`
	Verdict string   `json:"verdict"`
	Slower  []string `json:"slower,omitempty"`
	// Violated are, in formula mode, the followed instances violated here.
	Violated []string `json:"violated,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

// ExitStatus is perfls bisect's: 0 when a first bad commit was found, 1
// when Bad is not worse than Good.
func (b *Bisect) ExitStatus() int {
	if b.FirstBad == "" {
		return 1
	}
	return 0
}

// WriteText writes the steps and the first bad commit.
func (b *Bisect) WriteText(w io.Writer) {
	if b.Fallback != "" {
		for _, in := range b.AtGood {
			fmt.Fprintf(w, "at good: %s\n", in)
		}
		fmt.Fprintf(w, "%s\n", b.Fallback)
	}
	for _, s := range b.Steps {
		fmt.Fprintf(w, "%-4s %.12s", s.Verdict, s.Commit)
		if len(s.Slower) > 0 {
			fmt.Fprintf(w, "  slower: %s", strings.Join(s.Slower, ", "))
		}
		if len(s.Violated) > 0 {
			fmt.Fprintf(w, "  violated: %s", strings.Join(s.Violated, "; "))
		}
		if s.Reason != "" {
			fmt.Fprintf(w, "  (%s)", s.Reason)
		}
		fmt.Fprintln(w)
	}
	switch {
	case b.FirstBad == "":
		fmt.Fprintf(w, "no regression found between %.12s and %.12s: %s\n", b.Good, b.Bad, b.Reason)
	case len(b.Candidates) > 1:
		fmt.Fprintf(w, "the first bad commit is one of %s (skipped commits hide which)\n", strings.Join(b.Candidates, ", "))
	default:
		fmt.Fprintf(w, "first bad commit: %s %s\n", b.FirstBad, b.Subject)
	}
	for _, u := range b.Unfollowed {
		fmt.Fprintf(w, "not followed: %s\n", u)
	}
	fmt.Fprintf(w, "%d commits on the line, %d judged, %d measured\n", b.Commits, len(b.Steps), b.Measured)
	for _, note := range b.Notices {
		fmt.Fprintf(w, "note: %s\n", note)
	}
}
