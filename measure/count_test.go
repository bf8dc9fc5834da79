package measure

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
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
	text := func(cc *CallCounts) string {
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
	gen := Request{Method: resolveOne(t, b, "c.Pairs#compute"), Generator: resolveOne(t, b, "c.Pairs#arrays(int)"), Args: []Arg{IntArg(40)}}
	cc, err := CountCalls(context.Background(), p, b, gen, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(cc); got != want(40) || cc.Ops < 3 {
		t.Errorf("generator: %s over %d ops\nwant %s", got, cc.Ops, want(40))
	}
	loop := Request{Method: resolveOne(t, b, "c.Pairs#loop"), Args: []Arg{IntArg(9)}}
	if cc, err = CountCalls(context.Background(), p, b, loop, opt); err != nil {
		t.Fatal(err)
	}
	if got := text(cc); got != want(9) {
		t.Errorf("workload loop: %s\nwant %s", got, want(9))
	}
}
