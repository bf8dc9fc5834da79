package oracle;

import dev.perfls.Workload;

/** Pair 5: the same loop with 100 steps (A) or 115 (B): 15 % more work per call. */
public final class Work {
    private Work() {}

    @Workload("oracle.Calls#calls")
    public static long base(int i) {
        return loop(i, 100);
    }

    @Workload("oracle.Calls#calls")
    public static long more(int i) {
        return loop(i, 115);
    }

    /** About 1 ms per call for steps = 300,000 (the calibration-time figure). */
    public static long spin(int steps) {
        return loop(steps, steps);
    }

    private static long loop(int seed, int steps) {
        long h = seed;
        for (int k = 0; k < steps; k++) {
            h = h * 6364136223846793005L + 1442695040888963407L;
            h ^= h >>> 29;
        }
        return h;
    }
}
