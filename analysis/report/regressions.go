package report

import (
	"fmt"
	"io"
	"strings"
)

// Regressions is perfls regressions' result: the change points of every
// stored (method, workload, args, metric) series of one machine class,
// ordered by the first-parent history of a repository, and the level
// shifts seen only between machine classes. The engine fills it in
// (engine.Regressions).
type Regressions struct {
	Head  string `json:"head"`            // the tip of the first-parent line
	Since string `json:"since,omitempty"` // the commit after which slow-downs count
	// Commits is the length of the first-parent line; Results the stored
	// results placed on it, in Series series.
	Commits int `json:"commits"`
	Results int `json:"results"`
	Series  int `json:"series"`
	// Changes are the change points, by series then commit; Environment
	// the level shifts between machine classes ("environment differs").
	Changes     []RegressionChange `json:"changes"`
	Environment []EnvironmentShift `json:"environment_differs"`
	LeftOut     LeftOut            `json:"left_out"`
	Notes       []string           `json:"notes,omitempty"`
}

// SeriesID names a series: what was measured, the metric and the machine
// class (the cache key's machine and JVM).
type SeriesID struct {
	Method   string `json:"method"`
	Workload string `json:"workload,omitempty"`
	Args     string `json:"args,omitempty"`
	Metric   string `json:"metric"` // time, cpu or alloc
	Unit     string `json:"unit"`   // ns/op or B/op
	Machine  string `json:"machine"`
	JVM      string `json:"jvm"` // vendor and version
}

// Class is the machine class: machine and JVM.
func (s SeriesID) Class() string { return s.Machine + " / " + s.JVM }

// RegressionChange is a change point of a series at a commit: the first
// commit of the new level.
type RegressionChange struct {
	SeriesID
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	// Previous is the series' result commit before Commit: the slow-down
	// came in the commits after it, up to Commit (perfls explain bisects
	// them when there are several).
	Previous  string  `json:"previous,omitempty"`
	Points    int     `json:"points"` // the series' commits
	Before    float64 `json:"before"` // mean of the level before (up to the previous change point)
	After     float64 `json:"after"`
	Magnitude float64 `json:"magnitude"` // After/Before − 1
	Direction string  `json:"direction"` // increase or decrease
	PValue    float64 `json:"p_value"`
	Slower    bool    `json:"slower"`   // an increase: every metric here is a cost
	InSince   bool    `json:"in_since"` // after Since (always, without it)
}

// EnvironmentShift is a series whose first results are slower than the
// results just before them on another machine class, and that has no
// earlier results of its own: the environment differs, it is no regression.
type EnvironmentShift struct {
	SeriesID
	Commit       string  `json:"commit"` // the series' first commit
	Subject      string  `json:"subject"`
	OtherMachine string  `json:"other_machine"`
	OtherJVM     string  `json:"other_jvm"`
	Before       float64 `json:"before"` // the other class's level up to Commit
	After        float64 `json:"after"`  // this class's first level
	Magnitude    float64 `json:"magnitude"`
	PValue       float64 `json:"p_value"`
}

// LeftOut counts the stored results that are not on the line.
type LeftOut struct {
	Dirty    int `json:"dirty"`     // measured in a tree with changes
	OffLine  int `json:"off_line"`  // of a commit not on the first-parent line
	NoCommit int `json:"no_commit"` // measured outside a git work tree (or before results carried commits)
}

// ExitStatus is 1 when a slow-down is found after Since (anywhere, without
// it), else 0.
func (r *Regressions) ExitStatus() int {
	for _, c := range r.Changes {
		if c.Slower && c.InSince {
			return 1
		}
	}
	return 0
}

// WriteText lists the change points, one a line, then the environment
// shifts and what was left out.
func (r *Regressions) WriteText(w io.Writer) {
	since := ""
	if r.Since != "" {
		since = fmt.Sprintf(", counted after %.10s", r.Since)
	}
	fmt.Fprintf(w, "%d change %s in %d series (%d results on %d commits of the first-parent line of %.10s%s)\n",
		len(r.Changes), plural(len(r.Changes), "point", "points"), r.Series, r.Results, r.Commits, r.Head, since)
	for _, c := range r.Changes {
		word := "faster"
		if c.Slower {
			word = "SLOWER"
		}
		if !c.InSince {
			word = strings.ToLower(word) + " (before --since)"
		}
		fmt.Fprintf(w, "  %s since %.10s %q: %s %s %+.1f %% (%s → %s), p = %.2g\n", word, c.Commit, c.Subject,
			c.series(), c.Metric, 100*c.Magnitude, figure(c.Before, c.Unit), figure(c.After, c.Unit), c.PValue)
		fmt.Fprintf(w, "      on %s\n", c.Class())
	}
	if len(r.Environment) > 0 {
		fmt.Fprintln(w, "environment differs (not regressions: the only earlier results are another machine class's):")
		for _, e := range r.Environment {
			fmt.Fprintf(w, "  %s %s %+.1f %% at %.10s %q: %s on %s against %s on %s / %s, p = %.2g\n", e.series(), e.Metric, 100*e.Magnitude,
				e.Commit, e.Subject, figure(e.After, e.Unit), e.Class(), figure(e.Before, e.Unit), e.OtherMachine, e.OtherJVM, e.PValue)
		}
	}
	if l := r.LeftOut; l.Dirty+l.OffLine+l.NoCommit > 0 {
		fmt.Fprintf(w, "left out: %d %s of trees with changes, %d of commits not on the first-parent line, %d without a commit\n",
			l.Dirty, plural(l.Dirty, "result", "results"), l.OffLine, l.NoCommit)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// series is "Method [workload(args)]".
func (s SeriesID) series() string {
	out := s.Method
	if s.Workload != "" {
		out += " [" + s.Workload
		if s.Args != "" {
			out += " " + s.Args
		}
		out += "]"
	} else if s.Args != "" {
		out += " (" + s.Args + ")"
	}
	return out
}

// figure is a level in its unit: a duration per op, or bytes per op.
func figure(v float64, unit string) string {
	if unit == "B/op" {
		return fmt.Sprintf("%s B/op", sig3(v))
	}
	return Duration(v) + "/op"
}

// SlowerSince is the editor's hover line for a series whose latest change
// point is a slow-down: "slower since <commit> (+18 %)".
func SlowerSince(c RegressionChange) string {
	return fmt.Sprintf("slower since `%.10s` %s (%+.0f %%, %s → %s, %s)", c.Commit, c.Subject, 100*c.Magnitude,
		figure(c.Before, c.Unit), figure(c.After, c.Unit), strings.TrimPrefix(c.series(), c.Method+" "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
