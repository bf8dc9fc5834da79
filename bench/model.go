package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// The model part (issue #21): for example methods with a workload
// parameter (not quickstart.Strings#joinWithPlus: its heap grows through
// every warm-up, so its figures are not steady enough to fit; see
// docs/models.md), extract a model from 6 parameter values (a geometric grid),
// predict wall and thread CPU time per operation at values that were not
// measured (three inside the fitted range, one at twice its top), measure
// those as the model's values are (engine.MeasurePrecise), and print the table and the median relative error inside the
// range; and the wall time of the first extraction (6 values, empty cache,
// with the profiled forks for the callees, as perfls model does by default;
// the validation leaves them out: they do not change the predictions).
//
//	go run ./bench model [-forks 3] [-samples 10] [-case linearSearch] [-model-data FILE] [-cpus 0] [-heap MB] [-checks-with-fit]
//
// -checks-with-fit measures the checks while the model is extracted, their
// forks in turns with the fit values': the error is then the model's own,
// without the machine's drift between extraction and check (docs/models.md).
//
// Under each case it prints the diagnosis of the errors: per value the fork
// means that were fitted and the fitted curve there, and the check
// measurements' fork means; -model-data writes the same as JSON.

type modelCase struct {
	project, method, workload string
	lo, hi                    int64
}

var modelCases = []modelCase{
	{"examples/quickstart", "quickstart.Search#linearSearch", "quickstart.Search#lookups", 1000, 32000},
	{"examples/quickstart", "quickstart.Search#binarySearch", "quickstart.Search#lookups", 1000, 1000000},
	{"examples/quickstart", "quickstart.Strings#joinWithBuilder", "quickstart.Strings#words", 50, 1600},
	{"examples/profiling", "profiling.Duplicates#countRepeats", "profiling.Duplicates#values", 100, 3200},
	{"examples/profiling", "profiling.Totals#sum", "profiling.Totals#values", 1000, 100000},
}

// caseData is what -model-data writes of one case: the model (its points
// carry the fork means that were fitted) and the checks' demands.
type caseData struct {
	Model  *model.Model
	Checks map[int64][]model.Demand
}

func modelBench(ctx context.Context, opt measure.Options, only, dataFile string, withFit bool) error {
	tmp, err := os.MkdirTemp("", "perfls-bench-model-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	eng, err := engine.Open(ctx, engine.Config{CacheDir: tmp, Service: engine.InProcess})
	if err != nil {
		return err
	}
	defer eng.Close()
	opt.MinSampleTime, opt.ForkTimeout = engine.ModelMinSample, 2*time.Minute
	printModelHeader(opt)
	errs := map[model.Metric][]float64{}
	data := map[string]caseData{}
	for i, c := range modelCases {
		if !strings.Contains(c.method, only) {
			continue
		}
		if d, ok := validateModel(ctx, eng, c, opt, i == 0 && only == "", withFit, errs); ok {
			data[c.method] = d
		}
	}
	if dataFile != "" {
		b, err := json.MarshalIndent(data, "", " ")
		if err == nil {
			err = os.WriteFile(dataFile, b, 0o644)
		}
		if err != nil {
			return err
		}
	}
	fmt.Printf("load average at the end: %s", loadAverage())
	printModelErrors(errs)
	return nil
}

// printModelHeader prints the settings of the validation and the table's
// header.
func printModelHeader(opt measure.Options) {
	fmt.Printf("== model validation: %d forks × %d samples of ≥ %s per value, more forks up to %d until the wall and cpu figures are within ±%.0f %% (95 %% CI), fit and checks alike; fit on 6 values, predict 4 others; load average %s",
		opt.Forks, opt.SamplesPerFork, opt.MinSampleTime, 3*opt.Forks, 100*engine.ModelPrecision, loadAverage())
	if opt.CPUs != "" {
		fmt.Printf("measuring threads pinned to processors %s\n", opt.CPUs)
	}
	if opt.HeapMB > 0 {
		fmt.Printf("heap fixed at %d MB\n", opt.HeapMB)
	}
	fmt.Printf("%-36s %-4s %8s %12s %25s %25s %12s %8s %8s %s\n", "method", "dmd", "n", "predicted", "curve's 95% CI", "a measurement's 95%", "measured", "error", "noise", "")
}

// validateModel extracts c's model (timing it when first, which also
// extracts the callees) and measures its checks, printing its rows and
// diagnosis and adding its errors to errs; false when the extraction
// failed.
func validateModel(ctx context.Context, eng *engine.Engine, c modelCase, opt measure.Options, first, withFit bool, errs map[model.Metric][]float64) (caseData, bool) {
	// With withFit the checks are measured while the model is extracted,
	// their forks in turns with the fit values' (the model never sees
	// them): the error is then the model's, not the machine's drift
	// between the extraction and the checks.
	var gots []*engine.Measured
	var gerrs []error
	checked := make(chan struct{})
	measureAll := func() { gots, gerrs = measureChecks(ctx, eng, c, opt); close(checked) }
	if withFit {
		go measureAll()
	}
	start := time.Now()
	m, err := extract(ctx, eng, c, opt, !first)
	if first {
		fmt.Printf("(extracting the first model with its callees, 6 values, empty cache: %.1f s)\n", time.Since(start).Seconds())
	}
	if !withFit {
		measureAll()
	}
	<-checked
	var checks map[int64][]model.Demand
	if err == nil {
		for _, n := range m.Notices {
			if strings.HasPrefix(n, engine.DriftNotice) {
				fmt.Printf("%-36s %s\n", shortMethod(c.method), n)
			}
		}
		checks = validateCase(c, m, gots, gerrs, errs)
	}
	if err != nil {
		fmt.Printf("%-36s failed: %v\n", shortMethod(c.method), err)
		return caseData{}, false
	}
	printDiagnosis(m.Operations[0], checks)
	return caseData{m, checks}, true
}

// printModelErrors prints, per metric, the median and largest error and
// measurement noise inside the fitted ranges, and how many measurements
// fell inside their prediction's interval.
func printModelErrors(errs map[model.Metric][]float64) {
	for _, metric := range []model.Metric{model.Wall, model.CPU} {
		for _, v := range []struct {
			key  model.Metric
			what string
		}{{metric, "error"}, {metric + "/noise", "measurement noise (95 % CI half-width of the check)"}} {
			e := errs[v.key]
			sort.Float64s(e)
			if len(e) > 0 {
				fmt.Printf("median %s of %s inside the fitted ranges: %.1f %% (%d predictions; max %.1f %%)\n",
					v.what, metric, 100*median(e), len(e), 100*e[len(e)-1])
			}
		}
		if in := errs[metric+"/inside"]; len(in) > 0 {
			var k float64
			for _, x := range in {
				k += x
			}
			fmt.Printf("%s measurements inside their prediction's 95 %% interval (pi95): %.0f of %d\n", metric, k, len(in))
		}
	}
}

func extract(ctx context.Context, eng *engine.Engine, c modelCase, opt measure.Options, noCallees bool) (*model.Model, error) {
	w, err := engine.ParseWorkload(c.method, c.workload, "")
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(c.project)
	if err != nil {
		return nil, err
	}
	return eng.ExtractModel(ctx, engine.ModelRequest{Dir: dir, Workload: w, Values: fmt.Sprintf("%d..%d", c.lo, c.hi), Points: 6, Options: opt, NoCallees: noCallees})
}

// checkValues are the values a case's model is checked at: the geometric
// midpoints between the grid's 1st and 2nd, 3rd and 4th, 5th and 6th
// points, and twice the top.
func checkValues(c modelCase) []int64 {
	grid := model.GeometricGrid(c.lo, c.hi, 6)
	var at []int64
	for i := 0; i+1 < len(grid); i += 2 {
		at = append(at, int64(math.Round(math.Sqrt(float64(grid[i]*grid[i+1])))))
	}
	return append(at, 2*c.hi)
}

// measureChecks measures the check values together, their forks in turns,
// as the extraction measures its values (engine.measureValues).
func measureChecks(ctx context.Context, eng *engine.Engine, c modelCase, opt measure.Options) ([]*engine.Measured, []error) {
	at := checkValues(c)
	gots, gerrs := make([]*engine.Measured, len(at)), make([]error, len(at))
	dir, err := filepath.Abs(c.project)
	var wg sync.WaitGroup
	for i, n := range at {
		w, werr := engine.ParseWorkload(c.method, c.workload, fmt.Sprint(n))
		if err != nil || werr != nil {
			gerrs[i] = errors.Join(err, werr)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			gots[i], gerrs[i] = eng.MeasurePrecise(ctx, engine.MeasureRequest{Dir: dir, Workload: w, Options: opt, Phase: service.PhaseFull}, 0)
		}()
	}
	wg.Wait()
	return gots, gerrs
}

// validateCase prints each prediction of m at the check values against its
// measurement (gots, gerrs: measureChecks's).
func validateCase(c modelCase, m *model.Model, gots []*engine.Measured, gerrs []error, errs map[model.Metric][]float64) map[int64][]model.Demand {
	at := checkValues(c)
	checks := map[int64][]model.Demand{}
	op := m.Operations[0]
	deps := map[model.Metric]model.Dependency{}
	for _, d := range op.Dependencies {
		deps[d.Metric] = d
	}
	for i, n := range at {
		got, err := gots[i], gerrs[i]
		if err != nil {
			fmt.Printf("%-36s %-4s %8d measuring failed: %v\n", shortMethod(op.Method), "", n, err)
			continue
		}
		checks[n] = model.Demands(got.Result.Forks)
		for _, metric := range []model.Metric{model.Wall, model.CPU} {
			d, ok := deps[metric]
			measured, okm := model.DemandOf(got.Result.Forks, metric)
			if !ok || !okm {
				continue
			}
			p := d.Predict(float64(n))
			rel := math.Abs(p.Value-measured.Mean) / measured.Mean
			noise := (measured.CI95[1] - measured.CI95[0]) / 2 / measured.Mean
			in := 0.0 // the measurement inside the prediction interval
			if p.PI95[0] <= measured.Mean && measured.Mean <= p.PI95[1] {
				in = 1
			}
			flag := d.Best.Model
			if p.Extrapolated {
				flag += " (extrapolated)"
			} else {
				errs[metric] = append(errs[metric], rel)
				errs[metric+"/noise"] = append(errs[metric+"/noise"], noise)
				errs[metric+"/inside"] = append(errs[metric+"/inside"], in)
			}
			fmt.Printf("%-36s %-4s %8d %12s [%10s, %10s] [%10s, %10s] %12s %7.1f%% %7.1f%% %s\n", shortMethod(op.Method), metric, n, fmtNs(p.Value),
				fmtNs(p.CI95[0]), fmtNs(p.CI95[1]), fmtNs(p.PI95[0]), fmtNs(p.PI95[1]), fmtNs(measured.Mean), 100*rel, 100*noise, flag)
		}
	}
	return checks
}

// printDiagnosis prints, for wall and cpu, the fitted model and, per value
// (fitted and checked, in order of n), the mean with its 95 % interval and
// the fork means relative to the curve: whether the curve passes through
// the fit points within their own noise, and whether the checks' forks
// scatter like the fit points' do.
func printDiagnosis(op model.Operation, checks map[int64][]model.Demand) {
	for _, d := range op.Dependencies {
		if d.Metric != model.Wall && d.Metric != model.CPU {
			continue
		}
		fmt.Printf("  %s %s: %s (a = %.4g, b = %.4g, df %d)", shortMethod(op.Method), d.Metric, d.Text, d.Best.A, d.Best.B, d.Best.DF)
		for _, f := range d.Indistinct {
			fmt.Printf("; indistinct %s", model.Formula(f, d.Unit))
		}
		fmt.Println()
		type row struct {
			n    float64
			what string
			dm   model.Demand
		}
		var rows []row
		for _, p := range op.Points {
			for _, dm := range p.Demands {
				if dm.Metric == d.Metric {
					rows = append(rows, row{p.N, "fit", dm})
				}
			}
		}
		for n, ds := range checks {
			for _, dm := range ds {
				if dm.Metric == d.Metric {
					rows = append(rows, row{float64(n), "check", dm})
				}
			}
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i].n < rows[j].n })
		for _, r := range rows {
			curve := d.Predict(r.n).Value
			// The mean and its 95 % interval relative to the curve; "×":
			// the curve is outside the interval.
			outside := " "
			if curve < r.dm.CI95[0] || curve > r.dm.CI95[1] {
				outside = "×"
			}
			fmt.Printf("    %-5s %8.0f curve %10s  mean/curve %6.3f [%6.3f, %6.3f] %s %d forks/curve", r.what, r.n, fmtNs(curve),
				r.dm.Mean/curve, r.dm.CI95[0]/curve, r.dm.CI95[1]/curve, outside, len(r.dm.ForkMeans))
			for _, y := range r.dm.ForkMeans {
				fmt.Printf(" %6.3f", y/curve)
			}
			fmt.Printf("   forks %s\n", fmtList(r.dm.ForkMeans))
		}
	}
}

func fmtList(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmtNs(x))
	}
	return strings.Join(s, " ")
}

// shortMethod drops the package and the parameter types.
func shortMethod(m string) string {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] == '(' {
			m = m[:i]
		}
	}
	for i := 0; i < len(m); i++ {
		if m[i] == '.' {
			return shortMethod(m[i+1:])
		}
	}
	return m
}

// loadAverage is /proc/loadavg: other processes' load inflates wall times
// (preemption) and, on shared cores, CPU times too.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown\n"
	}
	return string(b)
}

// median of xs (sorted or not); NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
