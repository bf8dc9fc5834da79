package verdict

import (
	"time"

	"github.com/perfls/perfls/analysis/model"
)

// ComparisonResult is one decided comparison of a formula instance, as shown
// to users and kept in the verdict record.
type ComparisonResult struct {
	Text     string   `json:"text"` // rendered with bound values
	Outcome  Outcome  `json:"outcome"`
	Evidence Evidence `json:"evidence"`
	Reason   string   `json:"reason,omitempty"`
	// Failed is true when an error (an unresolved reference, a failed
	// measurement) left the comparison undecided; Reason says which.
	Failed bool `json:"failed,omitempty"`
	// PReject is Comparison.PReject: the check's family level is computed
	// from it and it is not kept.
	PReject float64 `json:"-"`
}

// InstanceResult is the verdict on one formula instance (one binding of the
// formula's quantified variables).
type InstanceResult struct {
	Formula  string  `json:"formula"`
	Line     int     `json:"line"`               // 1-based line of the formula
	Instance string  `json:"instance,omitempty"` // e.g. "n=1000"
	Outcome  Outcome `json:"outcome"`
	// Failed is true when the instance is undecided because of an error
	// (a failed comparison), not for lack of evidence.
	Failed      bool               `json:"failed,omitempty"`
	Comparisons []ComparisonResult `json:"comparisons"`
}

// MethodResult holds the verdicts of the formulas on one annotated method.
type MethodResult struct {
	File   string   `json:"file"`  // absolute path of the Java source
	Class  string   `json:"class"` // binary name
	Method string   `json:"method"`
	Params []string `json:"params"`
	// Source is a hash of the annotated method's source text when it was
	// checked; a different hash now means the verdicts are stale.
	Source    string           `json:"source,omitempty"`
	CheckedAt time.Time        `json:"checked_at"`
	Instances []InstanceResult `json:"instances"`
	// Measurements summarize the method's own measurements, one per
	// workload and arguments, for its performance documentation.
	Measurements []Measurement `json:"measurements,omitempty"`
}

// Measurement summarizes one measurement of an annotated method. Figures
// that could not be computed are 0 (never NaN, which JSON cannot carry).
type Measurement struct {
	Workload   string  `json:"workload"`    // the generator method
	Args       string  `json:"args"`        // e.g. "10000"
	N          float64 `json:"n,omitempty"` // the argument when it is a single integer (cost models)
	MeanNs     float64 `json:"mean_ns_per_op"`
	CILowNs    float64 `json:"ci95_low_ns"` // 95 % interval of the mean, over fork means
	CIHighNs   float64 `json:"ci95_high_ns"`
	MedianNs   float64 `json:"median_ns_per_op"`
	AllocBytes float64 `json:"alloc_bytes_per_op"` // -1 when not measured
	Forks      int     `json:"forks"`
	Samples    int     `json:"samples_per_fork"`
	// ForkMeansNs holds each fork's mean time per operation: the points a
	// cost model is fitted to (one per run, as the runs are independent).
	ForkMeansNs []float64 `json:"fork_means_ns,omitempty"`
	// Demands are the per-operation figures of the other metrics (thread
	// and process CPU, allocation, GC, CPU share) with their intervals.
	Demands    []model.Demand `json:"demands,omitempty"`
	MeasuredAt time.Time      `json:"measured_at"`
}
