package profile

import (
	"sort"
	"strings"
)

// Report is where the time and the memory of a profiled method go, and
// what looks wrong. It is what `perfls profile --format json` prints
// (report.WriteJSON adds the format_version all documents share).
type Report struct {
	// Preliminary marks a quick profile from the warm worker JVM (see
	// MarkPreliminary): a first look, never evidence.
	Preliminary bool `json:"preliminary,omitempty"`
	// Method is the measured method; "" when the profile is of the whole
	// region.
	Method string `json:"method,omitempty"`
	// Samples are the execution samples in the measured region (all the
	// workload's threads); shares are fractions of them.
	Samples    int64   `json:"samples"`
	Ops        int64   `json:"ops"`
	Iterations int     `json:"iterations"`
	NsPerOp    float64 `json:"ns_per_op"`
	// BytesPerOp is the allocation per operation: the measuring thread's
	// exact allocation when the harness measured it (AllocCalibrated), plus
	// other threads' estimated from their allocation samples; 0 when the
	// JVM recorded none (AllocSource "none"). Allocation sites split it in
	// proportion to their samples.
	BytesPerOp      float64 `json:"bytes_per_op"`
	AllocSource     string  `json:"alloc_source"`
	AllocCalibrated bool    `json:"alloc_calibrated"`
	// Hot lists project lines by their self samples, descending: the
	// samples executing the line itself or library code it called (JDK and
	// library frames are folded into the nearest project frame). OwnShare
	// counts only the line itself.
	Hot []Hot `json:"hot"`
	// HotLibrary lists JDK and library lines by their own samples, each
	// with the project line it was reached from most often.
	HotLibrary []LibraryHot `json:"hot_library"`
	// Allocations lists allocation sites (library frames folded into the
	// nearest project frame) by bytes per operation, descending.
	Allocations []Allocation `json:"allocations"`
	// Blocking lists where threads blocked or waited, by kind, class and
	// site, by time per operation, descending.
	Blocking []Blocking `json:"blocking"`
	// IterationNsPerOp is the wall time per operation of each measured
	// iteration, in order.
	IterationNsPerOp []float64 `json:"iteration_ns_per_op"`
	// GC is the garbage collection in the region; CPULoad the JVM's and the
	// machine's mean CPU load (fractions; -1 unknown): a busy machine makes
	// wall times noisy.
	GC       ReportGC      `json:"gc"`
	CPULoad  ReportCPULoad `json:"cpu_load"`
	Findings []Finding     `json:"findings"`
	// NotComparable lists methods a comparison could not judge because a
	// baseline lacks them (see Compare).
	NotComparable []NotComparable `json:"not_comparable,omitempty"`
	// Notes explain figures that are missing or uncertain.
	Notes []string `json:"notes,omitempty"`
}

// ReportGC is the garbage collection during the measured region.
type ReportGC struct {
	Count        int64   `json:"count"`
	PauseNsPerOp float64 `json:"pause_ns_per_op"`
}

// ReportCPULoad is the mean CPU load during the measured region.
type ReportCPULoad struct {
	JVM     float64 `json:"jvm"`
	Machine float64 `json:"machine"`
}

// Hot is one project line's share of the region's execution samples.
type Hot struct {
	Location
	Share    float64 `json:"share"`
	OwnShare float64 `json:"own_share"`
	Samples  int64   `json:"samples"`
	// NsPerOp is Share times the wall time per operation: the part of each
	// operation spent here (for a multi-threaded workload, the wall time
	// divided in proportion to samples).
	NsPerOp float64 `json:"ns_per_op"`
}

// LibraryHot is one JDK or library line's share of the samples.
type LibraryHot struct {
	Location
	Share   float64 `json:"share"`
	Samples int64   `json:"samples"`
	// Via is the project line these samples were reached from most often;
	// nil when none (JVM or harness code).
	Via *Location `json:"via,omitempty"`
}

// Allocation is one allocation site.
type Allocation struct {
	Location
	BytesPerOp float64 `json:"bytes_per_op"`
	Share      float64 `json:"share"` // of all allocated bytes
	// TopClass is the class allocated most (by bytes) here: "java.lang.Long",
	// "byte[]".
	TopClass        string  `json:"top_class"`
	BoxedBytesPerOp float64 `json:"boxed_bytes_per_op,omitempty"`
	// Project is false for the site of allocations no project frame led to.
	Project bool `json:"project"`
}

// Blocking is time spent blocked or waiting at one site.
type Blocking struct {
	Location
	Kind    string  `json:"kind"` // enter, wait, park, sleep, io
	Class   string  `json:"class,omitempty"`
	NsPerOp float64 `json:"ns_per_op"`
	Events  int64   `json:"events"`
	Threads int     `json:"threads"`
}

// Finding is one anti-pattern found, with its evidence. Kind is one of
// ramp, one-lane-bridge, excessive-allocation, circuitous-treasure-hunt,
// empty-semi-trucks, callee-grew.
type Finding struct {
	Kind string `json:"kind"`
	// Location is the line the finding is about (the call, the
	// synchronized block, the allocation, the scan).
	Location
	Message string `json:"message"`
	// Evidence holds the figures the decision rests on and the thresholds
	// it passed (numbers and strings; see each detector).
	Evidence map[string]any `json:"evidence"`
	// Related points at other lines that matter (the callee's hot line,
	// the measured method's declaration).
	Related []Related `json:"related,omitempty"`
}

// Related is a location with a note, for LSP relatedInformation.
type Related struct {
	Location
	Message string `json:"message"`
}

// Finding kinds.
const (
	FindingRamp          = "ramp"
	FindingOneLaneBridge = "one-lane-bridge"
	FindingAllocation    = "excessive-allocation"
	FindingTreasureHunt  = "circuitous-treasure-hunt"
	FindingSemiTrucks    = "empty-semi-trucks"
	FindingCalleeGrew    = "callee-grew"
)

// maxListed bounds the hot, allocation and blocking lists.
const maxListed = 20

// Report computes the figures and the single-profile findings (all but the
// comparison ones, see Compare) with thresholds th (zero fields take the
// defaults), without invocation counts: a treasure hunt is then not decided
// (a note says so; see ReportWithCounts).
func (p *Profile) Report(th Thresholds) *Report { return p.ReportWithCounts(th, nil) }

// ReportWithCounts is Report with the invocation counts at two or more sizes
// that decide a circuitous treasure hunt (NeedsCounts says whether any is
// to be decided); sc nil: none.
func (p *Profile) ReportWithCounts(th Thresholds, sc *Scaling) *Report {
	th = th.withDefaults()
	s := p.s
	r := &Report{Method: p.targetLocation().Method, Samples: p.samples(),
		Ops: s.Ops(), Iterations: len(s.Iterations), NsPerOp: s.NsPerOp(), AllocSource: s.Alloc,
		Hot: []Hot{}, HotLibrary: []LibraryHot{}, Allocations: []Allocation{}, Blocking: []Blocking{},
		IterationNsPerOp: []float64{}, Findings: []Finding{}, AllocCalibrated: p.allocCalibrated}
	for _, it := range s.Iterations {
		if it.Ops > 0 {
			r.IterationNsPerOp = append(r.IterationNsPerOp, float64(it.Ns)/float64(it.Ops))
		}
	}
	if r.AllocSource == "" {
		r.AllocSource = "none"
	}
	r.GC = ReportGC{Count: s.GC.Count, PauseNsPerOp: float64(s.GC.PauseNs) / float64(max(r.Ops, 1))}
	r.CPULoad = ReportCPULoad{JVM: -1, Machine: s.CPU.Machine}
	if s.CPU.JVMUser >= 0 && s.CPU.JVMSystem >= 0 {
		r.CPULoad.JVM = s.CPU.JVMUser + s.CPU.JVMSystem
	}
	p.hot(r)
	p.allocations(r)
	p.blocking(r)
	if r.Ops == 0 {
		r.Notes = append(r.Notes, "no measured iterations: per-operation figures are missing")
	}
	if r.Samples < th.MinSamples {
		r.Notes = append(r.Notes, "only "+itoa(int(r.Samples))+" execution samples (fewer than "+itoa(int(th.MinSamples))+"): call-tree findings are skipped; profile a longer region")
	}
	if s.Truncated > 0 {
		r.Notes = append(r.Notes, itoa(int(s.Truncated))+" stacks were cut at the recording's depth limit; raise -XX:FlightRecorderOptions=stackdepth")
	}
	ramp, note := p.findRamp(th)
	r.Findings = append(r.Findings, ramp...)
	if note != "" {
		r.Notes = append(r.Notes, note)
	}
	r.Findings = append(r.Findings, p.findOneLaneBridge(th)...)
	r.Findings = append(r.Findings, p.findAllocation(th, r)...)
	hunts, notes := p.findTreasureHunt(th, sc)
	r.Findings = append(r.Findings, hunts...)
	r.Notes = append(r.Notes, notes...)
	r.Findings = append(r.Findings, p.findSemiTrucks(th)...)
	return r
}

// MarkPreliminary marks r as a quick profile from the warm worker JVM: a
// JVM that has run other requests, with a short warm-up and few
// iterations. Its ramp findings are left out (a time series of 10 short
// iterations after a short warm-up in a shared JVM says little about a
// fork's; the forked profile looks for it) and a note says so.
func (r *Report) MarkPreliminary() {
	r.Preliminary = true
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		if f.Kind != FindingRamp {
			kept = append(kept, f)
		}
	}
	r.Findings = kept
	notes := r.Notes[:0]
	for _, n := range r.Notes {
		if !strings.HasPrefix(n, "ramp not ") {
			notes = append(notes, n) // the note below says why
		}
	}
	r.Notes = append(notes, "preliminary: a quick profile in the warm worker JVM (short warm-up, 10 iterations, a JVM shared with other requests); ramps are not looked for here — the forked profile is the one to trust")
}

func (p *Profile) hot(r *Report) {
	total := float64(r.Samples)
	if total == 0 {
		return
	}
	var self, own counter[Location]
	var lib counter[Location]
	via := map[Location]*counter[Location]{}
	for i, st := range p.s.Stacks {
		if st.Kind != KindCPU || len(st.Frames) == 0 {
			continue
		}
		v := p.views[i]
		c := float64(st.Count)
		var site Location
		if v.site >= 0 {
			site = p.location(st.Frames[v.site])
			self.add(site, c)
			if v.site == 0 {
				own.add(site, c)
			}
		}
		if !p.project(st.Frames[0]) {
			top := p.location(st.Frames[0])
			lib.add(top, c)
			if v.site >= 0 {
				if via[top] == nil {
					via[top] = &counter[Location]{}
				}
				via[top].add(site, c)
			}
		}
	}
	for _, loc := range self.sorted() {
		if len(r.Hot) == maxListed {
			break
		}
		share := self.w[loc] / total
		r.Hot = append(r.Hot, Hot{Location: loc, Share: share, OwnShare: own.w[loc] / total,
			Samples: int64(self.w[loc]), NsPerOp: share * r.NsPerOp})
	}
	for _, loc := range lib.sorted() {
		if len(r.HotLibrary) == maxListed {
			break
		}
		h := LibraryHot{Location: loc, Share: lib.w[loc] / total, Samples: int64(lib.w[loc])}
		if c := via[loc]; c != nil {
			v, _ := c.top()
			h.Via = &v
		}
		r.HotLibrary = append(r.HotLibrary, h)
	}
}

// allocSite aggregates one allocation site.
type allocSite struct {
	bytes, boxed, objects float64
	classes               counter[string]
	project               bool
}

// allocSites aggregates allocation samples by site (the nearest project
// frame; the top frame when there is none).
func (p *Profile) allocSites() (sites map[Location]*allocSite, order []Location, total float64) {
	sites = map[Location]*allocSite{}
	for i, st := range p.s.Stacks {
		if st.Kind != KindAlloc {
			continue
		}
		v := p.views[i]
		var loc Location
		switch {
		case v.site >= 0:
			loc = p.location(st.Frames[v.site])
		case len(st.Frames) > 0:
			loc = p.location(st.Frames[0])
		default:
			loc = Location{Method: "(no stack)"}
		}
		a := sites[loc]
		if a == nil {
			a = &allocSite{project: v.site >= 0}
			sites[loc] = a
			order = append(order, loc)
		}
		w := float64(st.Count) * p.allocPerSample[st.Thread]
		a.bytes += w
		cls := javaTypeName(st.Class)
		a.classes.add(cls, w)
		if boxedTypes[cls] {
			a.boxed += w
		}
		if !strings.HasSuffix(cls, "[]") {
			a.objects += w
		}
		total += w
	}
	return sites, order, total
}

func (p *Profile) allocations(r *Report) {
	sites, order, total := p.allocSites()
	if total == 0 {
		return
	}
	ops := float64(max(r.Ops, 1))
	r.BytesPerOp = total / ops
	sort.SliceStable(order, func(i, j int) bool { return sites[order[i]].bytes > sites[order[j]].bytes })
	for _, loc := range order {
		if len(r.Allocations) == maxListed {
			break
		}
		a := sites[loc]
		cls, _ := a.classes.top()
		r.Allocations = append(r.Allocations, Allocation{Location: loc, BytesPerOp: a.bytes / ops, Share: a.bytes / total,
			TopClass: cls, BoxedBytesPerOp: a.boxed / ops, Project: a.project})
	}
}

// blockKey identifies one blocking site.
type blockKey struct {
	kind, class string
	loc         Location
}

func (p *Profile) blocking(r *Report) {
	var ns, events counter[blockKey]
	threads := map[blockKey]map[int64]bool{}
	for i, st := range p.s.Stacks {
		if !isBlocking(st.Kind) {
			continue
		}
		v := p.views[i]
		var loc Location
		switch {
		case v.site >= 0:
			loc = p.location(st.Frames[v.site])
		case len(st.Frames) > 0:
			loc = p.location(st.Frames[0])
		}
		k := blockKey{kind: st.Kind, class: st.Class, loc: loc}
		ns.add(k, float64(st.Weight))
		events.add(k, float64(st.Count))
		if threads[k] == nil {
			threads[k] = map[int64]bool{}
		}
		threads[k][st.Thread] = true
	}
	ops := float64(max(r.Ops, 1))
	for _, k := range ns.sorted() {
		if len(r.Blocking) == maxListed {
			break
		}
		r.Blocking = append(r.Blocking, Blocking{Location: k.loc, Kind: k.kind, Class: k.class,
			NsPerOp: ns.w[k] / ops, Events: int64(events.w[k]), Threads: len(threads[k])})
	}
}

func isBlocking(kind string) bool {
	switch kind {
	case KindEnter, KindWait, KindPark, KindSleep, KindIO:
		return true
	}
	return false
}

var boxedTypes = map[string]bool{
	"java.lang.Integer": true, "java.lang.Long": true, "java.lang.Short": true, "java.lang.Byte": true,
	"java.lang.Character": true, "java.lang.Float": true, "java.lang.Double": true, "java.lang.Boolean": true,
}

// javaTypeName turns a class name as the JVM reports it ("[Ljava.lang.Object;",
// "[I", "java.lang.Long") into a Java source name ("java.lang.Object[]",
// "int[]", "java.lang.Long").
func javaTypeName(name string) string {
	if !strings.HasPrefix(name, "[") {
		return name
	}
	d := strings.ReplaceAll(name, ".", "/")
	if t, n := fieldType(d); n == len(d) {
		return t
	}
	return name
}
