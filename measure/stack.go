package measure

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// parseFrame parses a stack line "\tat pkg.Cls.m(File.java:12)", also in the
// forms with a module or class loader prefix ("java.base/java.util.X.m(...)",
// "app//pkg.Cls.m(...)") and with a module inside the parentheses (thread
// dumps: "pkg.Cls.m(java.base@17/Native Method)"). jdk reports a module
// prefix, which marks a class of a named module.
func parseFrame(line string) (f Frame, jdk bool, ok bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "at ") {
		return Frame{}, false, false
	}
	s = strings.TrimSpace(s[3:])
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return Frame{}, false, false
	}
	name, loc := s[:open], s[open+1:len(s)-1]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		prefix := name[:i]
		name = name[i+1:]
		// "app//x" has an empty module part; "java.base/x" or "mod@1/x" names a module.
		mod := prefix
		if j := strings.IndexByte(prefix, '/'); j >= 0 {
			mod = prefix[j+1:]
		}
		jdk = mod != ""
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 {
		return Frame{}, false, false
	}
	f.Class, f.Method = name[:dot], name[dot+1:]
	if i := strings.LastIndexByte(loc, '/'); i >= 0 {
		loc = loc[i+1:]
	}
	if file, line, found := strings.Cut(loc, ":"); found {
		f.File = file
		f.Line, _ = strconv.Atoi(line)
	} else if strings.HasSuffix(loc, ".java") || strings.HasSuffix(loc, ".kt") {
		f.File = loc
	}
	return f, jdk, true
}

// isUserFrame reports whether a frame belongs to user code: not the JDK, not
// perfls.
func isUserFrame(f Frame, jdk bool) bool {
	if jdk {
		return false
	}
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "dev.perfls."} {
		if strings.HasPrefix(f.Class, p) {
			return false
		}
	}
	simple := f.Class[strings.LastIndexByte(f.Class, '.')+1:]
	return !strings.HasPrefix(simple, "PerflsHarness_")
}

// throwableInfo is what parseStackTrace extracts from a printed throwable.
type throwableInfo struct {
	exception, message string
	rootException      string
	rootMessage        string
	frame              *Frame
}

// parseStackTrace reads a Throwable.printStackTrace text. The frame is the
// first user frame of the innermost cause that has one (where the problem
// arose), else of the throwable itself.
func parseStackTrace(trace string) throwableInfo {
	var info throwableInfo
	type segment struct {
		exc, msg string
		user     *Frame
	}
	var segs []segment
	lines := strings.Split(strings.ReplaceAll(trace, "\r\n", "\n"), "\n")
	startSeg := func(head string) {
		exc, msg, _ := strings.Cut(head, ": ")
		segs = append(segs, segment{exc: strings.TrimSpace(exc), msg: msg})
	}
	inFrames := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case i == 0:
			startSeg(t)
		case strings.HasPrefix(t, "Caused by: "):
			startSeg(strings.TrimPrefix(t, "Caused by: "))
			inFrames = false
		case strings.HasPrefix(t, "Suppressed: "):
			// frames of suppressed exceptions do not say where this failed
			segs = append(segs, segment{exc: "\x00suppressed"})
			inFrames = false
		case strings.HasPrefix(t, "at "):
			inFrames = true
			f, jdk, ok := parseFrame(t)
			if ok && len(segs) > 0 && segs[len(segs)-1].user == nil && isUserFrame(f, jdk) {
				ff := f
				segs[len(segs)-1].user = &ff
			}
		case strings.HasPrefix(t, "..."):
		default:
			// continuation of a multi-line message
			if !inFrames && len(segs) > 0 && t != "" {
				segs[len(segs)-1].msg += "\n" + l
			}
		}
	}
	var real []segment
	for _, s := range segs {
		if s.exc != "\x00suppressed" {
			real = append(real, s)
		}
	}
	if len(real) == 0 {
		return info
	}
	info.exception, info.message = real[0].exc, real[0].msg
	last := real[len(real)-1]
	info.rootException, info.rootMessage = last.exc, last.msg
	for i := len(real) - 1; i >= 0; i-- {
		if real[i].user != nil {
			info.frame = real[i].user
			break
		}
	}
	return info
}

// parseFrames returns the frames of a stack text.
func parseFrames(text string) []Frame {
	var out []Frame
	for _, l := range strings.Split(text, "\n") {
		if f, _, ok := parseFrame(l); ok {
			out = append(out, f)
		}
	}
	return out
}

// firstUserFrame returns the first user frame of a stack text.
func firstUserFrame(text string) *Frame {
	for _, l := range strings.Split(text, "\n") {
		if f, jdk, ok := parseFrame(l); ok && isUserFrame(f, jdk) {
			return &f
		}
	}
	return nil
}

// mainThreadStack extracts the "main" thread's stack from a HotSpot thread
// dump.
func mainThreadStack(dump string) string {
	lines := strings.Split(dump, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, `"main" `) {
			continue
		}
		var b strings.Builder
		b.WriteString(l + "\n")
		for _, m := range lines[i+1:] {
			if strings.TrimSpace(m) == "" {
				break
			}
			b.WriteString(m + "\n")
		}
		return b.String()
	}
	return ""
}

// locate fills f.Path from the source roots.
func locate(f *Frame, roots []string) {
	if f == nil || f.File == "" || filepath.Base(f.File) != f.File {
		return
	}
	dir := filepath.FromSlash(strings.ReplaceAll(packageOf(f.Class), ".", "/"))
	for _, r := range roots {
		p := filepath.Join(r, dir, f.File)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			f.Path = p
			return
		}
	}
}
