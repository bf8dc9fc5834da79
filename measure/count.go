package measure

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/classfile"
	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/internal/diskfull"
)

// Counting forks: how often each project method runs per operation. perfls
// compiles a copy of the project's sources in which every method and
// constructor body starts with a call $perflsHit(ID) of
// dev.perfls.internal.Counts (after an explicit this()/super() call;
// javasrc.EntryPoints), inserted on the line of the body's '{' so that line
// numbers stay those of the sources. The method comes in by a static import
// on the package declaration's line: a qualified call would not compile
// where a field or variable named dev hides the package, and a name with a
// '$' is one that the project's own methods do not shadow.
// A fork of that copy (Options.Count) runs the workload like a timing fork,
// with a short warm-up, and reads the atomic counters around every measured
// sample: the generator's calls and the warm-up's never count. Counts per
// operation are the sampled totals divided by the sampled operations. The
// counters slow the code down, so a counting fork's timings are never used;
// it is a fork of its own, apart from the timing and profiled forks
// (docs/models.md).

// CountDefaults are the options of a counting fork unless told otherwise:
// 5 samples of at least 10 ms after 200 to 500 ms of warm-up (enough for
// lazily initialised state to settle; counts need no settled JIT, so the
// warm-up is not held open for it).
func CountDefaults() Options {
	return Options{Forks: 1, SamplesPerFork: 5, MinSampleTime: 10 * time.Millisecond, Warmup: 200 * time.Millisecond,
		MaxWarmup: 500 * time.Millisecond, ForkTimeout: 2 * time.Minute}
}

// forkCounts are a counting fork's perfls-count lines.
type forkCounts struct {
	opsPerSample, samples int64
	byID                  map[int][3]int64 // total, smallest and largest per sample
}

// countedMethod is one counter of an instrumented copy: a method's
// invocations, or (Loop) the passes through one of its loops' bodies.
type countedMethod struct {
	Class  string   `json:"class"`
	Name   string   `json:"name"`
	Params []string `json:"params"` // erased, as declared
	Method string   `json:"method"` // the name CallCount reports
	Loop   bool     `json:"loop,omitempty"`
}

// CountCalls runs one counting fork of req on an instrumented copy of the
// project p built as b (compiled once per state of the sources, under
// b.CacheDir/count) and returns the calls per operation of every project
// method that ran in the measured samples, most frequent first. opt's
// zero fields take CountDefaults' values; Forks is 1.
func CountCalls(ctx context.Context, p *Project, b *Build, req measured.Request, opt Options) (*measured.CallCounts, error) {
	classes, methods, err := instrumentedClasses(ctx, p, b)
	if err != nil {
		return nil, fmt.Errorf("counting fork of %s: %w", req.Key(), err)
	}
	opt = opt.Fill(CountDefaults())
	opt.Forks, opt.Count, opt.Profile = 1, true, false
	opt.JVMArgs = append([]string{"-Dperfls.count.size=" + strconv.Itoa(len(methods))}, opt.JVMArgs...)
	// The harness is compiled against the project's own classes, as for
	// timing forks (the same cached class), and runs with the copy first.
	rb := *b
	rb.runFirst = []string{classes}
	var counts *forkCounts
	rb.onCounts = func(fc *forkCounts) { counts = fc }
	res, err := Measure(ctx, &rb, []measured.Request{req}, opt, nil)
	if err != nil {
		return nil, err
	}
	r := res[0]
	if r.Err != nil {
		return nil, r.Err
	}
	if len(r.Forks) != 1 || counts == nil {
		return nil, fmt.Errorf("counting fork of %s: the fork reported no counts", req.Key())
	}
	return callCounts(counts, methods)
}

// callCounts turns a fork's counters into counts per operation.
func callCounts(fc *forkCounts, methods []countedMethod) (*measured.CallCounts, error) {
	ops := fc.opsPerSample * fc.samples
	if ops <= 0 {
		return nil, errors.New("counting fork: no operations were counted")
	}
	out := &measured.CallCounts{Ops: ops, LoopsCounted: true}
	loops := map[string]*measured.CallCount{}
	for id, c := range fc.byID {
		if id >= len(methods) {
			return nil, fmt.Errorf("counting fork: counter %d of %d", id, len(methods))
		}
		cc := measured.CallCount{Method: methods[id].Method, PerOp: float64(c[0]) / float64(ops), Varies: c[1] != c[2]}
		if !methods[id].Loop {
			out.Calls = append(out.Calls, cc)
			continue
		}
		if l := loops[cc.Method]; l != nil {
			l.PerOp, l.Varies = l.PerOp+cc.PerOp, l.Varies || cc.Varies
		} else {
			loops[cc.Method] = &cc
		}
	}
	for _, l := range loops {
		out.Loops = append(out.Loops, *l)
	}
	for _, cs := range [][]measured.CallCount{out.Calls, out.Loops} {
		sort.Slice(cs, func(i, j int) bool {
			a, b := cs[i], cs[j]
			if a.PerOp != b.PerOp {
				return a.PerOp > b.PerOp
			}
			return a.Method < b.Method
		})
	}
	return out, nil
}

// countHit is the statement inserted at a body's entry, countImport the
// import it needs.
func countHit(id int) string { return "$perflsHit(" + strconv.Itoa(id) + ");" }

const countImport = " import static dev.perfls.internal.Counts.$perflsHit; "

// instrumentSource inserts a counter at the entry of every method and
// constructor body of one file, and one at the start of every loop body
// inside them (a body that is a single statement is wrapped in braces, on
// its own lines), numbering from first, and returns the new text and the
// counters in ID order.
func instrumentSource(ctx context.Context, path string, src []byte, first int) ([]byte, []countedMethod, error) {
	f, err := javasrc.ParseContext(ctx, path, src)
	if err != nil {
		return nil, nil, err
	}
	eps, importAt, err := javasrc.EntryPoints(ctx, src)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	loops, err := javasrc.LoopBodies(ctx, src)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	byStart := map[int]*javasrc.Method{}
	for _, m := range f.Methods {
		if m.Type != nil && m.Type.BinaryName != "" {
			byStart[m.Span.Start] = m
		}
	}
	type insertion struct {
		at   int
		text string
	}
	var ins []insertion
	var ms []countedMethod
	counter := func(decl int, loop bool) (string, bool) {
		m := byStart[decl]
		if m == nil {
			return "", false // not in the model (a method outside every type)
		}
		params := make([]string, len(m.Params))
		for i, p := range m.Params {
			params[i] = p.Erased
		}
		ms = append(ms, countedMethod{Class: m.Type.BinaryName, Name: m.Name, Params: params, Loop: loop})
		return countHit(first + len(ms) - 1), true
	}
	for _, e := range eps {
		if hit, ok := counter(e.Decl, false); ok {
			ins = append(ins, insertion{e.Offset, hit})
		}
	}
	for _, l := range loops {
		hit, ok := counter(l.Decl, true)
		switch {
		case !ok:
		case l.Close < 0:
			ins = append(ins, insertion{l.Offset, hit})
		default:
			ins = append(ins, insertion{l.Offset, "{" + hit}, insertion{l.Close, "}"})
		}
	}
	// In offset order; at one offset a closing brace (the end of an inner
	// statement) before anything that opens.
	sort.SliceStable(ins, func(i, j int) bool {
		if ins[i].at != ins[j].at {
			return ins[i].at < ins[j].at
		}
		return ins[i].text == "}" && ins[j].text != "}"
	})
	out := append(append([]byte(nil), src[:importAt]...), countImport...)
	last := importAt
	for _, in := range ins {
		out = append(append(out, src[last:in.at]...), in.text...)
		last = in.at
	}
	return append(out, src[last:]...), ms, nil
}

// instrumentedClasses compiles the instrumented copy of p's sources (once
// per state of the sources, classpath and JDK, like Compile) and returns
// its class directory, which runs before b's classpath (b's class
// directories then supply resources and classes not compiled from the
// sources), and the counted methods by ID.
func instrumentedClasses(ctx context.Context, p *Project, b *Build) (_ string, _ []countedMethod, err error) {
	if p == nil || b == nil {
		return "", nil, errors.New("no project")
	}
	j, err := findJDK(ctx)
	if err != nil {
		return "", nil, err
	}
	root, err := cacheRoot(b)
	if err != nil {
		return "", nil, err
	}
	defer func() { err = diskfull.Explain(root, err) }()
	lib, err := compileLibrary(ctx, j, root)
	if err != nil {
		return "", nil, err
	}
	orig := append([]string{b.ClassesDir}, b.ClassDirs...)
	depCP := append(append([]string{lib}, orig...), p.Classpath...)
	sum := sha256.Sum256([]byte(p.Dir))
	dir := filepath.Join(root, "count", hex.EncodeToString(sum[:])[:16])
	classes, namesFile, stampFile := filepath.Join(dir, "classes"), filepath.Join(dir, "methods.json"), filepath.Join(dir, "stamp")

	defer dirLocks.lock(dir)()
	stamp, err := buildStamp(j, p.javacFlags(), p.Dir, depCP, p.Sources)
	if err != nil {
		return "", nil, err
	}
	stamp = "perfls-count-v2\n" + stamp
	if old, err := os.ReadFile(stampFile); err == nil && string(old) == stamp {
		var ms []countedMethod
		if data, err := os.ReadFile(namesFile); err == nil && json.Unmarshal(data, &ms) == nil {
			touch(stampFile)
			return classes, ms, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	_ = os.Remove(stampFile)
	tmp, err := os.MkdirTemp(dir, "tmp-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	var ms []countedMethod
	var srcs []string
	for i, s := range p.Sources {
		if filepath.Base(s) == "module-info.java" {
			continue
		}
		data, err := os.ReadFile(s)
		if err != nil {
			return "", nil, err
		}
		text, fms, err := instrumentSource(ctx, s, data, len(ms))
		if err != nil {
			return "", nil, err
		}
		ms = append(ms, fms...)
		// One directory per file: javac needs the file's own name, and
		// two packages may have files of the same name.
		out := filepath.Join(tmp, "src", strconv.Itoa(i), filepath.Base(s))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return "", nil, err
		}
		if err := os.WriteFile(out, text, 0o644); err != nil {
			return "", nil, err
		}
		srcs = append(srcs, out)
	}
	if len(srcs) == 0 {
		return "", nil, errors.New("the project has no sources to instrument")
	}
	built := filepath.Join(tmp, "classes")
	if err := runJavac(ctx, j, built, depCP, srcs, p.javacFlags()); err != nil {
		var ce *CompileError
		if errors.As(err, &ce) {
			return "", nil, fmt.Errorf("the instrumented copy does not compile: %w", err)
		}
		return "", nil, err
	}
	nameCounted(built, ms)
	names, err := json.Marshal(ms)
	if err != nil {
		return "", nil, err
	}
	if err := os.RemoveAll(classes); err != nil {
		return "", nil, err
	}
	if err := os.Rename(built, classes); err != nil {
		return "", nil, err
	}
	if err := writeFileAtomic(namesFile, names); err != nil {
		return "", nil, err
	}
	if err := writeFileAtomic(stampFile, []byte(stamp)); err != nil {
		return "", nil, err
	}
	return classes, ms, nil
}

// nameCounted names every counted method as profiles do, from its class
// file in classes: the method of that name whose parameter types the
// declared ones name (profile.ParamsMatch), else the only one of that name
// and arity; failing both (an inner class's constructor, whose descriptor
// has the outer instance first) it keeps the types as declared.
func nameCounted(classes string, ms []countedMethod) {
	parsed := map[string]*classfile.Class{}
	for i := range ms {
		m := &ms[i]
		m.Method = m.Class + "#" + m.Name + "(" + strings.Join(m.Params, ",") + ")"
		c, ok := parsed[m.Class]
		if !ok {
			data, err := os.ReadFile(filepath.Join(classes, filepath.FromSlash(strings.ReplaceAll(m.Class, ".", "/"))+".class"))
			if err == nil {
				c, _ = classfile.Parse(data)
			}
			parsed[m.Class] = c
		}
		if c == nil {
			continue
		}
		var same []classfile.Method
		for _, cm := range c.Methods {
			if cm.Name == m.Name {
				same = append(same, cm)
			}
		}
		for _, cm := range same {
			if profile.ParamsMatch(m.Params, cm.Params) || len(same) == 1 && len(cm.Params) == len(m.Params) {
				m.Method = m.Class + "#" + m.Name + "(" + strings.Join(cm.Params, ",") + ")"
				break
			}
		}
	}
}
