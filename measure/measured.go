package measure

import "github.com/perfls/perfls/analysis/measured"

// The measured data lives in analysis/measured, which needs no I/O, so the
// analysis packages can read it without depending on this package. The
// aliases keep measure's callers (engine, server, cmd/perfls, bench)
// unchanged; new code names analysis/measured.
type (
	Arg             = measured.Arg
	Request         = measured.Request
	Resolved        = measured.Resolved
	Fork            = measured.Fork
	Result          = measured.Result
	Environment     = measured.Environment
	Summary         = measured.Summary
	CallCount       = measured.CallCount
	CallCounts      = measured.CallCounts
	Frame           = measured.Frame
	WorkloadError   = measured.WorkloadError
	CompilerMessage = measured.CompilerMessage
)

// Failure kinds of a WorkloadError.
const (
	KindException = measured.KindException
	KindOOM       = measured.KindOOM
	KindExit      = measured.KindExit
	KindTimeout   = measured.KindTimeout
	KindCrash     = measured.KindCrash
	KindProtocol  = measured.KindProtocol
)

// Sentinels matched by errors.Is on a *WorkloadError of the same kind.
var (
	ErrTimeout     = measured.ErrTimeout
	ErrSystemExit  = measured.ErrSystemExit
	ErrOutOfMemory = measured.ErrOutOfMemory
)

// Oracle metric names (measured.Fork.Series).
const (
	MetricNsPerOp    = measured.MetricNsPerOp
	MetricCPUNsPerOp = measured.MetricCPUNsPerOp
	MetricAllocPerOp = measured.MetricAllocPerOp
	MetricGCCount    = measured.MetricGCCount
	MetricGCMs       = measured.MetricGCMs
	MetricHeapUsed   = measured.MetricHeapUsed
	MetricJITMs      = measured.MetricJITMs
	MetricClasses    = measured.MetricClasses
)

// Drift thresholds (measured.Fork.Drift).
const (
	DriftRatio = measured.DriftRatio
	DriftAlpha = measured.DriftAlpha
)

// IntArg and StringArg build Args.
func IntArg(v int64) Arg     { return measured.IntArg(v) }
func StringArg(s string) Arg { return measured.StringArg(s) }

// Summarize computes the Summary of forks (measured.Summarize).
func Summarize(forks []Fork) Summary { return measured.Summarize(forks) }

// ProcessClockTick recognises a coarse process CPU clock
// (measured.ProcessClockTick).
func ProcessClockTick(procNsPerOp []float64, ops int64) (tick float64, fine bool) {
	return measured.ProcessClockTick(procNsPerOp, ops)
}
