package profile

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// shortFile is a file's base name, for messages ("Totals.java:19").
func shortFile(f string) string { return path.Base(strings.ReplaceAll(f, `\`, "/")) }

// fmtNs formats nanoseconds with a unit and about three significant digits.
func fmtNs(ns float64) string {
	switch a := abs(ns); {
	case a >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

// fmtBytes formats a byte count in B, KB, MB (powers of 1024).
func fmtBytes(b float64) string {
	switch a := abs(b); {
	case a >= 1<<30:
		return fmt.Sprintf("%.3g GB", b/(1<<30))
	case a >= 1<<20:
		return fmt.Sprintf("%.3g MB", b/(1<<20))
	case a >= 1<<10:
		return fmt.Sprintf("%.3g KB", b/(1<<10))
	}
	return fmt.Sprintf("%.3g B", b)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// Text renders the report for a terminal: the time per operation, the top
// hot lines, library hot spots, allocation sites, blocking and findings.
// top bounds each list (0: 10).
func (r *Report) Text(top int) string {
	if top <= 0 {
		top = 10
	}
	var b strings.Builder
	if r.Preliminary {
		b.WriteString("preliminary profile (warm worker JVM):\n")
	}
	if r.Method != "" {
		fmt.Fprintf(&b, "%s\n", r.Method)
	}
	fmt.Fprintf(&b, "%s per operation over %d iterations (%d operations), %d samples", fmtNs(r.NsPerOp), r.Iterations, r.Ops, r.Samples)
	if r.AllocSource != "none" {
		fmt.Fprintf(&b, ", %s allocated per operation", fmtBytes(r.BytesPerOp))
	}
	if r.GC.Count > 0 {
		fmt.Fprintf(&b, ", %d GCs", r.GC.Count)
	}
	if r.CPULoad.Machine >= 0 {
		fmt.Fprintf(&b, ", machine CPU load %.0f %%", 100*r.CPULoad.Machine)
	}
	b.WriteString("\n")
	if len(r.Hot) > 0 {
		b.WriteString("\nwhere the time goes (project lines, library calls folded in):\n")
		for i, h := range r.Hot {
			if i == top {
				break
			}
			fmt.Fprintf(&b, "  %5.1f %%  %-28s %s\n", 100*h.Share, h.Location.String(), h.Method)
		}
	}
	if len(r.HotLibrary) > 0 {
		b.WriteString("\nhot library code:\n")
		for i, h := range r.HotLibrary {
			if i == top {
				break
			}
			via := ""
			if h.Via != nil {
				via = "  (from " + h.Via.String() + ")"
			}
			fmt.Fprintf(&b, "  %5.1f %%  %s%s\n", 100*h.Share, h.Location.String(), via)
		}
	}
	if len(r.Allocations) > 0 {
		b.WriteString("\nwhere the memory goes:\n")
		for i, a := range r.Allocations {
			if i == top {
				break
			}
			fmt.Fprintf(&b, "  %9s/op  %-28s %s\n", fmtBytes(a.BytesPerOp), a.Location.String(), a.TopClass)
		}
	}
	if len(r.Blocking) > 0 {
		b.WriteString("\nwhere threads wait:\n")
		for i, w := range r.Blocking {
			if i == top {
				break
			}
			fmt.Fprintf(&b, "  %9s/op  %-6s %-28s %s (%d threads, %d events)\n", fmtNs(w.NsPerOp), w.Kind, w.Location.String(), w.Class, w.Threads, w.Events)
		}
	}
	if len(r.Findings) > 0 {
		b.WriteString("\nfindings:\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %s: %s: %s\n", f.Location.String(), f.Kind, f.Message)
		}
	}
	for _, n := range r.NotComparable {
		fmt.Fprintf(&b, "  not comparable: %s: %s\n", n.Method, n.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// Markdown renders the hover section "where the time goes": the top hot
// lines and allocation sites as plain tables (they render in VS Code and
// Neovim), then the findings. top bounds each table (0: 5).
func (r *Report) Markdown(top int) string {
	if top <= 0 {
		top = 5
	}
	var b strings.Builder
	if r.Preliminary {
		b.WriteString("_Preliminary: a quick profile in the warm worker JVM; the forked profile follows._\n\n")
	}
	fmt.Fprintf(&b, "**Where the time goes** (%s per operation, %d samples)\n\n", fmtNs(r.NsPerOp), r.Samples)
	if len(r.Hot) > 0 {
		b.WriteString("| share | line | method |\n|---:|---|---|\n")
		for i, h := range r.Hot {
			if i == top {
				break
			}
			fmt.Fprintf(&b, "| %.1f %% | %s | `%s` |\n", 100*h.Share, h.Location.String(), h.Method)
		}
		b.WriteString("\n")
	}
	if len(r.Allocations) > 0 {
		fmt.Fprintf(&b, "**Where the memory goes** (%s per operation)\n\n| per op | line | class |\n|---:|---|---|\n", fmtBytes(r.BytesPerOp))
		for i, a := range r.Allocations {
			if i == top {
				break
			}
			fmt.Fprintf(&b, "| %s | %s | `%s` |\n", fmtBytes(a.BytesPerOp), a.Location.String(), a.TopClass)
		}
		b.WriteString("\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "- **%s** (%s): %s\n", f.Kind, f.Location.String(), f.Message)
	}
	for _, n := range r.NotComparable {
		fmt.Fprintf(&b, "- not comparable: `%s`: %s\n", n.Method, n.Reason)
	}
	return b.String()
}

// LineShares returns, for one source file, the share of the region's
// samples at each line (the hot list folded by line), for inlay hints on
// the hot lines of a profiled method.
func (r *Report) LineShares(file string) map[int]float64 {
	out := map[int]float64{}
	for _, h := range r.Hot {
		if h.File == file && h.Line > 0 {
			out[h.Line] += h.Share
		}
	}
	return out
}
