package editor

import (
	"fmt"
	"strings"
	"testing"
)

func renderSymbols(ss []Symbol, indent string, b *strings.Builder) {
	for _, s := range ss {
		fmt.Fprintf(b, "%s%s [%s] kind=%d %d:%d-%d:%d sel=%d:%d\n", indent, s.Name, s.Detail, s.Kind,
			s.Range.Start.Line, s.Range.Start.Character, s.Range.End.Line, s.Range.End.Character,
			s.SelectionRange.Start.Line, s.SelectionRange.Start.Character)
		renderSymbols(s.Children, indent+"  ", b)
	}
}

func TestSymbols(t *testing.T) {
	src := `package p;
import dev.perfls.SPL;
class A {
    @SPL({"for n in {10} SELF[gen](n) <= m[gen](n)", "SELF[gen](1) < 2 * SELF@HEAD[gen](1)"})
    void m() {}
    void plain() {}
    static Iterable<Object[]> gen(int n) { return null; }
    static class In {
        @SPL("SELF[A.gen](1) < A.m[A.gen](1)")
        void x() {}
    }
    class Empty { void y() {} }
}
class B { void z() {} }
`
	f := parseJava(t, "A.java", src)
	var b strings.Builder
	renderSymbols(Symbols(f), "", &b)
	want := `A [class] kind=5 2:0-12:1 sel=2:6
  m [2 formulas] kind=6 3:4-4:15 sel=4:9
    for n in {10} SELF[gen](n) <= m[gen](n) [formula] kind=25 3:11-3:50 sel=3:11
    SELF[gen](1) < 2 * SELF@HEAD[gen](1) [formula] kind=25 3:54-3:90 sel=3:54
  gen [generator(int n)] kind=12 6:4-6:57 sel=6:30
  In [class] kind=5 7:4-10:5 sel=7:17
    x [1 formula] kind=6 8:8-9:19 sel=9:13
      SELF[A.gen](1) < A.m[A.gen](1) [formula] kind=25 8:14-8:44 sel=8:14
`
	if got := b.String(); got != want {
		t.Errorf("symbols\n got:\n%s\nwant:\n%s", got, want)
	}
}
