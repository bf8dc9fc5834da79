package dev.perfls.internal;

/**
 * Consumes values so that the JIT compiler cannot prove them dead.
 *
 * <p>Every {@code consume} compares the value against two volatile fields that always differ, so
 * the comparison is never true at run time, but the compiler cannot know that and must keep the
 * value (and the computation producing it). The volatile reads also stop the compiler from
 * hoisting the measured call out of the harness loop.
 *
 * <p>Objects need more: the compiler may fold an identity comparison of a freshly allocated,
 * non-escaping object to {@code false} and then skip the allocation. So an object is published
 * (through a weak reference, to retain nothing) behind a cheap pseudo-random branch that is taken
 * rarely and ever more rarely; the compiler must assume it may escape.
 */
public final class Blackhole {
    // Two fields per type holding different values; (v == a && v == b) is always false.
    private volatile int ia = 1;
    private volatile int ib = 2;
    private volatile long la = 1L;
    private volatile long lb = 2L;
    private volatile double da = 1.0;
    private volatile double db = 2.0;
    private volatile float fa = 1.0f;
    private volatile float fb = 2.0f;
    private volatile boolean za = false;
    private volatile boolean zb = true;
    private volatile int objMask = 0xFFF;
    private int objSeed = (int) System.nanoTime() | 1;

    // Sinks written only when the impossible branch is taken.
    public int sinkI;
    public long sinkL;
    public double sinkD;
    public float sinkF;
    public boolean sinkZ;
    public java.lang.ref.WeakReference<Object> sinkO;

    private volatile boolean never;

    /**
     * Marks one call of a void method: a single volatile read, so that the compiler cannot
     * remove the harness loop even when the measured call compiles to nothing.
     */
    public void step() {
        if (never) {
            sinkZ = true;
        }
    }

    public void consume(Object v) {
        int mask = objMask;
        int seed = objSeed * 1664525 + 1013904223;
        objSeed = seed;
        if ((seed & mask) == 0) {
            sinkO = new java.lang.ref.WeakReference<Object>(v);
            objMask = (mask << 1) | 1;
        }
    }

    public void consume(int v) {
        if (v == ia & v == ib) {
            sinkI = v;
        }
    }

    public void consume(long v) {
        if (v == la & v == lb) {
            sinkL = v;
        }
    }

    public void consume(double v) {
        if (v == da & v == db) {
            sinkD = v;
        }
    }

    public void consume(float v) {
        if (v == fa & v == fb) {
            sinkF = v;
        }
    }

    public void consume(boolean v) {
        if (v == za & v == zb) {
            sinkZ = v;
        }
    }

    public void consume(byte v) {
        consume((int) v);
    }

    public void consume(short v) {
        consume((int) v);
    }

    public void consume(char v) {
        consume((int) v);
    }
}
