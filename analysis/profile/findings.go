package profile

import (
	"fmt"
	"math"
	"strings"
)

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
			"monitor_class": name, "threads": len(m.threads), "blocked_share": round(share, 4),
			"monitor_share_of_blocking": round(monShare, 4), "blocked_ns": m.ns, "running_ns": running,
			"blocked_ns_per_op": round(m.ns/ops, 3), "events": int64(m.events),
			"min_share": th.BridgeMinShare, "min_threads": th.BridgeMinThreads, "min_monitor_share": th.BridgeMinMonitorShare,
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
		"bytes_per_op": round(total/ops, 1), "object_bytes_per_op": round(churn, 1), "boxed_bytes_per_op": round(boxed/ops, 1),
		"object_share": round(share, 4), "object_rate_mbs": round(rate, 1), "top_class": cls,
		"site_bytes_per_op": round(a.bytes/ops, 1), "source": p.s.Alloc,
		"min_object_bytes_per_op": th.AllocMinChurnBytesPerOp, "min_object_share": th.AllocMinChurnShare, "min_rate_mbs": th.AllocMinChurnRateMBs,
	}
	what := "small objects"
	if boxed >= th.AllocBoxingShare*objects {
		what = "boxed values (" + cls + ")"
	}
	msg := fmt.Sprintf("excessive allocation: %s of %s per operation (%.0f MB/s); this line allocates %s per operation, mostly %s",
		fmtBytes(churn), what, rate, fmtBytes(a.bytes/ops), cls)
	if gc := p.s.GC; gc.Count > 0 {
		ev["gcs"] = gc.Count
		ev["gc_pause_ns_per_op"] = round(float64(gc.PauseNs)/ops, 3)
		if gc.HeapAfterFirst >= 0 && gc.HeapAfterLast >= 0 {
			grew := float64(gc.HeapAfterLast - gc.HeapAfterFirst)
			shortLived := grew < 0.1*total
			ev["heap_after_gc_growth"] = grew
			ev["short_lived"] = shortLived
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
			"trips_per_op": round(perOp, 3), "wait_share": round(share, 4), "ns_per_trip": round(perTrip, 1), "callee": via,
			"work_share": round(work, 4), "min_trips_per_op": th.ESTMinTripsPerOp, "min_wait_share": th.ESTMinWaitShare,
			"max_work_share": th.ESTMaxWorkShare,
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
