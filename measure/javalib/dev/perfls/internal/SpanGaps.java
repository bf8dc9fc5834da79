package dev.perfls.internal;

/**
 * The intervals between a profiled workload loop's measured spans (from {@code spl.end()} to the
 * next {@code spl.start()}: the loop's per-operation set-up, and the harness's reporting), in
 * {@link System#nanoTime} units, so that the profile summary can leave out what happened then
 * (see {@link JfrSummary}). Memory is bounded: when {@link #MAX} intervals are kept, the shortest
 * are dropped (their time is counted in {@link #droppedNs}) and shorter ones are no longer kept.
 * Plain Java, no jdk.jfr types: the sampler creates it before any recording class is loaded.
 */
final class SpanGaps {
    /** The most intervals kept: 8 MB of longs. */
    static final int MAX = 1 << 19;

    private long[] at = new long[2 * 1024];
    private int n;
    private long minNs;
    private long droppedNs;

    /** Adds the interval from {@code from} to {@code to} (nanoTime). */
    void add(long from, long to) {
        long d = to - from;
        if (d <= 0) {
            return;
        }
        if (d < minNs) {
            droppedNs += d;
            return;
        }
        if (n == MAX) {
            compact();
            if (d < minNs) {
                droppedNs += d;
                return;
            }
        }
        if (2 * n == at.length) {
            at = java.util.Arrays.copyOf(at, 2 * at.length);
        }
        at[2 * n] = from;
        at[2 * n + 1] = to;
        n++;
    }

    /** Raises the minimum length until at most three quarters of the kept intervals remain. */
    private void compact() {
        while (n > MAX / 4 * 3) {
            minNs = Math.max(1, 2 * minNs);
            int k = 0;
            for (int i = 0; i < n; i++) {
                long from = at[2 * i], to = at[2 * i + 1];
                if (to - from < minNs) {
                    droppedNs += to - from;
                    continue;
                }
                at[2 * k] = from;
                at[2 * k + 1] = to;
                k++;
            }
            n = k;
        }
    }

    int size() {
        return n;
    }

    long from(int i) {
        return at[2 * i];
    }

    long to(int i) {
        return at[2 * i + 1];
    }

    /** The time of the intervals not kept (shorter than the kept ones when memory ran short). */
    long droppedNs() {
        return droppedNs;
    }
}
