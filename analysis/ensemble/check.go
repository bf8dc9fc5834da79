package ensemble

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// detector holds what every model's check shares: the bins and the new
// run's discretised intervals as item bitsets.
type detector struct {
	cfg      Config
	counters []string
	bins     []Bins
	newBits  map[Item]bitset
	total    int
}

// check re-evaluates each rule on the new run. A rule whose premise never
// holds there cannot flag anything (seed L228); otherwise its confidence on
// the new run is compared with the prior one, and a Δ above the threshold
// flags the consequent's counter.
func (d *detector) check(model string, rules []Rule) modelVerdict {
	v := modelVerdict{violations: map[int][]Violation{}, broken: map[int]bitset{}, tested: map[int]bool{}}
	all := newBitset(d.total)
	for t := 0; t < d.total; t++ {
		all.set(t)
	}
	for _, r := range rules {
		premise := all.clone()
		for _, it := range r.Premise {
			bs, ok := d.newBits[it]
			if !ok {
				premise = nil
				break
			}
			premise.andWith(bs)
		}
		np := 0
		if premise != nil {
			np = premise.count()
		}
		if np == 0 {
			continue
		}
		v.tested[r.Consequent.Counter] = true
		cons := d.newBits[r.Consequent]
		if cons == nil {
			cons = newBitset(d.total)
		}
		confNew := float64(premise.and(cons).count()) / float64(np)
		delta := ConfidenceChange(r.Confidence, confNew)
		if !(delta > d.cfg.DeltaThreshold) {
			continue
		}
		broken := premise.andNot(cons)
		c := r.Consequent.Counter
		var premiseCounters []string
		for _, it := range r.Premise {
			premiseCounters = append(premiseCounters, d.counters[it.Counter])
		}
		v.violations[c] = append(v.violations[c], Violation{Model: model, Rule: d.ruleText(r), Premise: premiseCounters,
			ConfidenceHistory: r.Confidence, ConfidenceNew: confNew, Delta: delta, Intervals: broken.indexes()})
		if v.broken[c] == nil {
			v.broken[c] = newBitset(d.total)
		}
		v.broken[c].orWith(broken)
	}
	return v
}

// aggregate combines the models' verdicts per counter: s = Σ w_i over the
// models that flag it, reported when reports(s) holds; the score is s/scale.
// A counter the vote could not report even if every model that tests it
// flagged it is undecided.
func (d *detector) aggregate(models []modelVerdict, weights []float64, change []*float64, reports func(float64) bool, scale float64) ([]Flag, []Undecided) {
	flags, undecided := []Flag{}, []Undecided{}
	for c, name := range d.counters {
		var s, tested float64
		votes, testing := 0, 0
		var rules []Violation
		broken := newBitset(d.total)
		for i, m := range models {
			if m.tested[c] {
				tested += weights[i]
				testing++
			}
			vs, ok := m.violations[c]
			if !ok {
				continue
			}
			s += weights[i]
			votes++
			rules = append(rules, vs...)
			broken.orWith(m.broken[c])
		}
		if !reports(tested) {
			below, above := d.outside(c)
			undecided = append(undecided, Undecided{Counter: name, Testing: testing, Weight: tested / scale, Votes: votes, Score: s / scale,
				Change: change[c], Below: below, Above: above})
			continue
		}
		if votes == 0 || !reports(s) {
			continue
		}
		sort.SliceStable(rules, func(i, j int) bool { return rules[i].Delta > rules[j].Delta })
		iv := broken.indexes()
		flags = append(flags, Flag{Counter: name, Score: s / scale, Votes: votes, Severity: Severity(len(iv), d.total),
			Change: change[c], Rules: rules, Correlated: correlated(rules), Intervals: iv})
	}
	// Ranked by score, ties broken by severity (seed L143–L145).
	sort.SliceStable(flags, func(i, j int) bool {
		if flags[i].Score != flags[j].Score {
			return flags[i].Score > flags[j].Score
		}
		return flags[i].Severity > flags[j].Severity
	})
	return flags, undecided
}

// outside counts the new run's intervals in which counter c lies below or
// above every prior value.
func (d *detector) outside(c int) (below, above int) {
	if bs, ok := d.newBits[Item{c, Below}]; ok {
		below = bs.count()
	}
	if bs, ok := d.newBits[Item{c, d.bins[c].Above()}]; ok {
		above = bs.count()
	}
	return below, above
}

func (d *detector) ruleText(r Rule) string {
	var ps []string
	for _, it := range r.Premise {
		ps = append(ps, d.itemText(it))
	}
	if len(ps) == 0 {
		ps = []string{"{}"} // arules' notation for the empty premise
	}
	return strings.Join(ps, " and ") + " => " + d.itemText(r.Consequent)
}

func (d *detector) itemText(it Item) string {
	name, b := d.counters[it.Counter], d.bins[it.Counter]
	lo, hi := b.Range(it.Bin)
	switch {
	case math.IsInf(lo, -1):
		return fmt.Sprintf("%s < %.4g", name, hi)
	case math.IsInf(hi, 1):
		return fmt.Sprintf("%s > %.4g", name, lo)
	case lo == hi: // a counter constant over the training runs: one bin
		return fmt.Sprintf("%s = %.4g", name, lo)
	}
	return fmt.Sprintf("%s in [%.4g, %.4g)", name, lo, hi)
}

// correlated lists the counters in the premises of the violated rules, once
// each, the most frequent first (ties by name).
func correlated(rules []Violation) []string {
	n := map[string]int{}
	out := []string{}
	for _, v := range rules {
		for _, c := range v.Premise {
			if n[c] == 0 {
				out = append(out, c)
			}
			n[c]++
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if n[out[i]] != n[out[j]] {
			return n[out[i]] > n[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
