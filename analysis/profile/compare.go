package profile

import (
	"fmt"
	"math"
	"sort"
)

// NotComparable is a method a comparison could not judge.
type NotComparable struct {
	Method string `json:"method"`
	Reason string `json:"reason"`
}

// Diff is the outcome of Compare.
type Diff struct {
	// Comparable is false when the profiles cannot be compared at all
	// (Reason says why); then there are no findings.
	Comparable bool
	Reason     string
	// Findings are "what changed": callee-grew findings and, when the
	// measured method's call subtree grew, a circuitous-treasure-hunt
	// finding with the seed's comparative evidence.
	Findings []Finding
	// NotComparable lists callees the baselines lack: new code or code
	// the baselines never sampled. They are shown, not diagnosed.
	NotComparable []NotComparable
}

// callees is the measured method's call subtree in one profile: the
// execution samples through it and, per callee (by perfls method name),
// the samples whose stacks pass through that callee below it (inclusive,
// each stack counted once per callee), and where the calls come from.
type callees struct {
	total   float64
	samples map[string]float64
	from    map[string]*counter[Location]
	decl    map[string]Location
}

func (p *Profile) callees() callees {
	c := callees{samples: map[string]float64{}, from: map[string]*counter[Location]{}, decl: map[string]Location{}}
	for i, st := range p.s.Stacks {
		v := p.views[i]
		if st.Kind != KindCPU || v.target < 0 {
			continue
		}
		n := float64(st.Count)
		c.total += n
		seen := map[string]bool{}
		for pos := v.target - 1; pos >= 0; pos-- {
			fi := st.Frames[pos]
			name := p.s.Methods[p.s.Frames[fi].Method].MethodName()
			if seen[name] {
				continue
			}
			seen[name] = true
			c.samples[name] += n
			if c.from[name] == nil {
				c.from[name] = &counter[Location]{}
			}
			// The project line that leads here: the nearest project frame above.
			for q := pos + 1; q <= v.target; q++ {
				if p.project(st.Frames[q]) {
					c.from[name].add(p.location(st.Frames[q]), n)
					break
				}
			}
			if _, ok := c.decl[name]; !ok && p.project(fi) {
				loc := p.location(fi)
				if d := p.attr.methodDecl[p.s.Frames[fi].Method]; d >= 0 {
					loc.Line = p.attr.decls[d].NameLine
				}
				c.decl[name] = loc
			}
		}
	}
	return c
}

// subtreeSize counts the callees holding at least 1 % of the method's
// samples: the size of its sampled call subtree, made independent of how
// many samples the recording took (rare callees appear with more samples).
func (c callees) subtreeSize() float64 {
	n := 0
	for _, s := range c.samples {
		if s >= 0.01*c.total {
			n++
		}
	}
	return float64(n)
}

// deviation is the relative change of cur against base (53 against 31 is
// +0.7097).
func deviation(cur, base float64) float64 {
	if base == 0 {
		return math.Inf(1)
	}
	return cur/base - 1
}

// Compare compares a profile with baseline profiles of the same method and
// workload (another revision, or earlier runs) and reports what changed.
// Shares are of the measured method's samples in each profile, so recording
// lengths need not match; every relative limit has an absolute one (see
// Thresholds). A callee missing from a baseline is "not comparable", never a
// finding; a baseline without samples of the method makes the whole
// comparison not comparable.
func Compare(cur *Profile, bases []*Profile, th Thresholds) Diff {
	th = th.withDefaults()
	if cur == nil || len(bases) == 0 {
		return Diff{Reason: "no baseline profile"}
	}
	cc := cur.callees()
	if cc.total < float64(th.MinSamples) {
		return Diff{Reason: fmt.Sprintf("only %d samples of the method in this profile (fewer than %d)", int64(cc.total), th.MinSamples)}
	}
	var bcs []callees
	var baseNs float64
	for i, b := range bases {
		bc := b.callees()
		if bc.total == 0 {
			return Diff{Reason: fmt.Sprintf("baseline %d has no samples of %s", i+1, cur.targetLocation().Method)}
		}
		bcs = append(bcs, bc)
		baseNs += b.s.NsPerOp()
	}
	baseNs /= float64(len(bases))
	out := Diff{Comparable: true}

	out.Findings, out.NotComparable = grownCallees(cc, bcs, th)
	if f, ok := treasureHunt(cur, cc, bcs, baseNs, th); ok {
		out.Findings = append(out.Findings, f)
	}
	return out
}

// grownCallees finds the callees whose share of the method's samples grew
// against the baselines' (bcs) by every limit of th, most grown first, and
// the callees not in every baseline.
func grownCallees(cc callees, bcs []callees, th Thresholds) ([]Finding, []NotComparable) {
	type grown struct {
		name string
		f    Finding
		diff float64
	}
	var found []grown
	var notComparable []NotComparable
	names := make([]string, 0, len(cc.samples))
	for n := range cc.samples {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		curShare := cc.samples[name] / cc.total
		if curShare < th.CompareMinPoints {
			continue // cannot have grown by the minimum
		}
		var baseSum, baseTotal, baseMean float64
		missing := false
		for _, bc := range bcs {
			s, ok := bc.samples[name]
			if !ok {
				missing = true
				break
			}
			baseSum += s
			baseTotal += bc.total
			baseMean += s / bc.total
		}
		if missing {
			notComparable = append(notComparable, NotComparable{Method: name,
				Reason: fmt.Sprintf("not in every baseline profile (%.0f %% of the method's samples now)", 100*curShare)})
			continue
		}
		baseMean /= float64(len(bcs))
		diff := curShare - baseMean
		rel := deviation(curShare, baseMean)
		pv := twoProportionP(cc.samples[name], cc.total, baseSum, baseTotal)
		if diff < th.CompareMinPoints || rel < th.CompareMinRelative || pv >= th.CompareAlpha {
			continue
		}
		found = append(found, grown{name, calleeGrew(cc, name, curShare, baseMean, pv, len(bcs), th), diff})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].diff > found[j].diff })
	var findings []Finding
	for _, g := range found {
		findings = append(findings, g.f)
	}
	return findings, notComparable
}

// calleeGrew is the finding of callee name grown from baseMean to curShare
// of the method's samples (p-value pv over baselines baselines).
func calleeGrew(cc callees, name string, curShare, baseMean, pv float64, baselines int, th Thresholds) Finding {
	diff := curShare - baseMean
	rel := deviation(curShare, baseMean)
	loc, ok := cc.decl[name]
	from, _ := cc.from[name].top()
	if !ok {
		loc = from // a library callee: point at the project line that calls it
	}
	msg := fmt.Sprintf("%s takes %.1f %% of the method's samples, against %.1f %% in the baseline (+%.1f points, %+.0f %%)",
		name, 100*curShare, 100*baseMean, 100*diff, 100*rel)
	f := Finding{Kind: FindingCalleeGrew, Location: loc, Message: msg, Evidence: map[string]any{
		"callee": name, "share": round(curShare, 4), "baseline_share": round(baseMean, 4),
		"points": round(diff, 4), "relative": round(rel, 4), "p": pv, "baselines": baselines,
		"min_points": th.CompareMinPoints, "min_relative": th.CompareMinRelative, "alpha": th.CompareAlpha,
	}}
	if ok && from.Method != "" && from != loc {
		f.Related = append(f.Related, Related{Location: from, Message: "called from here"})
	}
	return f
}

// treasureHunt is the seed's circuitous treasure hunt, compared: the
// sampled call subtree grew against the baselines' (bcs), and so did the
// time per operation against baseNs, their mean.
func treasureHunt(cur *Profile, cc callees, bcs []callees, baseNs float64, th Thresholds) (Finding, bool) {
	size := cc.subtreeSize()
	var baseSize float64
	for _, bc := range bcs {
		baseSize += bc.subtreeSize()
	}
	baseSize /= float64(len(bcs))
	slow := deviation(cur.s.NsPerOp(), baseNs)
	if size-baseSize >= th.CompareMinNodes && deviation(size, baseSize) >= th.CompareMinRelative && slow >= th.CompareMinSlowdown {
		loc := cur.targetLocation()
		return Finding{Kind: FindingTreasureHunt, Location: loc,
			Message: fmt.Sprintf("circuitous treasure hunt: the method's call subtree has %.0f methods against %.1f in the baseline (%+.2f %%), time per operation %+.0f %%",
				size, baseSize, 100*deviation(size, baseSize), 100*slow),
			Evidence: map[string]any{"subtree": size, "baseline_subtree": round(baseSize, 3),
				"relative": round(deviation(size, baseSize), 4), "slowdown": round(slow, 4), "comparison": true,
				"min_nodes": th.CompareMinNodes, "min_relative": th.CompareMinRelative, "min_slowdown": th.CompareMinSlowdown}}, true
	}
	return Finding{}, false
}

// twoProportionP is the one-sided p-value of "x1/n1 is no larger than
// x2/n2" (pooled two-proportion z-test).
func twoProportionP(x1, n1, x2, n2 float64) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	p1, p2 := x1/n1, x2/n2
	pool := (x1 + x2) / (n1 + n2)
	se := math.Sqrt(pool * (1 - pool) * (1/n1 + 1/n2))
	if se == 0 {
		if p1 > p2 {
			return 0
		}
		return 1
	}
	return normalSF((p1 - p2) / se)
}

// AddComparison adds a comparison's findings and not-comparable methods to
// the report (a comparison that is not comparable at all becomes a note).
func (r *Report) AddComparison(c Diff) {
	if !c.Comparable {
		if c.Reason != "" {
			r.Notes = append(r.Notes, "not comparable with the baseline: "+c.Reason)
		}
		return
	}
	r.Findings = append(r.Findings, c.Findings...)
	r.NotComparable = append(r.NotComparable, c.NotComparable...)
}

// CalleeSamples are the measured method's execution samples and, per
// project method it calls (perfls method name, e.g. p.C#f(int[])), the
// samples whose stacks pass through that callee below it, each stack
// counted once per callee: what analysis/model apportions demands by.
func (p *Profile) CalleeSamples() (total float64, byCallee map[string]float64) {
	c := p.callees()
	byCallee = map[string]float64{}
	for name, n := range c.samples {
		if _, project := c.decl[name]; project {
			byCallee[name] = n
		}
	}
	return c.total, byCallee
}
