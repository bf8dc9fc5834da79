package ensemble

import (
	"encoding/binary"
	"math"
	"sort"
)

// Item is one counter's discretised value: "counter Counter is in bin Bin".
// An interval (the seed's transaction) holds exactly one item per counter.
type Item struct{ Counter, Bin int }

// Rule is premise ⇒ consequent with its support and confidence in the run
// it was mined from. As arules' Apriori (the seed's miner, ref. [11], run
// with its defaults but for support and confidence, L95), the consequent is
// a single item, and with arules' default minlen of 1 the premise may be
// empty: {} ⇒ X holds in every interval, its confidence is X's support, and
// it is violated when the counter leaves the bin it kept in the prior run.
type Rule struct {
	Premise    []Item
	Consequent Item
	Support    float64
	Confidence float64
}

// itemset is a frequent set of items (sorted by counter, one per counter)
// with the intervals in which all of them hold.
type itemset struct {
	items []Item
	bits  bitset
	n     int
}

// itemBits maps every item of tx to the intervals where it holds.
func itemBits(tx [][]int) map[Item]bitset {
	m := map[Item]bitset{}
	for t, row := range tx {
		for c, b := range row {
			it := Item{c, b}
			bs, ok := m[it]
			if !ok {
				bs = newBitset(len(tx))
				m[it] = bs
			}
			bs.set(t)
		}
	}
	return m
}

// maxItemsets bounds one level of Apriori: many counters that sit in one
// bin make every combination frequent, and the rules would not fit in memory.
const maxItemsets = 200_000

// Mine is Apriori over the discretised intervals of one run (tx[t][c] is the
// bin of counter c in interval t): the itemsets in at least minSupport of the
// intervals, up to maxPremise+1 items, and from each the rules with one item
// as consequent (and the rest, possibly nothing, as premise) whose
// confidence is at least minConfidence. premise is
// maxPremise, or less when a level of itemsets would have exceeded
// maxItemsets and mining stopped before it.
func Mine(tx [][]int, minSupport, minConfidence float64, maxPremise int) (rules []Rule, premise int) {
	if len(tx) == 0 {
		return nil, 0
	}
	minCount := max(1, int(math.Ceil(minSupport*float64(len(tx))-1e-9)))
	bits := itemBits(tx)
	var level []itemset
	for it, bs := range bits {
		if n := bs.count(); n >= minCount {
			level = append(level, itemset{items: []Item{it}, bits: bs, n: n})
		}
	}
	sort.Slice(level, func(i, j int) bool { return less(level[i].items, level[j].items) })
	counts := map[string]int{}
	for size := 1; len(level) > 0; size++ {
		for _, s := range level {
			counts[itemKey(s.items)] = s.n
		}
		for _, s := range level {
			rules = appendRules(rules, s, counts, len(tx), minConfidence)
		}
		if size > maxPremise {
			break
		}
		var ok bool
		if level, ok = nextLevel(level, bits, minCount); !ok {
			return rules, size - 1
		}
	}
	return rules, maxPremise
}

// nextLevel joins itemsets of one size that share all but their last item
// (the level is sorted, so they are adjacent) into the frequent ones of the
// next size, or reports false past maxItemsets. Two items of one counter
// never hold together, so they are not joined.
func nextLevel(level []itemset, bits map[Item]bitset, minCount int) (next []itemset, ok bool) {
	for i := range level {
		a := level[i]
		k := len(a.items)
		for j := i + 1; j < len(level); j++ {
			b := level[j]
			if !samePrefix(a.items, b.items, k-1) {
				break
			}
			last := b.items[k-1]
			if last.Counter == a.items[k-1].Counter {
				continue
			}
			bs := a.bits.and(bits[last])
			if n := bs.count(); n >= minCount {
				items := append(append(make([]Item, 0, k+1), a.items...), last)
				next = append(next, itemset{items: items, bits: bs, n: n})
				if len(next) > maxItemsets {
					return nil, false
				}
			}
		}
	}
	return next, true
}

// appendRules adds the rules of one itemset: each item in turn as the
// consequent, the others as the premise (frequent, so already counted); a
// single item gives the rule with the empty premise, whose confidence is the
// item's support.
func appendRules(rules []Rule, s itemset, counts map[string]int, total int, minConfidence float64) []Rule {
	if len(s.items) == 1 {
		if conf := float64(s.n) / float64(total); conf >= minConfidence-1e-12 {
			rules = append(rules, Rule{Premise: []Item{}, Consequent: s.items[0], Support: conf, Confidence: conf})
		}
		return rules
	}
	for p, c := range s.items {
		premise := make([]Item, 0, len(s.items)-1)
		premise = append(append(premise, s.items[:p]...), s.items[p+1:]...)
		conf := float64(s.n) / float64(counts[itemKey(premise)])
		if conf >= minConfidence-1e-12 {
			rules = append(rules, Rule{Premise: premise, Consequent: c, Support: float64(s.n) / float64(total), Confidence: conf})
		}
	}
	return rules
}

func less(a, b []Item) bool {
	for i := range a {
		if a[i] != b[i] {
			if a[i].Counter != b[i].Counter {
				return a[i].Counter < b[i].Counter
			}
			return a[i].Bin < b[i].Bin
		}
	}
	return false
}

func samePrefix(a, b []Item, n int) bool {
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itemKey(items []Item) string {
	buf := make([]byte, 0, 4*len(items))
	for _, it := range items {
		buf = binary.AppendVarint(buf, int64(it.Counter))
		buf = binary.AppendVarint(buf, int64(it.Bin))
	}
	return string(buf)
}
