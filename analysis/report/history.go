package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// HistoryRow is one stored result of a method in perfls history: what was
// measured, on which commit and machine, and its figure (the mean of the
// forks' means, with a 95 % confidence interval over the forks).
type HistoryRow struct {
	ID         int64     `json:"id"`
	MeasuredAt time.Time `json:"measured_at"`
	Method     string    `json:"method"`
	Workload   string    `json:"workload"`
	Args       string    `json:"args"`
	Commit     string    `json:"commit,omitempty"` // "" outside a git work tree
	Dirty      bool      `json:"dirty,omitempty"`  // the tree had changes: maybe not Commit's code
	Code       string    `json:"code"`             // the code fingerprint, short
	Machine    string    `json:"machine"`          // the machine class (cache key)
	JVM        string    `json:"jvm"`              // vendor and version
	Perfls     string    `json:"perfls,omitempty"`
	Forks      int       `json:"forks"`
	Samples    int       `json:"samples"`
	MeanNs     float64   `json:"mean_ns"`
	CILowNs    float64   `json:"ci_low_ns,omitempty"` // 0 with one fork
	CIHighNs   float64   `json:"ci_high_ns,omitempty"`
	// Review is what a user recorded about the result (perfls ensemble
	// --review): "passed", "regression", or "" for none.
	Review string `json:"review,omitempty"`
}

// WriteHistory writes a method's results as a table, oldest first.
func WriteHistory(w io.Writer, rows []HistoryRow) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no stored results")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMEASURED\tCOMMIT\tMACHINE\tJVM\tWORKLOAD\tARGS\tFORKS\tNS/OP\t95% CI\tREVIEW")
	for _, r := range rows {
		commit := "-"
		if r.Commit != "" {
			commit = fmt.Sprintf("%.10s", r.Commit)
			if r.Dirty {
				commit += "+dirty"
			}
		}
		review := r.Review
		if review == "" {
			review = "-"
		}
		ci := "-" // one fork: no interval
		if r.CIHighNs > r.CILowNs {
			// A time cannot be negative: the t-interval's lower bound is
			// shown clamped at 0, and said so (JSON keeps it as computed).
			ci = fmt.Sprintf("[%.4g, %.4g]", r.CILowNs, r.CIHighNs)
			if r.CILowNs < 0 {
				ci = fmt.Sprintf("[0, %.4g] (%s)", r.CIHighNs, ClampNote)
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%.4g\t%s\t%s\n", r.ID, r.MeasuredAt.Local().Format(time.DateTime),
			commit, r.Machine, r.JVM, r.Workload, r.Args, r.Forks, r.MeanNs, ci, review)
	}
	tw.Flush()
}

// HistoryPlot is perfls history --html's page: a method's results placed on
// a line of commits, one panel per workload and arguments, one series per
// machine class and JVM in each.
type HistoryPlot struct {
	Method  string
	Order   string          // how the commits are ordered, for the reader
	Commits []HistoryCommit // the commits holding a placed result, in line order
	Panels  []HistoryPanel
	Rows    []HistoryRow // every result, placed or not (the table)
	// Left counts the results not placed: of no commit, of a tree with
	// changes, or of a commit off the line.
	Left int
}

// HistoryCommit is one commit of the plot's axis.
type HistoryCommit struct {
	Commit  string
	Subject string
}

// HistoryPanel is one workload and arguments of the method.
type HistoryPanel struct {
	Workload, Args string
	Series         []HistorySeries
}

// HistorySeries is one machine class and JVM's results, in commit order.
type HistorySeries struct {
	Machine, JVM string
	Points       []HistoryPoint
}

// HistoryPoint is one result at place X of the plot's commits.
type HistoryPoint struct {
	X   int
	Row HistoryRow
}

// PlaceHistory places rows on line, the first-parent commits oldest first.
// A nil line orders the commits by their first result instead (a project
// outside git, whose results came from elsewhere). Only the commits that
// hold a result are kept on the axis.
func PlaceHistory(method string, rows []HistoryRow, line []string) *HistoryPlot {
	p := &HistoryPlot{Method: method, Rows: rows, Order: "first-parent line of HEAD, oldest first"}
	pos := map[string]int{}
	for i, c := range line {
		pos[c] = i
	}
	if line == nil {
		p.Order = "order of each commit's first result (not a git work tree here)"
		byTime := slices.Clone(rows)
		slices.SortStableFunc(byTime, func(a, b HistoryRow) int { return a.MeasuredAt.Compare(b.MeasuredAt) })
		for _, r := range byTime {
			if _, ok := pos[r.Commit]; !ok && r.Commit != "" && !r.Dirty {
				pos[r.Commit] = len(pos)
			}
		}
	}
	var placed []HistoryRow
	for _, r := range rows {
		if _, ok := pos[r.Commit]; ok && r.Commit != "" && !r.Dirty {
			placed = append(placed, r)
		} else {
			p.Left++
		}
	}
	slices.SortStableFunc(placed, func(a, b HistoryRow) int { return cmp.Compare(pos[a.Commit], pos[b.Commit]) })
	x := map[string]int{}
	for _, r := range placed {
		if _, ok := x[r.Commit]; !ok {
			x[r.Commit] = len(p.Commits)
			p.Commits = append(p.Commits, HistoryCommit{Commit: r.Commit})
		}
	}
	panels := map[[2]string]int{}
	for _, r := range placed {
		k := [2]string{r.Workload, r.Args}
		i, ok := panels[k]
		if !ok {
			i = len(p.Panels)
			panels[k] = i
			p.Panels = append(p.Panels, HistoryPanel{Workload: r.Workload, Args: r.Args})
		}
		pn := &p.Panels[i]
		j := slices.IndexFunc(pn.Series, func(s HistorySeries) bool { return s.Machine == r.Machine && s.JVM == r.JVM })
		if j < 0 {
			j = len(pn.Series)
			pn.Series = append(pn.Series, HistorySeries{Machine: r.Machine, JVM: r.JVM})
		}
		pn.Series[j].Points = append(pn.Series[j].Points, HistoryPoint{X: x[r.Commit], Row: r})
	}
	return p
}
