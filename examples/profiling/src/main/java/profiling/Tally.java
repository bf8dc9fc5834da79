package profiling;

import dev.perfls.Generator;
import dev.perfls.Param;
import dev.perfls.Workload;
import java.util.Collections;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Seeded cause: four threads on one monitor. addAll splits the work over four pool threads,
 * but each of them takes the same lock for every element, so they mostly wait for each other.
 * Expected finding: one-lane-bridge at the marked synchronized block.
 */
public final class Tally {
    private Tally() {}

    private static final int THREADS = 4;
    private static final Object LOCK = new Object();
    private static final ExecutorService POOL = Executors.newFixedThreadPool(THREADS, r -> {
        Thread t = new Thread(r, "tally-worker");
        t.setDaemon(true);
        return t;
    });
    private static long total;

    @Workload("profiling.Tally#values")
    public static long addAll(int[] values) throws Exception {
        Future<?>[] parts = new Future<?>[THREADS];
        for (int t = 0; t < THREADS; t++) {
            final int first = t;
            parts[t] = POOL.submit(() -> addSlice(values, first));
        }
        for (Future<?> p : parts) {
            p.get();
        }
        return total;
    }

    private static void addSlice(int[] values, int first) {
        for (int i = first; i < values.length; i += THREADS) {
            synchronized (LOCK) { // cause: one-lane-bridge
                total += weigh(values[i]);
            }
        }
    }

    private static long weigh(int v) {
        long h = v;
        for (int k = 0; k < 10_000; k++) { // about 15 µs inside the lock
            h = h * 0x9E3779B97F4A7C15L + k;
        }
        return h >>> 60;
    }

    @Generator("one array of n ints")
    public static Iterable<Object[]> values(@Param(value = "array length", min = 1) int n) {
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = i * 31;
        }
        return Collections.singletonList(new Object[] {values});
    }
}
