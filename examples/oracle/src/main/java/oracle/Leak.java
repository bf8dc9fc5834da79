package oracle;

import dev.perfls.Workload;
import java.util.ArrayList;

/**
 * Pair 2: the same computation on a fresh temporary per call (A), and the same with a slow leak
 * (B): one temporary in 32 is kept forever. Time and allocation per call hardly change; the
 * heap's floor creeps up.
 */
public final class Leak {
    private Leak() {}

    private static final ArrayList<long[]> kept = new ArrayList<>();

    @Workload("oracle.Calls#calls")
    public static long clean(int i) {
        long[] tmp = new long[8];
        return fill(tmp, i);
    }

    @Workload("oracle.Calls#calls")
    public static long leaky(int i) {
        long[] tmp = new long[8];
        long r = fill(tmp, i);
        if ((i & 31) == 0) {
            kept.add(tmp);
        }
        return r;
    }

    private static long fill(long[] a, int seed) {
        long h = seed;
        for (int k = 0; k < a.length; k++) {
            h = h * 0x9E3779B97F4A7C15L + k;
            a[k] = h;
        }
        return h ^ a[3];
    }
}
