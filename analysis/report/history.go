package report

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// HistoryRow is one stored result of a method in perfls history: what was
// measured, on which commit and machine, and its figure (the mean of the
// forks' means, with a 95 % confidence interval over the forks).
type HistoryRow struct {
	ID         int64     `json:"id"`
	MeasuredAt time.Time `json:"measuredAt"`
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
	MeanNs     float64   `json:"meanNs"`
	CILowNs    float64   `json:"ciLowNs,omitempty"` // 0 with one fork
	CIHighNs   float64   `json:"ciHighNs,omitempty"`
}

// WriteHistory writes a method's results as a table, oldest first.
func WriteHistory(w io.Writer, rows []HistoryRow) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no stored results")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEASURED\tCOMMIT\tMACHINE\tJVM\tWORKLOAD\tARGS\tFORKS\tNS/OP\t95% CI")
	for _, r := range rows {
		commit := "-"
		if r.Commit != "" {
			commit = fmt.Sprintf("%.10s", r.Commit)
			if r.Dirty {
				commit += "+dirty"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%.4g\t[%.4g, %.4g]\n", r.MeasuredAt.Local().Format(time.DateTime),
			commit, r.Machine, r.JVM, r.Workload, r.Args, r.Forks, r.MeanNs, r.CILowNs, r.CIHighNs)
	}
	tw.Flush()
}
