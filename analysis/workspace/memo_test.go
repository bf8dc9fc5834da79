package workspace

import (
	"fmt"
	"reflect"
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
