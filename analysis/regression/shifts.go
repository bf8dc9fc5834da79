package regression

import (
	"github.com/perfls/perfls/analysis/changepoint"
	"github.com/perfls/perfls/analysis/report"
)

// EnvironmentShifts finds the series that begin after another machine
// class's series of the same thing and whose first level is significantly
// higher than that class's level just before: the only earlier results are
// another environment's, so the step between them is no regression. The
// other class is the one with the latest result before the series begins.
// Call it after Detect: the levels end at the series' change points.
func (set *Set) EnvironmentShifts() []report.EnvironmentShift {
	all := set.Ordered()
	type what struct{ method, workload, args, metric, harness string }
	groups := map[what][]*Series{}
	for _, s := range all {
		k := s.key
		w := what{k.method, k.workload, k.args, k.metric, k.harness}
		groups[w] = append(groups[w], s)
	}
	var out []report.EnvironmentShift
	for _, s := range all {
		k := s.key
		first := s.places()[0]
		var other *Series
		otherLast := -1
		for _, o := range groups[what{k.method, k.workload, k.args, k.metric, k.harness}] {
			for p, xs := range o.samples {
				if xs != nil && o != s && p < first && p > otherLast {
					other, otherLast = o, p
				}
			}
		}
		if other == nil {
			continue
		}
		from := 0 // the other class's level: after its last change point before first
		for _, c := range other.changes {
			if p := set.line.pos[c.Commit]; p < first {
				from = p
			}
		}
		until := len(set.line.commits) // this class's first level
		if len(s.changes) > 0 {
			until = set.line.pos[s.changes[0].Commit]
		}
		cp, ok, err := changepoint.Shift(other.level(from, first), s.level(first, until), config)
		if err != nil || !ok || cp.Magnitude <= 0 {
			continue
		}
		out = append(out, report.EnvironmentShift{SeriesID: s.id, Commit: set.line.commits[first], OtherMachine: other.id.Machine,
			OtherJVM: other.id.JVM, Before: cp.Before, After: cp.After, Magnitude: cp.Magnitude, PValue: cp.PValue})
	}
	return out
}
