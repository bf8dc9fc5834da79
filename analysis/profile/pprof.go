package profile

import (
	"strings"

	pprof "github.com/google/pprof/profile"
)

// Pprof converts the profile to pprof's model, so that existing viewers
// (go tool pprof, speedscope, IDE plug-ins) open it; write it with its
// Write method (gzipped protocol buffer). Every stack becomes one sample
// with five values — samples (count), cpu (nanoseconds: samples × the
// sampling period), alloc_space (bytes, estimated as for Report's
// allocation sites), blocked (nanoseconds) and
// blocked_events (count) — of which only those of its kind are non-zero;
// labels "kind" and "class" and the numeric label "thread" tell them apart.
// Each frame is one location with one line, in the function perfls names
// ("pkg.C#m(int[])") and the project file it is declared in (for library
// code, the path its class would have: "java/util/ArrayList.java").
func (p *Profile) Pprof() *pprof.Profile {
	s := p.s
	out := &pprof.Profile{
		SampleType: []*pprof.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "cpu", Unit: "nanoseconds"},
			{Type: "alloc_space", Unit: "bytes"},
			{Type: "blocked", Unit: "nanoseconds"},
			{Type: "blocked_events", Unit: "count"},
		},
		DefaultSampleType: "cpu",
		PeriodType:        &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            max(s.PeriodNs, 0),
		DurationNanos:     s.WindowNs,
	}
	if t := p.targetLocation().Method; t != "" {
		out.Comments = append(out.Comments, "perfls profile of "+t)
	}
	period := int64(p.periodNs())
	funcs := map[Location]*pprof.Function{}
	locs := make([]*pprof.Location, len(s.Frames))
	for fi, f := range s.Frames {
		loc := p.location(fi)
		key := Location{Method: loc.Method, File: loc.File}
		fn := funcs[key]
		if fn == nil {
			m := s.Methods[f.Method]
			file := loc.File
			if file == "" {
				file = classFile(m.Class)
			}
			fn = &pprof.Function{ID: uint64(len(out.Function) + 1), Name: loc.Method,
				SystemName: m.Class + "." + m.Name + m.Descriptor, Filename: file}
			if d := p.attr.frameDecl[fi]; d >= 0 {
				fn.StartLine = int64(p.attr.decls[d].StartLine)
			}
			funcs[key] = fn
			out.Function = append(out.Function, fn)
		}
		l := &pprof.Location{ID: uint64(fi + 1), Line: []pprof.Line{{Function: fn, Line: int64(max(loc.Line, 0))}}}
		locs[fi] = l
		out.Location = append(out.Location, l)
	}
	for _, st := range s.Stacks {
		v := make([]int64, 5)
		switch {
		case st.Kind == KindCPU || st.Kind == KindNative:
			v[0], v[1] = st.Count, st.Count*period
		case st.Kind == KindAlloc:
			v[2] = int64(float64(st.Count) * p.allocPerSample[st.Thread]) // as Report's allocation sites
		case isBlocking(st.Kind):
			v[3], v[4] = st.Weight, st.Count
		default:
			continue
		}
		sample := &pprof.Sample{Value: v, Label: map[string][]string{"kind": {st.Kind}},
			NumLabel: map[string][]int64{"thread": {st.Thread}}}
		if st.Class != "" {
			sample.Label["class"] = []string{javaTypeName(st.Class)}
		}
		for _, fi := range st.Frames {
			sample.Location = append(sample.Location, locs[fi])
		}
		out.Sample = append(out.Sample, sample)
	}
	return out
}

// classFile is the source path a top-level class's file would have.
func classFile(class string) string {
	if i := strings.IndexByte(class, '$'); i >= 0 {
		class = class[:i]
	}
	return strings.ReplaceAll(class, ".", "/") + ".java"
}
