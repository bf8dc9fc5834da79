// Package profile turns the profile summary of a profiled fork (a flight
// recording reduced inside the JVM, see measure.ParseSummary) into what a
// developer reads: hot frames with their share of the measured region,
// allocation sites with bytes per operation, blocked time by monitor and
// site, and anti-pattern findings with their evidence and thresholds —
// attributed to the source declarations the caller supplies (package,
// nested class, method name and erased parameter types; lines from the
// class files' line tables).
//
// The package is pure: no I/O, no clock. A Summary is plain data; New
// attributes it to declarations, Profile.Report computes the figures and
// findings of one profile, and Compare the "what changed" findings of a
// profile against baseline profiles of the same method and workload.
//
// Figures are per operation: the measured region is the harness's timed
// iterations, and an operation is one call (or one workload-loop span).
// Sample-based figures are shares of the region's execution samples; time
// per operation is a share times the measured wall time per operation, so
// that it does not depend on the sampling period the JVM achieved.
package profile

import (
	"fmt"
	"strings"

	"github.com/perfls/perfls/analysis/classfile"
)

// SummaryVersion is the summary format this package reads.
const SummaryVersion = 1

// Stack kinds: what an aggregated stack counts.
const (
	KindCPU    = "cpu"    // execution samples of threads running Java code; weight = count
	KindNative = "native" // samples of threads in native code; weight = count
	KindAlloc  = "alloc"  // allocation samples; weight = bytes
	KindEnter  = "enter"  // blocked entering a monitor (synchronized); weight = ns
	KindWait   = "wait"   // Object.wait; weight = ns
	KindPark   = "park"   // LockSupport.park (j.u.c. locks, queues, futures); weight = ns
	KindSleep  = "sleep"  // Thread.sleep; weight = ns
	KindIO     = "io"     // socket and file reads and writes; weight = ns
)

// Summary is the reduced profile of one profiled fork's measured region:
// everything that crosses from the JVM into Go and the cache.
type Summary struct {
	Version int
	// PeriodNs is the execution-sampling period the recording asked for;
	// -1 when unknown.
	PeriodNs int64
	// WindowNs is the length of the measured region (first iteration start
	// to last iteration end).
	WindowNs int64
	// Segments is the number of consecutive groups of iterations each
	// stack's weight is split into (Stack.Segments).
	Segments int
	// Alloc names the allocation events used: "sample"
	// (jdk.ObjectAllocationSample, JDK 16+), "tlab" (TLAB events, JDK 11–15)
	// or "none".
	Alloc string
	// Threads is "marked" when only the threads that ran iterations were
	// kept, "all" when every workload thread was (the JVM's own excluded).
	ThreadScope string
	// Truncated counts events whose stacks were cut at the recording's
	// stack-depth limit.
	Truncated   int64
	JavaVersion string

	Iterations []Iteration
	Threads    []Thread
	Methods    []Method
	Frames     []Frame
	Stacks     []Stack
	GC         GC
	CPU        CPULoad
	// Ramp is the ramp test's paired control, measured after the
	// iterations; nil when the fork ran none (a quick profile, a workload
	// loop, a summary from an older perfls).
	Ramp *RampControl `json:",omitempty"`
}

// RampControl is the ramp test's paired measurement (the harness's
// RampControl.java): two fresh copies A and B of the project's classes,
// each with its own static state, measured in rounds of short windows back
// to back — A, B, A, M, A, B, A, M, … — A's windows twice B's calls, so
// that at every round both run at the same time and A has made more calls
// than B by a lead that grows; M is the profiled copy, a settled reference.
type RampControl struct {
	// Skipped says why there are no rounds; "" when there are.
	Skipped string `json:",omitempty"`
	Rounds  []RampRound
	// Stopped says why the rounds ended before the number asked for (a
	// time limit, the heap filling up); "" when they did not.
	Stopped string `json:",omitempty"`
	// Stacks are the execution samples of the rounds' windows by copy
	// ("A", "B") and stack (frames innermost first, indices into
	// Summary.Frames): where each copy spent its time at the same moments.
	Stacks []RampStack `json:",omitempty"`
}

// RampStack is one stack's execution samples in one copy's windows.
type RampStack struct {
	Copy   string
	Count  int64
	Frames []int
}

// RampRound is one round of the ramp control.
type RampRound struct {
	// OpsA and OpsB are the calls each copy made in the round; CallsA and
	// CallsB those it had made before (its warm-up's included).
	OpsA, OpsB     int64
	CallsA, CallsB int64
	// A and B are the copies' time in the round.
	A, B RampTime
	// OpsM and M are the calls and the time of the profiled copy itself
	// in the round (a reference whose compilation has settled; 0 calls
	// when the harness ran none).
	OpsM int64    `json:",omitempty"`
	M    RampTime `json:",omitempty"`
}

// RampTime is the wall time and the measuring thread's CPU time (-1 when
// unknown) of one copy in one round.
type RampTime struct {
	Ns, CPUNs int64
}

// Iteration is one measured iteration (one timed sample of the harness).
type Iteration struct {
	Ns      int64 // wall time
	Ops     int64 // operations in it
	StartNs int64 // after the region's start
	// CPUNs is the measuring thread's CPU time during the iteration, and
	// AllocBytes what it allocated (exactly, from the JVM's per-thread
	// counter); -1 when unknown.
	CPUNs      int64
	AllocBytes int64
}

// Thread is one thread that had events in the region.
type Thread struct {
	ID      int64
	Name    string
	Samples int64 // execution samples
	Marked  bool  // it ran the measured iterations
}

// Method is one method that appears in a stack, as the class file names it.
type Method struct {
	Class      string // binary name: "pkg.Outer$Inner"
	Name       string // "<init>" for constructors
	Descriptor string // JVM descriptor: "([ILjava/lang/String;)I"
}

// Frame is one position in a method: the line and bytecode index a stack
// was at. Inlined frames are frames like any other.
type Frame struct {
	Method int // index into Summary.Methods
	Line   int // -1 when the class has no line table
	BCI    int // -1 when unknown
	// InLoop is 1 when BCI lies inside a loop of the method (a backward
	// branch's range in its bytecode), 0 when not, -1 when unknown.
	InLoop int
}

// Stack is one distinct stack of one kind and class with its count and
// total weight.
type Stack struct {
	Kind string
	// Class is the allocated class (alloc), the monitor's class (enter,
	// wait) or the parked-on object's class (park); "" otherwise.
	Class string
	// Thread is the Java thread id of the thread the events were on.
	Thread int64
	Count  int64
	Weight int64
	// Segments is Weight split over the Summary.Segments groups of
	// iterations, in order.
	Segments []int64
	// Frames are indices into Summary.Frames, innermost (the executing
	// frame) first.
	Frames []int
}

// GC is the garbage collection in the region.
type GC struct {
	Count   int64
	PauseNs int64
	// HeapAfterFirst and HeapAfterLast are the heap in use after the
	// region's first and last collection; -1 when there was none.
	HeapAfterFirst, HeapAfterLast int64
}

// CPULoad is the mean CPU load over the region, as fractions of the
// machine; -1 when unknown.
type CPULoad struct {
	JVMUser, JVMSystem, Machine float64
}

// Ops returns the operations in the measured iterations.
func (s *Summary) Ops() int64 {
	var n int64
	for _, it := range s.Iterations {
		n += it.Ops
	}
	return n
}

// NsPerOp returns the measured wall time per operation over all
// iterations; 0 when there were none.
func (s *Summary) NsPerOp() float64 {
	var ns, ops int64
	for _, it := range s.Iterations {
		ns += it.Ns
		ops += it.Ops
	}
	if ops == 0 {
		return 0
	}
	return float64(ns) / float64(ops)
}

// Validate checks that every index in s is in range, so that the rest of
// the package can index without checks. The summary comes from another
// process; a damaged one must give an error, never a panic.
func (s *Summary) Validate() error {
	if s == nil {
		return fmt.Errorf("profile summary: none")
	}
	if s.Version != SummaryVersion {
		return fmt.Errorf("profile summary: version %d, this perfls reads version %d", s.Version, SummaryVersion)
	}
	for i, f := range s.Frames {
		if f.Method < 0 || f.Method >= len(s.Methods) {
			return fmt.Errorf("profile summary: frame %d names method %d of %d", i, f.Method, len(s.Methods))
		}
	}
	for i, st := range s.Stacks {
		for _, f := range st.Frames {
			if f < 0 || f >= len(s.Frames) {
				return fmt.Errorf("profile summary: stack %d names frame %d of %d", i, f, len(s.Frames))
			}
		}
		if len(st.Segments) != 0 && len(st.Segments) != s.Segments {
			return fmt.Errorf("profile summary: stack %d has %d segments, expected %d", i, len(st.Segments), s.Segments)
		}
		if st.Count < 0 || st.Weight < 0 {
			return fmt.Errorf("profile summary: stack %d has a negative count or weight", i)
		}
	}
	if s.Ramp != nil {
		for i, st := range s.Ramp.Stacks {
			for _, f := range st.Frames {
				if f < 0 || f >= len(s.Frames) {
					return fmt.Errorf("profile summary: ramp stack %d names frame %d of %d", i, f, len(s.Frames))
				}
			}
			if st.Count < 0 || st.Copy != "A" && st.Copy != "B" {
				return fmt.Errorf("profile summary: ramp stack %d: copy %q, count %d", i, st.Copy, st.Count)
			}
		}
		for i, r := range s.Ramp.Rounds {
			if r.OpsA <= 0 || r.OpsB <= 0 || r.CallsA < 0 || r.CallsB < 0 || r.A.Ns < 0 || r.B.Ns < 0 || r.OpsM < 0 || r.M.Ns < 0 {
				return fmt.Errorf("profile summary: ramp round %d has a negative time or call count", i)
			}
		}
	}
	for i, it := range s.Iterations {
		if it.Ns < 0 || it.Ops < 0 {
			return fmt.Errorf("profile summary: iteration %d has a negative time or operation count", i)
		}
	}
	return nil
}

// MethodName returns the method's name as perfls writes methods:
// "pkg.Outer$Inner#name(int[],java.lang.String)".
func (m Method) MethodName() string {
	params, _ := ParamTypes(m.Descriptor)
	return m.Class + "#" + m.Name + "(" + strings.Join(params, ",") + ")"
}

// ParamTypes decodes a method descriptor's parameter types into Java source
// names ("int", "int[][]", "java.util.Map$Entry" becomes
// "java.util.Map.Entry"). ok is false for a malformed descriptor (the
// types decoded so far are returned).
func ParamTypes(desc string) (types []string, ok bool) {
	if !strings.HasPrefix(desc, "(") {
		return nil, false
	}
	i := 1
	for i < len(desc) && desc[i] != ')' {
		t, n := fieldType(desc[i:])
		if n == 0 {
			return types, false
		}
		types = append(types, t)
		i += n
	}
	return types, i < len(desc)
}

// fieldType decodes one field descriptor at the start of d, or "V"; n is
// its length (0 when malformed).
func fieldType(d string) (string, int) {
	if strings.HasPrefix(d, "V") {
		return "void", 1
	}
	t, n, err := classfile.FieldType(d)
	if err != nil {
		return "", 0
	}
	return t, n
}
