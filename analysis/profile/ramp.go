package profile

import (
	"fmt"
	"math"
)

// The ramp (seed 003, "The Ramp"): the cost per call grows with the calls
// already made — something the code walks keeps growing (a list that is
// appended to and scanned, a leaking cache).
//
// Within one run the calls made grow with the time passed, so a series of
// one copy of the code cannot tell a ramp from a machine whose speed
// changes during the run (another process starting on the same cores:
// on this project's shared machines the CPU time per call of the same code
// moved by a factor of two within a run). The decision therefore rests on
// the ramp control (Summary.Ramp, the harness's RampControl.java): two fresh
// copies A and B of the code, measured alternately every few milliseconds,
// A making two calls for each of B's. Per round, y = log(A's time per call
// / B's): the machine's speed cancels (both ran at the same moments), and
// what is left grows with A's lead in calls only when the cost grows with
// the calls made. The test is Mann–Kendall's on y in round order (the lead
// grows every round): under "the cost does not depend on the calls made"
// the rounds' y are exchangeable and the one-sided p-value is exact up to
// the normal approximation, so RampAlpha is the rate of false ramps per
// profile. RampMinGrowth is the smallest growth worth a diagnostic, not a
// guard against noise.

// findRamp returns the ramp finding, or a note saying why the ramp was not
// decided ("" when it was).
func (p *Profile) findRamp(th Thresholds) ([]Finding, string) {
	rc := p.s.Ramp
	switch {
	case rc == nil:
		return nil, "ramp not looked for: the profile has no ramp control (a quick profile, a workload loop, or a profile recorded by an older perfls: profile again with --fresh)"
	case rc.Skipped != "":
		return nil, "ramp not looked for: " + rc.Skipped
	}
	y, lead, series := p.rampPairs()
	if len(y) < th.RampMinRounds {
		why := ""
		if rc.Stopped != "" {
			why = " (it stopped at " + rc.Stopped + ")"
		}
		return nil, fmt.Sprintf("ramp not decided: %d rounds of the ramp control, fewer than %d%s", len(y), th.RampMinRounds, why)
	}
	t, ok := trendOf(y)
	if !ok {
		return nil, ""
	}
	slope, _ := theilSen(lead, y) // log of the cost ratio per call of lead
	span := lead[len(lead)-1] - lead[0]
	growth := math.Expm1(slope * span)
	if t.P >= th.RampAlpha || !(slope > 0) || growth < th.RampMinGrowth {
		return nil, ""
	}
	if z := p.rampReference(series); len(z) >= th.RampMinRounds {
		for i := range z {
			z[i] = -z[i]
		}
		if tz, ok := trendOf(z); ok && tz.P < th.RampSettledAlpha {
			return nil, fmt.Sprintf("ramp not decided: the copy that made more calls grew dearer against the fresh one (Mann–Kendall p = %.2g), but the fresh one also got faster against the profiled copy over the rounds (p = %.2g): its compilation had not settled, which makes the other look dearer; profile again, on a quieter machine", t.P, tz.P)
		}
	}
	runCalls := float64(p.s.Ops())
	runGrowth := math.Expm1(slope * runCalls)
	what := "time"
	if series == "cpu" {
		what = "CPU time"
	}
	msg := fmt.Sprintf("ramp: the cost per call grows with the calls already made — a copy of this code that had made %s more calls took %.0f %% more %s per call than a fresh copy run alternately with it (Mann–Kendall p = %.2g over %d rounds)",
		fmtCount(span), 100*growth, what, t.P, len(y))
	if runCalls > 0 {
		msg += fmt.Sprintf("; over this profile's %s calls that is +%.0f %%", fmtCount(runCalls), 100*runGrowth)
	}
	loc, shareA, shareB, paired := p.rampLineInControl(series)
	first, last := -1.0, -1.0
	if !paired {
		loc, first, last = p.rampLine()
	}
	if loc.Method == "" {
		loc = p.targetLocation()
	}
	ev := map[string]any{
		"series": series, "rounds": len(y), "mann_kendall_s": t.S, "z": round(t.Z, 3), "p": t.P,
		"slope_per_call": slope, "lead_calls": span, "growth_over_lead": round(growth, 4),
		"run_calls": runCalls, "growth_over_run": round(runGrowth, 4),
		"alpha": th.RampAlpha, "min_growth": th.RampMinGrowth, "min_rounds": th.RampMinRounds,
	}
	if it, ok := p.iterationTrend(); ok {
		ev["iterations_start_ns_per_op"], ev["iterations_end_ns_per_op"] = round(it[0], 3), round(it[1], 3)
	}
	if paired {
		ev["line_share_a"], ev["line_share_b"] = round(shareA, 4), round(shareB, 4)
		msg += fmt.Sprintf("; this line takes %.0f %% of the time of the copy that made more calls and %.0f %% of the fresh one's — something it walks keeps growing", 100*shareA, 100*shareB)
	} else if first >= 0 {
		ev["line_first_share"], ev["line_last_share"] = round(first, 4), round(last, 4)
		msg += fmt.Sprintf("; this line's share of the method's time went from %.0f %% to %.0f %% over the profile — something it walks keeps growing", 100*first, 100*last)
	}
	f := Finding{Kind: FindingRamp, Location: loc, Message: msg, Evidence: ev}
	if tl := p.targetLocation(); tl.File != "" && tl != loc {
		f.Related = append(f.Related, Related{Location: tl, Message: "the measured method"})
	}
	return []Finding{f}, ""
}

// rampPairs returns, per round of the ramp control, y = log of A's over B's
// time per call and A's lead in calls at the round's middle, and the
// series used: the measuring thread's CPU time when every round has it and
// the thread does not wait by design (under a quarter of its time blocked,
// as the recording shows), else wall time.
func (p *Profile) rampPairs() (y, lead []float64, series string) {
	rounds := p.s.Ramp.Rounds
	series = "cpu"
	for _, r := range rounds {
		if r.A.CPUNs <= 0 || r.B.CPUNs <= 0 {
			series = "wall"
		}
	}
	if p.waitShare() >= 0.25 {
		series = "wall"
	}
	for _, r := range rounds {
		a, b := float64(r.A.Ns), float64(r.B.Ns)
		if series == "cpu" {
			a, b = float64(r.A.CPUNs), float64(r.B.CPUNs)
		}
		if a <= 0 || b <= 0 || r.OpsA <= 0 || r.OpsB <= 0 {
			continue
		}
		y = append(y, math.Log(a/float64(r.OpsA))-math.Log(b/float64(r.OpsB)))
		lead = append(lead, float64(r.CallsA-r.CallsB)+float64(r.OpsA-r.OpsB)/2)
	}
	return y, lead, series
}

// rampReference returns, per round with the profiled copy's windows,
// log(B's time per call / M's) in the given series: it falls while B's
// compilation is still making B faster; a ramp makes it rise (B's state
// grows with its calls).
func (p *Profile) rampReference(series string) []float64 {
	var z []float64
	for _, r := range p.s.Ramp.Rounds {
		b, m := float64(r.B.CPUNs), float64(r.M.CPUNs)
		if series == "wall" {
			b, m = float64(r.B.Ns), float64(r.M.Ns)
		}
		if r.OpsM <= 0 || b <= 0 || m <= 0 {
			continue
		}
		z = append(z, math.Log(b/float64(r.OpsB))-math.Log(m/float64(r.OpsM)))
	}
	return z
}

// iterationTrend is the Theil–Sen line of the recorded iterations' time
// per operation at their first and last iteration (shown as evidence; one
// copy's series cannot decide a ramp).
func (p *Profile) iterationTrend() ([2]float64, bool) {
	var y []float64
	for _, it := range p.s.Iterations {
		if it.Ops > 0 {
			y = append(y, float64(it.Ns)/float64(it.Ops))
		}
	}
	t, ok := trendOf(y)
	if !ok {
		return [2]float64{}, false
	}
	return [2]float64{t.Intercept, t.Intercept + t.Slope*float64(len(y)-1)}, true
}

// fmtCount writes a count briefly: 950, 2.5, 17,400, 2.3 million.
func fmtCount(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.1f billion", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1f million", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%d,%03d", int64(v)/1000, int64(v)%1000)
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// rampLineInControl returns the project line whose time per call grew most
// from copy B to copy A in the ramp control, with its shares of each copy's
// execution samples: A and B ran the same code at the same moments, A
// having made more calls, so the line whose cost grows with the calls adds
// most to A's time per call. A line's time per call in a copy is its share
// of that copy's samples in the rounds' windows times the copy's time per
// call over the rounds (in the series the test used). Library frames count
// for the project line that called them. ok is false when the control has
// no samples or no line's time per call is larger in A. Where to point is
// no decision (the rounds decided): the largest difference will do.
func (p *Profile) rampLineInControl(series string) (loc Location, shareA, shareB float64, ok bool) {
	var a, b counter[Location]
	var na, nb float64
	for _, st := range p.s.Ramp.Stacks {
		site := -1
		for i, fi := range st.Frames {
			if p.project(fi) {
				site = i
				break
			}
		}
		c := float64(st.Count)
		if st.Copy == "A" {
			na += c
		} else {
			nb += c
		}
		if site < 0 {
			continue
		}
		l := p.location(st.Frames[site])
		if st.Copy == "A" {
			a.add(l, c)
		} else {
			b.add(l, c)
		}
	}
	var timeA, timeB, opsA, opsB float64
	for _, r := range p.s.Ramp.Rounds {
		ta, tb := r.A.CPUNs, r.B.CPUNs
		if series == "wall" {
			ta, tb = r.A.Ns, r.B.Ns
		}
		timeA, timeB = timeA+float64(ta), timeB+float64(tb)
		opsA, opsB = opsA+float64(r.OpsA), opsB+float64(r.OpsB)
	}
	if na == 0 || nb == 0 || !(timeA > 0 && timeB > 0 && opsA > 0 && opsB > 0) {
		return Location{}, 0, 0, false
	}
	perCallA, perCallB := timeA/opsA, timeB/opsB
	best := 0.0
	for _, l := range a.order {
		fa, fb := a.w[l]/na, b.w[l]/nb
		if d := fa*perCallA - fb*perCallB; d > best {
			loc, shareA, shareB, best = l, fa, fb, d
		}
	}
	return loc, shareA, shareB, best > 0
}

// rampLine returns the line a ramp points at, and its share of the
// execution samples in the first and the last segment of the recorded
// iterations: of the project lines holding at least 5 % of the last
// segment's samples, the one whose share grew most (the line whose cost
// grows gains share, every other line loses some); when none grew, the
// line with the most samples in the last segment (a method that is one hot
// line from the start keeps its share). first is -1 when there are no
// samples to tell. Shares, not times: a share does not move with the
// machine's speed. Where to point is no decision: the control decided. Used
// when the control's samples do not single out a line (rampLineInControl).
func (p *Profile) rampLine() (Location, float64, float64) {
	k := p.s.Segments
	if k < 2 {
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
	n0, n1 := totals[0], totals[k-1]
	var grew, hot Location
	bestGrowth, most := 0.0, 0.0
	for _, loc := range order {
		w := lines[loc]
		if f, l := w[0]/n0, w[k-1]/n1; l >= 0.05 && l-f > bestGrowth {
			grew, bestGrowth = loc, l-f
		}
		if w[k-1] > most {
			hot, most = loc, w[k-1]
		}
	}
	loc := hot
	if grew.Method != "" {
		loc = grew
	}
	if loc.Method == "" {
		return Location{}, -1, -1
	}
	return loc, lines[loc][0] / n0, lines[loc][k-1] / n1
}
