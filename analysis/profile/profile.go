package profile

import (
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/methodspec"
)

// Target names the measured method, as measured.Resolved does: Class is the
// binary name, Params the canonical Java source names of the parameter
// types ("int[]", "java.lang.String", "a.Outer.Inner"); nil Params match
// any overload (matched by methodspec's rule, as every method name is).
// The zero Target means "the whole region".
type Target struct {
	Class  string
	Name   string
	Params []string
}

// IsZero reports whether t names no method.
func (t Target) IsZero() bool { return t.Class == "" && t.Name == "" }

func (t Target) String() string {
	if t.IsZero() {
		return ""
	}
	if t.Params == nil {
		return t.Class + "#" + t.Name
	}
	return t.Class + "#" + t.Name + "(" + strings.Join(t.Params, ",") + ")"
}

// matches tells whether a recorded method (its JVM descriptor read as
// source types) is the target, by methodspec's rule.
func (t Target) matches(m Method) bool {
	params, ok := ParamTypes(m.Descriptor)
	if !ok && t.Params != nil {
		return false
	}
	spec := methodspec.Spec{Class: t.Class, Name: t.Name, Params: t.Params}
	return spec.Matches(m.Class + "#" + m.Name + "(" + strings.Join(params, ",") + ")")
}

// Location is a place in the source: the method (as perfls names methods,
// "pkg.C#m(int[],java.lang.String)") and, for project code, its file and
// line. Library frames have no file.
type Location struct {
	Method string `json:"method"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
}

func (l Location) String() string {
	switch {
	case l.File != "" && l.Line > 0:
		return shortFile(l.File) + ":" + itoa(l.Line)
	case l.Line > 0:
		return l.Method + ":" + itoa(l.Line)
	}
	return l.Method
}

// Profile is a summary attributed to source declarations, for one measured
// method (its Target). It is immutable and safe for concurrent use.
type Profile struct {
	s      *Summary
	attr   *attribution
	target Target
	// views[i] describes s.Stacks[i].
	views []stackView
	// marked holds the threads that ran the measured iterations.
	marked map[int64]bool
	// cpuByThread counts execution samples per thread.
	cpuByThread map[int64]int64
	// allocPerSample is the bytes one allocation sample stands for, per
	// thread (all measuring threads share one figure): the thread's
	// allocation — exact for the measuring threads when the iterations
	// carry it, else the sum of its samples' weights — over its number of
	// samples. A sample's own weight (the bytes since the thread's previous
	// emitted sample) is too uneven to split bytes between sites: with
	// throttling, one sample can carry hundreds of megabytes. Samples are
	// taken at allocations that cross a TLAB's end, so their counts follow
	// the bytes each site allocates.
	allocPerSample map[int64]float64
	// allocCalibrated is true when the exact allocation was used.
	allocCalibrated bool
}

// stackView is where a stack meets the project and the target.
type stackView struct {
	// site is the position (in Stack.Frames) of the innermost project frame,
	// -1 when the stack has none: library and JDK frames above it are
	// folded into it for allocation sites.
	site int
	// target is the position of the outermost frame of the target method,
	// -1 when the stack does not pass through it; with a zero Target, the
	// position of the outermost project frame.
	target int
}

// New attributes the summary to the declarations (see Declaration) for the
// measured method target. It returns an error when the summary is damaged.
func New(s *Summary, decls []Declaration, target Target) (*Profile, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	p := &Profile{s: s, attr: attribute(s, decls), target: target,
		marked: map[int64]bool{}, cpuByThread: map[int64]int64{}}
	for _, th := range s.Threads {
		if th.Marked {
			p.marked[th.ID] = true
		}
	}
	isTarget := make([]bool, len(s.Methods))
	for i, m := range s.Methods {
		isTarget[i] = !target.IsZero() && target.matches(m)
	}
	p.allocPerSample = map[int64]float64{}
	exact := 0.0
	for _, it := range s.Iterations {
		if it.AllocBytes < 0 {
			exact = -1
			break
		}
		exact += float64(it.AllocBytes)
	}
	weights, counts := map[int64]float64{}, map[int64]float64{}
	const measuring = -1 << 62 // the key of all measuring threads together
	for _, st := range s.Stacks {
		if st.Kind != KindAlloc {
			continue
		}
		k := st.Thread
		if p.marked[k] {
			k = measuring
		}
		weights[k] += float64(st.Weight)
		counts[k] += float64(st.Count)
	}
	for k, c := range counts {
		if c == 0 {
			continue
		}
		w := weights[k]
		if k == measuring && exact > 0 {
			w, p.allocCalibrated = exact, true
		}
		p.allocPerSample[k] = w / c
	}
	for t := range p.marked {
		p.allocPerSample[t] = p.allocPerSample[measuring]
	}
	p.views = make([]stackView, len(s.Stacks))
	for i, st := range s.Stacks {
		v := stackView{site: -1, target: -1}
		for pos, fi := range st.Frames {
			m := s.Frames[fi].Method
			if v.site < 0 && p.attr.project[m] {
				v.site = pos
			}
			if target.IsZero() {
				if p.attr.project[m] {
					v.target = pos
				}
			} else if isTarget[m] {
				v.target = pos
			}
		}
		p.views[i] = v
		if st.Kind == KindCPU {
			p.cpuByThread[st.Thread] += st.Count
		}
	}
	return p, nil
}

// Summary returns the profile's summary.
func (p *Profile) Summary() *Summary { return p.s }

// Target returns the measured method.
func (p *Profile) Target() Target { return p.target }

// location returns where frame fi is in the source.
func (p *Profile) location(fi int) Location {
	f := p.s.Frames[fi]
	m := p.s.Methods[f.Method]
	loc := Location{Method: m.MethodName(), Line: max(f.Line, 0)}
	if d := p.attr.frameDecl[fi]; d >= 0 {
		decl := p.attr.decls[d]
		loc.File = decl.File
		if p.attr.methodDecl[f.Method] != d {
			// A lambda body or other compiler-made method: name the declaration
			// the user wrote around it.
			loc.Method = decl.Class + "#" + decl.Method + "(" + strings.Join(decl.Params, ",") + ")"
		}
		if loc.Line == 0 {
			loc.Line = decl.NameLine
		}
	} else if p.attr.project[f.Method] {
		loc.File = p.attr.classFile[f.Method]
	}
	return loc
}

// project reports whether frame fi is project code.
func (p *Profile) project(fi int) bool { return p.attr.project[p.s.Frames[fi].Method] }

// targetLocation is the target's declaration (file and name line), or just
// its name when it has none.
func (p *Profile) targetLocation() Location {
	if p.target.IsZero() {
		return Location{}
	}
	for mi, m := range p.s.Methods {
		if p.target.matches(m) {
			loc := Location{Method: m.MethodName()}
			if d := p.attr.methodDecl[mi]; d >= 0 {
				loc.File, loc.Line = p.attr.decls[d].File, p.attr.decls[d].NameLine
			} else if p.attr.project[mi] {
				loc.File = p.attr.classFile[mi]
			}
			return loc
		}
	}
	return Location{Method: p.target.String()}
}

// samples returns the execution samples in the region.
func (p *Profile) samples() int64 {
	var n int64
	for _, st := range p.s.Stacks {
		if st.Kind == KindCPU {
			n += st.Count
		}
	}
	return n
}

// segmentOps returns the operations and wall time of each segment of
// iterations (iteration i is in segment i·K/n, as the summary splits them).
func (p *Profile) segmentOps() (ops, ns []float64) {
	k := p.s.Segments
	ops, ns = make([]float64, k), make([]float64, k)
	n := len(p.s.Iterations)
	for i, it := range p.s.Iterations {
		seg := i * k / n
		ops[seg] += float64(it.Ops)
		ns[seg] += float64(it.Ns)
	}
	return ops, ns
}

// counter accumulates weights by location, keeping the first-seen order for
// stable ties.
type counter[K comparable] struct {
	order []K
	w     map[K]float64
}

func (c *counter[K]) add(k K, w float64) {
	if c.w == nil {
		c.w = map[K]float64{}
	}
	if _, ok := c.w[k]; !ok {
		c.order = append(c.order, k)
	}
	c.w[k] += w
}

// sorted returns the keys by descending weight.
func (c *counter[K]) sorted() []K {
	out := append([]K(nil), c.order...)
	sort.SliceStable(out, func(i, j int) bool { return c.w[out[i]] > c.w[out[j]] })
	return out
}

// top returns the key with the largest weight.
func (c *counter[K]) top() (K, float64) {
	var best K
	bw := -1.0
	for _, k := range c.order {
		if c.w[k] > bw {
			best, bw = k, c.w[k]
		}
	}
	return best, bw
}
