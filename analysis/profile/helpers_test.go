package profile

import (
	"fmt"
	"testing"
)

// builder makes synthetic summaries for the detector tests.
type builder struct {
	s       *Summary
	methods map[string]int
	frames  map[string]int
}

func newBuilder() *builder {
	return &builder{s: &Summary{Version: SummaryVersion, PeriodNs: 1_000_000, Segments: 4, Alloc: "sample",
		GC: GC{HeapAfterFirst: -1, HeapAfterLast: -1}}, methods: map[string]int{}, frames: map[string]int{}}
}

// frame returns the id of the frame at line/bci of class.name(desc), with
// inLoop 1, 0 or -1.
func (b *builder) frame(class, name, desc string, line, bci, inLoop int) int {
	mk := class + "." + name + desc
	m, ok := b.methods[mk]
	if !ok {
		m = len(b.s.Methods)
		b.methods[mk] = m
		b.s.Methods = append(b.s.Methods, Method{Class: class, Name: name, Descriptor: desc})
	}
	fk := fmt.Sprintf("%d:%d:%d", m, line, bci)
	f, ok := b.frames[fk]
	if !ok {
		f = len(b.s.Frames)
		b.frames[fk] = f
		b.s.Frames = append(b.s.Frames, Frame{Method: m, Line: line, BCI: bci, InLoop: inLoop})
	}
	return f
}

// stack adds a stack (frames innermost first) with its weight spread evenly
// over the segments.
func (b *builder) stack(kind, class string, thread, count, weight int64, frames ...int) {
	segs := make([]int64, b.s.Segments)
	for i := range segs {
		segs[i] = weight / int64(len(segs))
	}
	segs[len(segs)-1] += weight - weight/int64(len(segs))*int64(len(segs))
	b.s.Stacks = append(b.s.Stacks, Stack{Kind: kind, Class: class, Thread: thread, Count: count, Weight: weight,
		Segments: segs, Frames: frames})
}

// iterations adds iterations of 1000 operations with the given ns/op.
func (b *builder) iterations(nsPerOp ...float64) {
	var start int64
	for _, v := range nsPerOp {
		ns := int64(v * 1000)
		b.s.Iterations = append(b.s.Iterations, Iteration{Ns: ns, Ops: 1000, StartNs: start, CPUNs: -1, AllocBytes: -1})
		start += ns
	}
	b.s.WindowNs = start
}

func (b *builder) thread(id int64, name string, marked bool) {
	b.s.Threads = append(b.s.Threads, Thread{ID: id, Name: name, Marked: marked})
}

// flat returns n iterations at ns/op v.
func flat(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// The harness frames every stack of the synthetic profiles sits on.
func (b *builder) harness() int {
	return b.frame("pkg.PerflsHarness_1", "run", "(JLdev/perfls/internal/Blackhole;)V", 40, 12, 1)
}

func mustNew(t *testing.T, s *Summary, decls []Declaration, target Target) *Profile {
	t.Helper()
	p, err := New(s, decls, target)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// kinds returns the kinds of the findings.
func kinds(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func findingOf(fs []Finding, kind string) *Finding {
	for i := range fs {
		if fs[i].Kind == kind {
			return &fs[i]
		}
	}
	return nil
}
