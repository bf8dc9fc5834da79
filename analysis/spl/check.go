package spl

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Lint reports semantic problems in a parsed unit, in source order:
//   - variables: undeclared (error), unused (warning), declared twice (error);
//   - zipped sequences whose tuple count or tuple lengths disagree (error);
//   - duplicate (warning) and mixed number/string (warning) values;
//   - aliases declared twice (error), named SELF/THIS (error), never used
//     by a formula of the unit (hint, only when the unit has formulas);
//   - scale factors and lambda multipliers that are not positive (error),
//     equality intervals outside (0, 1) (warning);
//   - quantifiers that produce more than 100,000 instances (error; counted,
//     not expanded);
//   - "k * A <= B" with k > 1 (warning): it demands A be k times faster, which
//     is often meant as "A <= k * B" (thesis Listing 5).
//
// Parse does not call Lint; ParseAndLint does both. For the SPL Tools
// annotation form, whose elements are parsed one by one, assemble a Unit
// from the ParseMethodAlias / ParseGeneratorAlias results and the parsed
// formulas, and Lint it as a whole. Lint never
// resolves names against Java code: a bare name may be an alias or a method
// of the annotated class, which only the caller can tell.
func Lint(u *Unit) []Diagnostic {
	if u == nil {
		return nil
	}
	var diags []Diagnostic
	first := map[string]*Alias{}
	var order []*Alias
	for _, a := range u.Aliases {
		if a.Name == "SELF" || a.Name == "THIS" {
			diags = append(diags, Diagnostic{Span: a.NameSpan, Severity: Error, Code: CodeReservedName,
				Message: fmt.Sprintf("%q is reserved for the annotated method and cannot name an alias; choose another name", a.Name)})
			continue
		}
		if prev, ok := first[a.Name]; ok {
			diags = append(diags, Diagnostic{Span: a.NameSpan, Severity: Error, Code: CodeDuplicateAlias,
				Message: fmt.Sprintf("alias %q is declared twice (first as %q); rename one of them", a.Name, prev.String())})
			continue
		}
		first[a.Name] = a
		order = append(order, a)
	}
	used := map[string]bool{}
	markGen := func(g *GeneratorRef) {
		if g != nil && g.Name != "" {
			used[g.Name] = true
		}
	}
	for _, a := range u.Aliases {
		if a.Method != nil && a.Method.Name != "" && a.Method.Name != a.Name {
			used[a.Method.Name] = true
		}
		markGen(a.BoundGenerator)
		markGen(a.BoundFactory)
	}
	for _, f := range u.Formulas {
		diags = append(diags, checkFormula(f)...)
		for _, t := range Terms(f.Body) {
			if t.Method.Name != "" {
				used[t.Method.Name] = true
			}
			markGen(t.Generator)
			markGen(t.Factory)
		}
	}
	if len(u.Formulas) > 0 {
		for _, a := range order {
			if !used[a.Name] {
				diags = append(diags, Diagnostic{Span: a.NameSpan, Severity: Hint, Code: CodeUnusedAlias,
					Message: fmt.Sprintf("alias %q is not used by any formula", a.Name)})
			}
		}
	}
	sortDiags(diags)
	return diags
}

type varInfo struct {
	id   Ident
	used bool
}

func checkFormula(f *Formula) []Diagnostic {
	fc := &formulaCheck{f: f, vars: map[string]*varInfo{}}
	for _, q := range f.Quantifiers {
		fc.quantifier(q)
	}
	if q := tooManyInstances(f); q != nil {
		// Lint and the editor report it without expanding, as check's
		// Expand refuses it.
		fc.add(q.Span, Error, CodeTooManyInstances, "the quantifiers produce more than %d instances, so the formula is not expanded; use fewer values", maxInstances)
	}
	for _, c := range Comparisons(f.Body) {
		fc.comparison(c)
	}
	for _, vi := range fc.order {
		if !vi.used {
			fc.add(vi.id.Span, Warning, CodeUnusedVariable,
				"variable %q is declared but not used in the formula: pass it as an argument, e.g. SELF[gen](%s), or remove it", vi.id.Name, vi.id.Name)
		}
	}
	return fc.diags
}

// formulaCheck is the diagnostics of one formula so far, and its
// variables with whether they are used.
type formulaCheck struct {
	f     *Formula
	diags []Diagnostic
	vars  map[string]*varInfo
	order []*varInfo // vars in their order of declaration
}

func (fc *formulaCheck) add(sp Span, sev Severity, code, format string, args ...any) {
	fc.diags = append(fc.diags, Diagnostic{Span: sp, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// quantifier declares q's variables and checks its values.
func (fc *formulaCheck) quantifier(q *Quantifier) {
	for _, v := range q.Vars {
		if _, dup := fc.vars[v.Name]; dup {
			fc.add(v.Span, Error, CodeDuplicateVariable, "variable %q is declared twice in this formula; rename one of them", v.Name)
			continue
		}
		vi := &varInfo{id: v}
		fc.vars[v.Name] = vi
		fc.order = append(fc.order, vi)
	}
	if q.Zipped {
		fc.diags = append(fc.diags, checkSequence(q)...)
	}
	for k, vals := range q.Values {
		if k < len(q.Vars) {
			fc.diags = append(fc.diags, checkValues(q.Vars[k].Name, vals)...)
		}
	}
}

// use marks variable name, used at at, as used, or reports it undeclared.
func (fc *formulaCheck) use(name string, at Span) {
	if vi := fc.vars[name]; vi != nil {
		vi.used = true
		return
	}
	if len(fc.order) == 0 {
		fc.add(at, Error, CodeUndeclaredVariable,
			"variable %q is not declared: add a quantifier such as \"for %s in {10, 100}\" before the formula", name, name)
	} else {
		fc.add(at, Error, CodeUndeclaredVariable,
			"variable %q is not declared (declared: %s): use one of those or add \"for %s in {…}\"", name, varNames(fc.order), name)
	}
}

// comparison checks c's arguments, scales, multipliers, interval,
// placement of scales and metrics, marking the variables it uses.
func (fc *formulaCheck) comparison(c *Comparison) {
	for _, t := range []*Term{c.Left, c.Right} {
		for _, a := range t.Args {
			switch {
			case a.Calc != nil:
				a.Calc.Vars(fc.use)
				fc.diags = append(fc.diags, checkArithmetic(fc.f, a)...)
			case a.Value == nil:
				fc.use(a.Var, a.Span)
			}
		}
		if t.Scale != nil && *t.Scale <= 0 {
			fc.add(t.ScaleSpan, Error, CodeInvalidScale, "scale factor %s must be positive", formatNumber(*t.Scale))
		}
	}
	if c.Lambda != nil {
		for _, fs := range [][]Factor{c.Lambda.Left, c.Lambda.Right} {
			for _, fa := range fs {
				if fa.Number != nil && *fa.Number <= 0 {
					fc.add(fa.Span, Error, CodeInvalidScale, "multiplier %s must be positive", formatNumber(*fa.Number))
				}
				if vi := fc.vars[fa.Ident]; fa.Number == nil && vi != nil {
					vi.used = true
				}
			}
		}
	}
	if c.Interval != nil && (*c.Interval <= 0 || *c.Interval >= 1) {
		fc.add(c.OpSpan, Warning, CodeInvalidInterval,
			"equality interval %s is a relative tolerance and should lie between 0 and 1 (0.05 means ±5 %%)", formatNumber(*c.Interval))
	}
	fc.diags = append(fc.diags, checkScalePlacement(c)...)
	fc.diags = append(fc.diags, checkMetrics(c)...)
}

// checkArithmetic evaluates an argument's arithmetic at the bindings of
// the variables it uses and reports the first operation without a value
// (beyond a Java long, a division by zero) where it happens: a check
// refuses it, never wraps it.
func checkArithmetic(f *Formula, a Arg) []Diagnostic {
	var diags []Diagnostic
	EachArgValue(f, a, func(_ Value, in Instance, err error) bool {
		var ee *EvalError
		if !errors.As(err, &ee) {
			return true
		}
		msg := ee.Msg
		if l := in.Label(); l != "" {
			msg = "at " + l + ": " + msg
		}
		diags = append(diags, Diagnostic{Span: ee.At, Severity: Error, Code: CodeArithmetic, Message: msg})
		return false
	})
	return diags
}

func varNames(vs []*varInfo) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.id.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// checkSequence enforces the SPL Tools rules for zipped sequences: one
// value tuple per variable, all tuples of one length.
func checkSequence(q *Quantifier) []Diagnostic {
	var diags []Diagnostic
	names := make([]string, len(q.Vars))
	for i, v := range q.Vars {
		names[i] = v.Name
	}
	seq := "(" + strings.Join(names, ", ") + ")"
	if len(q.Values) != len(q.Vars) {
		diags = append(diags, Diagnostic{Span: q.Span, Severity: Error, Code: CodeArityMismatch,
			Message: fmt.Sprintf("the sequence %s has %d variables but %d value tuples: write one tuple \"(…)\" of values per variable",
				seq, len(q.Vars), len(q.Values))})
	}
	for k := 1; k < len(q.Values); k++ {
		if len(q.Values[k]) != len(q.Values[0]) {
			sp := q.Span
			if k < len(q.ValueSpans) {
				sp = q.ValueSpans[k]
			}
			diags = append(diags, Diagnostic{Span: sp, Severity: Error, Code: CodeArityMismatch,
				Message: fmt.Sprintf("value tuple %d of the sequence %s has %d values but tuple 1 has %d: the variables are stepped together and need the same number of values",
					k+1, seq, len(q.Values[k]), len(q.Values[0]))})
		}
	}
	return diags
}

func checkValues(name string, vals []Value) []Diagnostic {
	var diags []Diagnostic
	seen := map[string]bool{}
	hasStr, hasNum := false, false
	for _, v := range vals {
		key := v.Kind.String() + ":" + v.String()
		if v.Kind != String {
			key = "num:" + formatNumber(v.Float)
			hasNum = true
		} else {
			hasStr = true
		}
		if seen[key] {
			diags = append(diags, Diagnostic{Span: v.Span, Severity: Warning, Code: CodeDuplicateValue,
				Message: fmt.Sprintf("value %s appears twice in the values of %q; remove the repetition", v, name)})
		}
		seen[key] = true
	}
	if hasStr && hasNum && len(vals) > 0 {
		sp := join(vals[0].Span, vals[len(vals)-1].Span)
		diags = append(diags, Diagnostic{Span: sp, Severity: Warning, Code: CodeMixedValues,
			Message: fmt.Sprintf("the values of %q mix numbers and strings, but a generator parameter has one type", name)})
	}
	return diags
}

// checkScalePlacement flags "k * A <= B" (and "A >= k * B") with k > 1.
func checkScalePlacement(c *Comparison) []Diagnostic {
	var scaled, other *Term
	switch c.Op {
	case LE, LT:
		scaled, other = c.Left, c.Right
	case GE, GT:
		scaled, other = c.Right, c.Left
	default:
		return nil
	}
	if scaled.Scale == nil || other.Scale != nil || *scaled.Scale <= 1 {
		return nil
	}
	if sameWorkloadOtherArgs(scaled, other) {
		// A growth formula: "4 * SELF[g](n) <= SELF[g](2 * n)" says the
		// time at least quadruples when n doubles, as written.
		return nil
	}
	k := formatNumber(*scaled.Scale)
	a, b := unscaled(scaled), unscaled(other)
	fix := a + " " + c.signString() + " " + k + " * " + b
	if c.Op == GE || c.Op == GT {
		fix = k + " * " + b + " " + c.signString() + " " + a
	}
	return []Diagnostic{{Span: scaled.ScaleSpan, Severity: Warning, Code: CodeScalePlacement,
		Message: fmt.Sprintf("this requires %s to be at least %s times faster than %s; if it may be up to %s times slower, write %s",
			a, k, b, k, fix)}}
}

// sameWorkloadOtherArgs reports whether a and b name the same method on
// the same workload and differ only in its arguments.
func sameWorkloadOtherArgs(a, b *Term) bool {
	x, y := *a, *b
	x.Scale, y.Scale = nil, nil
	x.Args, y.Args = nil, nil
	return x.String() == y.String() && a.Method != nil && len(a.Args) > 0 && unscaled(a) != unscaled(b)
}

func unscaled(t *Term) string {
	c := *t
	c.Scale = nil
	return c.String()
}

// checkMetrics reports a comparison of two metrics in different units.
func checkMetrics(c *Comparison) []Diagnostic {
	lu, ru := MetricUnit(c.Left.Metric), MetricUnit(c.Right.Metric)
	if lu == ru {
		return nil
	}
	return []Diagnostic{{Span: c.OpSpan, Severity: Error, Code: CodeMetricMismatch, Message: fmt.Sprintf(
		"the comparison sets %s (%s) against %s (%s): compare metrics of the same unit, e.g. cpu(a) <= cpu(b)",
		metricName(c.Left.Metric), lu, metricName(c.Right.Metric), ru)}}
}

// MetricUnit is the unit of a term's metric ("" is wall time).
func MetricUnit(metric string) string {
	if metric == "" {
		return Metrics["wall"]
	}
	return Metrics[metric]
}

func metricName(metric string) string {
	if metric == "" {
		return "wall"
	}
	return metric
}
