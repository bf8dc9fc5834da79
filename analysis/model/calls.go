package model

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
)

// Calls is the metric of invocation counts per operation, from counting
// forks (measure.CountCalls). It is not a demand: formulas cannot name it,
// and it is not in Metrics.
const Calls Metric = "calls"

// ExactModel is the model of counts that a polynomial in n reproduces
// exactly at every counted value: Fit.Poly holds its coefficients.
const ExactModel = "exact"

// maxExactDegree is the highest degree an exact polynomial may have.
const maxExactDegree = 3

// fitCalls fits the invocation count per operation of every project method
// counted at the counted values, as a function of the parameter
// (FitCounts). The operation's own method, called once per operation, is
// left out.
func fitCalls(op *Operation) {
	var counted []PointFigs
	names := map[string]bool{}
	for _, p := range op.Points {
		if p.Calls == nil {
			continue
		}
		counted = append(counted, p)
		for _, c := range p.Calls {
			names[c.Method] = true
		}
	}
	var sorted []string
	for m := range names {
		sorted = append(sorted, m)
	}
	sort.Strings(sorted)
	for _, m := range sorted {
		var pts []Point
		varies, once := false, true
		for _, p := range counted {
			v := 0.0 // not called at this value
			for _, c := range p.Calls {
				if c.Method == m {
					v, varies = c.PerOp, varies || c.Varies
				}
			}
			once = once && v == 1
			pts = append(pts, Point{N: p.N, Figures: []float64{v}})
		}
		if once && sameMethod(m, op.Method) {
			continue
		}
		d, err := FitCounts(pts, varies)
		if err != nil {
			op.Problems = append(op.Problems, fmt.Sprintf("calls of %s: %v", m, err))
			continue
		}
		d.Callee = m
		op.CallDependencies = append(op.CallDependencies, d)
	}
}

// sameMethod tells whether a counted method (named as profiles name
// callees) is the operation's, which may be written without its parameter
// list: methodspec's rule.
func sameMethod(counted, op string) bool {
	spec, err := methodspec.Parse(op)
	if err != nil {
		return counted == op
	}
	return spec.Matches(counted)
}

// FitCounts fits invocation counts per operation (one figure per value) as
// a function of n. Counts of a deterministic workload are exact: when a
// polynomial of degree 0 to 3 in n reproduces every count (to 1e-6
// relatively), checked on at least one value more than its coefficients
// need, that polynomial is the model ("exact"; n·(n−1)/2 calls give
// 0.5·n² − 0.5·n). Otherwise (counts of randomised inputs, varies, or
// growth such as log n that no polynomial reproduces) the counts are fitted
// like demands (FitDependency).
func FitCounts(pts []Point, varies bool) (Dependency, error) {
	if !varies {
		if c, ok := exactPolynomial(pts); ok {
			d := Dependency{Metric: Calls, Unit: "1", Range: [2]float64{math.Inf(1), math.Inf(-1)}, Points: len(pts)}
			for _, p := range pts {
				d.Range[0], d.Range[1] = math.Min(d.Range[0], p.N), math.Max(d.Range[1], p.N)
			}
			d.Best = Fit{Model: ExactModel, Poly: c, K: len(c)}
			d.Text = fmt.Sprintf("= %s calls per op, exact at all %d values", Formula(d.Best, "1"), len(pts))
			return d, nil
		}
	}
	d, err := FitDependency(Calls, pts)
	if err == nil {
		d.Text += " calls per op"
		if varies {
			d.Note = strings.TrimPrefix(d.Note+"; the counts varied between samples", "; ")
		}
	}
	return d, err
}

// exactPolynomial finds the lowest-degree polynomial that reproduces every
// point's single figure, with at least one point more than coefficients.
func exactPolynomial(pts []Point) ([]float64, bool) {
	var ns, ys []float64
	top := 0.0
	for _, p := range pts {
		if len(p.Figures) != 1 {
			return nil, false
		}
		ns, ys = append(ns, p.N), append(ys, p.Figures[0])
		top = math.Max(top, p.N)
	}
	if !(top > 0) {
		return nil, false
	}
	for deg := 0; deg <= maxExactDegree && deg+2 <= len(ns); deg++ {
		k := deg + 1
		v := mat.NewDense(len(ns), k, nil)
		for i, n := range ns {
			for j := 0; j < k; j++ {
				v.Set(i, j, math.Pow(n/top, float64(j))) // scaled: well conditioned
			}
		}
		var qr mat.QR
		qr.Factorize(v)
		var c mat.Dense
		if err := qr.SolveTo(&c, false, mat.NewDense(len(ys), 1, ys)); err != nil {
			continue
		}
		coef := make([]float64, k)
		for j := range coef {
			coef[j] = c.At(j, 0) / math.Pow(top, float64(j))
		}
		exact := true
		for i, n := range ns {
			if math.Abs(polyAt(coef, n)-ys[i]) > 1e-6*math.Max(1, math.Abs(ys[i])) {
				exact = false
				break
			}
		}
		if exact {
			for j := range coef { // round away the solver's dust
				if r := math.Round(coef[j]*1e6) / 1e6; math.Abs(r-coef[j]) < 1e-9*math.Max(1, math.Abs(coef[j])) {
					coef[j] = r
				}
			}
			return coef, true
		}
	}
	return nil, false
}

func polyAt(c []float64, n float64) float64 {
	var y float64
	for j := len(c) - 1; j >= 0; j-- {
		y = y*n + c[j]
	}
	return y
}

// polyText renders coefficients, highest power first: "0.5·n² − 0.5·n".
func polyText(c []float64) string {
	powers := []string{"", "·n", "·n²", "·n³"}
	var b strings.Builder
	for j := len(c) - 1; j >= 0; j-- {
		x := c[j]
		if num(math.Abs(x)) == "0" {
			continue
		}
		switch {
		case b.Len() == 0 && x < 0:
			b.WriteString("−")
		case b.Len() > 0 && x < 0:
			b.WriteString(" − ")
		case b.Len() > 0:
			b.WriteString(" + ")
		}
		s := num(math.Abs(x))
		if j > 0 && s == "1" {
			b.WriteString(strings.TrimPrefix(powers[j], "·"))
			continue
		}
		b.WriteString(s + powers[j])
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

// joinCalls sets each apportioned callee's calls per operation from the
// counts at the same value.
func joinCalls(cs []Callee, calls []measured.CallCount) {
	for i := range cs {
		for _, c := range calls {
			if c.Method == cs[i].Method {
				cs[i].Calls = c.PerOp
			}
		}
	}
}
