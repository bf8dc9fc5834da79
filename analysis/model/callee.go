package model

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// The apportioning floor. Seed 002's lesson: splitting a demand by sample
// counts is unreliable for small callees (few samples; the sampler's bias
// is then as large as the share). A share below CalleeMinShare of the
// operation's execution samples, or resting on fewer than CalleeMinSamples
// samples, is reported but marked unreliable.
const (
	CalleeMinShare   = 0.05
	CalleeMinSamples = 30
)

// Callee is the part of an operation's thread CPU demand spent in one
// project method it calls (inclusive of what that method calls), from a
// profiled fork: share of the operation's execution samples × its CPU time
// per operation.
type Callee struct {
	Method  string  `json:"method"`
	Samples float64 `json:"samples"`
	Share   float64 `json:"share"`
	// ShareSE is the binomial standard error of Share, Agresti–Coull
	// adjusted (p̃ = (x+2)/(N+4), √(p̃(1−p̃)/(N+4))) so that a share of 0 or
	// 1 still has one; it treats samples as independent, which they are not
	// quite (a method runs for several sampling periods): a lower bound.
	ShareSE float64 `json:"share_se"`
	// CPU is Share × the operation's cpu demand, ns per operation; CPUSE its
	// standard error from both factors' errors.
	CPU   float64 `json:"cpu_ns_per_op"`
	CPUSE float64 `json:"cpu_se"`
	// Calls is how often it ran per operation, from the counting fork at
	// the same value; 0 when none ran.
	Calls float64 `json:"calls_per_op,omitempty"`
	// Unreliable says why the share is below the floor, "" when it is not.
	Unreliable string `json:"unreliable,omitempty"`
}

// Apportion splits the operation's cpu demand over its callees by their
// inclusive execution samples (total: the operation's samples), largest
// first.
func Apportion(total float64, samples map[string]float64, cpu Demand) []Callee {
	if !(total > 0) {
		return nil
	}
	seD := math.NaN()
	if !math.IsNaN(cpu.CI95[0]) {
		seD = (cpu.CI95[1] - cpu.CI95[0]) / 2 / 1.96
	}
	var out []Callee
	for m, n := range samples {
		p := n / total
		pa := (n + 2) / (total + 4)
		c := Callee{Method: m, Samples: n, Share: p, ShareSE: math.Sqrt(pa * (1 - pa) / (total + 4)), CPU: p * cpu.Mean}
		c.CPUSE = math.Hypot(cpu.Mean*c.ShareSE, p*seD)
		switch {
		case p < CalleeMinShare:
			c.Unreliable = fmt.Sprintf("share %.1f %% below the %.0f %% floor", 100*p, 100*CalleeMinShare)
		case n < CalleeMinSamples:
			c.Unreliable = fmt.Sprintf("%.0f samples, fewer than %d", n, CalleeMinSamples)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Samples != out[j].Samples {
			return out[i].Samples > out[j].Samples
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// fitCallees fits the cpu demand of every callee that is above the floor
// at every measured value with a profile, as a function of the parameter.
func fitCallees(op *Operation) {
	byCallee := map[string][]Point{}
	profiled := 0
	for _, p := range op.Points {
		if p.Callees == nil {
			continue
		}
		profiled++
		for _, c := range p.Callees {
			if c.Unreliable == "" {
				byCallee[c.Method] = append(byCallee[c.Method], Point{N: p.N, Figures: []float64{c.CPU}})
			}
		}
	}
	names := make([]string, 0, len(byCallee))
	for m := range byCallee {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		pts := byCallee[m]
		if len(pts) < profiled || len(pts) < 4 {
			continue // below the floor somewhere, or too few values to fit
		}
		d, err := FitDependency(CPU, pts)
		if err != nil {
			op.Problems = append(op.Problems, fmt.Sprintf("callee %s: %v", m, err))
			continue
		}
		d.Callee = m
		last := op.Points[len(op.Points)-1]
		for _, c := range last.Callees {
			if c.Method == m {
				d.Text += fmt.Sprintf(", %.0f %% of %s at %s = %g", 100*c.Share, ShortName(op.Method), op.Parameter, last.N)
			}
		}
		op.CalleeDependencies = append(op.CalleeDependencies, d)
	}
}

// ShortName is a method's simple name with empty parentheses, as people
// write it in prose: "p.C#pairs(int[])" gives "pairs()".
func ShortName(method string) string {
	name, _, _ := strings.Cut(method, "(")
	if i := strings.LastIndexAny(name, "#."); i >= 0 {
		name = name[i+1:]
	}
	return name + "()"
}
