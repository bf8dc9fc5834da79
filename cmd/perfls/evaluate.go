package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/perfls/perfls/analysis/dataset"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
)

type evalFlags struct {
	data, formula, format string
	interp                string
	alpha                 float64
	seed                  uint64
	resamples             int
}

func runEvaluate(args []string, stdout, stderr io.Writer) (int, error) {
	var ef evalFlags
	fl := flag.NewFlagSet("evaluate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&ef.data, "data", "", "recorded results: JMH JSON (-rf json) or perfls measurement JSON")
	fl.StringVar(&ef.formula, "formula", "", "SPL formula to decide, e.g. 'for n in {100} a.B#f[jmh](n) <= a.B#g[jmh](n)'")
	fl.StringVar(&ef.format, "format", "text", "output format: text or json")
	fl.StringVar(&ef.interp, "interpretation", "", "quick, parametric, nonparametric or rank (default: parametric with ≥ 5 forks per side, else quick with 5% tolerance)")
	fl.Float64Var(&ef.alpha, "alpha", 0.05, "significance level, 0 < α ≤ 0.5")
	fl.Uint64Var(&ef.seed, "seed", 1, "random seed of the non-parametric bootstrap")
	fl.IntVar(&ef.resamples, "resamples", 10000, "bootstrap resamples of the non-parametric interpretation")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: perfls evaluate --data FILE --formula F [flags]\n\nDecides an SPL formula against recorded results without measuring. JMH benchmark\npkg.Class.method is written pkg.Class#method[jmh](p1, …) with its @Param values in the\norder the JSON lists them; perfls measurements as pkg.Class#m[pkg.Class#gen](args).\nExit status: 0 all hold, 1 violated, 2 usage or data errors (undecided alone exits 0).")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	if fl.NArg() != 0 {
		return exitUsage, usageError{fmt.Sprintf("evaluate takes no positional arguments (got %q)", fl.Args())}
	}
	if ef.data == "" || ef.formula == "" {
		return exitUsage, usageError{"evaluate needs --data FILE and --formula F"}
	}
	if ef.format != "text" && ef.format != "json" {
		return exitUsage, usageError{fmt.Sprintf("unknown --format %q (want text or json)", ef.format)}
	}
	if !(ef.alpha > 0 && ef.alpha <= 0.5) {
		return exitUsage, usageError{fmt.Sprintf("--alpha %g is outside (0, 0.5]", ef.alpha)}
	}
	interp, err := stats.ParseInterpretation(ef.interp)
	if err != nil {
		return exitUsage, usageError{err.Error()}
	}
	if ef.resamples < 100 {
		return exitUsage, usageError{"--resamples must be at least 100"}
	}
	raw, err := os.ReadFile(ef.data)
	if err != nil {
		return exitUsage, fmt.Errorf("evaluate: %w", err)
	}
	ms, err := dataset.Parse(raw)
	if err != nil {
		return exitUsage, fmt.Errorf("evaluate: %s: %w", ef.data, err)
	}
	opt := verdict.Options{Alpha: ef.alpha, Interpretation: interp,
		Bootstrap: stats.BootstrapConfig{Seed: ef.seed, Resamples: ef.resamples}}
	res, err := evaluate(ef.formula, ms, ef.data, opt)
	if err != nil {
		return exitUsage, err
	}
	if ef.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return exitUsage, err
		}
	} else {
		for _, in := range res.Instances {
			label := ""
			if in.Instance != "" {
				label = "[" + in.Instance + "] "
			}
			if len(in.Comparisons) == 1 {
				c := in.Comparisons[0]
				fmt.Fprintf(stdout, "%-9s %s%s  %s  (%s)\n", in.Result, label, c.Text, report.Evidence(c.ComparisonResult), c.Evidence.Test)
				continue
			}
			fmt.Fprintf(stdout, "%-9s %s%s\n", in.Result, label, in.Formula)
			for _, c := range in.Comparisons {
				fmt.Fprintf(stdout, "  %-9s %s  %s  (%s)\n", c.Outcome, c.Text, report.Evidence(c.ComparisonResult), c.Evidence.Test)
			}
		}
		fmt.Fprintf(stdout, "%s (α = %g)\n", res.Result, ef.alpha)
	}
	if res.Result == verdict.Violated {
		return exitViolated, nil
	}
	return exitOK, nil
}

// evalResult is evaluate's JSON output.
type evalResult struct {
	Result    verdict.Outcome `json:"result"`
	Formula   string          `json:"formula"`
	Alpha     float64         `json:"alpha"`
	Instances []evalInstance  `json:"instances"`
}

type evalInstance struct {
	Formula  string          `json:"formula"`
	Instance string          `json:"instance,omitempty"`
	Result   verdict.Outcome `json:"result"`
	// PValue is the p-value of the comparison with the least support (the
	// smallest p), the one that decides a conjunction.
	PValue      *float64         `json:"p_value"`
	Comparisons []evalComparison `json:"comparisons"`
}

type evalComparison struct {
	verdict.ComparisonResult
	PValue float64 `json:"p_value"`
}

// evaluate decides every formula of src against the measurements.
func evaluate(src string, ms []dataset.Measurement, source string, opt verdict.Options) (*evalResult, error) {
	unit, diags := spl.ParseAndCheck(src)
	var errs []string
	for _, d := range diags {
		if d.Severity == spl.Error {
			errs = append(errs, fmt.Sprintf("col %d: %s", d.Span.Start+1, d.Message))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("formula: %s", strings.Join(errs, "; "))
	}
	if unit == nil || len(unit.Formulas) == 0 {
		return nil, errors.New("formula: no formula in the text")
	}
	aliases := map[string]*spl.Alias{}
	for _, a := range unit.Aliases {
		aliases[a.Name] = a
	}
	res := &evalResult{Formula: src, Alpha: opt.Alpha, Result: verdict.Satisfied}
	prepared := map[string]verdict.Side{} // each measurement is read once
	for _, f := range unit.Formulas {
		insts, _ := spl.Expand(f)
		if len(insts) == 0 {
			return nil, fmt.Errorf("formula %q has no instances", f)
		}
		for _, in := range insts {
			comps := spl.Comparisons(in.Body)
			inputs := make([]verdict.Input, len(comps))
			for i, c := range comps {
				l, err := evalSide(in, c, c.Left, true, aliases, ms, source, prepared)
				if err != nil {
					return nil, err
				}
				r, err := evalSide(in, c, c.Right, false, aliases, ms, source, prepared)
				if err != nil {
					return nil, err
				}
				inputs[i] = verdict.Input{Node: c, Text: in.Render(c), Left: l, Right: r}
			}
			ir := verdict.DecideInstance(in.Body, inputs, opt)
			ei := evalInstance{Formula: f.String(), Instance: in.Label(), Result: ir.Outcome}
			for _, cr := range ir.Comparisons {
				ei.Comparisons = append(ei.Comparisons, evalComparison{ComparisonResult: cr, PValue: cr.Evidence.P})
				if cr.Evidence.StatName != "" && !math.IsNaN(cr.Evidence.P) && (ei.PValue == nil || cr.Evidence.P < *ei.PValue) {
					p := cr.Evidence.P
					ei.PValue = &p
				}
			}
			res.Result = andOutcome(res.Result, ei.Result)
			res.Instances = append(res.Instances, ei)
		}
	}
	return res, nil
}

// evalSide finds a term's data and its scale (term factor × lambda).
func evalSide(in spl.Instance, c *spl.Comparison, t *spl.Term, left bool, aliases map[string]*spl.Alias, ms []dataset.Measurement, source string, prepared map[string]verdict.Side) (verdict.Side, error) {
	q, err := termQuery(in, t, aliases)
	if err != nil {
		return verdict.Side{}, fmt.Errorf("%s: %w", in.Render(c), err)
	}
	m, err := dataset.Find(ms, q, source)
	if err != nil {
		return verdict.Side{}, err
	}
	scale := 1.0
	if t.Scale != nil {
		scale = *t.Scale
	}
	if c.Lambda != nil {
		fs := c.Lambda.Right
		if left {
			fs = c.Lambda.Left
		}
		k, err := in.Multiplier(fs, nil)
		if err != nil {
			return verdict.Side{}, fmt.Errorf("%s: %w", in.Render(c), err)
		}
		scale *= k
	}
	key := fmt.Sprint(m.Format, m.Name(), m.Params)
	side, ok := prepared[key]
	if !ok {
		side = verdict.Side{Runs: m.Runs}.Prepare()
		prepared[key] = side
	}
	side.Scale = scale
	return side, nil
}

func termQuery(in spl.Instance, t *spl.Term, aliases map[string]*spl.Alias) (dataset.Query, error) {
	var q dataset.Query
	mr := t.Method
	gen := t.Generator
	if mr.Name != "" && mr.Class == "" {
		if a := aliases[mr.Name]; a != nil && a.Method != nil {
			mr = a.Method
			if gen == nil {
				gen = a.BoundGenerator
			}
		}
	}
	switch {
	case mr.Self:
		return q, fmt.Errorf("%s has no meaning outside an annotated method; name the method as pkg.Class#method", mr.Name)
	case mr.Class == "" && mr.Method == "":
		q.Method = mr.Name
	default:
		q.Class, q.Method, q.Params = mr.Class, mr.Method, mr.Params
	}
	if gen != nil && gen.Name != "" {
		if a := aliases[gen.Name]; a != nil && a.Generator != nil {
			gen = a.Generator
		}
	}
	switch {
	case gen == nil:
	case gen.Name == "jmh" && gen.Class == "":
		q.JMH = true
	case gen.Name != "":
		q.WorkloadMethod = gen.Name
	default:
		q.WorkloadClass, q.WorkloadMethod = gen.Class, gen.Method
		if gen.Method == "" { // a generator class: match by class only
			q.WorkloadMethod = ""
		}
	}
	vals, err := in.ArgValues(t)
	if err != nil {
		return q, err
	}
	for _, v := range vals {
		a := dataset.Arg{Text: v.String(), Num: v.Float, IsNum: v.Kind != spl.String}
		if v.Kind == spl.String {
			a.Text = v.Str
		}
		q.Args = append(q.Args, a)
	}
	return q, nil
}

// andOutcome is Kleene conjunction: the formula holds when every instance does.
func andOutcome(x, y verdict.Outcome) verdict.Outcome {
	switch {
	case x == verdict.Violated || y == verdict.Violated:
		return verdict.Violated
	case x == verdict.Satisfied && y == verdict.Satisfied:
		return verdict.Satisfied
	}
	return verdict.Undecided
}
