package profile

import (
	"fmt"
	"math"
	"strings"
)

// findRamp: time per operation grows over the iterations (seed 003, "The
// Ramp"). The series is the measuring thread's CPU time per operation when
// it is known and the thread does not wait by design (its blocked and
// waiting time, from the recording, is under a quarter of the wall time):
// then the gap between wall and CPU time is preemption by other processes,
// which must not look like a ramp. Otherwise it is the wall time per
// operation. The finding points at the project line whose time per
// operation grew most from the first to the last segment of iterations.
func (p *Profile) findRamp(th Thresholds) []Finding {
	y, series := p.rampSeries()
	if len(y) < th.RampMinIterations {
		return nil
	}
	t, ok := trendOf(y)
	if !ok || t.P >= th.RampAlpha || t.Slope <= 0 {
		return nil
	}
	start := t.Intercept
	if start <= 0 {
		start = median(append([]float64(nil), y...))
	}
	growth := t.Slope * float64(len(y)-1) / start
	if !(growth >= th.RampMinGrowth) {
		return nil
	}
	loc, first, last := p.rampLine()
	if loc.Method == "" {
		loc = p.targetLocation()
	}
	ev := map[string]any{
		"series": series, "iterations": len(y), "mannKendallS": t.S, "z": round(t.Z, 3), "p": t.P,
		"slopeNsPerOpPerIteration": round(t.Slope, 3), "startNsPerOp": round(start, 3),
		"endNsPerOp": round(start+t.Slope*float64(len(y)-1), 3), "growth": round(growth, 4),
		"alpha": th.RampAlpha, "minGrowth": th.RampMinGrowth, "minIterations": th.RampMinIterations,
	}
	what := "time"
	if series == "cpu" {
		what = "CPU time"
	}
	msg := fmt.Sprintf("%s per operation grows over the run: %s → %s per operation over %d iterations (+%.0f %%, Mann–Kendall p = %.2g)",
		what, fmtNs(start), fmtNs(start+t.Slope*float64(len(y)-1)), len(y), 100*growth, t.P)
	if first >= 0 {
		ev["lineFirstNsPerOp"], ev["lineLastNsPerOp"] = round(first, 3), round(last, 3)
		msg += fmt.Sprintf("; this line went from %s to %s per operation — something it walks keeps growing", fmtNs(first), fmtNs(last))
	}
	f := Finding{Kind: FindingRamp, Location: loc, Message: msg, Evidence: ev}
	if tl := p.targetLocation(); tl.File != "" && tl != loc {
		f.Related = append(f.Related, Related{Location: tl, Message: "the measured method"})
	}
	return []Finding{f}
}

// rampSeries returns the per-iteration time per operation the ramp test
// uses and its name: "cpu" or "wall".
func (p *Profile) rampSeries() ([]float64, string) {
	var wall, cpu []float64
	var sumWall, sumCPU float64
	haveCPU := true
	for _, it := range p.s.Iterations {
		if it.Ops <= 0 {
			continue
		}
		wall = append(wall, float64(it.Ns)/float64(it.Ops))
		cpu = append(cpu, float64(it.CPUNs)/float64(it.Ops))
		sumWall += float64(it.Ns)
		sumCPU += float64(it.CPUNs)
		haveCPU = haveCPU && it.CPUNs >= 0
	}
	if haveCPU && sumWall > 0 && p.waitShare() < 0.25 {
		return cpu, "cpu"
	}
	return wall, "wall"
}

// rampLine returns the project line whose estimated time per operation grew
// most between the first and the last segment of iterations, and those two
// times; first is -1 when no line grew or there are too few samples.
func (p *Profile) rampLine() (Location, float64, float64) {
	k := p.s.Segments
	if k < 2 {
		return Location{}, -1, -1
	}
	ops, ns := p.segmentOps()
	if ops[0] == 0 || ops[k-1] == 0 {
		return Location{}, -1, -1
	}
	totals := make([]float64, k)
	lines := map[Location][]float64{}
	var order []Location
	for i, st := range p.s.Stacks {
		if st.Kind != KindCPU || len(st.Segments) != k {
			continue
		}
		v := p.views[i]
		for s, w := range st.Segments {
			totals[s] += float64(w)
		}
		if v.site < 0 {
			continue
		}
		loc := p.location(st.Frames[v.site])
		if lines[loc] == nil {
			lines[loc] = make([]float64, k)
			order = append(order, loc)
		}
		for s, w := range st.Segments {
			lines[loc][s] += float64(w)
		}
	}
	if totals[0] == 0 || totals[k-1] == 0 {
		return Location{}, -1, -1
	}
	// Time per operation of a line in a segment: its share of the segment's
	// samples times the segment's wall time per operation.
	at := func(w []float64, s int) float64 { return w[s] / totals[s] * ns[s] / ops[s] }
	best, bestGrowth := Location{}, 0.0
	var bf, bl float64 = -1, -1
	for _, loc := range order {
		f, l := at(lines[loc], 0), at(lines[loc], k-1)
		if l-f > bestGrowth {
			best, bestGrowth, bf, bl = loc, l-f, f, l
		}
	}
	return best, bf, bl
}

// findOneLaneBridge: threads spend a large share of their time blocked on
// one monitor (or one java.util.concurrent lock).
func (p *Profile) findOneLaneBridge(th Thresholds) []Finding {
	type monitor struct {
		ns, events float64
		threads    map[int64]bool
		sites      counter[Location]
	}
	mons := map[string]*monitor{}
	var order []string
	var all float64
	for i, st := range p.s.Stacks {
		if !(st.Kind == KindEnter || st.Kind == KindPark && isLockClass(st.Class)) {
			continue
		}
		m := mons[st.Class]
		if m == nil {
			m = &monitor{threads: map[int64]bool{}}
			mons[st.Class] = m
			order = append(order, st.Class)
		}
		m.ns += float64(st.Weight)
		m.events += float64(st.Count)
		m.threads[st.Thread] = true
		all += float64(st.Weight)
		v := p.views[i]
		switch {
		case v.site >= 0:
			m.sites.add(p.location(st.Frames[v.site]), float64(st.Weight))
		case len(st.Frames) > 0:
			m.sites.add(p.location(st.Frames[0]), float64(st.Weight))
		}
	}
	period := p.periodNs()
	var out []Finding
	for _, cls := range order {
		m := mons[cls]
		if len(m.threads) < th.BridgeMinThreads || int64(m.events) < th.BridgeMinEvents || all == 0 {
			continue
		}
		var running float64
		for t := range m.threads {
			running += float64(p.cpuByThread[t]) * period
		}
		share := m.ns / (m.ns + running)
		monShare := m.ns / all
		if share < th.BridgeMinShare || monShare < th.BridgeMinMonitorShare {
			continue
		}
		site, _ := m.sites.top()
		ops := float64(max(p.s.Ops(), 1))
		name := javaTypeName(cls)
		if name == "" {
			name = "a monitor"
		}
		msg := fmt.Sprintf("one-lane bridge: %d threads spend %.0f %% of their time blocked on %s taken here (%s blocked per operation, %d blocks)",
			len(m.threads), 100*share, name, fmtNs(m.ns/ops), int64(m.events))
		out = append(out, Finding{Kind: FindingOneLaneBridge, Location: site, Message: msg, Evidence: map[string]any{
			"monitorClass": name, "threads": len(m.threads), "blockedShare": round(share, 4),
			"monitorShareOfBlocking": round(monShare, 4), "blockedNs": m.ns, "runningNs": running,
			"blockedNsPerOp": round(m.ns/ops, 3), "events": int64(m.events),
			"minShare": th.BridgeMinShare, "minThreads": th.BridgeMinThreads, "minMonitorShare": th.BridgeMinMonitorShare,
		}})
	}
	return out
}

// isLockClass reports whether a park's blocker is a lock (contention), not a
// queue, future or condition (waiting for work).
func isLockClass(cls string) bool {
	for _, l := range []string{"ReentrantLock", "ReentrantReadWriteLock", "StampedLock", "Semaphore"} {
		if strings.Contains(cls, l) {
			return true
		}
	}
	return false
}

// periodNs is the sampling period to turn samples into time: the recording's
// setting, else the region's length over the busiest thread's samples.
func (p *Profile) periodNs() float64 {
	if p.s.PeriodNs > 0 {
		return float64(p.s.PeriodNs)
	}
	var most int64
	for _, n := range p.cpuByThread {
		most = max(most, n)
	}
	if most == 0 {
		return 0
	}
	return float64(p.s.WindowNs) / float64(most)
}

// findAllocation: excessive allocation of short-lived small objects.
func (p *Profile) findAllocation(th Thresholds, r *Report) []Finding {
	sites, order, total := p.allocSites()
	if total == 0 || r.Ops == 0 || r.NsPerOp <= 0 {
		return nil
	}
	ops := float64(r.Ops)
	var objects, boxed float64
	var top Location
	topObjects := -1.0
	for _, loc := range order {
		a := sites[loc]
		objects += a.objects
		boxed += a.boxed
		if a.objects > topObjects {
			top, topObjects = loc, a.objects
		}
	}
	churn := objects / ops
	share := objects / total
	rate := churn / r.NsPerOp * 1e9 / 1e6 // MB/s
	if churn < th.AllocMinChurnBytesPerOp || share < th.AllocMinChurnShare || rate < th.AllocMinChurnRateMBs {
		return nil
	}
	a := sites[top]
	cls, _ := a.classes.top()
	ev := map[string]any{
		"bytesPerOp": round(total/ops, 1), "objectBytesPerOp": round(churn, 1), "boxedBytesPerOp": round(boxed/ops, 1),
		"objectShare": round(share, 4), "objectRateMBs": round(rate, 1), "topClass": cls,
		"siteBytesPerOp": round(a.bytes/ops, 1), "source": p.s.Alloc,
		"minObjectBytesPerOp": th.AllocMinChurnBytesPerOp, "minObjectShare": th.AllocMinChurnShare, "minRateMBs": th.AllocMinChurnRateMBs,
	}
	what := "small objects"
	if boxed >= th.AllocBoxingShare*objects {
		what = "boxed values (" + cls + ")"
	}
	msg := fmt.Sprintf("excessive allocation: %s of %s per operation (%.0f MB/s); this line allocates %s per operation, mostly %s",
		fmtBytes(churn), what, rate, fmtBytes(a.bytes/ops), cls)
	if gc := p.s.GC; gc.Count > 0 {
		ev["gcs"] = gc.Count
		ev["gcPauseNsPerOp"] = round(float64(gc.PauseNs)/ops, 3)
		if gc.HeapAfterFirst >= 0 && gc.HeapAfterLast >= 0 {
			grew := float64(gc.HeapAfterLast - gc.HeapAfterFirst)
			shortLived := grew < 0.1*total
			ev["heapAfterGCGrowth"] = grew
			ev["shortLived"] = shortLived
			if shortLived {
				msg += fmt.Sprintf("; short-lived: %d collections, the heap after them did not grow", gc.Count)
			}
		}
	}
	return []Finding{{Kind: FindingAllocation, Location: top, Message: msg, Evidence: ev}}
}

// loopSite returns the position of the outermost project frame between the
// stack's target frame (inclusive) and the innermost frame (exclusive: it
// must call something) whose position is inside a loop of its method, and
// whether some frame called from it is inside a loop too; -1 when none.
func (p *Profile) loopSite(st Stack, v stackView) (site int, nested bool) {
	if v.target < 0 {
		return -1, false
	}
	for pos := v.target; pos >= 1; pos-- {
		fi := st.Frames[pos]
		if !p.project(fi) || p.s.Frames[fi].InLoop != 1 {
			continue
		}
		for q := pos - 1; q >= 0; q-- {
			if p.s.Frames[st.Frames[q]].InLoop == 1 {
				return pos, true
			}
		}
		return pos, false
	}
	return -1, false
}

// waitShare is the share of the measuring threads' time (the iterations'
// wall time) spent blocked or waiting in stacks through the target.
func (p *Profile) waitShare() float64 {
	var wall float64
	for _, it := range p.s.Iterations {
		wall += float64(it.Ns)
	}
	if wall == 0 {
		return 0
	}
	var w float64
	for i, st := range p.s.Stacks {
		if isBlocking(st.Kind) && p.marked[st.Thread] && p.views[i].target >= 0 {
			w += float64(st.Weight)
		}
	}
	return w / wall
}

// findTreasureHunt: a call inside a loop leads to a loop again — a search
// repeated for every element (the circuitous treasure hunt re-read for code:
// the method hunts through data again and again before it completes).
func (p *Profile) findTreasureHunt(th Thresholds) []Finding {
	var targetSamples float64
	var sites counter[Location]
	inner := map[Location]*counter[Location]{}
	callee := map[Location]*counter[Location]{}
	for i, st := range p.s.Stacks {
		v := p.views[i]
		if st.Kind != KindCPU || v.target < 0 {
			continue
		}
		c := float64(st.Count)
		targetSamples += c
		pos, nested := p.loopSite(st, v)
		if !nested {
			continue
		}
		loc := p.location(st.Frames[pos])
		sites.add(loc, c)
		if inner[loc] == nil {
			inner[loc], callee[loc] = &counter[Location]{}, &counter[Location]{}
		}
		callee[loc].add(p.location(st.Frames[pos-1]), c)
		// The innermost looping frame below the call: where the repeated search runs.
		for q := 0; q < pos; q++ {
			if fi := st.Frames[q]; p.s.Frames[fi].InLoop == 1 {
				inner[loc].add(p.location(fi), c)
				break
			}
		}
	}
	if targetSamples < float64(th.MinSamples) {
		return nil
	}
	if ws := p.waitShare(); ws > 0.5 {
		return nil
	}
	var out []Finding
	for _, loc := range sites.sorted() {
		share := sites.w[loc] / targetSamples
		if share < th.CTHMinShare {
			break
		}
		cl, _ := callee[loc].top()
		in, _ := inner[loc].top()
		msg := fmt.Sprintf("circuitous treasure hunt: this call runs inside a loop and loops again itself (in %s): %.0f %% of the method's time is a search repeated for every element; look the data up once (an index, a set or a map) before the loop",
			in.String(), 100*share)
		f := Finding{Kind: FindingTreasureHunt, Location: loc, Message: msg, Evidence: map[string]any{
			"nestedLoopShare": round(share, 4), "callee": cl.Method, "innerLoop": in.String(),
			"samples": int64(sites.w[loc]), "methodSamples": int64(targetSamples), "minShare": th.CTHMinShare,
		}}
		if in.File != "" {
			f.Related = append(f.Related, Related{Location: in, Message: "the inner loop the call repeats"})
		}
		out = append(out, f)
	}
	return out
}

// findSemiTrucks: a call inside a loop makes a round trip (waits for
// another thread, a socket, a file) for every element — many small
// requests where one batched request would do.
func (p *Profile) findSemiTrucks(th Thresholds) []Finding {
	var wall float64
	for _, it := range p.s.Iterations {
		wall += float64(it.Ns)
	}
	ops := float64(p.s.Ops())
	if wall == 0 || ops == 0 {
		return nil
	}
	var trips, wait counter[Location]
	how := map[Location]*counter[string]{}
	for i, st := range p.s.Stacks {
		v := p.views[i]
		if !isBlocking(st.Kind) || st.Kind == KindEnter || !p.marked[st.Thread] || v.target < 0 {
			continue
		}
		pos, _ := p.loopSite(st, v)
		if pos < 0 {
			continue
		}
		loc := p.location(st.Frames[pos])
		trips.add(loc, float64(st.Count))
		wait.add(loc, float64(st.Weight))
		if how[loc] == nil {
			how[loc] = &counter[string]{}
		}
		how[loc].add(p.location(st.Frames[pos-1]).Method, float64(st.Weight))
	}
	// The CPU time of the workload's other threads: what the trips could
	// have been waiting for.
	var others float64
	for t, n := range p.cpuByThread {
		if !p.marked[t] {
			others += float64(n)
		}
	}
	others *= p.periodNs()
	// Time those threads spent blocked on a monitor counts as their work
	// too: they were busy with the batch, only contending (a one-lane
	// bridge), not idle between small requests.
	for _, st := range p.s.Stacks {
		if st.Kind == KindEnter && !p.marked[st.Thread] {
			others += float64(st.Weight)
		}
	}
	var out []Finding
	for _, loc := range wait.sorted() {
		perOp := trips.w[loc] / ops
		share := wait.w[loc] / wall
		work := others / wait.w[loc]
		if perOp < th.ESTMinTripsPerOp || share < th.ESTMinWaitShare || work > th.ESTMaxWorkShare {
			continue
		}
		via, _ := how[loc].top()
		perTrip := wait.w[loc] / trips.w[loc]
		msg := fmt.Sprintf("empty semi-trucks: this call inside a loop makes %.1f round trips per operation (%s each, through %s), waiting %.0f %% of the time; send one batched request before the loop",
			perOp, fmtNs(perTrip), via, 100*share)
		out = append(out, Finding{Kind: FindingSemiTrucks, Location: loc, Message: msg, Evidence: map[string]any{
			"tripsPerOp": round(perOp, 3), "waitShare": round(share, 4), "nsPerTrip": round(perTrip, 1), "callee": via,
			"workShare": round(work, 4), "minTripsPerOp": th.ESTMinTripsPerOp, "minWaitShare": th.ESTMinWaitShare,
			"maxWorkShare": th.ESTMaxWorkShare,
		}})
	}
	return out
}

func round(v float64, digits int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	f := math.Pow(10, float64(digits))
	return math.Round(v*f) / f
}
