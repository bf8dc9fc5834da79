package report

import (
	"fmt"
	"strings"

	"github.com/perfls/perfls/analysis/verdict"
)

// SeeAlsoColumn is one @SeeAlso method beside the annotated one.
type SeeAlsoColumn struct {
	Name         string // as shown, e.g. "Search#linearSearch"
	Measurements []verdict.Measurement
	Problem      string // why it has no figures (unresolved), "" otherwise
}

// SeeAlso renders the annotated method's time per operation side by side
// with its @SeeAlso methods', one row per workload and arguments the
// annotated method was measured with; a method not measured on that
// workload shows "—".
func SeeAlso(self string, own []verdict.Measurement, others []SeeAlsoColumn) string {
	if len(others) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**See also**\n\n")
	var resolved []SeeAlsoColumn
	for _, o := range others {
		if o.Problem != "" {
			fmt.Fprintf(&b, "- `%s`: %s\n", o.Name, o.Problem)
		} else {
			resolved = append(resolved, o)
		}
	}
	others = resolved
	shared := 0
	for _, m := range own {
		for _, o := range others {
			if find(o.Measurements, m) != nil {
				shared++
			}
		}
	}
	if len(own) == 0 || shared == 0 {
		var names []string
		for _, o := range others {
			names = append(names, "`"+o.Name+"`")
		}
		if len(names) > 0 {
			fmt.Fprintf(&b, "\nNo measurements shared with %s yet: measure them on the same workloads.\n", strings.Join(names, ", "))
		}
		return b.String()
	}
	b.WriteString("\n| workload | " + self)
	for _, o := range others {
		b.WriteString(" | " + o.Name)
	}
	b.WriteString(" |\n|---|---:")
	for range others {
		b.WriteString("|---:")
	}
	b.WriteString("|\n")
	for _, m := range own {
		fmt.Fprintf(&b, "| %s(%s) | %s/op", shortName(m.Workload), m.Args, Duration(m.MeanNs))
		for _, o := range others {
			if om := find(o.Measurements, m); om != nil {
				fmt.Fprintf(&b, " | %s/op", Duration(om.MeanNs))
			} else {
				b.WriteString(" | —")
			}
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

func find(ms []verdict.Measurement, like verdict.Measurement) *verdict.Measurement {
	for i := range ms {
		if ms[i].Workload == like.Workload && ms[i].Args == like.Args {
			return &ms[i]
		}
	}
	return nil
}

// shortName drops the package of pkg.Class#m.
func shortName(s string) string {
	cls, m, ok := strings.Cut(s, "#")
	if !ok {
		return s
	}
	if i := strings.LastIndex(cls, "."); i >= 0 {
		cls = cls[i+1:]
	}
	return cls + "#" + m
}
