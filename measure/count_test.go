package measure

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/measured"
)

const countProjectSrc = `package c;

import dev.perfls.SPLController;
import java.util.Collections;

public class Pairs {
    private final int base;
    private static final int dev = 0; // hides the package dev in qualified names

    public Pairs() { this(3); }

    public Pairs(int base) {
        super();
        this.base = base;
    }

    public long compute(int[] a) {
        long s = label("x") + dev;
        for (int i = 0; i < a.length; i++) {
            for (int j = i + 1; j < a.length; j++) {
                s += pairs(a[i], a[j]);
            }
        }
        return s + new Pairs().base;
    }

    static long pairs(int x, int y) { return x ^ y; }

    static int label(String s) { return s.length(); }

    static int[] fill(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i * 31;
        }
        return a;
    }

    public static Iterable<Object[]> arrays(int n) {
        return Collections.singletonList(new Object[] {new Pairs(1), fill(n)});
    }

    public static void loop(SPLController spl, int n) {
        int[] a = fill(n);
        Pairs p = new Pairs(2);
        while (spl.needsMore()) {
            fill(3); // outside the span: not counted
            spl.start();
            p.compute(a);
            spl.end();
        }
    }
}
`

// TestCountCalls counts the invocations per operation of a method whose
// call counts are known: compute(a) calls pairs n·(n−1)/2 times, label
// once and the two chained constructors once each. The generator's and the
// workload loop's set-up calls (fill, the receiver's constructor) are
// outside the measured spans and do not count; names carry the class
// file's parameter types.
func TestCountCalls(t *testing.T) {
	requireJDK(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "c", "Pairs.java"), countProjectSrc)
	p, err := FindProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compile(context.Background(), p, sharedCache)
	if err != nil {
		t.Fatal(err)
	}
	want := func(n int) string {
		return fmt.Sprintf("c.Pairs#pairs(int,int)=%d c.Pairs#<init>()=1 c.Pairs#<init>(int)=1 c.Pairs#compute(int[])=1 c.Pairs#label(java.lang.String)=1", n*(n-1)/2)
	}
	text := func(cc *measured.CallCounts) string {
		var parts []string
		for _, c := range cc.Calls {
			s := fmt.Sprintf("%s=%g", c.Method, c.PerOp)
			if c.Varies {
				s += "(varies)"
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ")
	}
	opt := Options{SamplesPerFork: 3, MinSampleTime: 2e6, Warmup: 5e7, MaxWarmup: 5e8}
	gen := measured.Request{Method: resolveOne(t, b, "c.Pairs#compute"), Generator: resolveOne(t, b, "c.Pairs#arrays(int)"), Args: []measured.Arg{measured.IntArg(40)}}
	cc, err := CountCalls(context.Background(), p, b, gen, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(cc); got != want(40) || cc.Ops < 3 {
		t.Errorf("generator: %s over %d ops\nwant %s", got, cc.Ops, want(40))
	}
	// compute's loops: the outer one 40 passes, the inner one 40·39/2.
	if len(cc.Loops) != 1 || cc.Loops[0].Method != "c.Pairs#compute(int[])" || cc.Loops[0].PerOp != 40+780 || !cc.LoopsCounted {
		t.Errorf("loop passes %+v", cc.Loops)
	}
	loop := measured.Request{Method: resolveOne(t, b, "c.Pairs#loop"), Args: []measured.Arg{measured.IntArg(9)}}
	if cc, err = CountCalls(context.Background(), p, b, loop, opt); err != nil {
		t.Fatal(err)
	}
	if got := text(cc); got != want(9) {
		t.Errorf("workload loop: %s\nwant %s", got, want(9))
	}
	// The workload loop's own while is outside the spans: only compute's count.
	if len(cc.Loops) != 1 || cc.Loops[0].PerOp != 9+36 {
		t.Errorf("workload loop: loop passes %+v", cc.Loops)
	}
}

// TestInstrumentLoops: every loop body gets a counter on its own lines —
// after a block's '{', or inside braces wrapped around a single statement —
// named after the method around it (a lambda's loop counts for its method);
// loops outside methods are not counted.
func TestInstrumentLoops(t *testing.T) {
	src := `package p;
class L {
    static int[] t = new int[3];
    static { for (int i = 0; i < 3; i++) t[i] = i; }
    int f(int[] a) {
        int s = 0;
        for (int x : a) s += x;
        while (s > 100) s /= 2;
        do s++; while (s < 3);
        for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) s += i * j;
        Runnable r = () -> { for (;;) { break; } };
        return s;
    }
}
`
	out, ms, err := instrumentSource(context.Background(), "L.java", []byte(src), 5)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Count(got, "\n") != strings.Count(src, "\n") {
		t.Errorf("lines moved:\n%s", got)
	}
	for _, want := range []string{
		"static { for (int i = 0; i < 3; i++) t[i] = i; }", // not in a method
		"int f(int[] a) {$perflsHit(5);",
		"for (int x : a) {$perflsHit(6);s += x;}",
		"while (s > 100) {$perflsHit(7);s /= 2;}",
		"do {$perflsHit(8);s++;} while (s < 3);",
		"for (int i = 0; i < 2; i++) {$perflsHit(9);for (int j = 0; j < 2; j++) {$perflsHit(10);s += i * j;}}",
		"for (;;) {$perflsHit(11); break; }",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if len(ms) != 7 || ms[0].Loop || !ms[1].Loop || ms[6].Name != "f" || !ms[6].Loop {
		t.Errorf("counters %+v", ms)
	}
}
