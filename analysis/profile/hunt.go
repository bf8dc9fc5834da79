package profile

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// The circuitous treasure hunt, read for code: a search repeated for every
// element — a call made inside a loop that looks through the data again
// (a linear search, a scan for a match), so that the work per element grows
// with the data. A profile alone shows where the time goes (a call inside a
// loop whose callee loops again), but not whether the work per element
// grows: a recursive walk of a tree that visits every node once has the
// same nested loops on its stacks and does a constant amount per node. The
// evidence is counted: the project's calls and loop passes per operation at
// two sizes of the workload (counting forks, Scaling). A finding needs a
// method below the call whose calls or loop passes per element grow with
// n, at least as fast as √n between the sizes (CTHMinExponent above 1),
// and at least CTHMinPerElement per element at the larger size. Counts of a
// deterministic workload are exact, so the decision has no sampling error;
// the exponent's floor is what separates a repeated search (n² in all, an
// exponent of 2) from an index (n·log n: a sort, a tree or binary search
// per element; below 1.35 between sizes ≥ 10 that are 4 apart).

// minHuntSize and minHuntRatio bound the counted sizes: at n₁ ≥ 10 and
// n₂ ≥ 4·n₁ an n·log n count grows as n^1.35 at most, below the exponent a
// finding needs (at n₁ = 2, n₂ = 8 it would be n^1.79).
const (
	minHuntSize  = 10
	minHuntRatio = 4
)

// Scaling is the evidence a treasure hunt needs besides the profile: how
// often the project's code runs per operation at two or more sizes of the
// workload (measure.CountCalls in an instrumented copy).
type Scaling struct {
	// Sizes are the counted sizes, ascending.
	Sizes []SizeCounts `json:"sizes,omitempty"`
	// Problem says why there are fewer than two sizes ("" when there are).
	Problem string `json:"problem,omitempty"`
}

// SizeCounts are the counts at one size n (the workload's first argument).
type SizeCounts struct {
	N      float64       `json:"n"`
	Counts []MethodCount `json:"counts"`
}

// MethodCount is how often one project method ran per operation.
type MethodCount struct {
	// Method is named as profiles name methods: "p.C#m(int[],java.lang.String)".
	Method string `json:"method"`
	// Calls are its invocations per operation; LoopPasses the passes
	// through its loops' bodies per operation (-1 when not counted).
	Calls      float64 `json:"calls"`
	LoopPasses float64 `json:"loop_passes"`
}

// huntSite is a call inside a loop whose callee loops again.
type huntSite struct {
	loc            Location
	samples        float64
	callee, inner  counter[Location]
	innerInLibrary float64         // samples whose innermost loop is not project code
	below          counter[string] // project methods below the call, by samples
}

// huntSites returns the calls inside a loop of the measured method (or a
// project method it calls) that lead to code that loops again, by
// descending samples, and the method's samples.
func (p *Profile) huntSites() ([]*huntSite, float64) {
	var total float64
	sites := map[Location]*huntSite{}
	var order []Location
	for i, st := range p.s.Stacks {
		v := p.views[i]
		if st.Kind != KindCPU || v.target < 0 {
			continue
		}
		c := float64(st.Count)
		total += c
		pos, nested := p.loopSite(st, v)
		if !nested {
			continue
		}
		loc := p.location(st.Frames[pos])
		hs := sites[loc]
		if hs == nil {
			hs = &huntSite{loc: loc}
			sites[loc] = hs
			order = append(order, loc)
		}
		hs.samples += c
		hs.callee.add(p.location(st.Frames[pos-1]), c)
		seen := map[string]bool{}
		innermost := -1
		for q := 0; q < pos; q++ {
			fi := st.Frames[q]
			if innermost < 0 && p.s.Frames[fi].InLoop == 1 {
				innermost = q
				hs.inner.add(p.location(fi), c)
				if !p.project(fi) {
					hs.innerInLibrary += c
				}
			}
			if m := p.location(fi).Method; p.project(fi) && !seen[m] {
				seen[m] = true
				hs.below.add(m, c)
			}
		}
	}
	out := make([]*huntSite, 0, len(order))
	for _, l := range order {
		out = append(out, sites[l])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].samples > out[j].samples })
	return out, total
}

// NeedsCounts reports whether a treasure hunt is to be decided: a call
// inside a loop that loops again holds at least CTHMinShare of the measured
// method's samples. Then ReportWithCounts needs invocation counts at two
// sizes to decide it.
func (p *Profile) NeedsCounts(th Thresholds) bool {
	th = th.withDefaults()
	sites, total := p.huntSites()
	return total >= float64(th.MinSamples) && p.waitShare() <= 0.5 && len(sites) > 0 && sites[0].samples/total >= th.CTHMinShare
}

// growth is how one counted figure of a method scales between two sizes.
type growth struct {
	method, what       string // what: "calls" or "loop passes"
	lo, hi             float64
	loN, hiN, exponent float64
}

func (g growth) perElement() float64 { return g.hi / g.hiN }

// findTreasureHunt returns the treasure hunts the counts show, and notes
// for the nested loops it could not decide or found not to be a search.
func (p *Profile) findTreasureHunt(th Thresholds, sc *Scaling) ([]Finding, []string) {
	sites, total := p.huntSites()
	if total < float64(th.MinSamples) || p.waitShare() > 0.5 {
		return nil, nil
	}
	var out []Finding
	var notes []string
	for _, hs := range sites {
		share := hs.samples / total
		if share < th.CTHMinShare {
			break
		}
		in, _ := hs.inner.top()
		cl, _ := hs.callee.top()
		where := fmt.Sprintf("the call at %s runs inside a loop and loops again below it (in %s), %.0f %% of the method's time", hs.loc, in, 100*share)
		if sc == nil || len(sc.Sizes) < 2 {
			why := "no invocation counts"
			if sc != nil && sc.Problem != "" {
				why = sc.Problem
			}
			notes = append(notes, fmt.Sprintf("circuitous treasure hunt not decided: %s; whether that is a search repeated for every element needs the calls per element at two sizes (%s)", where, why))
			continue
		}
		if lo, hi := sc.Sizes[0].N, sc.Sizes[len(sc.Sizes)-1].N; lo < minHuntSize || hi < minHuntRatio*lo {
			notes = append(notes, fmt.Sprintf("circuitous treasure hunt not decided: %s; the counts at n = %s and %s are too few or too close to tell a repeated search from an index (sizes of at least %d, %d times apart)",
				where, fmtCount(lo), fmtCount(hi), minHuntSize, minHuntRatio))
			continue
		}
		best, ok := p.bestGrowth(hs, sc)
		if !ok || best.exponent < 1+th.CTHMinExponent || best.perElement() < th.CTHMinPerElement {
			if hs.innerInLibrary > hs.samples/2 {
				notes = append(notes, fmt.Sprintf("circuitous treasure hunt not decided: %s, mostly in library code, which the counting fork does not count", where))
				continue
			}
			if ok {
				notes = append(notes, fmt.Sprintf("not a circuitous treasure hunt: %s, but the work per element does not grow with n (%s of %s: %s and %s per operation at n = %s and %s, n^%.2f)",
					where, best.what, shortMethod(best.method), fmtCount(best.lo), fmtCount(best.hi), fmtCount(best.loN), fmtCount(best.hiN), best.exponent))
			}
			continue
		}
		msg := fmt.Sprintf("circuitous treasure hunt: this call runs inside a loop and searches again below it (in %s): %s makes %s %s per element at n = %s and %s at n = %s (n^%.2f in all, counted), %.0f %% of the method's time; look the data up once (an index, a set or a map) before the loop",
			in, shortMethod(best.method), fmtCount(best.lo/best.loN), best.what, fmtCount(best.loN), fmtCount(best.perElement()), fmtCount(best.hiN), best.exponent, 100*share)
		f := Finding{Kind: FindingTreasureHunt, Location: hs.loc, Message: msg, Evidence: map[string]any{
			"nested_loop_share": round(share, 4), "callee": cl.Method, "inner_loop": in.String(),
			"samples": int64(hs.samples), "method_samples": int64(total),
			"search_method": best.method, "counted": best.what, "sizes": []float64{best.loN, best.hiN},
			"per_op": []float64{best.lo, best.hi}, "exponent": round(best.exponent, 3),
			"min_share": th.CTHMinShare, "min_exponent": 1 + th.CTHMinExponent, "min_per_element": th.CTHMinPerElement,
		}}
		if in.File != "" {
			f.Related = append(f.Related, Related{Location: in, Message: "the inner loop the call repeats"})
		}
		out = append(out, f)
	}
	return out, notes
}

// bestGrowth is the fastest-growing count (calls or loop passes) of the
// project methods below the site, between the smallest and the largest
// counted size; ok is false when none was counted at both.
func (p *Profile) bestGrowth(hs *huntSite, sc *Scaling) (growth, bool) {
	lo, hi := sc.Sizes[0], sc.Sizes[len(sc.Sizes)-1]
	if !(lo.N > 0 && hi.N > lo.N) {
		return growth{}, false
	}
	find := func(s SizeCounts, m string) (MethodCount, bool) {
		for _, c := range s.Counts {
			if c.Method == m {
				return c, true
			}
		}
		return MethodCount{}, false
	}
	var best growth
	found := false
	for _, m := range hs.below.sorted() {
		a, okA := find(lo, m)
		b, okB := find(hi, m)
		if !okA || !okB {
			continue
		}
		for _, k := range []struct {
			what   string
			lo, hi float64
		}{{"calls", a.Calls, b.Calls}, {"loop passes", a.LoopPasses, b.LoopPasses}} {
			if !(k.lo > 0 && k.hi > 0) {
				continue
			}
			g := growth{method: m, what: k.what, lo: k.lo, hi: k.hi, loN: lo.N, hiN: hi.N,
				exponent: math.Log(k.hi/k.lo) / math.Log(hi.N/lo.N)}
			if !found || g.exponent > best.exponent {
				best, found = g, true
			}
		}
	}
	return best, found
}

// shortMethod drops the parameter list and the package: "C#m".
func shortMethod(m string) string {
	m, _, _ = strings.Cut(m, "(")
	if i := strings.LastIndex(m[:max(strings.Index(m, "#"), 0)], "."); i >= 0 {
		m = m[i+1:]
	}
	return m
}
