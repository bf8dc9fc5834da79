package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/perfls/perfls/analysis/report/htmlreport"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/version"
	"github.com/perfls/perfls/measure/service"
)

// checkHTMLDir rejects an --html target that exists and is not a directory,
// before anything is measured.
func checkHTMLDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // created when the report is written
	case err != nil:
		return fmt.Errorf("--html %s: %w", dir, err)
	case !info.IsDir():
		return fmt.Errorf("--html %s: exists and is not a directory", dir)
	}
	return nil
}

// writeHTMLReport renders the check as DIR/index.html, creating DIR when
// missing. The page is written to a temporary file in DIR and renamed, so
// a reader never sees half a report.
func writeHTMLReport(outDir, dir, command string, out *checkOutcome, cf checkFlags, elapsed time.Duration) error {
	if err := checkHTMLDir(outDir); err != nil {
		return err
	}
	page, err := htmlreport.Render(buildHTMLReport(dir, command, out, cf, elapsed, time.Now()))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	tmp, err := os.CreateTemp(outDir, ".index.html.*")
	if err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	if _, err := tmp.Write(page); err != nil {
		tmp.Close()
		return fmt.Errorf("--html: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("--html: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--html: write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(outDir, "index.html")); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

// buildHTMLReport gathers what the page shows from a check's outcome: the
// verdicts, the samples behind every comparison, and the cost curves.
func buildHTMLReport(dir, command string, out *checkOutcome, cf checkFlags, elapsed time.Duration, now time.Time) *htmlreport.Report {
	r := &htmlreport.Report{
		Project: dir, Command: command, Generated: now, Elapsed: elapsed, Alpha: out.alpha,
	}
	for _, d := range out.diags {
		r.Diagnostics = append(r.Diagnostics, relDiag(dir, d))
	}
	r.Notices = append(r.Notices, out.notices...)
	if out.requests > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("%d distinct measurements, %d of them answered from the cache", out.requests, out.cached))
	}
	r.Environment = environmentFields(out, cf)

	// The comparisons of every plan instance, in the order decide grouped
	// them: by annotated method, instances in plan order.
	type planned struct{ comparisons []*workspace.Comparison }
	byMethod := map[string][]planned{}
	if out.plan != nil {
		for _, in := range out.plan.Instances {
			k := formulaMethodKey(in.Formula)
			byMethod[k] = append(byMethod[k], planned{in.Comparisons})
		}
	}
	for _, m := range out.methods {
		hm := htmlreport.Method{Name: m.Class + "#" + m.Method + "(" + strings.Join(m.Params, ",") + ")", File: rel(dir, m.File)}
		plans := byMethod[fmt.Sprint(m.File, m.Class, m.Method, m.Params)]
		for ii, in := range m.Instances {
			hi := htmlreport.Instance{Line: in.Line, Label: in.Instance, Formula: in.Formula, Outcome: in.Outcome}
			for ci, c := range in.Comparisons {
				hc := htmlreport.Comparison{Result: c}
				// Samples only when the plan matches the verdict exactly.
				if ii < len(plans) && len(plans[ii].comparisons) == len(in.Comparisons) && plans[ii].comparisons[ci].Text == c.Text {
					pc := plans[ii].comparisons[ci]
					hc.Left, hc.Right = htmlSide(pc.Left, out.results), htmlSide(pc.Right, out.results)
				}
				hi.Comparisons = append(hi.Comparisons, hc)
			}
			hm.Instances = append(hm.Instances, hi)
		}
		r.Methods = append(r.Methods, hm)
	}
	r.Costs = costCurves(out)
	return r
}

// formulaMethodKey is the key decide groups a formula's instances by.
func formulaMethodKey(f *workspace.Formula) string {
	file, class, method := f.Path, "", ""
	var params []string
	if f.Method != nil {
		class, method = f.Method.Type.BinaryName, f.Method.Name
		for _, p := range f.Method.Params {
			params = append(params, p.Erased)
		}
	}
	return fmt.Sprint(file, class, method, params)
}

// operandLabel names a measurement as the user wrote it: p.C#m[gen](args).
func operandLabel(r workspace.Request) string {
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		args[i] = a.String()
	}
	return fmt.Sprintf("%s#%s[%s](%s)", r.Method.Class, r.Method.Method, r.Generator.Method, strings.Join(args, ", "))
}

func htmlSide(o workspace.Operand, results map[string]service.ItemResult) htmlreport.Side {
	if o.Err != nil {
		return htmlreport.Side{Label: "unresolved: " + o.Err.Error()}
	}
	s := htmlreport.Side{Label: operandLabel(o.Request), Scale: o.Scale}
	res, ok := results[o.Request.Key()]
	if !ok || res.Error != "" {
		return s
	}
	for _, f := range res.Forks {
		s.Forks = append(s.Forks, f.NsPerOp)
	}
	return s
}

// costCurves collects, for every method measured at a single integer
// argument, its fork means per argument value, with the cost model
// fitCosts fitted to them.
func costCurves(out *checkOutcome) []htmlreport.Cost {
	if out.plan == nil {
		return nil
	}
	fits := map[string]*costModel{}
	for i := range out.costs {
		fits[out.costs[i].Subject] = &out.costs[i]
	}
	var curves []htmlreport.Cost
	index := map[string]int{}
	for _, r := range out.plan.Requests {
		if len(r.Args) != 1 || r.Args[0].Kind != spl.Int {
			continue
		}
		res, ok := out.results[r.Key()]
		if !ok || res.Error != "" {
			continue
		}
		subject := fmt.Sprintf("%s#%s[%s]", r.Method.Class, r.Method.Method, r.Generator.Method)
		i, ok := index[subject]
		if !ok {
			i = len(curves)
			index[subject] = i
			c := htmlreport.Cost{Subject: subject}
			if f := fits[subject]; f != nil {
				fit := f.Fit
				c.Fit = &fit
			}
			curves = append(curves, c)
		}
		pt := htmlreport.CostPoint{N: float64(r.Args[0].Int)}
		for _, f := range res.Forks {
			if len(f.NsPerOp) > 0 {
				pt.ForkMeans = append(pt.ForkMeans, stat.Mean(f.NsPerOp, nil))
			}
		}
		curves[i].Points = append(curves[i].Points, pt)
	}
	return curves
}

// environmentFields describes where and how the measurements ran.
func environmentFields(out *checkOutcome, cf checkFlags) []htmlreport.Field {
	var fields []htmlreport.Field
	var reqs []workspace.Request
	if out.plan != nil {
		reqs = out.plan.Requests
	}
	for _, r := range reqs {
		res := out.results[r.Key()]
		if res.Error != "" || res.Env.JavaVersion == "" {
			continue
		}
		e := res.Env
		fields = append(fields, htmlreport.Field{Name: "JVM", Value: strings.TrimSpace(fmt.Sprintf("%s %s, %s %s", e.JavaVendor, e.JavaVersion, e.VMName, e.VMVersion))})
		if len(e.JVMArgs) > 0 {
			fields = append(fields, htmlreport.Field{Name: "JVM flags", Value: strings.Join(e.JVMArgs, " ")})
		}
		machine := e.OS + "/" + e.Arch
		if e.CPUModel != "" {
			machine += ", " + e.CPUModel
		}
		if e.Cores > 0 {
			machine += fmt.Sprintf(", %d cores", e.Cores)
		}
		fields = append(fields, htmlreport.Field{Name: "machine", Value: machine})
		break
	}
	fields = append(fields,
		htmlreport.Field{Name: "measurement", Value: fmt.Sprintf("%d forks × %d samples per measurement, warm-up at least %s, fork time limit %s", cf.opts.Forks, cf.opts.SamplesPerFork, cf.opts.Warmup, cf.opts.ForkTimeout)},
		htmlreport.Field{Name: "perfls", Value: version.String() + ", built with " + runtime.Version()},
	)
	return fields
}

// commandLine renders argv for display, quoting arguments that need it.
func commandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
