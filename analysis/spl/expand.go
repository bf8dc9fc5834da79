package spl

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// maxInstances bounds Expand: a formula is evaluated once per instance, and
// each instance costs forked JVM runs. Lint reports a formula over it
// without expanding it.
const maxInstances = 100000

// tooManyInstances returns the quantifier of f at which its instances
// (the product of its quantifiers' sizes, as Expand counts them) exceed
// maxInstances, nil when they do not. It expands nothing.
func tooManyInstances(f *Formula) *Quantifier {
	total := 1
	for _, q := range f.Quantifiers {
		n := 1
		if q.Zipped {
			// A sequence is one dimension: its steps, the shortest
			// tuple's length.
			n = -1
			for k := range q.Vars {
				if k < len(q.Values) && (n < 0 || len(q.Values[k]) < n) {
					n = len(q.Values[k])
				}
			}
			n = max(n, 0)
		} else {
			for k := range q.Vars {
				if k < len(q.Values) {
					n *= len(q.Values[k])
				}
				if n > maxInstances {
					return q
				}
			}
		}
		total *= n
		if total > maxInstances {
			return q
		}
	}
	return nil
}

// Instance is one binding of a formula's variables. Body is the formula's
// body, shared, not copied: substitute with ArgValues or Render.
type Instance struct {
	Formula  *Formula
	Bindings []Binding
	Body     Expr
}

// Binding is one variable's value in an instance.
type Binding struct {
	Var   string
	Value Value
}

// Expand returns one Instance per combination of quantifier values.
// Independent variables form a cartesian product in declaration order, the
// first variable varying slowest; a zipped sequence contributes its tuples
// stepwise, as one dimension. A formula without quantifiers has exactly one
// instance with no bindings.
//
// Its diagnostics cover only what limits expansion (a sequence whose tuples
// disagree is cut to the shortest; a variable without values; too many
// instances). They repeat Lint's findings, so callers that already show
// Lint's diagnostics may ignore them.
func Expand(f *Formula) ([]Instance, []Diagnostic) {
	if f == nil {
		return nil, nil
	}
	dims, diags, ok := quantifierDims(f, nil)
	if !ok {
		return nil, diags
	}
	total := 1
	for _, d := range dims {
		total *= d.n
		if total > maxInstances {
			diags = append(diags, Diagnostic{Span: f.Span, Severity: Error, Code: CodeTooManyInstances,
				Message: fmt.Sprintf("the quantifiers produce more than %d instances; use fewer values", maxInstances)})
			return nil, diags
		}
	}
	out := make([]Instance, 0, total)
	eachBinding(dims, func(bs []Binding) bool {
		out = append(out, Instance{Formula: f, Bindings: bs, Body: f.Body})
		return true
	})
	return out, diags
}

// dim is one dimension of a formula's instances: one variable's values,
// or a zipped sequence's variables stepped together.
type dim struct {
	vars []string
	cols [][]Value // cols[k][i]: value of vars[k] at step i
	n    int
}

// quantifierDims turns f's quantifiers, those binding a variable keep
// accepts (nil: all), into the dimensions of their bindings. Its
// diagnostics say what limits them (see Expand); ok is false when a
// dimension is empty: there are no bindings.
func quantifierDims(f *Formula, keep func(name string) bool) (dims []dim, diags []Diagnostic, ok bool) {
	for _, q := range f.Quantifiers {
		if keep != nil && !slices.ContainsFunc(q.Vars, func(v Ident) bool { return keep(v.Name) }) {
			continue
		}
		if !q.Zipped {
			for k, v := range q.Vars {
				if keep != nil && !keep(v.Name) {
					continue
				}
				if k >= len(q.Values) || len(q.Values[k]) == 0 {
					diags = append(diags, Diagnostic{Span: v.Span, Severity: Error, Code: CodeMissingValue,
						Message: fmt.Sprintf("variable %q has no values, so the formula has no instances", v.Name)})
					return nil, diags, false
				}
				dims = append(dims, dim{vars: []string{v.Name}, cols: [][]Value{q.Values[k]}, n: len(q.Values[k])})
			}
			continue
		}
		d := dim{}
		minN, maxN := -1, 0
		for k, v := range q.Vars {
			if k >= len(q.Values) {
				diags = append(diags, Diagnostic{Span: v.Span, Severity: Error, Code: CodeArityMismatch,
					Message: fmt.Sprintf("variable %q of the sequence has no value tuple; it is left unbound", v.Name)})
				continue
			}
			vals := q.Values[k]
			d.vars = append(d.vars, v.Name)
			d.cols = append(d.cols, vals)
			if minN < 0 || len(vals) < minN {
				minN = len(vals)
			}
			maxN = max(maxN, len(vals))
		}
		if minN >= 0 && minN != maxN {
			diags = append(diags, Diagnostic{Span: q.Span, Severity: Error, Code: CodeArityMismatch,
				Message: fmt.Sprintf("the value tuples of the sequence differ in length; only the first %d steps are used", minN)})
		}
		if len(q.Values) > len(q.Vars) {
			diags = append(diags, Diagnostic{Span: q.Span, Severity: Error, Code: CodeArityMismatch,
				Message: fmt.Sprintf("the sequence has %d value tuples for %d variables; the extra tuples are ignored", len(q.Values), len(q.Vars))})
		}
		d.n = minN
		if d.n <= 0 {
			diags = append(diags, Diagnostic{Span: q.Span, Severity: Error, Code: CodeMissingValue,
				Message: "the sequence has no values, so the formula has no instances"})
			return nil, diags, false
		}
		dims = append(dims, d)
	}
	return dims, diags, true
}

// eachBinding calls yield with the bindings of dims, the last dimension
// varying fastest, until yield returns false.
func eachBinding(dims []dim, yield func([]Binding) bool) {
	idx := make([]int, len(dims)) // odometer, last dimension fastest
	for {
		var bs []Binding
		for di, d := range dims {
			for k, name := range d.vars {
				bs = append(bs, Binding{Var: name, Value: d.cols[k][idx[di]]})
			}
		}
		if !yield(bs) {
			return
		}
		i := len(dims) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < dims[i].n {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// maxArgEvaluations bounds the bindings EachArgValue evaluates one
// argument's arithmetic at: Lint runs on every keystroke.
const maxArgEvaluations = 10000

// EachArgValue calls yield with each value the argument a of a term of f
// takes (a literal's value; a variable's values; arithmetic evaluated at
// each binding of the variables it uses, or the *EvalError where it has no
// value), with the binding, until yield returns false. Only the
// quantifiers a uses are expanded, and arithmetic at most at
// maxArgEvaluations bindings.
func EachArgValue(f *Formula, a Arg, yield func(v Value, in Instance, err error) bool) {
	switch {
	case a.Value != nil:
		yield(*a.Value, Instance{Formula: f}, nil)
		return
	case a.Calc != nil && a.Calc.Op == 0 && a.Calc.Value != nil:
		yield(*a.Calc.Value, Instance{Formula: f}, nil)
		return
	}
	used := map[string]bool{}
	if a.Calc != nil {
		a.Calc.Vars(func(name string, _ Span) { used[name] = true })
	} else {
		used[a.Var] = true
	}
	dims, _, ok := quantifierDims(f, func(name string) bool { return used[name] })
	if !ok || (a.Calc == nil && len(dims) == 0) {
		return // no values, or an undeclared variable: Lint says so
	}
	n := 0 // arithmetic without variables is evaluated once
	eachBinding(dims, func(bs []Binding) bool {
		in := Instance{Formula: f, Bindings: bs}
		if a.Calc == nil {
			v, _ := in.Lookup(a.Var)
			return yield(v, in, nil)
		}
		if n++; n > maxArgEvaluations {
			return false
		}
		v, err := in.calc(a.Calc)
		return yield(v, in, err)
	})
}

// Lookup returns the value bound to a variable (the first binding when a
// name is declared twice, which Lint reports).
func (in Instance) Lookup(name string) (Value, bool) {
	for _, b := range in.Bindings {
		if b.Var == name {
			return b.Value, true
		}
	}
	return Value{}, false
}

// ArgValues substitutes the instance's bindings into t's arguments. A
// variable without a binding is an error (Lint reports it as undeclared).
func (in Instance) ArgValues(t *Term) ([]Value, error) {
	out := make([]Value, 0, len(t.Args))
	for _, a := range t.Args {
		if a.Value != nil {
			out = append(out, *a.Value)
			continue
		}
		if a.Calc != nil {
			v, err := in.calc(a.Calc)
			if err != nil {
				return nil, fmt.Errorf("argument %s of %s: %w", a.Calc.String(nil), t.Method, err)
			}
			out = append(out, v)
			continue
		}
		v, ok := in.Lookup(a.Var)
		if !ok {
			return nil, fmt.Errorf("argument %q of %s is not a declared variable", a.Var, t.Method)
		}
		out = append(out, v)
	}
	return out, nil
}

// EvalError is arithmetic in a formula that has no value: an integer
// result beyond a Java long (never wrapped), a division by zero, a result
// that is not a finite number. At is the operation's span.
type EvalError struct {
	At  Span
	Msg string
}

func (e *EvalError) Error() string { return e.Msg }

// calc evaluates arithmetic with the instance's bindings. Integers stay
// integers under +, − and ×, and under ÷ when it divides exactly (a
// generator's int parameter takes "n / 2" of an even n); otherwise the
// result is a float. Strings and unknown variables are errors; division by
// zero, an integer result beyond a Java long and a float result that is
// not finite are *EvalErrors.
func (in Instance) calc(c *Calc) (Value, error) {
	switch {
	case c.Value != nil:
		return *c.Value, nil
	case c.Op == 0:
		v, ok := in.Lookup(c.Var)
		if !ok {
			return Value{}, fmt.Errorf("%q is not a declared variable", c.Var)
		}
		if v.Kind == String {
			return Value{}, fmt.Errorf("%s = %s is a string, not a number", c.Var, v)
		}
		return v, nil
	}
	x, err := in.calc(c.X)
	if err != nil {
		return Value{}, err
	}
	y, err := in.calc(c.Y)
	if err != nil {
		return Value{}, err
	}
	if c.Op == '/' && y.Float == 0 {
		return Value{}, &EvalError{c.Span, fmt.Sprintf("%s / %s divides by zero: give the divisor other values", x, y)}
	}
	if x.Kind == Int && y.Kind == Int {
		if v, ok := intCalc(c.Op, x.Int, y.Int); ok {
			return Value{Kind: Int, Int: v, Float: float64(v), Span: c.Span}, nil
		}
		if c.Op != '/' || y.Int == -1 { // else an inexact division: a float
			return Value{}, &EvalError{c.Span, fmt.Sprintf("%d %c %d does not fit in a Java long (%d to %d): use smaller values", x.Int, c.Op, y.Int, math.MinInt64, math.MaxInt64)}
		}
	}
	var f float64
	switch c.Op {
	case '+':
		f = x.Float + y.Float
	case '-':
		f = x.Float - y.Float
	case '*':
		f = x.Float * y.Float
	default:
		f = x.Float / y.Float
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return Value{}, &EvalError{c.Span, fmt.Sprintf("%s %c %s is not a finite number: use smaller values", x, c.Op, y)}
	}
	return Value{Kind: Float, Float: f, Span: c.Span}, nil
}

// intCalc applies op to integers; false when the result is not an exact
// int64 (overflow, or a division with a remainder).
func intCalc(op byte, x, y int64) (int64, bool) {
	switch op {
	case '+':
		r := x + y
		return r, (r > x) == (y > 0)
	case '-':
		r := x - y
		return r, (r < x) == (y > 0)
	case '*':
		if x == 0 || y == 0 {
			return 0, true
		}
		r := x * y
		return r, r/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64)
	default:
		return x / y, y != 0 && x%y == 0 && !(x == math.MinInt64 && y == -1)
	}
}

// Long is v as the whole number a generator is called with: perfls passes
// numbers to Java as longs (a double parameter gets the long's value). A
// string, a number with a fraction and one beyond a Java long are errors,
// never truncated or wrapped.
func (v Value) Long() (int64, error) {
	switch v.Kind {
	case Int:
		return v.Int, nil
	case String:
		return 0, fmt.Errorf("%s is a string, not a number", v)
	}
	switch {
	case math.IsNaN(v.Float) || math.IsInf(v.Float, 0):
		return 0, fmt.Errorf("%s is not a finite number", v)
	case v.Float != math.Trunc(v.Float):
		return 0, fmt.Errorf("%s is not a whole number: perfls passes whole numbers to Java", v)
	case v.Float < math.MinInt64 || v.Float >= math.MaxInt64: // 2⁶³ is the first float beyond
		return 0, fmt.Errorf("%s does not fit in a Java long (%d to %d)", v, math.MinInt64, math.MaxInt64)
	}
	return int64(v.Float), nil
}

// Multiplier evaluates a lambda product. Identifiers are looked up in the
// instance's bindings first, then in params (SPL Tools configuration
// parameters such as CPU); string values and unknown names are errors.
func (in Instance) Multiplier(fs []Factor, params map[string]float64) (float64, error) {
	m := 1.0
	for _, f := range fs {
		switch {
		case f.Number != nil:
			m *= *f.Number
		default:
			if v, ok := in.Lookup(f.Ident); ok {
				if v.Kind == String {
					return 0, fmt.Errorf("multiplier %q is bound to the string %s", f.Ident, v)
				}
				m *= v.Float
			} else if p, ok := params[f.Ident]; ok {
				m *= p
			} else {
				return 0, fmt.Errorf("multiplier %q is neither a variable nor a known parameter", f.Ident)
			}
		}
	}
	return m, nil
}

// Label names the instance for display: "n=1000", "i=1, j=10",
// `f="big.xml"`; "" when there are no variables.
func (in Instance) Label() string {
	parts := make([]string, len(in.Bindings))
	for i, b := range in.Bindings {
		parts[i] = b.Var + "=" + b.Value.String()
	}
	return strings.Join(parts, ", ")
}
