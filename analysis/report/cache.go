package report

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/perfls/perfls/analysis/stats"
)

// CacheRow is one stored measurement in perfls cache ls.
type CacheRow struct {
	ID                     int64
	Measured               time.Time
	Method, Workload, Args string
	Forks                  int
	Preliminary            bool
	Bytes                  int64
}

// WriteCacheList writes the stored measurements as a table.
func WriteCacheList(w io.Writer, rows []CacheRow) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMEASURED\tMETHOD\tWORKLOAD\tARGS\tFORKS\tSIZE")
	for _, r := range rows {
		kind := ""
		if r.Preliminary {
			kind = " (preliminary)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d%s\t%s\n", r.ID, r.Measured.Local().Format(time.DateTime),
			r.Method, r.Workload, r.Args, r.Forks, kind, Bytes(r.Bytes))
	}
	tw.Flush()
}

// StoredMeasurement is one stored measurement in perfls cache show: its
// key and each fork's samples (ns per operation).
type StoredMeasurement struct {
	ID                                                  int64
	Measured                                            time.Time
	Method, Workload, Args, Code, JVM, Harness, Machine string
	Environment                                         json.RawMessage
	Forks                                               [][]float64
}

// WriteStoredMeasurement writes m's key and a summary line per fork.
func WriteStoredMeasurement(w io.Writer, m *StoredMeasurement) {
	fmt.Fprintf(w, "measurement %d, %s\n", m.ID, m.Measured.Local().Format(time.DateTime))
	fmt.Fprintf(w, "  method    %s\n  workload  %s\n  args      %s\n", m.Method, m.Workload, m.Args)
	fmt.Fprintf(w, "  code      %s\n  jvm       %s\n  harness   %s\n  machine   %s\n", m.Code, m.JVM, m.Harness, m.Machine)
	var env any
	if json.Unmarshal(m.Environment, &env) == nil {
		b, _ := json.Marshal(env)
		fmt.Fprintf(w, "  env       %s\n", b)
	}
	for i, f := range m.Forks {
		s := stats.Summarize(f)
		lo, hi := stats.MeanCI(s, 0.95)
		fmt.Fprintf(w, "  fork %d: %d samples, mean %s/op (95 %% CI %s), median %s/op\n", i+1, s.N,
			Duration(s.Mean), Span(lo, hi, "ns"), Duration(s.Median))
	}
}

// Bytes reads a size: "512 B", "1.5 KiB", "3.2 MiB".
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

// DaemonStatus is what perfls daemon status shows.
type DaemonStatus struct {
	PID           int
	Up            time.Duration
	Socket, Cache string
	Finished      int
	Jobs          []DaemonJob
}

// DaemonJob is one running or queued measurement of the daemon.
type DaemonJob struct {
	Running  bool
	Elapsed  time.Duration
	Priority string
	Waiters  int
	Label    string
}

// WriteGC writes what perfls cache gc removed: evicted measurements, and
// compiled code unused for days days and temporary files (entries and temp
// of bytes).
func WriteGC(w io.Writer, evicted, entries, temp int, bytes int64, days int) {
	fmt.Fprintf(w, "removed %d measurements\nremoved %d compiled harnesses, libraries or projects unused for %d days and %d temporary files (%s)\n",
		evicted, entries, days, temp, Bytes(bytes))
}

// DaemonStopped is what perfls daemon stop says.
func DaemonStopped(stopped bool) string {
	if stopped {
		return "perfls daemon stopped"
	}
	return "no perfls daemon is running"
}

// WriteDaemonStatus writes the daemon's state and its jobs, or that no
// daemon answers on socket (running false), and returns running.
func WriteDaemonStatus(w io.Writer, st DaemonStatus, socket string, running bool) bool {
	if !running {
		fmt.Fprintf(w, "no perfls daemon answers on %s\n", socket)
		return false
	}
	fmt.Fprintf(w, "perfls daemon pid %d, up %s\n  socket %s\n  cache  %s\n  %d measurements finished\n",
		st.PID, st.Up.Round(time.Second), st.Socket, st.Cache, st.Finished)
	if len(st.Jobs) == 0 {
		fmt.Fprintln(w, "  idle")
		return true
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  STATE\tPRIORITY\tWAITERS\tJOB")
	for _, j := range st.Jobs {
		state := "queued"
		if j.Running {
			state = "running " + j.Elapsed.Round(100*time.Millisecond).String()
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", state, j.Priority, j.Waiters, j.Label)
	}
	tw.Flush()
	return true
}
