package engine

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"

	"gonum.org/v1/gonum/stat"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/version"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// Report is the check as its output formats show it (report.Check): the
// verdicts with the samples behind each comparison, the cost curves and the
// environment. project names the checked directory, command the command
// line; elapsed is how long the check took.
func (r *CheckResult) Report(project, command string, elapsed time.Duration) *report.Check {
	c := &report.Check{
		Project: project, Command: command, Finished: time.Now(), Elapsed: elapsed, Alpha: r.Alpha, Semantics: r.Semantics, Looks: r.Looks, ExtraForks: r.ExtraForks,
		Family: r.Family, FamilyTests: r.FamilyTests, FamilyLevel: r.FamilyLevel,
		Notices: r.Notices, Methods: r.Methods, Oracle: r.Oracle, Requests: r.Requests, Cached: r.Cached,
		Costs: r.costs(), Environment: r.environment(),
	}
	for _, d := range r.Diagnostics {
		d.Path = report.Rel(project, d.Path)
		c.Diagnostics = append(c.Diagnostics, d.String())
		if d.Severity == workspace.Error {
			c.FormulaErrors++
		}
	}
	c.Sides = r.sides()
	return c
}

// sides lists the samples behind each decided comparison, in the order of
// r.Methods: decide groups the plan's instances by method, keeping their
// order within a method.
func (r *CheckResult) sides() [][][]report.Sides {
	if r.plan == nil {
		return nil
	}
	byMethod := map[string][][]report.Sides{}
	for _, in := range r.plan.Instances {
		var ss []report.Sides
		for _, c := range in.Comparisons {
			ss = append(ss, report.Sides{Left: r.reportSide(c.Left), Right: r.reportSide(c.Right)})
		}
		k := formulaMethodKey(in.Formula)
		byMethod[k] = append(byMethod[k], ss)
	}
	out := make([][][]report.Sides, len(r.Methods))
	for i, m := range r.Methods {
		out[i] = byMethod[fmt.Sprint(m.File, m.Class, m.Method, m.Params)]
	}
	return out
}

func (r *CheckResult) reportSide(o workspace.Operand) report.Side {
	if o.Err != nil {
		return report.Side{Label: "unresolved: " + o.Err.Error()}
	}
	s := report.Side{Label: operandLabel(o.Request), Scale: o.Scale}
	res, ok := r.results[o.Request.Key()]
	if !ok || res.Error != "" {
		return s
	}
	for _, f := range measure.Settled(res.Forks) { // the forks the verdict rests on
		s.Forks = append(s.Forks, f.NsPerOp)
	}
	return s
}

// operandLabel names a measurement as the user wrote it: p.C#m[gen](args).
func operandLabel(r workspace.Request) string {
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		args[i] = a.String()
	}
	return fmt.Sprintf("%s#%s[%s](%s)", r.Method.Class, r.Method.Method, r.Generator.Method, strings.Join(args, ", "))
}

// costs collects, for every method measured at two or more values of a
// single integer argument, its fork means per value and the cost model
// fitted to them (one point per fork mean). A method at a revision
// (m@v1.0) is a curve of its own: other code.
func (r *CheckResult) costs() []report.Cost {
	if r.plan == nil {
		return nil
	}
	var curves []report.Cost
	measured := map[int][]model.Measured{}
	index := map[string]int{}
	var subjects []workspace.Request
	for _, q := range r.plan.Requests {
		if len(q.Args) != 1 || q.Args[0].Kind != spl.Int {
			continue
		}
		res, ok := r.results[q.Key()]
		if !ok || res.Error != "" {
			continue
		}
		subject := fmt.Sprintf("%s#%s[%s]", q.Method.Class, q.Method.Method, q.Generator.Method)
		if rev := q.Revision(); rev != "" {
			subject += "@" + rev
		}
		i, ok := index[subject]
		if !ok {
			i = len(curves)
			index[subject] = i
			curves = append(curves, report.Cost{Subject: subject})
			subjects = append(subjects, q)
		}
		pt := report.CostPoint{N: float64(q.Args[0].Int)}
		for _, f := range measure.Settled(res.Forks) {
			if len(f.NsPerOp) > 0 {
				pt.ForkMeans = append(pt.ForkMeans, stat.Mean(f.NsPerOp, nil))
			}
		}
		// A repeated n (another overload, say) adds forks, not a value.
		if j := slices.IndexFunc(curves[i].Points, func(p report.CostPoint) bool { return p.N == pt.N }); j >= 0 {
			curves[i].Points[j].ForkMeans = append(curves[i].Points[j].ForkMeans, pt.ForkMeans...)
		} else {
			curves[i].Points = append(curves[i].Points, pt)
		}
		measured[i] = append(measured[i], model.Measured{N: pt.N, Forks: res.Forks})
	}
	for i := range curves {
		curves[i].Callees = r.calleesOf(subjects[i])
		curves[i].Fit = fitCost(curves[i].Points)
		values := map[float64]bool{}
		for _, m := range measured[i] {
			values[m.N] = true
		}
		if len(values) >= 3 { // a repeated n is no new value
			for _, d := range model.Extract("", "", "n", nil, measured[i]).Dependencies {
				if d.Metric != model.Wall {
					curves[i].Demands = append(curves[i].Demands, d)
				}
			}
		}
	}
	return curves
}

// calleesOf are the callee lines (report.CalleeLines) of the newest stored
// model of q's method on q's generator; nil when there is none.
func (r *CheckResult) calleesOf(q workspace.Request) []string {
	spec := methodspec.Spec{Class: q.Method.Class, Name: q.Method.Method, Params: q.Method.Params}
	gen := methodspec.Spec{Class: q.Generator.Class, Name: q.Generator.Method, Params: q.Generator.Params}
	for _, m := range r.models {
		for _, op := range m.Operations {
			if spec.Matches(op.Method) && (q.Generator.Method == "" || gen.Matches(op.Workload)) {
				return report.CalleeLines(op)
			}
		}
	}
	return nil
}

// fitCost fits the cost models to the fork means of report.MinModelValues
// or more argument values; nil when there are fewer (two points fit every
// two-parameter model exactly) or no model can be fitted.
func fitCost(points []report.CostPoint) *stats.CostModels {
	var pts []stats.CostPoint
	values := map[float64]bool{}
	for _, p := range points {
		values[p.N] = true
		for _, y := range p.ForkMeans {
			pts = append(pts, stats.CostPoint{N: p.N, Y: y})
		}
	}
	if len(values) < report.MinModelValues {
		return nil
	}
	fit, err := stats.FitCostModels(pts)
	if err != nil {
		return nil
	}
	return &fit
}

// environment describes where and how the measurements ran.
func (r *CheckResult) environment() []report.Field {
	var fields []report.Field
	if r.plan != nil {
		for _, q := range r.plan.Requests {
			res := r.results[q.Key()]
			if res.Error == "" && res.Env.JavaVersion != "" {
				fields = envFields(res.Env)
				break
			}
		}
	}
	o := r.options
	return append(fields,
		report.Field{Name: "measurement", Value: fmt.Sprintf("%d forks × %d samples per measurement, warm-up at least %s, fork time limit %s", o.Forks, o.SamplesPerFork, o.Warmup, o.ForkTimeout)},
		report.Field{Name: "perfls", Value: version.String() + ", built with " + runtime.Version()},
	)
}

func envFields(e measured.Environment) []report.Field {
	jvm := strings.TrimSpace(fmt.Sprintf("%s %s, %s %s", e.JavaVendor, e.JavaVersion, e.VMName, e.VMVersion))
	if e.GC != "" {
		jvm += "; " + e.GC
	}
	if e.MaxHeapMB > 0 {
		jvm += fmt.Sprintf("; heap ≤ %d MiB", e.MaxHeapMB)
	}
	fields := []report.Field{{Name: "JVM", Value: jvm}}
	if len(e.JVMArgs) > 0 {
		fields = append(fields, report.Field{Name: "JVM flags", Value: strings.Join(e.JVMArgs, " ")})
	}
	machine := e.OS + "/" + e.Arch
	if e.CPUModel != "" {
		machine += ", " + e.CPUModel
	}
	if e.Cores > 0 {
		machine += fmt.Sprintf(", %d cores", e.Cores)
	}
	return append(fields, report.Field{Name: "machine", Value: machine})
}

// addMeasurement adds the summary of one of the annotated method's own
// measurements to its record, once per workload and arguments.
func addMeasurement(ms []verdict.Measurement, r workspace.Request, res service.ItemResult) []verdict.Measurement {
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		args[i] = a.String()
	}
	m := verdict.Measurement{Workload: r.Generator.Method, Args: strings.Join(args, ", "), MeasuredAt: res.MeasuredAt}
	for _, have := range ms {
		if have.Workload == m.Workload && have.Args == m.Args {
			return ms
		}
	}
	if res.Error != "" || len(res.Forks) == 0 {
		return ms
	}
	if len(r.Args) == 1 && r.Args[0].Kind == spl.Int {
		m.N = float64(r.Args[0].Int)
	}
	s := measured.Summarize(res.Forks)
	finite := func(x float64) float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0
		}
		return x
	}
	m.MeanNs, m.MedianNs = finite(s.MeanNsPerOp), finite(s.MedianNsPerOp)
	m.CILowNs, m.CIHighNs = finite(s.CI95[0]), finite(s.CI95[1])
	m.AllocBytes = -1
	if !math.IsNaN(s.MeanAllocBytesPerOp) {
		m.AllocBytes = s.MeanAllocBytesPerOp
	}
	m.Forks, m.Samples = s.Forks, s.SamplesPerFork
	for _, d := range model.Demands(res.Forks) {
		if d.Metric != model.Wall {
			m.Demands = append(m.Demands, d)
		}
	}
	for _, f := range res.Forks {
		if len(f.NsPerOp) > 0 {
			m.ForkMeansNs = append(m.ForkMeansNs, stat.Mean(f.NsPerOp, nil))
		}
	}
	return append(ms, m)
}
