package workspace

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/spl"
)

// A remembered parse is the parse of the same text, shared; the cache
// keeps at most two generations of memoSize texts.
func TestParseMemo(t *testing.T) {
	const text = "for n in {1, 2} SELF(n) <= m.A#b(n) & unused := m.A#c"
	u1, d1 := parseAndLint(text)
	u2, d2 := parseAndLint(text)
	if u1 != u2 || !reflect.DeepEqual(d1, d2) {
		t.Fatal("the second parse of the same text was not remembered")
	}
	fu, fd := spl.ParseAndLint(text)
	if !reflect.DeepEqual(u1, fu) || !reflect.DeepEqual(d1, fd) {
		t.Fatalf("remembered parse differs from a fresh one: %v vs %v", d1, fd)
	}
	a1, _ := parseMethodAlias("x=m.A#b")
	g1, _ := parseGeneratorAlias("x=m.A#b")
	if a1 == nil || g1 == nil || a1 == g1 || a1.Kind == g1.Kind {
		t.Fatalf("method and generator aliases of one text must be told apart: %+v %+v", a1, g1)
	}
	for i := 0; i < 2*memoSize+1; i++ {
		parseAndLint(fmt.Sprintf("SELF(%d) <= m.A#b(1)", i))
	}
	splMemo.Lock()
	n := len(splMemo.cur) + len(splMemo.old)
	_, kept := splMemo.cur[memoKey{memoFormula, text}]
	_, keptOld := splMemo.old[memoKey{memoFormula, text}]
	splMemo.Unlock()
	if n > 2*memoSize || kept || keptOld {
		t.Errorf("cache holds %d entries (bound %d), first text kept: %v %v", n, 2*memoSize, kept, keptOld)
	}
}

// Each version of a huge formula being edited is a new text: such texts
// are not remembered, and the texts remembered are bounded in bytes too
// (every version of a 10 MB formula stayed in memory).
func TestParseMemoBoundsBytes(t *testing.T) {
	big := "for n in {" + strings.Repeat("1,", memoMaxText/2) + "1} SELF(n) <= m.A#b(n)"
	parseAndLint(big)
	splMemo.Lock()
	_, kept := splMemo.cur[memoKey{memoFormula, big}]
	splMemo.Unlock()
	if kept {
		t.Errorf("a text of %d bytes was remembered", len(big))
	}
	pad := strings.Repeat(" ", memoMaxText-100)
	for i := 0; i < 4*memoBytes/memoMaxText; i++ {
		parseAndLint(fmt.Sprintf("SELF(%d) <= m.A#b(1)%s", i, pad))
	}
	splMemo.Lock()
	total := 0
	for _, m := range []map[memoKey]*parsedText{splMemo.cur, splMemo.old} {
		for k := range m {
			total += len(k.text)
		}
	}
	splMemo.Unlock()
	if total > 2*memoBytes {
		t.Errorf("the cache holds %d bytes of text, bound %d", total, 2*memoBytes)
	}
}
