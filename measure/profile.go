package measure

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/internal/trust"
)

// Profiled forks. A profiled fork is a fork started with ProfileJVMArgs: the
// JVM records with perfls's flight-recorder settings (profile.jfc), the
// harness marks each measured iteration (dev.perfls.internal.ProfileMarks)
// and, after the measured region, reduces the recording in the same JVM to
// the summary (dev.perfls.internal.JfrSummary), which it writes on its
// protocol stream as perfls-prof-* lines among the others. ParseSummary
// reads those lines; only the summary crosses into Go and the cache, never
// the recording. A recording already on disk (a .jfr file) is reduced by a
// helper JVM instead: ReduceRecording.
//
// Profiled forks are separate from timing forks — recording perturbs
// timing — and their figures never feed a verdict.

//go:embed profile.jfc
var profileSettings string

// tlabEvents are the allocation events of JDKs before 16; from 16 on,
// jdk.ObjectAllocationSample replaces them at lower cost, so they are left
// out there.
var tlabEvents = []string{"jdk.ObjectAllocationInNewTLAB", "jdk.ObjectAllocationOutsideTLAB"}

// ProfileSettings returns perfls's flight-recorder settings (a .jfc file)
// for a JVM of the given feature release (0 when unknown: the settings
// then carry both allocation sources): execution sampling every
// millisecond, allocation sampling (jdk.ObjectAllocationSample on JDK 16+,
// TLAB events before), monitor enter and wait, park, sleep and socket I/O
// with zero thresholds, GC and CPU load, and the harness's iteration events.
func ProfileSettings(feature int) []byte {
	s := profileSettings
	if feature >= 16 {
		for _, ev := range tlabEvents {
			start := strings.Index(s, `<event name="`+ev+`">`)
			if start < 0 {
				continue
			}
			end := strings.Index(s[start:], "</event>")
			if end < 0 {
				continue
			}
			end += start + len("</event>")
			for start > 0 && (s[start-1] == ' ' || s[start-1] == '\t') {
				start--
			}
			if end < len(s) && s[end] == '\n' {
				end++
			}
			s = s[:start] + s[end:]
		}
	}
	return []byte(s)
}

// WriteProfileSettings writes ProfileSettings(feature) into dir (created
// when missing) under a name derived from its content, once, and returns
// the file's path.
func WriteProfileSettings(dir string, feature int) (string, error) {
	data := ProfileSettings(feature)
	sum := sha256.Sum256(data)
	p := filepath.Join(dir, "perfls-profile-"+hex.EncodeToString(sum[:6])+".jfc")
	if b, err := os.ReadFile(p); err == nil && string(b) == string(data) {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write profile settings: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "perfls-profile-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write profile settings: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("write profile settings: %w", errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("write profile settings: %w", err)
	}
	return p, nil
}

// ProfileStackDepth is the deepest stack a profiled fork records (the JDK's
// default, 64, cuts the frames of deep call chains off at the bottom, where
// the measured method is).
const ProfileStackDepth = 128

// ProfileJVMArgs returns the JVM options that make a fork of the JVM java
// ("" for the JDK perfls compiles with) a profiled fork, writing the
// settings for that JVM's release into dir (the cache directory, say): a
// recording named "perfls" with those settings, kept by JFR until the
// harness reduces it (no file is written on exit), the stack depth, and
// debug information at non-safepoints so that samples of JIT-compiled code
// land on the right line.
func ProfileJVMArgs(ctx context.Context, java, dir string) ([]string, error) {
	if java == "" {
		j, err := findJDK(ctx)
		if err != nil {
			return nil, fmt.Errorf("profile settings: %w", err)
		}
		java = j.java
	}
	settings, err := WriteProfileSettings(dir, javaFeature(java))
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(settings, ",=") {
		// -XX:StartFlightRecording separates its options with ',' and '='.
		return nil, fmt.Errorf("profile settings path %q: must not contain ',' or '='", settings)
	}
	return []string{
		"-XX:StartFlightRecording=name=perfls,settings=" + settings,
		"-XX:FlightRecorderOptions=stackdepth=" + strconv.Itoa(ProfileStackDepth),
		"-XX:+UnlockDiagnosticVMOptions",
		"-XX:+DebugNonSafepoints",
	}, nil
}

// SummaryReader assembles a profile summary from a profiled fork's output,
// one line at a time, as the fork writes it: the fork launcher hands it
// every line that starts with "perfls-prof-" (others are ignored anyway).
// The first error sticks; lines after perfls-prof-end are ignored.
type SummaryReader struct {
	p   summaryParser
	err error
}

// NewSummaryReader returns a reader waiting for perfls-prof-begin.
func NewSummaryReader() *SummaryReader {
	return &SummaryReader{p: summaryParser{s: newSummary()}}
}

// Line takes one line of output, without its newline.
func (r *SummaryReader) Line(l string) {
	r.p.lineNo++
	if r.err != nil || r.p.ended {
		return
	}
	r.err = r.p.line(strings.TrimSuffix(l, "\r"))
}

// Summary returns the summary once its last line has arrived, or an error
// that says which line and what is wrong, or that it is incomplete.
func (r *SummaryReader) Summary() (*profile.Summary, error) {
	p := &r.p
	switch {
	case r.err != nil:
		return nil, r.err
	case p.errorMsg != "":
		return nil, fmt.Errorf("profile summary: the JVM could not reduce the recording: %s", p.errorMsg)
	case !p.begun:
		return nil, errors.New("profile summary: none in the output (no perfls-prof-begin line); was the fork profiled?")
	case !p.ended:
		return nil, fmt.Errorf("profile summary: incomplete, it ends after %d lines without perfls-prof-end (the JVM died or the output was cut)", p.lines)
	}
	if err := p.s.Validate(); err != nil {
		return nil, err
	}
	return p.s, nil
}

// summaryParser builds a profile.Summary from perfls-prof-* lines.
type summaryParser struct {
	s        *profile.Summary
	begun    bool
	ended    bool
	lines    int // prof lines after begin, before end
	lineNo   int
	errorMsg string
}

// ParseSummary reads a profile summary (summary version 1, see
// dev.perfls.internal.JfrSummary) from r. Lines that are not perfls-prof-*
// lines are skipped, so r may be a profiled fork's whole standard output.
// A summary that is incomplete, damaged or reports an error gives an error
// that says which line and what is wrong.
func ParseSummary(r io.Reader) (*profile.Summary, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxProtocolLine)
	sr := NewSummaryReader()
	for sc.Scan() && sr.err == nil && !sr.p.ended {
		sr.Line(sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("profile summary: read line %d: %w", sr.p.lineNo+1, err)
	}
	return sr.Summary()
}

// newSummary is a summary with every optional figure "unknown".
func newSummary() *profile.Summary {
	return &profile.Summary{PeriodNs: -1, Segments: 1,
		GC:  profile.GC{HeapAfterFirst: -1, HeapAfterLast: -1},
		CPU: profile.CPULoad{JVMUser: -1, JVMSystem: -1, Machine: -1}}
}

// summaryLine is one perfls-prof-* line: its kind, fields and number.
type summaryLine struct {
	kind   string
	f      []string
	lineNo int
}

func (l *summaryLine) bad(why string) error {
	return fmt.Errorf("profile summary line %d (%s): %s", l.lineNo, l.kind, why)
}

// ints parses fields as integers.
func (l *summaryLine) ints(fs []string) ([]int64, error) {
	out := make([]int64, len(fs))
	for i, s := range fs {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, l.bad(fmt.Sprintf("field %d is not an integer: %q", i+1, s))
		}
		out[i] = v
	}
	return out, nil
}

// need checks the number of fields.
func (l *summaryLine) need(n int) error {
	if len(l.f) != n {
		return l.bad(fmt.Sprintf("%d fields, expected %d", len(l.f), n))
	}
	return nil
}

// summaryKinds are the parsers of the line kinds after perfls-prof-begin.
var summaryKinds = map[string]func(*summaryParser, *summaryLine) error{
	"perfls-prof-meta":         (*summaryParser).meta,
	"perfls-prof-iter":         (*summaryParser).iteration,
	"perfls-prof-thread":       (*summaryParser).thread,
	"perfls-prof-method":       (*summaryParser).method,
	"perfls-prof-frame":        (*summaryParser).frame,
	"perfls-prof-stack":        (*summaryParser).stack,
	"perfls-prof-gc":           (*summaryParser).gc,
	"perfls-prof-cpu":          (*summaryParser).cpu,
	"perfls-prof-ramp":         (*summaryParser).rampRound,
	"perfls-prof-ramp-stopped": (*summaryParser).rampStopped,
	"perfls-prof-ramp-none":    (*summaryParser).rampNone,
	"perfls-prof-ramp-stack":   (*summaryParser).rampStack,
	"perfls-prof-end":          (*summaryParser).end,
}

func (p *summaryParser) line(text string) error {
	if !strings.HasPrefix(text, "perfls-prof-") {
		return nil
	}
	kind, rest, _ := strings.Cut(text, " ")
	l := &summaryLine{kind: kind, f: strings.Fields(rest), lineNo: p.lineNo}
	switch kind {
	case "perfls-prof-error":
		p.errorMsg = unescape(strings.Join(l.f, " "))
		return nil
	case "perfls-prof-begin":
		return p.begin(l)
	}
	if !p.begun {
		return l.bad("before perfls-prof-begin")
	}
	if parse := summaryKinds[kind]; parse != nil {
		if err := parse(p, l); err != nil || p.ended {
			return err
		}
	}
	// A newer reducer's line kinds are skipped, but counted.
	p.lines++
	return nil
}

func (p *summaryParser) begin(l *summaryLine) error {
	if err := l.need(1); err != nil {
		return err
	}
	v, err := l.ints(l.f)
	if err != nil {
		return err
	}
	if v[0] != profile.SummaryVersion {
		return l.bad(fmt.Sprintf("summary version %d; this perfls reads version %d (perfls's Java library and binary differ?)", v[0], profile.SummaryVersion))
	}
	*p = summaryParser{s: newSummary(), begun: true, lineNo: p.lineNo}
	p.s.Version = int(v[0])
	p.lines = 1
	return nil
}

func (p *summaryParser) meta(l *summaryLine) error {
	s := p.s
	if err := l.need(2); err != nil {
		return err
	}
	val := unescape(l.f[1])
	num := func() (int64, error) {
		v, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return 0, l.bad(fmt.Sprintf("%s is not an integer: %q", l.f[0], val))
		}
		return v, nil
	}
	var err error
	switch l.f[0] {
	case "period.ns":
		s.PeriodNs, err = num()
	case "window.ns":
		s.WindowNs, err = num()
	case "segments":
		var n int64
		n, err = num()
		if err == nil && (n < 1 || n > 1000) {
			err = l.bad(fmt.Sprintf("segments %d out of range", n))
		}
		s.Segments = int(n)
	case "alloc":
		s.Alloc = val
	case "threads":
		s.ThreadScope = val
	case "truncated":
		s.Truncated, err = num()
	case "java.version":
		s.JavaVersion = val
	}
	return err
}

func (p *summaryParser) iteration(l *summaryLine) error {
	s := p.s
	if err := l.need(6); err != nil {
		return err
	}
	v, err := l.ints(l.f)
	if err != nil {
		return err
	}
	if v[0] != int64(len(s.Iterations)) {
		return l.bad(fmt.Sprintf("iteration %d out of order (expected %d)", v[0], len(s.Iterations)))
	}
	s.Iterations = append(s.Iterations, profile.Iteration{Ns: v[1], Ops: v[2], StartNs: v[3], CPUNs: v[4], AllocBytes: v[5]})
	return nil
}

func (p *summaryParser) thread(l *summaryLine) error {
	s := p.s
	if err := l.need(4); err != nil {
		return err
	}
	id, err := l.ints([]string{l.f[0], l.f[2], l.f[3]})
	if err != nil {
		return err
	}
	s.Threads = append(s.Threads, profile.Thread{ID: id[0], Name: unescape(l.f[1]), Samples: id[1], Marked: id[2] == 1})
	return nil
}

func (p *summaryParser) method(l *summaryLine) error {
	s := p.s
	if err := l.need(4); err != nil {
		return err
	}
	if id, err := strconv.Atoi(l.f[0]); err != nil || id != len(s.Methods) {
		return l.bad(fmt.Sprintf("method id %q out of order (expected %d)", l.f[0], len(s.Methods)))
	}
	s.Methods = append(s.Methods, profile.Method{Class: unescape(l.f[1]), Name: unescape(l.f[2]), Descriptor: unescape(l.f[3])})
	return nil
}

func (p *summaryParser) frame(l *summaryLine) error {
	s := p.s
	if err := l.need(5); err != nil {
		return err
	}
	v, err := l.ints(l.f)
	if err != nil {
		return err
	}
	if v[0] != int64(len(s.Frames)) {
		return l.bad(fmt.Sprintf("frame id %d out of order (expected %d)", v[0], len(s.Frames)))
	}
	if v[1] < 0 || v[1] >= int64(len(s.Methods)) {
		return l.bad(fmt.Sprintf("frame %d names method %d, which is not defined", v[0], v[1]))
	}
	s.Frames = append(s.Frames, profile.Frame{Method: int(v[1]), Line: int(v[2]), BCI: int(v[3]), InLoop: int(v[4])})
	return nil
}

func (p *summaryParser) stack(l *summaryLine) error {
	s := p.s
	if err := l.need(7); err != nil {
		return err
	}
	v, err := l.ints([]string{l.f[1], l.f[2], l.f[5]})
	if err != nil {
		return err
	}
	segs, err := l.ints(strings.Split(l.f[3], ","))
	if err != nil {
		return err
	}
	if len(segs) != s.Segments {
		return l.bad(fmt.Sprintf("%d segment weights, expected %d", len(segs), s.Segments))
	}
	var frames []int
	if l.f[6] != "-" {
		ids, err := l.ints(strings.Split(l.f[6], ","))
		if err != nil {
			return err
		}
		frames = make([]int, len(ids))
		for i, id := range ids {
			if id < 0 || id >= int64(len(s.Frames)) {
				return l.bad(fmt.Sprintf("frame %d is not defined", id))
			}
			frames[i] = int(id)
		}
	}
	s.Stacks = append(s.Stacks, profile.Stack{Kind: l.f[0], Class: unescape(l.f[4]), Thread: v[2],
		Count: v[0], Weight: v[1], Segments: segs, Frames: frames})
	return nil
}

func (p *summaryParser) gc(l *summaryLine) error {
	s := p.s
	if err := l.need(4); err != nil {
		return err
	}
	v, err := l.ints(l.f)
	if err != nil {
		return err
	}
	s.GC = profile.GC{Count: v[0], PauseNs: v[1], HeapAfterFirst: v[2], HeapAfterLast: v[3]}
	return nil
}

func (p *summaryParser) cpu(l *summaryLine) error {
	s := p.s
	if err := l.need(3); err != nil {
		return err
	}
	var x [3]float64
	for i := range x {
		v, err := strconv.ParseFloat(l.f[i], 64)
		if err != nil {
			return l.bad(fmt.Sprintf("field %d is not a number: %q", i+1, l.f[i]))
		}
		x[i] = v
	}
	s.CPU = profile.CPULoad{JVMUser: x[0], JVMSystem: x[1], Machine: x[2]}
	return nil
}

func (p *summaryParser) rampRound(l *summaryLine) error {
	s := p.s
	if len(l.f) != 12 {
		if err := l.need(9); err != nil {
			return err
		}
	}
	v, err := l.ints(l.f)
	if err != nil {
		return err
	}
	if s.Ramp == nil {
		s.Ramp = &profile.RampControl{}
	}
	if v[0] != int64(len(s.Ramp.Rounds)) {
		return l.bad(fmt.Sprintf("ramp round %d out of order (expected %d)", v[0], len(s.Ramp.Rounds)))
	}
	r := profile.RampRound{OpsA: v[1], OpsB: v[2], CallsA: v[3], CallsB: v[4],
		A: profile.RampTime{Ns: v[5], CPUNs: v[6]}, B: profile.RampTime{Ns: v[7], CPUNs: v[8]}}
	if len(v) == 12 {
		r.OpsM, r.M = v[9], profile.RampTime{Ns: v[10], CPUNs: v[11]}
	}
	s.Ramp.Rounds = append(s.Ramp.Rounds, r)
	return nil
}

func (p *summaryParser) rampStopped(l *summaryLine) error {
	s := p.s
	if err := l.need(1); err != nil {
		return err
	}
	if s.Ramp == nil {
		return l.bad("no ramp rounds before it")
	}
	s.Ramp.Stopped = unescape(l.f[0])
	return nil
}

func (p *summaryParser) rampNone(l *summaryLine) error {
	s := p.s
	if err := l.need(1); err != nil {
		return err
	}
	if s.Ramp == nil {
		s.Ramp = &profile.RampControl{}
	}
	s.Ramp.Skipped, s.Ramp.Rounds = unescape(l.f[0]), nil
	return nil
}

func (p *summaryParser) rampStack(l *summaryLine) error {
	s := p.s
	if err := l.need(3); err != nil {
		return err
	}
	n, err := strconv.ParseInt(l.f[1], 10, 64)
	if err != nil || n < 0 || l.f[0] != "A" && l.f[0] != "B" {
		return l.bad(fmt.Sprintf("copy %q, count %q", l.f[0], l.f[1]))
	}
	var frames []int
	if l.f[2] != "-" {
		for _, x := range strings.Split(l.f[2], ",") {
			v, err := strconv.Atoi(x)
			if err != nil {
				return l.bad(fmt.Sprintf("frame %q is not an integer", x))
			}
			frames = append(frames, v)
		}
	}
	if s.Ramp == nil {
		s.Ramp = &profile.RampControl{}
	}
	s.Ramp.Stacks = append(s.Ramp.Stacks, profile.RampStack{Copy: l.f[0], Count: n, Frames: frames})
	return nil
}

func (p *summaryParser) end(l *summaryLine) error {
	if err := l.need(1); err != nil {
		return err
	}
	n, err := strconv.Atoi(l.f[0])
	if err != nil || n != p.lines {
		return l.bad(fmt.Sprintf("the JVM wrote %s summary lines, %d arrived", l.f[0], p.lines))
	}
	p.ended = true
	return nil
}

// ReduceRecording reduces a flight recording file (for example one written
// with -XX:StartFlightRecording=filename=…) to its summary in a helper JVM.
// The build's classpath lets the reducer read the project's class files to
// tell calls inside loops from others. markedOnly keeps only the threads
// that ran perfls's iterations; otherwise every thread but the JVM's own.
func ReduceRecording(ctx context.Context, b *Build, jfr string, markedOnly bool) (*profile.Summary, error) {
	if b == nil {
		b = &Build{}
	}
	if _, err := os.Stat(jfr); err != nil {
		return nil, fmt.Errorf("reduce recording: %w", err)
	}
	j, err := findJDK(ctx)
	if err != nil {
		return nil, fmt.Errorf("reduce recording: %w", err)
	}
	cp, err := runtimeClasspath(ctx, j, b)
	if err != nil {
		return nil, fmt.Errorf("reduce recording: %w", err)
	}
	threads := "--threads=all"
	if markedOnly {
		threads = "--threads=marked"
	}
	cmd, err := trust.LongCommand(ctx, j.java, "-Xmx512m", "-cp", strings.Join(cp, string(os.PathListSeparator)),
		"dev.perfls.internal.JfrSummary", threads, jfr)
	if err != nil {
		return nil, fmt.Errorf("reduce recording: %w", err)
	}
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("reduce recording: %w", err)
	}
	inOwnProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("reduce recording: start %s: %w", j.java, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = killProcessGroup(cmd.Process.Pid) })
	sum, perr := ParseSummary(out)
	_, _ = io.Copy(io.Discard, out) // let the JVM finish writing
	werr := cmd.Wait()
	stop()
	_ = killProcessGroup(cmd.Process.Pid)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if perr != nil {
		if werr != nil {
			return nil, fmt.Errorf("reduce recording %s: %w (%v; %s)", jfr, perr, werr, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("reduce recording %s: %w", jfr, perr)
	}
	return sum, nil
}
