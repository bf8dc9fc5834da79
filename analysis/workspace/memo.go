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

// A parse takes some fifty times its text's size, and every version of a
// huge formula being edited is a new text: texts longer than memoMaxText
// are not remembered (parsing one again costs under a millisecond next
// to the editor's round trip), and a generation also ends when its texts
// reach memoBytes.
const (
	memoMaxText = 8 << 10
	memoBytes   = 512 << 10
)

// splMemo is a two-generation cache: entries found in the old generation
// move to the current one; when the current one is full it becomes the
// old one. Entries used within the last memoSize distinct texts stay.
var splMemo memo

type memo struct {
	sync.Mutex
	cur, old map[memoKey]*parsedText
	curBytes int // text bytes in cur
}

func memoized(k memoKey, parse func() *parsedText) *parsedText {
	if len(k.text) > memoMaxText {
		return parse()
	}
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
	if _, ok := m.cur[k]; ok {
		return // two parses of one text raced
	}
	if m.cur == nil || len(m.cur) >= memoSize || m.curBytes+len(k.text) > memoBytes {
		m.old, m.cur, m.curBytes = m.cur, make(map[memoKey]*parsedText), 0
	}
	m.cur[k] = p
	m.curBytes += len(k.text)
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
