package dev.perfls.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Invocation counters of a counting fork. perfls compiles a copy of the project whose every
 * method and constructor body starts with {@code $perflsHit(ID);} (statically imported) and runs it
 * with {@code -Dperfls.count.size=N} (the number of IDs). The harness snapshots the counters
 * around each measured span ({@link #begin}, {@link #end}), so that only the measured calls count,
 * never the generator's or the warm-up's, and reports, after the last sample, per ID the total
 * and the smallest and largest count of one sample ({@link #report}). The counters are atomic:
 * exact also when the workload runs threads. A counting fork's timings are never used.
 */
public final class Counts {
    private static final AtomicLongArray HITS = new AtomicLongArray(Math.max(0, Integer.getInteger("perfls.count.size", 0)));

    private static long[] start;
    private static long[] sample;
    private static long[] total;
    private static long[] min;
    private static long[] max;
    private static int samples;

    private Counts() {}

    /** Counts one invocation of method {@code id}. */
    public static void $perflsHit(int id) {
        if (id >= 0 && id < HITS.length()) {
            HITS.getAndIncrement(id);
        }
    }

    private static long[] snapshot() {
        long[] s = new long[HITS.length()];
        for (int i = 0; i < s.length; i++) {
            s[i] = HITS.get(i);
        }
        return s;
    }

    /** Starts a measured span. */
    static void begin() {
        start = snapshot();
    }

    /** Ends the span begun last (nothing when none is open): its calls join the sample's. */
    static void end() {
        if (start == null) {
            return;
        }
        long[] now = snapshot();
        if (sample == null) {
            sample = new long[now.length];
        }
        for (int i = 0; i < now.length; i++) {
            sample[i] += now[i] - start[i];
        }
        start = null;
    }

    /** Closes one sample. */
    static void sample() {
        int n = HITS.length();
        long[] s = sample == null ? new long[n] : sample;
        if (total == null) {
            total = new long[n];
            min = new long[n];
            max = new long[n];
            java.util.Arrays.fill(min, Long.MAX_VALUE);
        }
        for (int i = 0; i < n; i++) {
            total[i] += s[i];
            min[i] = Math.min(min[i], s[i]);
            max[i] = Math.max(max[i], s[i]);
        }
        sample = null;
        samples++;
    }

    /**
     * Writes "count-ops OPS SAMPLES" (operations per sample) and one "count ID TOTAL MIN MAX" line
     * per method called in the measured samples.
     */
    static void report(Protocol out, long opsPerSample) {
        out.line("count-ops", Long.toString(opsPerSample), Integer.toString(samples));
        for (int i = 0; total != null && i < total.length; i++) {
            if (total[i] > 0) {
                out.line("count", Integer.toString(i), Long.toString(total[i]), Long.toString(min[i]), Long.toString(max[i]));
            }
        }
    }
}
