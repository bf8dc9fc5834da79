package workspace

import (
	"sync"

	"github.com/perfls/perfls/analysis/spl"
)

// SPL parsing is a pure function of the formula's text, and an editor
// re-reads every formula of a file at each keystroke though at most one
// changed: results are remembered by text. The ASTs are immutable and may
// be shared by formulas with the same text, in any number of files and
// versions.

type parsedText struct {
	unit  *spl.Unit
	alias *spl.Alias
	diags []spl.Diagnostic
}

type memoKind uint8

const (
	memoFormula memoKind = iota
	memoMethodAlias
	memoGeneratorAlias
)

type memoKey struct {
	kind memoKind
	text string
}

// memoSize bounds each of the cache's two generations.
const memoSize = 4096

// splMemo is a two-generation cache: entries found in the old generation
// move to the current one; when the current one is full it becomes the
// old one. Entries used within the last memoSize distinct texts stay.
var splMemo memo

type memo struct {
	sync.Mutex
	cur, old map[memoKey]*parsedText
}

func memoized(k memoKey, parse func() *parsedText) *parsedText {
	splMemo.Lock()
	p := splMemo.cur[k]
	if p == nil {
		if p = splMemo.old[k]; p != nil {
			splMemo.put(k, p)
		}
	}
	splMemo.Unlock()
	if p != nil {
		return p
	}
	p = parse() // outside the lock: parses of different texts run in parallel
	splMemo.Lock()
	splMemo.put(k, p)
	splMemo.Unlock()
	return p
}

// put is called with splMemo locked.
func (m *memo) put(k memoKey, p *parsedText) {
	if m.cur == nil || len(m.cur) >= memoSize {
		m.old, m.cur = m.cur, make(map[memoKey]*parsedText, memoSize)
	}
	m.cur[k] = p
}

// parseAndLint is spl.ParseAndLint, remembered.
func parseAndLint(text string) (*spl.Unit, []spl.Diagnostic) {
	p := memoized(memoKey{memoFormula, text}, func() *parsedText {
		u, ds := spl.ParseAndLint(text)
		return &parsedText{unit: u, diags: ds}
	})
	return p.unit, p.diags
}

// parseMethodAlias is spl.ParseMethodAlias, remembered.
func parseMethodAlias(text string) (*spl.Alias, []spl.Diagnostic) {
	p := memoized(memoKey{memoMethodAlias, text}, func() *parsedText {
		a, ds := spl.ParseMethodAlias(text)
		return &parsedText{alias: a, diags: ds}
	})
	return p.alias, p.diags
}

// parseGeneratorAlias is spl.ParseGeneratorAlias, remembered.
func parseGeneratorAlias(text string) (*spl.Alias, []spl.Diagnostic) {
	p := memoized(memoKey{memoGeneratorAlias, text}, func() *parsedText {
		a, ds := spl.ParseGeneratorAlias(text)
		return &parsedText{alias: a, diags: ds}
	})
	return p.alias, p.diags
}
