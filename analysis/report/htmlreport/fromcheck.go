package htmlreport

import (
	"fmt"
	"strings"

	"github.com/perfls/perfls/analysis/report"
)

// FromCheck is the page of a finished check: its verdicts with the samples
// behind each comparison, its cost curves and its environment.
func FromCheck(c *report.Check) *Report {
	r := &Report{
		Project: c.Project, Command: c.Command, Generated: c.Finished, Elapsed: c.Elapsed, Alpha: c.Alpha, Looks: c.Looks,
		Environment: c.Environment, Diagnostics: c.Diagnostics, Costs: c.Costs,
	}
	r.Notices = append(r.Notices, c.Notices...)
	if c.Requests > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("%d distinct measurements, %d of them answered from the cache", c.Requests, c.Cached))
	}
	for mi, m := range c.Methods {
		hm := Method{Name: m.Class + "#" + m.Method + "(" + strings.Join(m.Params, ",") + ")", File: c.Rel(m.File)}
		for ii, in := range m.Instances {
			hi := Instance{Line: in.Line, Label: in.Instance, Formula: in.Formula, Outcome: in.Outcome, Failed: in.Failed}
			for ci, cmp := range in.Comparisons {
				hc := Comparison{Result: cmp}
				if mi < len(c.Sides) && ii < len(c.Sides[mi]) && ci < len(c.Sides[mi][ii]) {
					hc.Left, hc.Right = c.Sides[mi][ii][ci].Left, c.Sides[mi][ii][ci].Right
				}
				hi.Comparisons = append(hi.Comparisons, hc)
			}
			hm.Instances = append(hm.Instances, hi)
		}
		r.Methods = append(r.Methods, hm)
	}
	return r
}
