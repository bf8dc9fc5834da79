package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/input"
)

// FormatVersion is the version of the model document; Read refuses others.
const FormatVersion = 1

// Model is an extracted performance model: one operation measured over the
// values of one workload parameter, and where it was measured.
type Model struct {
	Format      int         `json:"perfls_model"`
	CreatedAt   time.Time   `json:"created_at"`
	Operations  []Operation `json:"operations"`
	Environment Environment `json:"environment"`
	// Notices are the measurements' warnings (a warm-up that did not
	// settle, a fork budget that ran out).
	Notices []string `json:"notices,omitempty"`
}

// Operation is one measured method on one workload: its demands per
// operation at each measured parameter value, and their dependencies on
// the parameter.
type Operation struct {
	Method    string `json:"method"`
	Workload  string `json:"workload"`
	Parameter string `json:"parameter"` // the varied generator parameter, e.g. "n"
	// Fixed are the other generator arguments, as measured.
	Fixed        []string     `json:"fixed,omitempty"`
	Points       []PointFigs  `json:"points"`
	Dependencies []Dependency `json:"dependencies"`
	// CalleeDependencies are the cpu demands of the callees above the
	// apportioning floor at every profiled value, fitted like Dependencies.
	CalleeDependencies []Dependency `json:"callee_dependencies,omitempty"`
	// CallDependencies are the invocation counts per operation of the
	// project methods the counting forks counted (FitCounts).
	CallDependencies []Dependency `json:"call_dependencies,omitempty"`
	// Problems are the metrics that could not be fitted, and why.
	Problems []string `json:"problems,omitempty"`
}

// PointFigs are the demands at one parameter value.
type PointFigs struct {
	N       float64  `json:"n"`
	Demands []Demand `json:"demands"`
	// Callees apportion the cpu demand to the project methods called, from
	// a profiled fork at this value; nil when none was profiled.
	Callees []Callee `json:"callees,omitempty"`
	// Calls are the project methods' invocations per operation, from a
	// counting fork at this value; nil when none ran.
	Calls []measured.CallCount `json:"calls,omitempty"`
}

// Environment is where the model's measurements ran. Predictions are only
// valid there: demands are platform-specific (seed 002 L596).
type Environment struct {
	Machine     string   `json:"machine"` // measure.MachineIdentity
	JVM         string   `json:"jvm"`     // measure.JVMIdentity: the java executable, heap, flags
	Harness     string   `json:"harness"` // measure.HarnessSettings
	JavaVersion string   `json:"java_version"`
	JavaVendor  string   `json:"java_vendor"`
	VMName      string   `json:"vm_name"`
	OS          string   `json:"os"`
	Arch        string   `json:"arch"`
	CPUModel    string   `json:"cpu_model"`
	Cores       int      `json:"cores"`
	HeapMB      int      `json:"heap_mb"`
	JVMArgs     []string `json:"jvm_args"`
	CPUs        string   `json:"cpus,omitempty"` // the processors the measuring threads were pinned to
}

// Ran returns e with the JVM and machine as the forks reported them
// (measured.Environment). JVMArgs stays what perfls was asked to pass (the
// identity a later run must repeat), not the JVM's whole command line.
func (e Environment) Ran(env measured.Environment) Environment {
	e.JavaVersion, e.JavaVendor, e.VMName = env.JavaVersion, env.JavaVendor, env.VMName
	e.OS, e.Arch, e.CPUModel, e.Cores = env.OS, env.Arch, env.CPUModel, env.Cores
	return e
}

// Measured is what Extract needs of one parameter value.
type Measured struct {
	N     float64
	Forks []measured.Fork
	// Profile, when set, are a profiled fork's execution samples of the
	// operation (Total) and per project callee (profile.CalleeSamples).
	Profile *CalleeSamples
	// Counts, when set, are a counting fork's invocation counts.
	Counts *measured.CallCounts
}

// CalleeSamples are the samples Apportion splits a demand by.
type CalleeSamples struct {
	Total    float64
	ByCallee map[string]float64
}

// Extract builds an operation's model from its measurements at several
// values of one parameter: the demands at each, and each metric's fitted
// dependency. A metric that cannot be fitted is listed in Problems.
func Extract(method, workload, parameter string, fixed []string, ms []Measured) Operation {
	op := Operation{Method: method, Workload: workload, Parameter: parameter, Fixed: fixed}
	sort.Slice(ms, func(i, j int) bool { return ms[i].N < ms[j].N })
	for _, m := range ms {
		pf := PointFigs{N: m.N, Demands: Demands(m.Forks)}
		if cpu, ok := DemandOf(m.Forks, CPU); ok && m.Profile != nil {
			pf.Callees = Apportion(m.Profile.Total, m.Profile.ByCallee, cpu)
			if pf.Callees == nil {
				pf.Callees = []Callee{}
			}
		}
		if m.Counts != nil {
			pf.Calls = m.Counts.Calls
			if pf.Calls == nil {
				pf.Calls = []measured.CallCount{}
			}
			joinCalls(pf.Callees, pf.Calls)
		}
		op.Points = append(op.Points, pf)
	}
	for _, metric := range Metrics {
		var pts []Point
		for _, p := range op.Points {
			for _, d := range p.Demands {
				if d.Metric == metric {
					pts = append(pts, Point{N: p.N, Figures: d.ForkMeans})
				}
			}
		}
		if len(pts) == 0 {
			continue // not reported by this JVM
		}
		if len(pts) < len(op.Points) {
			op.Problems = append(op.Problems, fmt.Sprintf("%s: reported at %d of %d values", metric, len(pts), len(op.Points)))
			continue
		}
		dep, err := FitDependency(metric, pts)
		if err != nil {
			op.Problems = append(op.Problems, err.Error())
			continue
		}
		op.Dependencies = append(op.Dependencies, dep)
	}
	fitCallees(&op)
	fitCalls(&op)
	return op
}

// Mismatch says how the current environment differs from the model's: ""
// when predictions apply here.
func (e Environment) Mismatch(cur Environment) string {
	var diffs []string
	if e.Machine != cur.Machine {
		diffs = append(diffs, fmt.Sprintf("the machine (model: %s; here: %s)", e.Machine, cur.Machine))
	}
	if e.JVM != cur.JVM {
		diffs = append(diffs, fmt.Sprintf("the JVM (model: %s; here: %s)", e.JVM, cur.JVM))
	}
	return strings.Join(diffs, " and ")
}

// Read decodes a model document and checks that it is one.
func Read(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a perfls model (JSON): %w", err)
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("model format %d, this perfls reads %d: extract it again with perfls model", m.Format, FormatVersion)
	}
	if len(m.Operations) == 0 {
		return nil, errors.New("the model has no operations")
	}
	for _, op := range m.Operations {
		// What predict prints as it is: text perfls wrote, never a
		// terminal escape.
		for _, s := range []string{op.Method, op.Workload, op.Parameter} {
			if input.Printable(s) != s || strings.ContainsAny(s, "\n\t") {
				return nil, fmt.Errorf("%s: a name holding control characters: not a model perfls wrote (extract it again with perfls model)", input.Quote(s))
			}
		}
		for _, ds := range [][]Dependency{op.Dependencies, op.CalleeDependencies, op.CallDependencies} {
			for _, d := range ds {
				if s := string(d.Metric) + d.Unit; input.Printable(s) != s || strings.ContainsAny(s, "\n\t") {
					return nil, fmt.Errorf("%s: a metric or unit holding control characters: not a model perfls wrote (extract it again with perfls model)", input.Quote(s))
				}
				for _, f := range append([]Fit{d.Best}, d.Indistinct...) {
					if !slices.Contains(Kinds, f.Model) {
						return nil, fmt.Errorf("%s: %s: unknown model kind %s: perfls knows %s (a model written by another perfls, or edited? extract it again with perfls model)",
							op.Method, d.Metric, input.Quote(f.Model), quoted(Kinds))
					}
				}
			}
		}
	}
	return &m, nil
}

func quoted(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// Kinds are the models a dependency can have (Fit.Model): stats's cost
// models, the power law, and the exact polynomial of invocation counts.
var Kinds = []string{"1", "log n", "n", "n log n", "n^2", "n^k", ExactModel}

// Predict evaluates every dependency of the operation (the only one when
// method is "", else the one whose method contains it) at n.
func (m *Model) Predict(method string, n float64) (*Operation, []Prediction, error) {
	var op *Operation
	for i := range m.Operations {
		o := &m.Operations[i]
		if method == "" || strings.Contains(o.Method, method) {
			if op != nil {
				return nil, nil, fmt.Errorf("several operations match %q: name one with --method", method)
			}
			op = o
		}
	}
	if op == nil {
		return nil, nil, fmt.Errorf("no operation of the model matches %q", method)
	}
	if !(n > 0) || math.IsInf(n, 0) {
		return nil, nil, fmt.Errorf("%s = %g: the models need a positive value", op.Parameter, n)
	}
	var out []Prediction
	for _, d := range op.Dependencies {
		out = append(out, d.Predict(n))
	}
	return op, out, nil
}

// GeometricGrid is k values from lo to hi, evenly spaced on the log scale
// and rounded to integers (duplicates dropped): the parameter values a
// model is extracted at when the user gives only a range.
func GeometricGrid(lo, hi int64, k int) []int64 {
	if lo < 1 {
		lo = 1
	}
	if hi <= lo || k < 2 {
		return []int64{lo}
	}
	var out []int64
	r := math.Log(float64(hi) / float64(lo))
	for i := 0; i < k; i++ {
		v := int64(math.Round(float64(lo) * math.Exp(r*float64(i)/float64(k-1))))
		if len(out) == 0 || v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}
