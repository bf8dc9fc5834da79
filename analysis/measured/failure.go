package measured

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Frame is one Java stack frame.
type Frame struct {
	Class  string // binary class name
	Method string
	File   string // source file name as in the stack trace ("Data.java"); "" when unknown
	Line   int    // 0 when unknown
	// Path is the absolute source path, when the file was found under the
	// build's source roots.
	Path string
}

func (f Frame) String() string {
	loc := "Unknown Source"
	switch {
	case f.File != "" && f.Line > 0:
		loc = f.File + ":" + strconv.Itoa(f.Line)
	case f.File != "":
		loc = f.File
	}
	return fmt.Sprintf("%s.%s(%s)", f.Class, f.Method, loc)
}

// Failure kinds of a WorkloadError.
const (
	KindException = "exception" // the generator, the method or the workload threw
	KindOOM       = "oom"       // OutOfMemoryError
	KindExit      = "exit"      // user code called System.exit
	KindTimeout   = "timeout"   // the fork exceeded Options.ForkTimeout
	KindCrash     = "crash"     // the JVM died or exited without finishing
	KindProtocol  = "protocol"  // the fork's output made no sense
)

// Sentinels matched by errors.Is on a *WorkloadError of the same kind.
var (
	ErrTimeout     = errors.New("fork timed out")
	ErrSystemExit  = errors.New("workload called System.exit")
	ErrOutOfMemory = errors.New("out of memory")
)

// WorkloadError describes a fork that failed.
type WorkloadError struct {
	Kind string
	// Phase is where the harness was: "generator", "arguments" (extracting
	// the typed call arguments), "method", "workload" or "harness".
	Phase     string
	Exception string // class of the throwable, e.g. "java.lang.IllegalStateException"
	Message   string // its message; for a chained exception, the root cause is appended
	// Frame is the first frame of user code on the failing stack (for a
	// timeout: where the main thread was); nil when there is none.
	Frame    *Frame
	Stack    string        // the Java stack trace or thread stack
	ExitCode int           // the JVM's exit status; -1 when killed by a signal
	Timeout  time.Duration // for KindTimeout
	HeapMB   int           // for KindOOM
	Output   string        // tail of what the user code printed
	Stderr   string        // tail of the JVM's standard error
	PID      int           // the fork's process id
}

func (e *WorkloadError) Error() string {
	var b strings.Builder
	switch e.Kind {
	case KindException:
		fmt.Fprintf(&b, "%s threw %s", phaseText(e.Phase), e.throwable())
	case KindOOM:
		fmt.Fprintf(&b, "out of memory in %s: %s", phaseText(e.Phase), e.throwable())
		heap := "the JVM's default heap"
		if e.HeapMB > 0 {
			heap = fmt.Sprintf("a heap of %d MB", e.HeapMB)
		}
		fmt.Fprintf(&b, " (%s; if the workload needs more, give it with --heap MB on the command line, \"jvmArgs\": [\"-Xmx2g\"] in perfls.json or the editor's perfls.jvmArgs setting)", heap)
	case KindExit:
		fmt.Fprintf(&b, "workload called System.exit(%d)", e.ExitCode)
	case KindTimeout:
		fmt.Fprintf(&b, "fork timed out after %s", e.Timeout)
		if e.Frame != nil {
			b.WriteString("; the main thread was running")
		}
	case KindCrash:
		b.WriteString("JVM ")
		b.WriteString(e.Message)
	default:
		b.WriteString(e.Message)
	}
	if e.Frame != nil {
		b.WriteString(" at ")
		b.WriteString(e.Frame.String())
	}
	if e.Kind == KindCrash || e.Kind == KindProtocol {
		if t := strings.TrimSpace(e.Stderr); t != "" {
			b.WriteString("; stderr: ")
			b.WriteString(lastLines(t, 8))
		}
	}
	return b.String()
}

func (e *WorkloadError) throwable() string {
	if e.Message == "" {
		return e.Exception
	}
	return e.Exception + ": " + e.Message
}

// Is lets errors.Is match ErrTimeout, ErrSystemExit and ErrOutOfMemory.
func (e *WorkloadError) Is(target error) bool {
	switch target {
	case ErrTimeout:
		return e.Kind == KindTimeout
	case ErrSystemExit:
		return e.Kind == KindExit
	case ErrOutOfMemory:
		return e.Kind == KindOOM
	}
	return false
}

func phaseText(p string) string {
	switch p {
	case "generator":
		return "the generator"
	case "arguments":
		return "checking the generator's argument tuples"
	case "method":
		return "the measured method"
	case "workload":
		return "the workload"
	default:
		return "the harness"
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// CompilerMessage is one diagnostic of javac.
type CompilerMessage struct {
	File     string // as javac printed it (absolute for sources perfls passes)
	Line     int    // 1-based; 0 when the message is not about a line
	Column   int    // 1-based, in characters; 0 when unknown
	Severity string // "error", "warning" or "note"
	Message  string // the message, with javac's detail lines joined by "; "
}
