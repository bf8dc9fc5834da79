package workspace

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
)

// Request is one measurement a check needs: a method run on the inputs of a
// generator called with fixed arguments.
type Request struct {
	Method    Target
	Generator Target
	Args      []spl.Value
}

// Revision is the commit (as named) whose tree the request is measured
// in; "" is the working tree.
func (r Request) Revision() string { return r.Method.Revision }

// Key identifies equal requests, so each is measured once per check.
func (r Request) Key() string {
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		args[i] = a.String()
	}
	return fmt.Sprintf("%s[%s](%s)", r.Method, r.Generator, strings.Join(args, ","))
}

// Operand is one side of a planned comparison.
type Operand struct {
	Request Request // valid when Err is nil
	Scale   float64 // product of scalar transforms and lambda multipliers
	Metric  string  // the demand compared, "cpu(m)"; "" is wall time
	Err     error   // the reference could not be resolved
	// RevisionSpan, for a request at a revision (Request.Revision), is
	// where the formula names it: problems with the revision point there.
	RevisionSpan spl.Span
}

// PlannedComparison is one comparison of a formula instance, ready to be decided.
type PlannedComparison struct {
	Node        *spl.Comparison
	Text        string // rendered with bound values
	Left, Right Operand
}

// Instance is one binding of a formula's quantified variables.
type Instance struct {
	Formula     *Formula
	Inst        spl.Instance
	Comparisons []*PlannedComparison
}

// Label names the binding, e.g. "n=1000"; empty for unquantified formulas.
func (in *Instance) Label() string { return in.Inst.Label() }

// Plan is the work of a check: formula instances and the distinct
// measurements they need.
type Plan struct {
	Instances   []*Instance
	Requests    []Request // distinct, in first-use order
	Diagnostics []Diagnostic
}

// PlanCheck expands every formula into instances, resolves each operand and
// collects the distinct requests.
func PlanCheck(ix *Index, formulas []*Formula) *Plan {
	p := &Plan{}
	seen := map[string]bool{}
	for _, f := range formulas {
		if f.Broken || f.Parsed == nil || f.Parsed.Body == nil {
			continue // its syntax errors are reported by JavaFormulas/SPLFile
		}
		insts, ds := spl.Expand(f.Parsed)
		for _, d := range ds {
			p.Diagnostics = append(p.Diagnostics, f.diagnostic(d.Span, severityOf(d.Severity), d.Code, d.Message))
		}
		for _, in := range insts {
			pi := &Instance{Formula: f, Inst: in}
			for _, c := range spl.Comparisons(in.Body) {
				pc := &PlannedComparison{Node: c, Text: in.Render(c)}
				pc.Left = ix.operand(f, in, c.Left, lambdaSide(c, true))
				pc.Right = ix.operand(f, in, c.Right, lambdaSide(c, false))
				for _, o := range []Operand{pc.Left, pc.Right} {
					if o.Err == nil && !seen[o.Request.Key()] {
						seen[o.Request.Key()] = true
						p.Requests = append(p.Requests, o.Request)
					}
				}
				pi.Comparisons = append(pi.Comparisons, pc)
			}
			p.Instances = append(p.Instances, pi)
		}
	}
	return p
}

// lambdaSide returns the multiplier factors of one side of `<=(a, b)`.
func lambdaSide(c *spl.Comparison, left bool) []spl.Factor {
	if c.Lambda == nil {
		return nil
	}
	if left {
		return c.Lambda.Left
	}
	return c.Lambda.Right
}

func (ix *Index) operand(f *Formula, in spl.Instance, t *spl.Term, factors []spl.Factor) Operand {
	scale := 1.0
	if t.Scale != nil {
		scale = *t.Scale
	}
	for _, fa := range factors {
		if fa.Number == nil {
			return Operand{Err: fmt.Errorf("multiplier %q has no value: only numeric multipliers are supported", fa.Ident)}
		}
		scale *= *fa.Number
	}
	if scale <= 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return Operand{Err: fmt.Errorf("multiplier %g must be a positive number", scale)}
	}
	m, err := ix.ResolveMethod(f, t.Method)
	if err != nil {
		return Operand{Err: err}
	}
	gen := t.Generator
	if gen == nil && t.Method != nil && t.Method.Class == "" {
		// "a := ArrayList.contains[gen]" binds a workload to the alias.
		if a := findAlias(f.Aliases, t.Method.Name); a != nil {
			gen = a.BoundGenerator
		}
	}
	g, err := ix.ResolveGenerator(f, gen)
	if err != nil {
		return Operand{Err: err}
	}
	args, err := in.ArgValues(t)
	if err != nil {
		return Operand{Err: err}
	}
	for i, v := range args {
		// Numbers reach Java as longs: one that is not a whole number or
		// does not fit is refused here, never truncated or wrapped.
		if _, err := v.Long(); err != nil && v.Kind != spl.String {
			return Operand{Err: fmt.Errorf("argument %d (%s) of %s: %w", i+1, argText(t.Args[i]), t.Method, err)}
		}
	}
	// A term is measured in one tree: the method's revision, else its
	// generator's, applies to both.
	rev, at := m.Revision, m.RevisionSpan
	switch {
	case rev == "" && g.Revision != "":
		rev, at = g.Revision, g.RevisionSpan
	case rev != "" && g.Revision != "" && g.Revision != rev:
		return Operand{Err: fmt.Errorf("the method is at @%s and its generator at @%s: a term is measured in one revision", rev, g.Revision)}
	}
	if rev != "" {
		m.Revision, g.Revision, m.Decl, g.Decl = rev, rev, nil, nil
		if at == (spl.Span{}) || t.Method == nil || (t.Method.Revision == "" && (t.Generator == nil || t.Generator.Revision == "")) {
			at = t.Method.Span // through an alias: the use site
		}
	}
	return Operand{Request: Request{Method: m, Generator: g, Args: args}, Scale: scale, Metric: t.Metric, RevisionSpan: at}
}

// Diagnostic positions a problem found at a span of the formula's text
// (such as an operand's RevisionSpan) in its document.
func (f *Formula) Diagnostic(s spl.Span, sev Severity, code, msg string) Diagnostic {
	return f.diagnostic(s, sev, code, msg)
}

// diagnostic positions a span of the formula text in its document.
func (f *Formula) diagnostic(s spl.Span, sev Severity, code, msg string) Diagnostic {
	span := textpos.Span{Start: s.Start, End: s.End}
	if f.Value != nil {
		span = f.Value.DocSpan(span)
	}
	return Diagnostic{Path: f.Path, Range: f.mapper.Range(span), Span: span, Severity: sev, Code: code, Message: msg}
}
