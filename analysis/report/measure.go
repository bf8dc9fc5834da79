package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/model"
)

// MeasureDocument is the JSON document of one measurement (perfls measure
// --format json, one per line). Its keys are a contract with readers,
// analysis/dataset among them.
type MeasureDocument struct {
	Method      string          `json:"method"`
	Workload    string          `json:"workload"`
	Args        []any           `json:"args"`
	Preliminary bool            `json:"preliminary"`
	Summary     MeasureSummary  `json:"summary"`
	Forks       []MeasureFork   `json:"forks"`
	Environment MeasureEnv      `json:"environment"`
	Error       *MeasureFailure `json:"error,omitempty"`

	result measured.Result // what the document was made from, for the text
}

// MeasureSummary are a measurement's per-operation figures.
type MeasureSummary struct {
	MeanNsPerOp   Float    `json:"mean_ns_per_op"`
	MedianNsPerOp Float    `json:"median_ns_per_op"`
	CI95NsPerOp   [2]Float `json:"ci95_ns_per_op"`
	// CIOver says how the interval was computed: "forks" (t-interval over
	// fork means) or "samples" (t-interval over one fork's samples).
	CIOver         string `json:"ci_over"`
	Forks          int    `json:"forks"`
	SamplesPerFork int    `json:"samples_per_fork"`
	// Demands are the per-operation figures of every metric the JVM
	// reported (wall, cpu, process_cpu, alloc, gc_count, gc_time,
	// cpu_share), each with its 95 % interval (docs/models.md).
	Demands []model.Demand `json:"demands"`
}

// MeasureFork is one fork's raw samples.
type MeasureFork struct {
	NsPerOp         []float64 `json:"ns_per_op"`
	CPUNsPerOp      []float64 `json:"cpu_ns_per_op"`
	AllocBytesPerOp []float64 `json:"alloc_bytes_per_op"`
	ProcCPUNsPerOp  []float64 `json:"proc_cpu_ns_per_op"`
	GCs             []int64   `json:"gcs"`
	GCMs            []float64 `json:"gc_ms"`
	// Processors is the processor each sample ran on (-2: it moved during
	// the sample); empty when unknown (docs/measurement.md).
	Processors    []int64 `json:"processors"`
	WarmupNs      int64   `json:"warmup_ns"`
	WarmupSettled int     `json:"warmup_settled"`
	OpsPerSample  int64   `json:"ops_per_sample"`
	// RetakenSamples counts samples taken again because the thread was
	// preempted during them (not known for results read from the cache).
	RetakenSamples int `json:"retaken_samples"`
}

// MeasureEnv is where a measurement ran.
type MeasureEnv struct {
	JavaVersion string   `json:"java_version"`
	JavaVendor  string   `json:"java_vendor"`
	VMName      string   `json:"vm_name"`
	JVMArgs     []string `json:"jvm_args"`
	OS          string   `json:"os"`
	Arch        string   `json:"arch"`
	CPUModel    string   `json:"cpu_model"`
	Cores       int      `json:"cores"`
}

// MeasureFailure is how and where a measurement failed.
type MeasureFailure struct {
	Kind      string `json:"kind"`
	Phase     string `json:"phase,omitempty"`
	Exception string `json:"exception,omitempty"`
	Message   string `json:"message"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Stack     string `json:"stack,omitempty"`
}

// Float is a float64 that encodes NaN and infinities as null.
type Float float64

// MarshalJSON writes null for NaN and infinities.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// NewMeasurement is the document of r, a measurement of method on workload
// ("" without one) with args; r.Err, when set, becomes its error.
func NewMeasurement(method, workload string, args []measured.Arg, r measured.Result) MeasureDocument {
	m := MeasureDocument{Method: method, Workload: workload, Args: []any{}, Preliminary: r.Preliminary, Forks: []MeasureFork{}, result: r}
	for _, a := range args {
		if a.IsString {
			m.Args = append(m.Args, a.Str)
		} else {
			m.Args = append(m.Args, a.Int)
		}
	}
	s := measured.Summarize(r.Forks)
	m.Summary = MeasureSummary{
		MeanNsPerOp: Float(s.MeanNsPerOp), MedianNsPerOp: Float(s.MedianNsPerOp),
		CI95NsPerOp: [2]Float{Float(s.CI95[0]), Float(s.CI95[1])},
		CIOver:      "samples", Forks: s.Forks, SamplesPerFork: s.SamplesPerFork,
		Demands: orEmpty(model.Demands(r.Forks)),
	}
	if s.CIOverForks {
		m.Summary.CIOver = "forks"
	}
	for _, f := range r.Forks {
		m.Forks = append(m.Forks, MeasureFork{NsPerOp: f.NsPerOp, CPUNsPerOp: orEmpty(f.CPUNsPerOp), AllocBytesPerOp: orEmpty(f.AllocBytesPerOp),
			ProcCPUNsPerOp: orEmpty(f.ProcCPUNsPerOp), GCs: orEmpty(f.GCs), GCMs: orEmpty(f.GCMs), Processors: orEmpty(f.Processors), WarmupNs: int64(f.Warmup), WarmupSettled: f.WarmupSettled, OpsPerSample: f.Ops, RetakenSamples: f.Retaken})
	}
	e := r.Env
	m.Environment = MeasureEnv{JavaVersion: e.JavaVersion, JavaVendor: e.JavaVendor, VMName: e.VMName,
		JVMArgs: orEmpty(e.JVMArgs), OS: e.OS, Arch: e.Arch, CPUModel: e.CPUModel, Cores: e.Cores}
	if r.Err != nil {
		m.Error = failureOf(r.Err)
	}
	return m
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

func failureOf(err error) *MeasureFailure {
	f := &MeasureFailure{Kind: "error", Message: err.Error()}
	var we *measured.WorkloadError
	if errors.As(err, &we) {
		f.Kind, f.Phase, f.Exception, f.Stack = we.Kind, we.Phase, we.Exception, we.Stack
		if we.Frame != nil {
			f.File, f.Line = we.Frame.Path, we.Frame.Line
			if f.File == "" {
				f.File = we.Frame.File
			}
		}
	}
	return f
}

// WriteMeasurement writes m as JSON when format is "json", else as text.
func WriteMeasurement(w io.Writer, format string, m MeasureDocument) error {
	if format == "json" {
		return WriteMeasurementJSON(w, m)
	}
	WriteMeasurementText(w, m)
	return nil
}

// WriteMeasurementJSON writes m as a document on one line.
func WriteMeasurementJSON(w io.Writer, m MeasureDocument) error {
	return writeJSONLine(w, m)
}

// WriteMeasurementText writes a compact human summary of m.
func WriteMeasurementText(w io.Writer, m MeasureDocument) {
	r := m.result
	s := measured.Summarize(r.Forks)
	label := "final"
	if m.Preliminary {
		label = "preliminary"
	}
	ci := "CI over fork means"
	if !s.CIOverForks {
		ci = "CI over samples of one fork"
	}
	subject := m.Method
	if m.Workload != "" {
		subject += "[" + m.Workload + "]"
	}
	args := make([]string, len(m.Args))
	for i, a := range m.Args {
		args[i] = fmt.Sprint(a)
	}
	fmt.Fprintf(w, "%s  %s(%s)\n", label, subject, strings.Join(args, ", "))
	fmt.Fprintf(w, "  mean   %s/op ± %.1f%% (95%% %s: %s)\n", Duration(s.MeanNsPerOp), 100*s.RelativeHalfWidth(), ci,
		Span(s.CI95[0], s.CI95[1], "ns"))
	fmt.Fprintf(w, "  median %s/op", Duration(s.MedianNsPerOp))
	if !math.IsNaN(s.MeanCPUNsPerOp) {
		fmt.Fprintf(w, ", cpu %s/op", Duration(s.MeanCPUNsPerOp))
	}
	if !math.IsNaN(s.MeanAllocBytesPerOp) {
		fmt.Fprintf(w, ", alloc %.1f B/op", s.MeanAllocBytesPerOp)
	}
	fmt.Fprintln(w)
	writeDemands(w, m.Summary.Demands)
	fmt.Fprintf(w, "  %d fork(s) × %d samples", s.Forks, s.SamplesPerFork)
	writeWarmup(w, r.Forks)
	e := r.Env
	cpu := e.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(w, "\n  %s %s (%s), %s/%s, %s, %d cores\n", e.VMName, e.JavaVersion, e.JavaVendor, e.OS, e.Arch, cpu, e.Cores)
	if e.GC != "" || e.MaxHeapMB > 0 || len(e.JVMArgs) > 0 {
		fmt.Fprintf(w, "  collector %s, heap ≤ %d MiB, flags: %s\n", orUnknown(e.GC), e.MaxHeapMB, strings.Join(e.JVMArgs, " "))
	}
}

func writeWarmup(w io.Writer, forks []measured.Fork) {
	if len(forks) == 0 {
		return
	}
	var wu time.Duration
	settled, retaken := 0, 0
	for _, f := range forks {
		wu += f.Warmup
		retaken += f.Retaken
		if f.WarmupSettled == 1 {
			settled++
		}
	}
	fmt.Fprintf(w, ", warm-up %s/fork (JIT settled in %d of %d)", (wu / time.Duration(len(forks))).Round(time.Millisecond), settled, len(forks))
	if retaken > 0 {
		fmt.Fprintf(w, ", %d sample(s) taken again (thread preempted)", retaken)
	}
}

// WriteCompileErrors writes javac's messages, one a line, with paths
// relative to dir.
func WriteCompileErrors(w io.Writer, dir string, msgs []measured.CompilerMessage) {
	for _, m := range msgs {
		fmt.Fprintf(w, "%s:%d:%d: %s: %s\n", Rel(dir, m.File), m.Line, m.Column, m.Severity, m.Message)
	}
}

// WriteWorkloadError writes where a workload failed (file:line, relative to
// the project dir) and the head of the Java stack, before the error line
// itself; nothing for other errors.
func WriteWorkloadError(w io.Writer, dir string, err error) {
	var we *measured.WorkloadError
	if !errors.As(err, &we) {
		return
	}
	if we.Frame != nil && we.Frame.Path != "" && we.Frame.Line > 0 {
		fmt.Fprintf(w, "%s:%d: %s (%s)\n", Rel(dir, we.Frame.Path), we.Frame.Line, we.Kind, we.Phase)
	}
	if st := strings.TrimSpace(we.Stack); st != "" {
		lines := strings.Split(st, "\n")
		if len(lines) > 12 {
			lines = append(lines[:12], fmt.Sprintf("\t... %d more lines", len(lines)-12))
		}
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
	if out := strings.TrimSpace(we.Output); out != "" {
		fmt.Fprintf(w, "output of the workload (tail):\n%s\n", out)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
