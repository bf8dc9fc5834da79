package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/perfls/perfls/analysis/dataset"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/internal/input"
)

// EvaluateOptions checks perfls evaluate's settings — a data file and a
// formula given, α in (0, 0.5], an interpretation's name ("" = automatic),
// a semantics' name ("" = shown), resamples ≥ 100 — and returns them as
// verdict options.
func EvaluateOptions(data, formula string, alpha float64, interpretation, semantics string, seed uint64, resamples int) (verdict.Options, error) {
	if data == "" || formula == "" {
		return verdict.Options{}, errors.New("evaluate needs --data FILE and --formula F")
	}
	if !(alpha > 0 && alpha <= 0.5) {
		return verdict.Options{}, fmt.Errorf("--alpha %g is outside (0, 0.5]", alpha)
	}
	interp, err := stats.ParseInterpretation(interpretation)
	if err != nil {
		return verdict.Options{}, err
	}
	sem, err := verdict.ParseSemantics(semantics)
	if err != nil {
		return verdict.Options{}, fmt.Errorf("--semantics: %w", err)
	}
	if sem == "" {
		sem = verdict.Shown
	}
	if resamples < 100 {
		return verdict.Options{}, fmt.Errorf("--resamples must be at least 100")
	}
	return verdict.Options{Alpha: alpha, Interpretation: interp, Semantics: sem, Bootstrap: stats.BootstrapConfig{Seed: seed, Resamples: resamples}}, nil
}

// EvaluateFile decides the formula src against the recorded results in the
// file at path (Evaluate), read under input.Results and until ctx is done.
func EvaluateFile(ctx context.Context, src, path string, opt verdict.Options) (*report.Evaluation, error) {
	raw, err := input.ReadFile(ctx, path, input.Results)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	ms, err := dataset.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %s: %w", path, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Evaluate(src, ms, path, opt)
}

// Evaluate decides every formula of src against recorded measurements
// (analysis/dataset: JMH's JSON, perfls's measurement JSON) read from
// source, without measuring.
func Evaluate(src string, ms []dataset.Measurement, source string, opt verdict.Options) (*report.Evaluation, error) {
	unit, diags := spl.ParseAndLint(src)
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
	ev := &evaluator{aliases: map[string]*spl.Alias{}, ms: ms, source: source, prepared: map[string]verdict.Side{}}
	for _, a := range unit.Aliases {
		ev.aliases[a.Name] = a
	}
	sem := opt.Semantics
	if sem == "" {
		sem = verdict.Shown
	}
	res := &report.Evaluation{Formula: src, Alpha: opt.Alpha, Semantics: string(sem)}
	var counts verdict.Counts
	for _, f := range unit.Formulas {
		insts, _ := spl.Expand(f)
		if len(insts) == 0 {
			return nil, fmt.Errorf("formula %q has no instances", f)
		}
		for _, in := range insts {
			ei, err := ev.instance(f, in, opt)
			if err != nil {
				return nil, err
			}
			counts.Add(verdict.InstanceResult{Outcome: ei.Result})
			res.Instances = append(res.Instances, ei)
		}
	}
	res.Result = counts.Overall()
	return res, nil
}

// evaluator finds the recorded data of formula terms.
type evaluator struct {
	aliases  map[string]*spl.Alias
	ms       []dataset.Measurement
	source   string
	prepared map[string]verdict.Side // each measurement is read once
}

func (ev *evaluator) instance(f *spl.Formula, in spl.Instance, opt verdict.Options) (report.EvaluatedInstance, error) {
	comps := spl.Comparisons(in.Body)
	inputs := make([]verdict.Input, len(comps))
	for i, c := range comps {
		l, err := ev.side(in, c, c.Left, true)
		if err != nil {
			return report.EvaluatedInstance{}, err
		}
		r, err := ev.side(in, c, c.Right, false)
		if err != nil {
			return report.EvaluatedInstance{}, err
		}
		inputs[i] = verdict.Input{Node: c, Text: in.Render(c), Left: l, Right: r}
	}
	ir := verdict.DecideInstance(in.Body, inputs, opt)
	ei := report.EvaluatedInstance{Formula: f.String(), Instance: in.Label(), Result: ir.Outcome}
	for _, cr := range ir.Comparisons {
		ei.Comparisons = append(ei.Comparisons, report.EvaluatedComparison{ComparisonResult: cr, PValue: cr.Evidence.P})
		if p := cr.Evidence.P; cr.Evidence.StatName != "" && !math.IsNaN(p) && (ei.PValue == nil || p < *ei.PValue) {
			ei.PValue = &p
		}
	}
	return ei, nil
}

// side finds a term's data and its scale (term factor × lambda).
func (ev *evaluator) side(in spl.Instance, c *spl.Comparison, t *spl.Term, left bool) (verdict.Side, error) {
	if t.Metric != "" && t.Metric != "wall" {
		return verdict.Side{}, fmt.Errorf("%s: evaluate reads times per operation; %s(…) needs perfls check", in.Render(c), t.Metric)
	}
	q, err := termQuery(in, t, ev.aliases)
	if err != nil {
		return verdict.Side{}, fmt.Errorf("%s: %w", in.Render(c), err)
	}
	m, err := dataset.Find(ev.ms, q, ev.source)
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
	side, ok := ev.prepared[key]
	if !ok {
		side = verdict.Side{Runs: m.Runs}.Prepare()
		ev.prepared[key] = side
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
